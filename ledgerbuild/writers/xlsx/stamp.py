"""A model sheet's body rendered once per kind of model and stamped for each model of it.

Scope: below its three head rows (name, variants, id) a cost sheet is the same for every
model of a variant under the same --set values: the same names, formulas (they read the
sheet's own defined names), styles, row heights and notes. Only the cached values differ. A
`Stamp` is that body rendered to text once, split where each formula's cached value goes;
`apply` writes a model's body from it with the model's values (~0.5 ms a sheet against ~9 ms
written cell by cell), its notes parts and its defined names. `BlockStamper` does the same for
the workings blocks (CompareCalc, ScenariosCalc), whose formulas also differ by the block's
rows and the model's sheet name: holes for those too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import notes as xlsx_notes
from .book import (
    Book,
    Sheet,
    column_letter,
    coordinate,
    escape_markup,
    formula_body,
    number_text,
    render_rows,
    row_col,
    value_parts,
)
from .calc import FIRST_COL, ROW_MARK, TITLE_MARK, BlockPlan, plan_block
from .layout import quote
from .models import Cell, guard_text
from .notes import inline

_HOLE = None  # where a value goes, in the rendered parts


@dataclass
class Stamp:
    segments: list[str]  # text around the holes: one more than holes
    holes: list[tuple[str, Cell]]  # (escaped formula, the template's cell: quantity, scale, guard)
    first: int  # the body's rows
    last: int
    max_column: int
    names: list[tuple[str, str]]  # (defined name, reference after the sheet's name)
    comments: str | None  # the notes' comments part and VML format (notes.template)
    vml: str
    note_count: int
    shared_uses: int
    freeze: tuple[int, int] | None

    @property
    def quantities(self) -> frozenset[str]:
        return frozenset(c.quantity for _, c in self.holes) | {c.guard for _, c in self.holes if c.guard}

    @classmethod
    def capture(cls, book: Book, body: Sheet, cells: list[Cell]) -> Stamp:
        """The stamp of a sheet whose body rows are written (their cached values not yet)."""
        by_place = {(c.at or row_col(c.coord)): c for c in cells}
        parts: list[str | None] = []
        holes: list[tuple[str, Cell]] = []

        def hole(row: int, col: int, cell) -> None:
            parts.append(_HOLE)
            holes.append((escape_markup(cell.value[1:]), by_place[row, col]))

        shared = render_rows(parts.append, body.cells, body.row_heights, book, hole)
        segments: list[str] = []
        current: list[str] = []
        for part in parts:
            if part is _HOLE:
                segments.append("".join(current))
                current = []
            else:
                current.append(part)
        segments.append("".join(current))
        notes = sorted((r, c, cell.note) for (r, c), cell in body.cells.items() if cell.note)
        comments, vml = xlsx_notes.template(notes, body.col_widths, body.row_heights) if notes else (None, "")
        prefix = len(quote(body.title)) + 1
        return cls(
            segments,
            holes,
            min(r for r, _ in body.cells),
            body.max_row,
            body.max_column,
            [(name, reference[prefix:]) for name, reference in body.names.items()],
            comments,
            vml,
            len(notes),
            shared,
            body.freeze,
        )

    def apply(self, book: Book, sheet: Sheet, model: str, values: dict, cells: list[Cell] | None) -> None:
        """The body of `model`'s sheet with its values (quantity -> float); the manifest's
        cells added to `cells` where given."""
        parts = [self.segments[0]]
        for (formula, cell), segment in zip(self.holes, self.segments[1:], strict=True):
            if cell.guard and values[cell.guard] == 0:
                parts.append(formula_body(formula, guard_text(cell.guard)))
            else:
                parts.append(formula_body(formula, values[cell.quantity] * cell.scale))
            parts.append(segment)
        sheet.append_rendered(book, self.first, self.last, "".join(parts), len(self.holes), self.shared_uses)
        sheet.extend_to(self.last, self.max_column)
        sheet.freeze = self.freeze
        title = quote(sheet.title)
        sheet.names.update((name, f"{title}!{reference}") for name, reference in self.names)
        if self.comments is not None:
            vml = xlsx_notes.drawing(self.vml, sheet.block, self.note_count)
            sheet.note_parts = book.scratch_write(self.comments), book.scratch_write(vml)
        if cells is not None:
            cells += [replace(c, sheet=sheet.title, model=model) for _, c in self.holes]


class BlockStamper:
    """Workings blocks (calc.py) written as text: a plan's rows become one format string
    per kind of model ({R[k]} the k-th row, {T} the model's sheet, {M} its id, {A[i]} and
    {V[i]} the i-th formula's value type and value); a model's block is one `format` call with
    its rows and values, appended to the sheet's file (~1 us a cell against ~10 us written
    cell by cell)."""

    def __init__(self, book: Book, ledger, names_for, titles: dict, cacher, cells: list | None):
        self.book, self.ledger, self.names_for, self.titles = book, ledger, names_for, titles
        self.cacher, self.cells = cacher, cells
        self.formats: dict[int, tuple[str, list[tuple[str, int]], int, frozenset]] = {}

    def __call__(self, ws: Sheet, top: int, res, targets: list[str], variation) -> dict[str, int]:
        plan = plan_block(self.ledger, res, targets, variation, set(self.names_for(self.ledger, res)))
        if id(plan) not in self.formats:
            self.formats[id(plan)] = self._format(plan)
        text, slots, shared, names = self.formats[id(plan)]
        model = res.model_id
        values = [self.cacher.evaluate(model, key, names | self.cacher.keep) for key in plan.set_keys]
        for key, found in zip(plan.set_keys, values, strict=True):
            self.cacher.values[model, key] = found
        attrs, shown = [], []
        for step, j in slots:
            attr, value = value_parts(values[j][step])
            attrs.append(attr)
            shown.append(value)
        index = self.book.string_index(model)
        head = (
            f' t="s"><v>{index}</v></c>'
            if index is not None
            else f' t="inlineStr"><is>{inline(model)}</is></c>'
        )
        rows = [str(top + k) for k in range(len(plan.steps))]
        title = escape_markup(quote(self.titles[model]))
        ws.append_rendered(
            self.book,
            top,
            top + len(rows) - 1,
            text.format(R=rows, T=title, M=head, A=attrs, V=shown),
            formulas=len(slots),
            shared=shared + (len(rows) if index is not None else 0),
        )
        self.cacher.forget()
        if self.cells is not None:
            at = {step: top + k for k, step in enumerate(plan.steps)}
            for step, j in slots:
                place = (at[step], FIRST_COL + j)
                self.cells.append(Cell(ws.title, coordinate(*place), model, step, plan.set_keys[j], at=place))
        return {step: top + k for k, step in enumerate(plan.steps)}

    def _format(self, plan: BlockPlan):
        book, shared = self.book, 0
        slots: list[tuple[str, int]] = []
        out: list[str] = []
        for k, step in enumerate(plan.steps):
            r = f"{{R[{k}]}}"
            out.append(f'<row r="{r}"><c r="A{r}"{{M}}')
            for col, value in (("B", step), ("C", plan.units[k])):
                index = book.string_index(value) if value else None
                if not value:
                    out.append(f'<c r="{col}{r}"/>')
                elif index is None:
                    out.append(f'<c r="{col}{r}" t="inlineStr"><is>{_braced(inline(value))}</is></c>')
                else:
                    shared += 1
                    out.append(f'<c r="{col}{r}" t="s"><v>{index}</v></c>')
            style = book.style_index(plan.styles[k])
            s = f' s="{style}"' if style else ""
            for j, formula in enumerate(plan.formulas[k]):
                at = f"{column_letter(FIRST_COL + j)}{r}"
                if isinstance(formula, str):
                    body = _braced(escape_markup(formula[1:])).replace(TITLE_MARK, "{T}")
                    parts = body.split(ROW_MARK)
                    parts[1::2] = [f"{{R[{n}]}}" for n in parts[1::2]]
                    i = len(slots)
                    out.append(f'<c r="{at}"{s}{{A[{i}]}}><f>{"".join(parts)}</f><v>{{V[{i}]}}</v></c>')
                    slots.append((step, j))
                else:
                    out.append(f'<c r="{at}"{s}><v>{number_text(formula)}</v></c>')
            out.append("</row>")
        return "".join(out), slots, shared, frozenset(step for step, _ in slots)


def _braced(text: str) -> str:
    """Literal text in a format string."""
    return text.replace("{", "{{").replace("}", "}}")
