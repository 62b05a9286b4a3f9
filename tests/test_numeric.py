"""The numeric path (issue 16): `show` without sympy, equal to the exact ledger.

- For every catalog model in several scenarios, the numeric evaluation's JSON document equals
  the exact (sympy-declared, Fraction-evaluated) one exactly: same keys, same values, ints
  where exact values are whole.
- `show`, `image`, `rope`, `validate` (sweeps on the generated numpy functions), `list`,
  `docs`, `derive` and `xlsx` run without importing sympy once the generated ledger is
  cached, and regenerate it into a fresh cache when there is none.
- The LaTeX a document shows for each model's quantity is the one sympy prints for the form
  with that model's structural zeros substituted; its Excel formula and the Excel formulas of
  computed defaults are the ones sympy's Excel printer prints.
- Bad input gets one line naming the field on both paths.
"""

import json
import os
import subprocess
import sys

import pytest

from ledgerbuild import catalog
from ledgerbuild.errors import LedgerError
from ledgerbuild.evaluate import Evaluator
from ledgerbuild.numeric import NumericEvaluator
from ledgerbuild.printed import Printed, excel_of, latex_of, printed_ledger
from ledgerbuild.printers.excel import formula_template
from ledgerbuild.printers.latex import for_model, latex_template, structural_zeros

SCENARIOS = [
    {},
    {"gpu": "b200", "weight_dtype": "fp8", "kv_dtype": "fp8", "workload": "long-doc-qa"},
    {
        "time_model": "roofline",
        "gpu_count": "8",
        "batch_size": "32",
        "rope_method": "yarn",
        "rope_factor": "4",
    },
    {"images_per_request": "2", "image_height": "700", "image_width": "1300", "audio_seconds": "12.5"},
    {"weight_dtype": "nvfp4", "price_per_gpu_hour": "1/3", "vocab_size": "50000", "ttft_s": "0.25"},
]


@pytest.mark.parametrize("sets", SCENARIOS, ids=lambda s: ",".join(s) or "default")
def test_numeric_json_equals_the_exact_ledger_for_every_model(sets):
    exact, numeric = Evaluator(sets), NumericEvaluator(sets)
    for model in catalog.models():
        assert numeric.evaluate(model).as_json() == exact.evaluate(model).as_json(), model


@pytest.mark.parametrize(
    "sets, field",
    [
        ({"prompt_tokens": "-5"}, "prompt_tokens"),
        ({"mfu": "3"}, "mfu"),
        ({"no_such": "1"}, "no_such"),
        ({"tie_word_embeddings": "2"}, "tie_word_embeddings"),
        ({"expert_parallel": "3"}, "expert_parallel"),
        ({"rope_factor": "0.5"}, "rope_factor"),
        ({"per_giga": "1"}, "per_giga"),
        ({"batch_size": "1e5000"}, "batch_size"),
    ],
)
def test_bad_input_is_one_line_naming_the_field_on_both_paths(sets, field):
    """The exact path resolves the scenario through the numeric path's rules: the same
    one-line error, naming the field, whichever path evaluates."""
    for cls in (Evaluator, NumericEvaluator):
        with pytest.raises(LedgerError) as caught:
            cls(sets).evaluate("deepseek-v3")
        message = str(caught.value)
        assert field in message and "\n" not in message, (cls.__name__, message)


def test_show_and_list_do_not_import_sympy(tmp_path):
    env = {**os.environ, "LEDGERBUILD_CACHE": str(tmp_path)}
    probe = (
        "import sys, runpy; sys.argv = ['ledgerbuild', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('ledgerbuild.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write('SYMPY' if 'sympy' in sys.modules else 'CLEAN')\n"
    )
    first = subprocess.run(
        [sys.executable, "-c", probe, "show", "llama-3-8b", "--json"], env=env, capture_output=True, text=True
    )
    assert first.stderr.endswith("SYMPY") and list(tmp_path.glob("numeric_*.py"))  # cold: generated once
    commands = [
        ["show", "qwen2-vl-7b"],
        ["image", "qwen2-vl-7b", "--json"],
        ["rope", "llama-3-8b", "--method", "yarn", "--target-tokens", "131072", "--json"],
        ["validate", "-o", str(tmp_path / "validation")],
        ["docs", "--models", "llama-3-8b,qwen2-vl-7b", "-o", str(tmp_path / "docs")],
        ["derive", "gpt-oss-20b", "tpot_s", "--set", "spec_draft_model=gpt-oss-20b"],
        ["xlsx", "--models", "llama-3-8b,deepseek-v3", "-o", str(tmp_path / "w.xlsx")],
        ["plan", "llama-3-8b", "--gpu", "h100-sxm", "--requests-per-day", "1000", "--json"],
        ["frontier", "llama-3-8b", "--gpu", "h100-sxm", "--json", "-o", str(tmp_path / "f.svg")],
        ["list", "quantities", "--json"],
    ]
    for args in commands:
        run = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True)
        assert run.stderr.endswith("CLEAN"), (args, run.stderr[-300:])
    assert json.loads(run.stdout)[0]["name"]


def test_sweep_equals_the_exact_ledger_point_by_point():
    """The generated numpy functions, swept over models x GPUs x batch x context, equal the
    exact evaluation at every point (to a double's rounding)."""
    import math

    from ledgerbuild.sweeps import sweep

    models, gpus = ["llama-3-8b", "deepseek-v3", "qwen2-vl-7b", "qwen3-next-80b-a3b"], ["h100-sxm", "l4"]
    grid = {"batch_size": [1, 16], "context_tokens": [1000, 40000]}
    for quantity in ("decode_step_s", "kv_bytes_at_context", "usd_per_million_output_tokens"):
        out = sweep(quantity, models, gpus, grid)
        for i in range(len(out[quantity])):
            sets = {"gpu": out["gpu_labels"][out["gpu"][i]], **{k: str(int(out[k][i])) for k in grid}}
            want = float(Evaluator(sets).evaluate(out["model_labels"][out["model"][i]]).value(quantity))
            assert math.isclose(out[quantity][i], want, rel_tol=1e-12), (quantity, i)


def test_each_models_printed_forms_are_sympys_prints():
    exact, numeric = Evaluator(), NumericEvaluator()
    for model in catalog.models():
        declared, generated = exact.evaluate(model), numeric.evaluate(model)
        zeros = structural_zeros(generated)
        assert zeros == structural_zeros(declared)
        for q, form in zip(declared.quantities, generated.quantities, strict=True):
            printed = latex_template(for_model(q.expr, zeros)).parts
            assert (form.name, latex_of(form, zeros).parts) == (q.name, printed), model
            assert excel_of(form).parts == formula_template(q.expr).parts, (model, q.name)
    defaults = {n: i.default for n, i in printed_ledger().inputs.items() if isinstance(i.default, Printed)}
    declared_inputs = exact.ledger.inputs
    assert {"embedding_dtype", "context_tokens"} <= set(defaults)
    for name, default in defaults.items():
        want = declared_inputs[name].default
        assert default.template.parts == formula_template(want).parts, name
