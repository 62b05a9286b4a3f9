"""The scenario parsed once (issue 31): a build's --set values become one rules.Scenario that
every evaluation reads. A workbook build evaluates each model under hundreds of column
variants and the frontier's layouts; the user's values are parsed once in all of it (before:
462 times each for all models, 231 evaluators)."""

from __future__ import annotations

import collections

import pytest

from ledgerbuild import numeric, rules
from ledgerbuild.errors import LedgerError
from ledgerbuild.numeric import NumericEvaluator
from ledgerbuild.writers.xlsx import build_workbook
from ledgerbuild.writers.xlsx import workers as xlsx_workers


def test_a_workbook_build_parses_each_set_value_once(monkeypatch):
    monkeypatch.setattr(xlsx_workers, "PARALLEL_FROM", 10**9)  # in process: every parse counted
    calls: collections.Counter = collections.Counter()
    parse = rules.parse_number

    def counted(name, text):
        calls[name, str(text)] += 1
        return parse(name, text)

    monkeypatch.setattr(rules, "parse_number", counted)
    monkeypatch.setattr(numeric, "parse_number", counted, raising=False)  # where it was called before
    sets = {"batch_size": "3", "mfu": "0.37", "hidden_size": "4096"}
    evaluators = collections.Counter()
    init = NumericEvaluator.__init__

    def counted_init(self, *args, **kwargs):
        evaluators["n"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(NumericEvaluator, "__init__", counted_init)
    wb = build_workbook("llama-3-8b,qwen2-vl-7b", "h100-sxm,l4", sets, manifest=False)[0]
    assert evaluators["n"] > 20  # the columns' variants and the frontier's layouts
    assert {k: calls[k] for k in [(n, v) for n, v in sets.items()]} == {(n, v): 1 for n, v in sets.items()}
    assert "Frontier" in wb.sheetnames


def test_a_variant_adds_its_values_and_checks_them():
    base = NumericEvaluator({"batch_size": "3", "gpu_count": "2"})
    variant = base.variant({"batch_size": "5", "gpu": "l4"})
    assert dict(variant.sets) == {"batch_size": "5", "gpu_count_setting": "2", "gpu": "l4"}
    assert variant.parsed.numbers == {"batch_size": 5, "gpu_count_setting": 2}
    assert base.parsed.numbers["batch_size"] == 3  # the base is unchanged (frozen)
    with pytest.raises(LedgerError, match="--set batch_sise: unknown name"):
        base.variant({"batch_sise": "4"})
    with pytest.raises(LedgerError, match="not a number"):
        base.variant({"batch_size": "four"})
