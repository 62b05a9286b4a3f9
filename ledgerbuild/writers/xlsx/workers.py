"""The per-model part of the workbook, built as three jobs that can run in worker processes.

Scope: the model cost sheets, CompareCalc's blocks and ScenariosCalc's blocks hold ~97 % of a
workbook's cells and depend on nothing but the evaluated models and the sheets' layout, so
they are built as independent jobs: each renders a model's rows as text with their cached
values (the ledger's floats for each column's scenario) into its process's scratch file,
stamped per kind of model (stamp.py), and keeps nothing else. From `PARALLEL_FROM` models,
with more than one
CPU the jobs run in forked workers; the parent registers every style and shared string the
jobs can use first and the workers only read them (`Book.freeze`), writing any other text
inline. Jobs return the finished sheets (their rows in files), the rows of each step and,
for tests, the manifest of formula cells.
Shortcut: fork (POSIX) only; elsewhere, or with one CPU, the jobs run in turn in-process.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

from ...files import die_with_parent
from ...ledger import Input, Ledger
from ...numeric import Form, NumericEvaluator
from ...numeric import NumericResult as Result
from ...printed import excel_of
from ...rules import Scenario
from ...units import excel_format
from .book import Book, Sheet, row_col
from .compare import write_compare_calc
from .layout import (
    FORMULA_FILL,
    HEADER_FILL,
    HEADER_FONT,
    INPUT_FILL,
    LOOKUP_FILL,
    SECTION_FONT,
    TITLE_FONT,
    WRAP,
    check_cell,
    merged_style,
)
from .models import BODY_TEXTS, Cell, guard_text, write_model_body, write_model_head
from .plan_calc import PLAN_STYLES, write_plan_calc
from .scenarios import write_scenarios_calc
from .stamp import BlockStamper, Stamp

PARALLEL_FROM = 8  # models; below this the workers' start-up costs more than they save (32: 1.36 -> 1.22 s)


@dataclass
class Job:
    book: Book
    ledger: Ledger
    results: list[Result]
    entries: dict  # model id -> (entry, fields)
    sets: Scenario  # the build's --set values, parsed once
    titles: dict[str, str]
    names_for: Callable[[Ledger, Result], dict[str, str]]
    gpus: list[str]
    choice_rows: dict[str, int]
    compare: Sheet
    scenarios: Sheet
    plan: Sheet
    first_block: int  # the model sheets' VML blocks follow from here
    manifest: bool
    keep: frozenset[str]  # the quantities the view sheets show: their values come back


@dataclass
class Done:
    sheets: list[Sheet]
    where: dict = field(default_factory=dict)
    cells: list[Cell] = field(default_factory=list)
    values: dict = field(default_factory=dict)  # (model, sets) -> the kept values


class Cacher:
    """Stores beside each formula the ledger's value for the scenario the workbook was built
    with (a cell's own --set variant on top of the user's): what viewers that do not
    recalculate show. "does not fit" where the cell's guard is 0. Only the quantities a
    block's cells need are evaluated; the values of `keep` (what the view sheets show) are
    kept when the rest is forgotten, and `known` values are used before evaluating."""

    def __init__(self, sets: dict | Scenario, entries: dict, keep: frozenset[str] = frozenset()):
        self.base = NumericEvaluator(sets)  # the build's Scenario: its --set values parsed once
        self.entries, self.keep = entries, keep
        self.evaluators: dict[tuple, NumericEvaluator] = {}
        self.values: dict[tuple, dict] = {}
        self.known: dict[tuple, dict] = {}

    def fill(self, sheet: Sheet, cells: list[Cell]) -> None:
        values, held = self.values, sheet.cells
        names = frozenset({c.quantity for c in cells} | {c.guard for c in cells if c.guard} | self.keep)
        for cell in cells:
            key = (cell.model, cell.sets)
            found = values.get(key) or self.known.get(key)
            if found is None or cell.quantity not in found or (cell.guard and cell.guard not in found):
                found = values[key] = self.evaluate(cell.model, cell.sets, names)
            target = held[cell.at or row_col(cell.coord)]
            if cell.guard and found[cell.guard] == 0:
                target.cached = guard_text(cell.guard)
            else:
                target.cached = found[cell.quantity] * cell.scale

    def evaluate(self, model: str, sets: tuple, names: frozenset[str] | None = None) -> dict:
        if sets not in self.evaluators:
            self.evaluators[sets] = self.base.variant(dict(sets))
        entry, fields = self.entries[model]
        return self.evaluators[sets].evaluate_floats(entry, fields, names)

    def forget(self) -> None:
        """Drop the values held (one model's are needed at a time) but those of `keep`."""
        for key, found in self.values.items():
            self.known[key] = {n: found[n] for n in self.keep if n in found}
        self.values.clear()


_JOB: Job | None = None  # the job the forked workers inherit


def model_sheets(start: int, stop: int) -> Done:
    """Cost sheets: each model's head rows, and its body stamped from the first model of its
    kind (variant and --set values: stamp.py)."""
    job, done = _job(), Done([])
    cacher = Cacher(job.sets, job.entries, job.keep)
    stamps: dict[tuple, Stamp] = {}
    for i in range(start, stop):
        res = job.results[i]
        sheet = Sheet(job.titles[res.model_id], job.first_block + i)
        write_model_head(job.book, sheet, res)
        kind = (res.tags, frozenset(res.overridden))
        if kind not in stamps:
            body, cells = Sheet(sheet.title), list[Cell]()
            write_model_body(job.book, body, job.ledger, res, cells)
            stamps[kind] = Stamp.capture(job.book, body, cells)
        stamp = stamps[kind]
        values = cacher.evaluate(res.model_id, (), stamp.quantities | job.keep)
        stamp.apply(job.book, sheet, res.model_id, values, done.cells if job.manifest else None)
        cacher.known[res.model_id, ()] = {n: values[n] for n in job.keep if n in values}
        check_cell(sheet)
        done.sheets.append(sheet)
    done.values = cacher.known
    job.book.scratch_done()
    return done


def workings(name: str) -> Done:
    """CompareCalc's, ScenariosCalc's or PlanCalc's blocks, one per model."""
    job = _job()
    sheet = {"CompareCalc": job.compare, "PlanCalc": job.plan}.get(name, job.scenarios)
    done = Done([sheet])
    write = _stamper(job, done)
    if name == "CompareCalc":
        done.where = write_compare_calc(sheet, job.results, job.gpus, write)
    elif name == "PlanCalc":
        done.where = write_plan_calc(sheet, job.book, job.results, dict(job.sets.sets), write, done.values)
    else:
        done.where = write_scenarios_calc(sheet, job.results, job.choice_rows, write)
    check_cell(sheet)  # row 1, still held: written before the flushed rows
    sheet.render_notes(job.book)
    job.book.scratch_done()
    return done


def _stamper(job: Job, done: Done) -> BlockStamper:
    cacher = Cacher(job.sets, job.entries, job.keep)
    done.values = cacher.known
    cells = done.cells if job.manifest else None
    return BlockStamper(job.book, job.ledger, job.names_for, job.titles, cacher, cells)


def _job() -> Job:
    assert _JOB is not None
    return _JOB


def run(job: Job, workers: int | None = None) -> list[Done]:
    """The three jobs (model sheets in two halves), in forked workers where it pays."""
    global _JOB
    n = len(job.results)
    half = (n + 1) // 2
    tasks: list[tuple[Callable[..., Done], tuple]] = [
        (model_sheets, (0, half)),
        (model_sheets, (half, n)),
        (workings, ("CompareCalc",)),
        (workings, ("ScenariosCalc",)),
        (workings, ("PlanCalc",)),
    ]
    workers = workers if workers is not None else (os.cpu_count() or 1)
    parallel = workers > 1 and n >= PARALLEL_FROM and "fork" in multiprocessing.get_all_start_methods()
    _JOB = job
    try:
        if not parallel:
            return [fn(*args) for fn, args in tasks]
        register_styles_and_strings(job)
        with ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_freeze,
            initargs=(os.getpid(),),
        ) as pool:
            futures: list[Future[Done]] = [pool.submit(fn, *args) for fn, args in tasks]
            return [f.result() for f in futures]
    finally:
        _JOB = None


def _freeze(parent: int) -> None:
    """A worker's start: the book read-only, and an exit as soon as its parent is gone (a
    SIGTERM or kill of the run ends its workers too: at once through the kernel where it can,
    else within 0.2 s by the watch below)."""
    die_with_parent(parent)
    _job().book.freeze()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def register_styles_and_strings(job: Job) -> None:
    """Everything the jobs can look up, registered in the parent before the workers fork: the
    styles of their cells, and the texts shared by many models (names, units, formulas,
    descriptions, sources, model ids)."""
    book, ledger = job.book, job.ledger
    items: list[Input | Form] = [*ledger.inputs.values()]
    items += [q for forms in ledger.forms.values() for q in forms]
    formats = {excel_format(x.unit, x.integer) for x in items}
    for fill in (INPUT_FILL, LOOKUP_FILL, FORMULA_FILL):
        for number_format in formats:
            book.style_index(merged_style(fill=fill, number_format=number_format))
    for style in (
        merged_style(font=TITLE_FONT),
        merged_style(font=SECTION_FONT),
        merged_style(alignment=WRAP),
        merged_style(fill=INPUT_FILL),
        merged_style(fill=LOOKUP_FILL),
        merged_style(fill=FORMULA_FILL),
        merged_style(font=HEADER_FONT, fill=HEADER_FILL),
        *PLAN_STYLES,
    ):
        book.style_index(style)
    texts = set(ledger.topics) | set(BODY_TEXTS)
    for x in items:
        texts |= {x.name, x.unit, x.description or "", x.source or ""}
    for forms in ledger.forms.values():
        texts |= {excel_of(q).fill({}).lstrip("=") for q in forms}
    for res in job.results:
        texts |= {res.model_id, res.model_name}
    for text in sorted(t for t in texts if t):
        book.string_index(text)
