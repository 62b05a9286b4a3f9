"""Long displays broken into lines, never shrunk: a width estimate and a line breaker for the
LaTeX that sympy prints (printers/latex.py), shared by Markdown and LaTeX derivations.

Scope: `rendered_width` estimates a formula's width in characters of its rendered text (a
digit is one, half an em; a fraction is as wide as its wider part, scripts count 0.7, an
operator with its spaces 2.4); `break_lines` splits a right-hand side before a `+`, `-`,
`=`, `\\cdot` or relation, or after an argument's comma, so that no line is wider than the
budget: a break inside \\left( ... \\right) closes the open delimiters with \\right. and
reopens them with \\left. (amsmath's way for split equations); a `cases` row too wide
continues below, its condition on the last piece; a fraction too wide is written (A) / (B)
where that breaks it. Shortcuts: widths are estimates (TeX and MathJax glyph widths
averaged); an atom wider than the budget that cannot be opened (a root) stays one line.
Every step is a pure function of its text, remembered per text (`atoms`, `rendered_width`,
an environment's width, `break_lines`): a group's width reads its inner text
again at each depth and a display is measured by several steps, and a document set repeats
its symbolic forms for every model with the same structural zeros (issue 32: a docs run
spent 12 s of CPU re-reading the same text here).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}]|\s+|.", re.S)
_ONE_ARG = {"mathrm", "text", "operatorname", "mathit", "mathbf", "texttt", "mathsf", "boldsymbol"}
_INVISIBLE = {"left", "right", "displaystyle", "limits", "nolimits", "bigl", "bigr", "Bigl", "Bigr"}
_SPACES = {",": 0.3, ":": 0.4, ";": 0.5, " ": 0.5, "quad": 2.0, "qquad": 4.0, "!": 0.0}
_WIDE = {"cdot": 1.5, "times": 2.4, "leq": 2.7, "geq": 2.7, "neq": 2.7, "approx": 2.7, "infty": 2.0}
_FUNCTIONS = {"max", "min", "log", "exp", "ln", "sin", "cos", "tan", "arctan", "sqrt", "sum", "prod"}
_OPERATORS = {
    "+",
    "-",
    "=",
    "<",
    ">",
    r"\cdot",
    r"\leq",
    r"\geq",
    r"\wedge",
    r"\vee",
}  # \times: only in numbers (4.0 \times 10^{5})


class Atom(NamedTuple):
    """One unit that is never split: a character, a command with its arguments, a group."""

    text: str
    width: float
    kind: str = ""  # "op" (a break may come before it), "left", "right", "env"


def _tokens(tex: str) -> list[str]:
    return [t for t in _TOKEN.findall(tex) if not t.isspace() or t == " "]


def _closing(tokens: list[str]) -> dict[int, int]:
    """For each "{" its group's end (the index after its "}", or the end of an unclosed one)."""
    ends, open_ = {}, []
    for k, t in enumerate(tokens):
        if t == "{":
            open_.append(k)
        elif t == "}" and open_:
            ends[open_.pop()] = k + 1
    for k in open_:
        ends[k] = len(tokens)
    return ends


def _group(tokens: list[str], i: int, ends: dict[int, int] | None = None) -> tuple[str, int]:
    """The text of the group or single token at i, and the index after it."""
    if i >= len(tokens):
        return "", i
    if tokens[i] != "{":
        return tokens[i], i + 1
    j = (ends if ends is not None else _closing(tokens))[i]
    return "".join(tokens[i:j]), j


def _inner(group: str) -> str:
    """A group's content (an unclosed group: the rest without its brace)."""
    if group.startswith("{"):
        return group[1:-1] if group.endswith("}") and len(group) > 1 else group[1:]
    return group


def atoms(tex: str) -> list[Atom]:
    return list(_atoms(tex))


# tokens that start an atom of more than one token, or a space; any other is an atom of its own
_SPECIAL = {" ", "^", "_", "{", r"\frac", r"\begin", r"\left", r"\right", r"\sqrt"} | {
    "\\" + n for n in _ONE_ARG
}


@lru_cache(maxsize=1 << 16)
def _atoms(tex: str) -> tuple[Atom, ...]:
    tokens, i, spaces = _tokens(tex), 0, 0
    ends = _closing(tokens)
    out: list[Atom] = []
    while i < len(tokens):
        t = tokens[i]
        if t not in _SPECIAL:
            i += 1
            out.append(_plain(t, spaces))
            spaces = 0
            continue
        if t == " ":
            i += 1
            spaces += 1
            continue
        elif t in ("^", "_"):
            arg, i = _group(tokens, i + 1, ends)
            atom = Atom(t + arg, 0.7 * rendered_width(_inner(arg)))
        elif t == "{" and out and out[-1].kind == "left":  # \left\lceil{x}\right\rceil: x breaks
            arg, i = _group(tokens, i, ends)
            tokens[i:i] = [" ", *_tokens(_inner(arg))]
            ends = _closing(tokens)
            continue
        elif t == "{":
            arg, i = _group(tokens, i, ends)
            atom = Atom(arg, rendered_width(_inner(arg)))
        elif t == r"\frac":
            a, j = _group(tokens, i + 1, ends)
            b, i = _group(tokens, j, ends)
            width = max(rendered_width(_inner(a)), rendered_width(_inner(b))) + 0.4
            atom = Atom(t + a + b, width, "frac")
        elif t == r"\begin":
            atom, i = _environment(tokens, i, ends)
        elif t in (r"\left", r"\right"):
            delim, i = _group(tokens, i + 1, ends)
            atom = Atom(f"{t}{delim}", 0 if delim == "." else 0.8, t[1:])
        elif t == r"\sqrt":
            arg, i = _group(tokens, i + 1, ends)
            atom = Atom(t + arg, rendered_width(_inner(arg)) + 1)
        else:  # a command of _ONE_ARG
            arg, i = _group(tokens, i + 1, ends)
            atom = Atom(t + arg, len(_inner(arg).replace("\\", "")))
        if spaces:  # the source's spaces kept (\cdot x must not become \cdotx)
            atom = Atom(" " * spaces + atom.text, atom.width, atom.kind)
            spaces = 0
        out.append(atom)
    return tuple(out)


def _environment(tokens: list[str], i: int, ends: dict[int, int]) -> tuple[Atom, int]:
    """The \\begin ... \\end at i (nested ones inside) as one atom, and the index after it."""
    j, depth = i, 0
    while j < len(tokens):
        depth += {r"\begin": 1, r"\end": -1}.get(tokens[j], 0)
        j += 1
        if depth == 0:
            break
    _, j = _group(tokens, j, ends)  # the \end's {name}
    text = "".join(tokens[i:j])
    return Atom(text, _env_width(text), "env"), j


@lru_cache(maxsize=4096)
def _plain(t: str, spaces: int) -> Atom:
    """A token that is an atom of its own, after `spaces` spaces."""
    return Atom(" " * spaces + t, _width_of_token(t), "op" if t in _OPERATORS else "")


def _width_of_token(t: str) -> float:
    if t in ("+", "-"):
        return 2.4  # the glyph and its medium spaces
    if t in ("=", "<", ">"):
        return 2.7
    if t.startswith("\\"):
        name = t[1:]
        if name in _SPACES:
            return _SPACES[name]
        if name in _INVISIBLE:
            return 0.0
        if name in _WIDE:
            return _WIDE[name]
        return float(len(name)) if name in _FUNCTIONS else 1.0
    return {",": 0.9, ".": 0.5, ";": 0.9, "(": 0.8, ")": 0.8}.get(t, 1.0)


def _cells(body: str) -> list[list[str]]:
    """An environment's rows and cells, split at its own \\\\ and & (not a nested one's)."""
    rows: list[list[str]] = [[""]]
    for atom in _atoms(body):
        if atom.text.strip() == "\\\\":
            rows.append([""])
        elif atom.text.strip() == "&":
            rows[-1].append("")
        else:
            rows[-1][-1] += atom.text
    return rows


def _env_body(text: str) -> str:
    return re.sub(r"^\s*\\begin\{\w+\}|\\end\{\w+\}\s*$", "", text)


@lru_cache(maxsize=1 << 14)
def _env_width(text: str) -> float:
    """Each column as wide as its widest cell, a quad between columns, the brace."""
    rows = _cells(_env_body(text))
    columns = max(len(row) for row in rows)
    widest = [max(rendered_width(row[c]) for row in rows if c < len(row)) for c in range(columns)]
    return 1.5 + sum(widest) + 2.0 * (columns - 1)


@lru_cache(maxsize=1 << 16)
def rendered_width(tex: str) -> float:
    """Width of the rendered formula in characters (an average glyph, about half an em)."""
    return sum(a.width for a in _atoms(tex))


def line_widths(tex: str) -> list[float]:
    """The widths of the lines of a display (split at \\\\)."""
    return [rendered_width(line.replace("&", "")) for line in re.split(r"\\\\(?![a-zA-Z])", tex)]


CONTINUE = r"\quad "


def break_lines(tex: str, budget: float, first: float | None = None) -> list[str]:
    """The formula as lines of at most `budget` characters each (`first` for the first line),
    breaking before a top-level operator, at the shallowest \\left depth that fills a line
    at least half; continuation lines reopen the \\left's still open."""
    return list(_break_lines(tex, budget, first))


@lru_cache(maxsize=1 << 14)
def _break_lines(tex: str, budget: float, first: float | None) -> tuple[str, ...]:
    items = _unfolded(_atoms(tex), budget)
    stack: list[str] = []
    candidates: list[tuple[int, list[str]]] = []  # (index, the \\left's open before it)
    offsets, total = [], 0.0
    for k, atom in enumerate(items):
        offsets.append(total)
        total += atom.width
        after_comma = k > 0 and items[k - 1].text.strip() == "," and stack  # max(a,\n b)
        if after_comma or atom.kind == "op" and k > 0 and items[k - 1].kind not in ("op", "left"):
            candidates.append((k, list(stack)))
        if atom.kind == "left":
            stack.append(atom.text.strip())
        elif atom.kind == "right" and stack:
            stack.pop()
    offsets.append(total)
    cuts: list[tuple[int, list[str]]] = []
    begin, limit, indent = 0, first if first is not None else budget, 0.0
    while True:
        ahead = [c for c in candidates if c[0] > begin]
        if offsets[-1] - offsets[begin] + indent <= limit or not ahead:
            break
        fitting = [c for c in ahead if offsets[c[0]] - offsets[begin] + indent <= limit]
        full = [c for c in fitting if offsets[c[0]] - offsets[begin] + indent >= 0.5 * limit]
        if full:
            cut = min(reversed(full), key=lambda c: len(c[1]))
        else:
            cut = fitting[-1] if fitting else ahead[0]
        cuts.append(cut)
        begin, limit, indent = cut[0], budget, 2.0 + 0.6 * len(cut[1])
    bounds = [0, *[c[0] for c in cuts], len(items)]
    opens = [[], *[c[1] for c in cuts], []]
    out = []
    for n in range(len(bounds) - 1):
        text = "".join(a.text for a in items[bounds[n] : bounds[n + 1]]).strip()
        text = "".join(r"\left. " for _ in opens[n]) + text + "".join(r" \right." for _ in opens[n + 1])
        out.append(text if n == 0 else CONTINUE + text)
    return tuple(out)


def _unfolded(items: tuple[Atom, ...], budget: float) -> list[Atom]:
    """Atoms wider than the budget opened up: a fraction written (A) / (B) so that its parts
    break like the rest, a cases environment with its rows broken."""
    out: list[Atom] = []
    for atom in items:
        if atom.width <= budget:
            out.append(atom)
        elif atom.kind == "env":
            out.append(_broken_cases(atom, budget))
        elif atom.kind == "frac":
            tokens = _tokens(atom.text.strip())
            a, j = _group(tokens, 1)
            b, _ = _group(tokens, j)
            parts = [_inner(a), _inner(b)]
            shown = [rf"\left({p}\right)" if len(_atoms(p)) > 1 else p for p in parts]
            flat = _unfolded(_atoms(f"{shown[0]} / {shown[1]}"), budget)
            pieces = break_lines("".join(a.text for a in flat), budget)
            # written (A) / (B) only where that breaks it into narrower lines
            narrower = max(rendered_width(p) for p in pieces) < atom.width
            out.extend(flat if narrower else [atom])
        else:
            out.append(atom)
    return out


def _broken_cases(atom: Atom, budget: float) -> Atom:
    """A cases environment whose rows run long: each row's value broken into pieces, the
    condition on the last piece."""
    if not atom.text.strip().startswith(r"\begin{cases}"):
        return atom
    rows = []
    for cells in _cells(_env_body(atom.text)):
        value, condition = cells[0].strip(), " ".join(c.strip() for c in cells[1:])
        wide = rendered_width(condition) > 0.45 * budget
        conditions = break_lines(condition, 0.45 * budget) if wide else [condition]
        room = 0.5 * budget if wide else budget - rendered_width(condition) - 4
        pieces = break_lines(value, max(budget * 0.45, room))
        rows.append(" & \\\\ ".join(pieces) + " & " + " \\\\ & ".join(conditions))
    text = r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}"
    return Atom((" " if atom.text.startswith(" ") else "") + text, _env_width(text), "env")


WIDTH = 60.0  # characters a display line may take: ~30 em, under a default article's 345 pt column
SHORT_SYMBOL = 12.0  # a wider left-hand side goes on its own row (the column is not split)
DISPLAY_CHARS = 1000  # some Git hosts refuse a longer math display


def aligned_rows(symbol: str, forms: list[str], width: float = WIDTH) -> list[str]:
    """`symbol = form_1 = ... = result` as the rows of an aligned display, each form but the
    result broken to the width; a form equal to the one before it is shown once."""
    shown = [f for i, f in enumerate(forms) if i == 0 or f != forms[i - 1]]
    lhs = rendered_width(symbol)
    if lhs <= SHORT_SYMBOL:
        rows, head, budget = [], f"{symbol} &= ", width - lhs - 2
    else:
        rows, head, budget = [f"& {symbol}"], "&= ", width - 2
    for n, form in enumerate(shown):
        last = n == len(shown) - 1  # the result (a number, its unit, GB/GiB): one row
        for k, piece in enumerate([form] if last else break_lines(form, budget - 2, budget)):
            rows.append((head if n == 0 else "&= ") + piece if k == 0 else "& " + piece)
    return rows


def display_blocks(rows: list[str], limit: int = DISPLAY_CHARS) -> list[list[str]]:
    """The rows grouped into displays of at most `limit` characters each (a row longer than
    that is one display of its own)."""
    blocks: list[list[str]] = [[]]
    size = 0
    for row in rows:
        if blocks[-1] and size + len(row) + 40 > limit:
            blocks.append([])
            size = 0
        blocks[-1].append(row)
        size += len(row) + 4
    return blocks
