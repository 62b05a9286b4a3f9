"""The Checks sheet: one master flag a reader looks at first, and the checks it sums.

Scope: each computed sheet's own error count (its check cell, xlsx_layout.check_cell), and
every model on Summary either sized or saying "does not fit" (no blank, no error, no stray
text). A check is a row: label, the live status, and 1 where it passes; the master flag
counts the failures. Other writers add rows through `extra` (label, formula giving 1 when it
passes, its cached value, and optionally a status formula and its cached text). The plan row
(`plan_check`) is informative about the targets: a plan that cannot meet them is a legitimate
answer, not a broken workbook, so it passes when the flag is 0 or 1 and fails only on an
error. The range checks are one-cell array formulas: Gnumeric reads a range inside
ISNUMBER/ISERROR outside an array as one intersected cell.
"""

from __future__ import annotations

from .book import Book, Sheet
from .layout import (
    CHECK_OK,
    ERROR_FILL,
    FORMULA_FILL,
    SECTION_FONT,
    TITLE_FONT,
    header,
    print_setup,
    put,
    quote,
    ref,
    text,
    widths,
)

ALL_PASS = "ALL CHECKS PASS"


def write_checks(wb: Book, summary_fit_range: str, models: int, extra: list[tuple] | None = None) -> Sheet:
    """The Checks sheet (after Summary); `summary_fit_range`: Summary's column of requests in
    flight, one row per model."""
    ws = wb.create_sheet("Checks", wb.sheetnames.index("Summary") + 1)
    text(ws, 1, 1, "Checks - one flag for the whole workbook (live)", font=TITLE_FONT)
    header(ws, 4, ["check", "status", "passes (1 = yes)"])
    rows: list[tuple[str, str, object, str, int, bool]] = []
    for sheet in wb.worksheets:
        if sheet.check_at:
            status = f"={quote(sheet.title)}!{sheet.check_at}"
            rows.append(
                (
                    f"{sheet.title}: no error cells",
                    status,
                    CHECK_OK,
                    f'=IF(B{{r}}="{CHECK_OK}",1,0)',
                    1,
                    False,
                )
            )
    rng = summary_fit_range
    strays = f'SUM(IF(ISNUMBER({rng}),0,IF(ISERROR({rng}),1,IF({rng}="does not fit",0,1))))'
    rows.append(
        (
            f"Summary: each of the {models} models is sized or says 'does not fit'",
            f'=IF({strays}=0,"every model sized or marked",{strays}&" models neither sized nor marked")',
            "every model sized or marked",
            '=IF(LEFT(B{r},5)="every",1,0)',
            1,
            True,
        )
    )
    for label, formula, cached, *shown in extra or []:
        if shown:  # a status to read beside its pass flag
            passes = formula.replace("{", "{{").replace("}", "}}")
            rows.append((label, shown[0], shown[1], passes, cached, False))
        else:
            rows.append((label, formula, "", "", cached, False))
    for r, (label, status, cached_status, passes, cached, array) in enumerate(rows, start=5):
        text(ws, r, 1, label)
        if passes:
            cell = put(ws, r, 2, status, cached=cached_status, fill=FORMULA_FILL)
            cell.array = array
            put(ws, r, 3, passes.format(r=r), cached=cached, fill=FORMULA_FILL)
        else:  # an extra check: its formula gives 1 when it passes
            put(ws, r, 3, status, cached=cached, fill=FORMULA_FILL)
    last = 4 + len(rows)
    fails = f"ROWS(C5:C{last})-SUM(C5:C{last})"
    master_ok = sum(row[4] for row in rows) == len(rows)
    text(ws, 2, 1, "Master flag:", font=SECTION_FONT)
    put(
        ws,
        2,
        2,
        f'=IF({fails}=0,"{ALL_PASS}",{fails}&" checks fail")',
        cached=ALL_PASS if master_ok else f"{len(rows) - sum(r[4] for r in rows)} checks fail",
        font=SECTION_FONT,
        fill=FORMULA_FILL,
    )
    ws.conditional.append(("B2", f'{ref(ws, 2, 2)}<>"{ALL_PASS}"', ERROR_FILL))
    ws.conditional.append((f"C5:C{last}", "C5<>1", ERROR_FILL))
    widths(ws, {1: 60, 2: 40, 3: 16})
    print_setup(ws, header_rows="1:4")
    return ws


def plan_check(model: str, meets_ref: str, meets: int) -> tuple[str, str, int, str, str]:
    """The Checks row of `model`'s plan (`meets_ref`: its plan_meets_targets cell): the status
    says whether the plan meets the targets; it passes unless the flag is an error."""
    says = ("plan meets the targets", "cannot meet the targets")
    return (
        f"Plan of {model} (the Inputs GPU, traffic and targets): informative, unmet targets pass",
        f"=IF(ISNUMBER({meets_ref}),IF(OR({meets_ref}=0,{meets_ref}=1),1,0),0)",
        1,
        f'=IF({meets_ref}=1,"{says[0]}","{says[1]}")',
        says[0] if meets == 1 else says[1],
    )
