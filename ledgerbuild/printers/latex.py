"""LaTeX for derivations: the symbolic form, the form with numbers put in, the result.

Scope: sympy's own `latex` printer, run once per form when the numeric ledger is generated
(numeric_gen.py: `latex_template`, `for_model`); documents fill the printed template with the
ledger's symbol names (an input's `tex`, else \\mathrm{name}) or with each symbol's value, so
the substituted form is the *same* printed tree and no number is recomputed here. Catalog
strings go through `tex_escape` before they reach a LaTeX document. Shortcut: values print
with thousands separators ({,}) for integers and 5 significant digits (x 10^n) otherwise.
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache

from ..rules import to_plain
from .template import NameTemplate, cached

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
}
_ESCAPE_RE = re.compile("|".join(re.escape(k) for k in _ESCAPES))


# characters beyond Latin-1 that T1-encoded pdflatex sets; any other is transliterated
_TYPOGRAPHY = {
    "\u2013": "--",
    "\u2014": "---",
    "\u2018": "`",
    "\u2019": "'",
    "\u201c": "``",
    "\u201d": "''",
    "\u2026": r"\ldots{}",
    "\u2212": "-",
}


_SETTABLE = re.compile(r"[ -~\xa0-\xff]*")  # printable ASCII and Latin-1: no transliteration


def tex_escape(text) -> str:
    """A catalog string as inert LaTeX text: no command, group or special character survives;
    whitespace runs (blank lines would end a paragraph inside a heading) become one space;
    control characters and characters pdflatex cannot set (non-Latin scripts: T1 fonts, no
    Unicode engine assumed) are transliterated to [U+XXXX]. Remembered per string (a
    document set repeats its descriptions and sources)."""
    return _tex_escape(str(text))


_BARS = re.compile(r"\|([^|]*)\|")
_QUOTES = [
    (re.compile(r'(^|[\s(\[])"([^"]*)"'), r"\1``\2''"),  # "x" -> ``x''
    (re.compile(r"(^|[\s(\[])'([^']*)'(?=$|[\s).,;:\]])"), r"\1`\2'"),  # 'x' -> `x'
]


def _typeset(text: str) -> str:
    """|x| as math bars (a default OT1 article prints a text | as a dash), quotes opened
    and closed (a straight ' prints as a closing quote)."""
    text = _BARS.sub(r"$\\lvert$\1$\\rvert$", text).replace("|", r"\textbar{}")
    for pattern, replacement in _QUOTES:
        text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=65536)
def _tex_escape(text: str) -> str:
    return _typeset(_tex_escape_plain(text))


def _tex_escape_plain(text: str) -> str:
    plain = " ".join(text.split())
    if _SETTABLE.fullmatch(plain):  # the common case: only the specials to escape
        return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], plain)
    out = []
    for ch in plain:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch in _TYPOGRAPHY:
            out.append(_TYPOGRAPHY[ch])
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ord(ch) > 0xFF:
            out.append(f"[U+{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


def tex_name(inputs: dict, name: str) -> str:
    """An input's math symbol (its record's `tex`, numeric.py), else \\mathrm{name}."""
    tex = inputs[name]["tex"] if name in inputs else None
    return tex or r"\mathrm{" + name.replace("_", r"\_") + "}"


def tex_number(value) -> str:
    value = to_plain(value)
    if isinstance(value, int):
        return f"{value:,}".replace(",", "{,}")
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else r"\infty"
    exponent = math.floor(math.log10(abs(value)))
    if -3 <= exponent < 6:
        return f"{value:,.{max(0, 4 - exponent)}f}".replace(",", "{,}")
    return rf"{value / 10**exponent:.4f} \times 10^{{{exponent}}}"


def _latex(expr, names: dict) -> str:
    import sympy as sp

    return sp.latex(expr, symbol_names=names, mul_symbol="dot", fold_short_frac=False, long_frac_ratio=3)


def latex_template(expr) -> NameTemplate:
    """The expression's LaTeX with its symbols left to fill (at generation time)."""
    return cached(_latex, expr)


def formula_tex(inputs: dict, template: NameTemplate) -> str:
    return template.fill(lambda name: tex_name(inputs, name))


def _value_tex(value) -> str:
    text = tex_number(value)
    return r"\left(" + text + r"\right)" if to_plain(value) < 0 else text


_CONDITION = re.compile(r"\\text\{for\}|\\\\|\\end\{cases\}")


def substituted_tex(template: NameTemplate, result, symbol=None) -> str:
    """The same printed expression with every symbol shown as its value in this evaluation;
    with `symbol` (name -> its math symbol), a Piecewise condition keeps its symbols ("0 for
    n_shared = 0", not "0 for 1,536 = 0")."""
    if symbol is None:
        return template.fill(lambda name: _value_tex(result.value(name)))
    parts, out, in_condition = template.parts, [], False
    for i, part in enumerate(parts):
        if i % 2:  # a symbol's name
            out.append(symbol(part) if in_condition else _value_tex(result.value(part)))
            continue
        out.append(part)
        for m in _CONDITION.finditer(part):  # the last marker in this text decides
            in_condition = m.group() == r"\text{for}"
    return "".join(out)


def unit_tex(value, unit: str) -> str:
    """Result with its unit; bytes also in GB and GiB, seconds also in ms."""
    plain = to_plain(value)
    text = tex_number(plain) + r"\ \text{" + tex_escape(unit) + "}"
    if unit == "bytes" and abs(plain) >= 1e6:
        text += rf"\ (= {tex_number(plain / 1e9)}\ \text{{GB}} = {tex_number(plain / 2**30)}\ \text{{GiB}})"
    elif unit == "s" and 0 < abs(plain) < 1:
        text += rf"\ (= {tex_number(plain * 1e3)}\ \text{{ms}})"
    elif abs(plain) >= 1e6 and unit in SCALED:  # a scaled form beside the exact figure
        power, name = next((p, n) for p, n in SCALED[unit] if abs(plain) >= 10**p)
        text += rf"\ (\approx {plain / 10**power:.4g}\ \text{{{name}}})"
    return text


_SI = [(18, "E"), (15, "P"), (12, "T"), (9, "G"), (6, "M")]
SCALED = {
    "FLOP": [(p, f"{x}FLOP") for p, x in _SI],
    "FLOP/s": [(p, f"{x}FLOP/s") for p, x in _SI],
    "B/s": [(p, f"{x}B/s") for p, x in _SI],
    "params": [(12, "T params"), (9, "B params"), (6, "M params")],  # B = billion
    "tokens": [(9, "G tokens"), (6, "M tokens")],
}


# Model fields whose 0 switches a term off: a derivation drops the term for that model.
STRUCTURAL = (
    "num_sliding_layers",
    "num_chunked_layers",
    "qkv_bias",
    "o_bias",
    "qk_norm",
    "attention_sinks",
    "router_bias",
    "expert_bias",
    "first_k_dense_replace",
    "n_shared_experts",
    "tie_word_embeddings",
    "num_nextn_predict_layers",
)


def structural_zeros(result) -> frozenset:
    return frozenset(n for n in STRUCTURAL if n in result.inputs and not result.inputs[n])


@cache
def for_model(expr, zeros: frozenset):
    """The expression as it applies to a model: its structural zeros substituted (at
    generation time, for each set of zeros a model may have)."""
    hit = {s: 0 for s in expr.free_symbols if s.name in zeros}
    return expr.xreplace(hit) if hit else expr


TEX_PACKAGES = r"\usepackage[T1]{fontenc}\usepackage{lmodern,amsmath,amssymb}"


def standalone(snippet: str) -> str:
    """A snippet as a complete document (`derive --format tex --preamble`)."""
    return (
        "\\documentclass[10pt]{article}\n\\usepackage[a4paper,margin=18mm]{geometry} % the documents' page\n"
        + TEX_PACKAGES
        + "\n\\allowdisplaybreaks\n\\setlength{\\emergencystretch}{3em}\n"
        + "\\sloppy % long citations (paths, titles) break rather than run into the margin\n"
        + "\\begin{document}\n"
        + snippet
        + "\\end{document}\n"
    )
