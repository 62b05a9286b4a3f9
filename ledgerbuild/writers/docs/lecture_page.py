"""The page "Reproduce the lecture" that `docs` writes beside the index (reproduce-the-lecture.md).

Scope: the lecture's scenario pinned (scenarios/lecture_figures.yaml `scenario`, the golden tests'
LECTURE), the commands that reproduce it, and each figure the lecture prints beside the ledger's:
the lecture's column is the data file's (copied from the golden tests with its section), the
ledger's is the numeric evaluator's value under the same settings. Nothing is recomputed to fill
the lecture's column. Shortcuts: Markdown only (the LaTeX set has no such page); the agreement
column applies the golden test's own comparison (exact, rounded at the printed digits, or a
stated relative tolerance).
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources
from pathlib import Path

from ... import catalog
from ...errors import LedgerError
from ...files import read_input, write_text
from ...numeric import NumericEvaluator

PAGE = "reproduce-the-lecture.md"
SOURCE = "Lecture P2 'The Arithmetic of Transformer Inference' (seeds/000)"
SCALES = {1: "", 1e-2: "%", 1e-3: "× 10^-3", 1024: "× 2^10", 2**20: "× 2^20"}
MEANING = {
    "serving_engine": "the lecture's KV budget: utilisation x memory - weights, no reserve, batch cap 256",
    "memory_gb_unit_bytes": "the marketed GB read as 1e9 bytes (8 x 80 GB x 0.9 = 576 GB)",
    "time_model": "the roofline floor (§6.2); the §6.3 cost rows set lecture-serving",
    "gpu_count_setting": "one GPU unless a row says gpu_count",
    "price_per_gpu_hour": "3 USD per GPU-hour (§6.3)",
    "concurrency": "one request in flight (§6.2's TTFT and TPOT are a lone request's)",
}


@cache
def lecture_figures() -> dict:
    """The data file: {"scenario": {...}, "figures": [row, ...]}."""
    import yaml

    path = Path(str(resources.files("ledgerbuild.catalog_scenarios"))) / "lecture_figures.yaml"
    doc = yaml.safe_load(read_input(path))
    if not isinstance(doc, dict) or not isinstance(doc.get("figures"), list):
        raise LedgerError(f"{path}: expected a mapping with `scenario` and `figures`")
    return doc


def scale_text(scale: float) -> str:
    if scale in SCALES:
        return SCALES[scale]
    exponent = round(math.log10(scale))
    if 10.0**exponent != scale:
        raise LedgerError(f"lecture_figures.yaml: scale {scale}: not a power of ten, 1024 or 2^20")
    return f"× 10^{exponent}"


def shown(value: float, row: dict) -> str:
    """A figure at the precision the lecture prints it (the golden test's comparison)."""
    check, printed = row["check"], repr(row["lecture"])
    if isinstance(check, dict) and "round" in check:
        return f"{value:,.{check['round']}f}"
    digits = len(printed.split(".")[1]) if "." in printed else 0
    if check == "exact" and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits if check != 'exact' else 6}f}"


def agrees(value: float, row: dict) -> bool:
    check, want = row["check"], row["lecture"]
    if check == "exact":
        return value == want
    if "round" in check:
        return math.isclose(round(value, check["round"]), want, rel_tol=1e-12, abs_tol=1e-12)
    return abs(value - want) <= check["rel"] * abs(want)


def ledger_rows() -> list[dict]:
    """Each figure with the ledger's value beside the lecture's: one evaluator per setting, one
    evaluation per setting and model (the float path, tested equal to the exact one for every
    quantity)."""
    doc = lecture_figures()
    groups: dict[tuple, list[dict]] = {}
    for row in doc["figures"]:  # in order: a row's gpu_count overrides gpu_count_setting (an alias)
        groups.setdefault(
            (tuple({**doc["scenario"], **row.get("set", {})}.items()), row["model"]), []
        ).append(row)
    evaluators: dict[tuple, NumericEvaluator] = {}
    ledger: dict[str, float] = {}
    units: dict[str, str] = {}
    for (key, model), rows in groups.items():
        if key not in evaluators:
            evaluators[key] = NumericEvaluator(dict(key))
        evaluator = evaluators[key]
        for row in rows:
            if row["quantity"] not in evaluator.forms:
                raise LedgerError(f"lecture_figures.yaml: {row['id']}: unknown quantity {row['quantity']!r}")
        names = frozenset(row["quantity"] for row in rows)
        values = evaluator.evaluate_floats(*catalog.load_model(model), names)
        for row in rows:
            ledger[row["id"]] = values[row["quantity"]] / row["scale"]
            unit = "" if row["scale"] == 1e-2 else evaluator.forms[row["quantity"]][0].unit
            units[row["id"]] = f"{scale_text(row['scale'])} {unit}".strip()
    return [{**row, "ledger": ledger[row["id"]], "unit": units[row["id"]]} for row in doc["figures"]]


def set_arguments(sets: dict) -> str:
    return " ".join(f"--set {k}={v}" for k, v in sets.items())


def page_text(rows: list[dict]) -> str:
    scenario = lecture_figures()["scenario"]
    lines = [
        "# Reproduce the lecture",
        "",
        f"Every figure of {SOURCE} that the ledger produces, beside the figure as the lecture "
        "prints it (section cited). The lecture's column is copied from the text "
        "(`scenarios/lecture_figures.yaml`, the golden tests' cases); the ledger's is what "
        "`ledgerbuild show` prints under the same settings.",
        "",
        "## The lecture's scenario",
        "",
        "| setting | value | why |",
        "| --- | --- | --- |",
        *(f"| `{k}` | {v} | {MEANING.get(k, '')} |" for k, v in scenario.items()),
        "",
        "## Commands",
        "",
        "```bash",
        f'LECTURE="{set_arguments(scenario)}"',
        "ledgerbuild show llama-3-8b $LECTURE --json       # every quantity in the lecture's scenario",
        "ledgerbuild xlsx --models llama-3-8b $LECTURE -o lecture.xlsx",
        "ledgerbuild docs --models llama-3-8b $LECTURE -o lecture-docs",
        "```",
        "",
        "A row's figure: `ledgerbuild show MODEL $LECTURE SETTINGS --json`, read at "
        "`.quantities.QUANTITY.value` and divided by the row's scale.",
        "",
        "## The figures side by side",
        "",
        "| section | model | quantity | settings | lecture | ledger | unit | agrees |",
        "| --- | --- | --- | --- | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        settings = f"`{set_arguments(r['set'])}`" if r.get("set") else ""
        lines.append(
            f"| {r['section']} | `{r['model']}` | `{r['quantity']}` | {settings} | "
            f"{shown(r['lecture'], r)} | {shown(r['ledger'], r)} | {r['unit']} | "
            f"{'yes' if agrees(r['ledger'], r) else 'no'} |"
        )
    within = sum(1 for r in rows if isinstance(r["check"], dict) and "rel" in r["check"])
    lines += [
        "",
        f'{len(rows)} figures; {within} of them the lecture prints as "about" (compared within the '
        "stated tolerance: its 70B serving costs 0.293 / 0.299 come out 0.290 / 0.292 under the "
        "same time model).",
        "",
    ]
    return "\n".join(lines)


def write_lecture_page(out: Path) -> int:
    """Write reproduce-the-lecture.md into `out`; returns the number of files written (1)."""
    write_text(Path(out) / PAGE, page_text(ledger_rows()))
    return 1
