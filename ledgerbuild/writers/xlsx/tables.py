"""Workbook sheets for the scenario: About, Inputs, and the catalog tables.

Inputs carry workbook-scoped defined names equal to the CLI's scenario names; lookups read
the catalog tables with INDEX/MATCH (no XLOOKUP: LibreOffice 7.4 lacks it).
"""

from __future__ import annotations

import datetime

from ... import __version__, catalog
from ...ledger import Input, Ledger
from ...printed import Printed
from ...rules import time_model_text, to_plain
from ...units import value_format
from .book import Table, column_letter, coordinate
from .layout import (
    COLOUR_KEY,
    CONSTANT_FILL,
    EDITABLE,
    INPUT_FILL,
    LOOKUP_FILL,
    SECTION_FONT,
    TITLE_FONT,
    WRAP,
    define,
    define_range,
    fit_row,
    header,
    print_setup,
    put,
    text,
    widths,
)

ABOUT_COLUMNS = {1: 95}
INPUT_COLUMNS = {1: 28, 2: 22, 3: 14, 4: 60, 5: 50}  # name, value, unit, description, source
TABLE_SHEETS = {
    "gpus": "GPUs",
    "dtypes": "Precisions",
    "workloads": "Workloads",
    "time_models": "TimeModels",
    "engines": "Engines",
    "training_recipes": "Training",
    "rope_methods": "RopeMethods",
}
# columns a table sheet computes from its other columns (live, so edits follow):
# (table, column) -> the columns whose ids it sums the bits of
DERIVED = {("dtypes", "scale_bits"): ("scale_dtype", "zero_point_dtype")}


def _derived_formula(cols: list[str], refs: tuple[str, ...], row: int) -> str:
    """Sum of dtypes_bits over the ids named in `refs` on this row (blank: 0)."""
    terms = [
        f"IFERROR(INDEX(dtypes_bits, MATCH({column_letter(cols.index(ref) + 1)}{row}, dtypes_id, 0)), 0)"
        for ref in refs
    ]
    return "=" + "+".join(terms)


def table_columns(table: str) -> list[str]:
    """The table's fields; the GPU table's list of prices becomes the list price's provider,
    rate type, date and URL ("no public price" where none) and the other providers' prices."""
    cls = catalog.TABLES[table]
    cols = [f for f in cls.model_fields if f not in ("sources",)]
    if table == "gpus":
        at = cols.index("prices")
        cols[at : at + 1] = catalog.PRICE_COLUMNS
    return cols


def write_table(wb, table: str, rows: list) -> None:
    """A catalog table as an editable sheet; each column gets a name `<table>_<column>`."""
    ws = wb.create_sheet(TABLE_SHEETS[table])
    cols = table_columns(table) + (["sources"] if table == "gpus" else [])
    header(ws, 1, cols)
    for r, row in enumerate(rows, start=2):
        for c, col in enumerate(cols, start=1):
            value = getattr(row, col)
            if (table, col) in DERIVED:
                put(ws, r, c, _derived_formula(cols, DERIVED[table, col], r), cached=value)
            elif col == "sources":  # wrapped: an overflowing line would widen the printout
                joined = "; ".join(f"{k}: {v}" for k, v in value.items())
                text(ws, r, c, joined, alignment=WRAP, font=EDITABLE)
                ws.row_heights[r] = min(409, 13 * -(-len(joined) // 130) + 2)
            elif isinstance(value, str) or value is None:
                text(ws, r, c, value or "", font=EDITABLE)
            else:
                put(ws, r, c, value, fill=INPUT_FILL)
    # an Excel Table for the reader (banding, filters); the formulas read plain-range names
    # (no structured reference: Gnumeric and Python formula engines cannot read tbl[col]); a
    # row inserted inside the table widens every name in Excel, LibreOffice and Gnumeric
    ws.tables.append(Table(f"tbl_{table}", 1, len(rows) + 1, cols))
    for c, col in enumerate(cols, start=1):
        define_range(wb, f"{table}_{col}", ws, c, 2, len(rows) + 1)
    widths(ws, {c: max(12, min(60, len(col) + 4)) for c, col in enumerate(cols, start=1)})
    widths(ws, {1: 18, 2: 34, **({len(cols): 120} if cols[-1] == "sources" else {})})
    print_setup(ws, header_rows="1:1")


def lookup_formula(inp: Input, key_text: str, qualifier_text: str | None = None) -> str:
    """=INDEX(table_column, MATCH(key, table_id, 0)) * scale; a qualified lookup reads the row
    `key@qualifier` where the table has one (IFERROR: else the row `key`)."""
    scale = "" if inp.scale == 1 else f"*{inp.scale}"  # a named constant
    column, ids = f"{inp.table}_{inp.column}", f"{inp.table}_id"
    plain = f"INDEX({column}, MATCH({key_text}, {ids}, 0))"
    if inp.qualifier:
        qualified = f'INDEX({column}, MATCH({key_text}&"@"&{qualifier_text or inp.qualifier}, {ids}, 0))'
        return f"=IFERROR({qualified}, {plain}){scale}"
    return f"={plain}{scale}"


def write_inputs(wb, ledger: Ledger, result, overrides: set[str]) -> None:
    """The scenario: key choices (dropdowns), numbers, and the lookups they drive (a lookup
    or computed default set on the command line is written as a typed-over number)."""
    ws = wb.create_sheet("Inputs", 1)
    widths(ws, INPUT_COLUMNS)
    text(ws, 1, 1, "Scenario inputs - change the yellow cells", font=TITLE_FONT)
    text(ws, 2, 1, "Green cells look up the catalog tables; type a number over one to override it.")
    for c, (label, fill) in enumerate(COLOUR_KEY, start=2):  # the workbook's colour convention
        text(ws, 3, c, label, fill=fill)
    text(ws, 3, 1, "Colours (every sheet):")
    header(ws, 4, ["name", "value", "unit", "description", "source"])
    row = 5
    constants = ledger.inputs_of("constant")
    scenario = [i for i in ledger.inputs.values() if i.kind not in ("model", "constant")]
    for inp in scenario + constants:
        if inp is (constants[0] if constants else None):
            text(
                ws, row + 1, 1, "Constants (unit conversions every formula reads by name)", font=SECTION_FONT
            )
            row += 2
        value = to_plain(result.inputs[inp.name]) if inp.kind != "key" else None
        note = f"{inp.description}\nSource: {inp.source}"
        if inp.kind == "constant":
            put(
                ws,
                row,
                2,
                value,
                note=note,
                fill=CONSTANT_FILL,
                number_format=value_format(inp.unit, isinstance(value, int)),
            )
        elif inp.kind == "key":
            follows = (
                isinstance(inp.default, Printed) and result.keys[inp.name] == result.keys[str(inp.default)]
            )
            if follows:
                put(ws, row, 2, f"={inp.default}", cached=result.keys[inp.name], note=note, fill=INPUT_FILL)
            else:
                text(ws, row, 2, result.keys[inp.name], fill=INPUT_FILL).note = note
            assert inp.table is not None
            add_dropdown(ws, inp.table, coordinate(row, 2))
        elif inp.name in overrides or not (inp.kind == "lookup" or _computed(inp.default)):
            put(
                ws,
                row,
                2,
                value,
                note=note,
                fill=INPUT_FILL,
                number_format=value_format(inp.unit, inp.integer),
            )
            _validate_number(ws, coordinate(row, 2), inp)
        else:  # a catalog lookup, or a default computed from other inputs
            formula = lookup_formula(inp, str(inp.key)) if inp.kind == "lookup" else f"={inp.default}"
            put(
                ws,
                row,
                2,
                formula,
                cached=value,
                note=note,
                fill=LOOKUP_FILL,
                number_format=value_format(inp.unit),
            )
        define(wb, ws, inp.name, row, 2, local=False)
        text(ws, row, 1, inp.name)
        text(ws, row, 3, inp.unit)
        text(ws, row, 4, inp.description, alignment=WRAP)
        text(ws, row, 5, inp.source, alignment=WRAP)
        fit_row(ws, row, {4: inp.description, 5: inp.source}, INPUT_COLUMNS)
        row += 1
    print_setup(ws)


def _computed(default) -> bool:
    """A default computed from other inputs (a number such as 4/5 is typed, not computed)."""
    return isinstance(default, Printed) and bool(default.template.names)


def add_dropdown(ws, table: str, cells: str) -> None:
    """A list of the table's ids on `cells` (the table's id column: rows added to the table
    join it); anything else typed there is refused."""
    ws.validations.append(
        (
            cells,
            {
                "validate": "list",
                "source": f"={table}_id",
                "ignore_blank": False,
                "error_title": "Unknown id",
                "error_message": f"Pick a {table[:-1]} from the list",
            },
        )
    )


def _validate_number(ws, cell: str, inp: Input) -> None:
    """Typed numbers stay in the ledger's declared range (no 0 GPUs, no negative price)."""
    if inp.lo is None and inp.hi is None:
        return
    kind = "integer" if inp.integer else "decimal"
    options: dict[str, object]
    if inp.hi_open:  # lo <= x < hi: Excel's decimal rule has no open bound
        options = {"validate": "custom", "value": f"=AND({cell}>={inp.lo or 0},{cell}<{inp.hi})"}
        rule = f">= {inp.lo or 0} and < {inp.hi}"
    elif inp.lo is not None and inp.hi is not None:
        options = {"validate": kind, "criteria": "between", "minimum": inp.lo, "maximum": inp.hi}
        rule = f"between {inp.lo} and {inp.hi}"
    else:
        bound = inp.lo if inp.lo is not None else inp.hi
        options = {"validate": kind, "criteria": ">=" if inp.lo is not None else "<=", "value": bound}
        rule = (">= " if inp.lo is not None else "<= ") + str(bound)
    options.update(
        error_title="Out of range",
        error_message=f"{inp.name}: {'a whole number ' if inp.integer else ''}{rule}",
    )
    ws.validations.append((cell, options))


def write_about(wb, models: list[str], result) -> None:
    ws = wb.create_sheet("About")
    lines = [
        ("ledgerbuild - the arithmetic of LLM inference, live", TITLE_FONT),
        (
            "Every computed number in this workbook is a live formula generated from one symbolic "
            "ledger (sympy). Click a blue cell to read how it is computed: formulas read through "
            "defined names (e.g. =num_hidden_layers*kv_bytes_per_token_layer).",
            None,
        ),
        ("How to use", SECTION_FONT),
        (
            "1. Inputs sheet: pick a GPU, precisions, a workload, an engine and a time model from "
            "the dropdowns; type a GPU count (0 = auto: the smallest of 1, 2, 4, 8 that fits), a "
            "price per GPU-hour.",
            None,
        ),
        (
            "2. Summary, Compare, Scenarios and Sweeps follow for every model; each model has its "
            "own cost sheet; the ...Calc sheets hold the workings, one calculation per row.",
            None,
        ),
        (
            "3. GPUs, Models, Workloads, Precisions, Engines, TimeModels and Training are editable "
            "tables: change a figure there and every formula that reads it follows.",
            None,
        ),
        ("Colours", SECTION_FONT),
        (
            "yellow = an input you type or pick; green = looked up from a table (type over it to "
            "override); blue = a live formula; grey = a named constant. Sheets are protected "
            "without a password: only yellow and green cells take typing (Review > Unprotect "
            "Sheet lifts it). The Checks sheet's master flag says whether every check passes.",
            None,
        ),
        ("Conventions", SECTION_FONT),
        (
            "Units inside: bytes, seconds, FLOP. GB = 1e9 bytes, GiB = 2^30 bytes. GPU memory is "
            "what the driver reports (memory_gb_unit_bytes = 0); 1e9 reads the marketed GB as the "
            "lecture does.",
            None,
        ),
        (
            f"Time model in force: {time_model_text(result.keys['time_model'])}. A step takes "
            "overlap*MAX(compute, memory, link) + (1-overlap)*(compute + memory + link) + "
            "step_overhead_s + sequences*sequence_overhead_s + layers*layer_overhead_s; link = "
            "tensor-parallel all-reduces "
            "and pipeline hand-offs. 'roofline' is the lower bound; 'lecture-serving' reproduces "
            "the lecture's §6.3 cost table.",
            None,
        ),
        (
            f"Models: {len(models)}. Generated by ledgerbuild {__version__} on "
            f"{datetime.date.today().isoformat()}.",
            None,
        ),
    ]
    lines.append(
        (
            "Sources: seeds/000 lecture P2, seeds/001 shapes and formulas, seeds/002 "
            "prerequisites; HF config.json files; vendor datasheets (GPUs sheet).",
            None,
        )
    )
    widths(ws, ABOUT_COLUMNS)
    for r, (line, font) in enumerate(lines, start=1):
        text(ws, r, 1, line, alignment=WRAP, **({"font": font} if font else {}))
        fit_row(ws, r, {1: line}, ABOUT_COLUMNS)
    print_setup(ws)
