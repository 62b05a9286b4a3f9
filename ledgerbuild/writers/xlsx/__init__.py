"""The workbook writer: `ledgerbuild xlsx` (the main job).

Scope: evaluate the selected models, lay out the sheets (About, Inputs, Summary, Compare,
Sweeps, one cost sheet per model, the catalog tables), and save atomically: the workbook is
written to a temporary file beside the target and renamed into place, so a failed or
interrupted run leaves the previous workbook intact.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from ... import catalog
from ...errors import LedgerError
from ...files import atomic_save
from ...numeric import NumericEvaluator
from ...printed import printed_ledger
from ..selection import progress_bar, select
from .book import Book
from .checks import plan_check, write_checks
from .compare import COMPARE, compare_calc_sheet, write_compare, write_sweeps
from .frontier import write_frontier
from .layout import check_cell
from .models import Cell, write_models_table
from .package import new_book, save
from .plan_calc import plan_calc_sheet
from .scenarios import RESULTS, write_scenario_choices, write_scenarios
from .tables import TABLE_SHEETS, write_about, write_inputs, write_table
from .views import SUMMARY, names_in, sheet_titles, write_summary
from .workers import Cacher, Job, run


def check_output(path: Path) -> None:
    if path.is_dir():
        raise LedgerError(f"{path}: is a folder; give a file path such as {path / 'ledger.xlsx'}")
    if path.suffix.lower() != ".xlsx":
        raise LedgerError(f"{path}: the workbook path must end in .xlsx")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise LedgerError(f"{parent}: cannot create the output folder ({e.strerror})") from None
    if not os.access(parent, os.W_OK):
        raise LedgerError(f"{parent}: output folder is not writable")


SWEEP_DEFAULT = "llama-3-8b"  # the lecture's running example


def build_workbook(
    model_spec: str,
    gpu_spec: str,
    sets: dict,
    progress: bool = False,
    sweep_model: str | None = None,
    manifest: bool = True,
    workers: int | None = None,
):
    """(workbook, manifest of formula cells (empty unless `manifest`), model results)."""
    evaluator = NumericEvaluator(sets)
    ledger = printed_ledger()
    model_ids = select(model_spec, catalog.models(), "models")
    gpu_ids = [catalog.load_gpu(g) for g in select(gpu_spec, catalog.gpus(), "gpus")]
    entries = [catalog.load_model(m) for m in progress_bar(model_ids, progress, "reading models")]
    results, cacher = _evaluate(evaluator, entries, progress)
    if evaluator.keys()["gpu"] not in gpu_ids:
        gpu_ids.insert(0, evaluator.keys()["gpu"])
    by_id = {r.model_id: r for r in results}
    sweep_id = sweep_model or (SWEEP_DEFAULT if SWEEP_DEFAULT in by_id else results[0].model_id)
    if sweep_id not in by_id:
        raise LedgerError(
            f"--sweep-model {sweep_id!r} is not among the selected models; valid: {', '.join(by_id)}"
        )
    wb = new_book()
    cells: list[Cell] = []
    write_about(wb, model_ids, results[0])
    write_inputs(wb, ledger, results[0], set(evaluator.sets))
    titles = sheet_titles([r.model_id for r in results], set(FIXED_SHEETS))
    names_for = names_in(titles)
    wb.create_sheet("Summary", 1)  # written once PlanCalc's choices are known
    write_sweeps(wb, ledger, by_id[sweep_id], names_for(ledger, by_id[sweep_id]), titles[sweep_id], cells)
    scenarios, scenarios_calc, choice_rows = write_scenario_choices(wb, ledger, results[0])
    job = Job(
        book=wb,
        ledger=ledger,
        results=results,
        entries=cacher.entries,
        sets=evaluator.parsed,
        titles=titles,
        names_for=names_for,
        gpus=gpu_ids,
        choice_rows=choice_rows,
        compare=compare_calc_sheet(wb, gpu_ids),
        plan=plan_calc_sheet(wb, dict(evaluator.sets)),
        scenarios=scenarios_calc,
        first_block=wb.reserve_blocks(len(results)),
        manifest=manifest,
        keep=VIEW_QUANTITIES,
    )
    if progress:
        print(f"writing {len(results)} model sheets and their workings", file=sys.stderr)
    compare_where, scenario_where, plans = _place(wb, run(job, workers), cells, cacher)
    write_summary(wb, ledger, results, names_for, cells, plans)
    write_scenarios(wb, scenarios, ledger, results, scenario_where, cells)
    write_compare(wb, ledger, results, gpu_ids, compare_where, cells)
    sweep = by_id[sweep_id]
    frontier_names = names_for(ledger, sweep)
    write_frontier(wb, ledger, sweep, frontier_names, titles[sweep_id], gpu_ids, evaluator.parsed, cells,
                   cacher.entries[sweep_id])  # fmt: skip
    write_models_table(wb, ledger, results)
    _write_tables(wb, gpu_ids)
    _cache_views(wb, cells, cacher)
    for ws in wb.worksheets:
        if ws.title not in ("About", *TABLE_SHEETS.values()) and not ws.checked:
            check_cell(ws)
    chosen = plans[sweep_id]  # the Summary's plan: at the layout PlanCalc chooses
    meets = cacher.known[sweep_id, chosen.chosen]["plan_meets_targets"]
    ref = chosen.ref("plan_meets_targets") or names_for(ledger, sweep)["plan_meets_targets"]
    plan = plan_check(sweep_id, ref, int(meets))
    write_checks(wb, "summary_requests_in_flight", len(results), extra=[plan])
    return wb, cells, results


def _evaluate(evaluator: NumericEvaluator, entries: list[tuple], progress: bool):
    """(results, a Cacher knowing each model's values of what the views show). The cells
    carry formulas, so results hold no exact values; the float path checks that every
    quantity evaluates."""
    results = [evaluator.evaluate_entry(entry, fields, exact_values=False) for entry, fields in entries]
    if len({r.model_id for r in results}) != len(results):
        raise LedgerError("--models: the same model is selected twice")
    cacher = Cacher(
        evaluator.parsed, {r.model_id: e for r, e in zip(results, entries, strict=True)}, VIEW_QUANTITIES
    )
    for res, (entry, fields) in zip(results, progress_bar(entries, progress, "evaluating"), strict=True):
        found = evaluator.evaluate_floats(entry, fields)
        cacher.known[res.model_id, ()] = {n: v for n, v in found.items() if n in VIEW_QUANTITIES}
    return results, cacher


def _place(wb: Book, parts: list, cells: list[Cell], cacher: Cacher) -> tuple[dict, dict, dict]:
    """The jobs' sheets into the book (model sheets before the workings); returns where the
    CompareCalc, ScenariosCalc and PlanCalc steps are."""
    model_part, second_half, compare_part, scenario_part, plan_part = parts
    models_at = wb.sheetnames.index("ScenariosCalc")
    for i, sheet in enumerate(model_part.sheets + second_half.sheets):
        wb.add_sheet(sheet, models_at + i)
    for part in (compare_part, scenario_part, plan_part):  # in place of the parent's copies
        wb.worksheets[wb.sheetnames.index(part.sheets[0].title)] = part.sheets[0]
    for part in parts:
        cells += part.cells
        cacher.known.update(part.values)
    return compare_part.where, scenario_part.where, plan_part.where


def _write_tables(wb: Book, gpu_ids: list[str]) -> None:
    write_table(wb, "gpus", [catalog.gpus()[g] for g in gpu_ids])
    for table in ("dtypes", "workloads", "time_models", "engines", "training_recipes", "rope_methods"):
        write_table(wb, table, list(catalog.table(table).values()))


def _cache_views(wb: Book, cells: list[Cell], cacher: Cacher) -> None:
    """The view sheets' cached values, one model at a time (mostly known from the jobs)."""
    by_model: dict[str, list[Cell]] = {}
    for c in cells:
        if c.sheet in VIEW_SHEETS:
            by_model.setdefault(c.model, []).append(c)
    for model_cells in by_model.values():
        for title in VIEW_SHEETS:
            cacher.fill(wb[title], [c for c in model_cells if c.sheet == title])
        cacher.forget()


FIXED_SHEETS = [
    "About",
    "Inputs",
    "Summary",
    "Checks",
    "Compare",
    "Scenarios",
    "Sweeps",
    "SweepsCalc",
    "ScenariosCalc",
    "CompareCalc",
    "PlanCalc",
    "Frontier",
    "FrontierCalc",
    "Models",
    *TABLE_SHEETS.values(),
]
VIEW_SHEETS = (
    "Summary",
    "Compare",
    "Scenarios",
    "Sweeps",
    "SweepsCalc",
)  # in memory (Frontier and FrontierCalc carry their values when written)
VIEW_QUANTITIES = frozenset(SUMMARY + COMPARE + RESULTS + ["max_concurrency", "offline_concurrency"])


def save_atomically(wb, path: Path) -> None:
    atomic_save(path, functools.partial(save, wb))


def write_workbook(
    model_spec: str,
    gpu_spec: str,
    sets: dict,
    output: Path,
    progress: bool = False,
    sweep_model: str | None = None,
) -> str:
    """Build and save the workbook; return the one-line summary."""
    output = Path(output)
    check_output(output)
    wb = build_workbook(model_spec, gpu_spec, sets, progress, sweep_model, manifest=False)[0]
    try:
        save_atomically(wb, output)
    except OSError as e:
        raise LedgerError(f"{output}: cannot write ({e.strerror})") from None
    formulas = sum(ws.formula_count for ws in wb.worksheets)
    return (
        f"wrote {output}: {len(wb.sheetnames)} sheets, {formulas:,} formula cells, "
        f"{output.stat().st_size / 1e6:.2f} MB"
    )
