"""Derivations: one Markdown and/or LaTeX document per model, an index, one-quantity snippets.

Scope: build a context from an evaluated Result (architecture, shapes, every quantity's
symbolic form -> numbers substituted -> result, the per-layer table, plots) and render it
with jinja2 templates (`templates/`, or a team's own folder). Markdown uses GitHub math
($$ on their own lines); LaTeX gets a complete document per model that \\input's a body
fragment, and every catalog string through `tex_escape`. Files are written atomically.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from ... import catalog
from ...errors import LedgerError, close_matches, one_line
from ...files import move_into, quiet_worker, read_input, staging_folder, write_text
from ...numeric import NumericEvaluator, NumericResult, numeric_ledger
from ...printed import latex_of
from ...printers.latex import (
    formula_tex,
    structural_zeros,
    substituted_tex,
    tex_escape,
    tex_name,
    tex_number,
    unit_tex,
)
from ...printers.latex_lines import aligned_rows, display_blocks
from ...rules import gpu_count_text, time_model_text, to_plain
from ...units import human
from .layer_tables import decode_cached, layer_rows, shape_rows
from .lecture_page import PAGE as LECTURE_PAGE
from .lecture_page import write_lecture_page
from .plots import VISION_CAPTION, figure_files, model_figure, vision_figure
from .plots import caption as plot_caption
from ..selection import progress_bar, select

TEMPLATES = {
    "md": ["model.md.j2", "quantity.md.j2", "index.md.j2"],
    "tex": ["model.tex.j2", "model-body.tex.j2", "quantity.tex.j2", "index.tex.j2"],
}
ALL_TEMPLATES = sorted({n for names in TEMPLATES.values() for n in names})


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#!|$<>~])")  # no link without [ ], so ( ) stay


def md_escape(text) -> str:
    """A catalog string as inert Markdown text: one line (whitespace runs, blank lines
    included, become one space; control characters shown escaped), every character that
    could start a link, image, heading, emphasis, code, math, HTML or a table cell
    backslash-escaped, & as an entity. Remembered per string."""
    return _md_escape(str(text))


@functools.lru_cache(maxsize=65536)
def _md_escape(text: str) -> str:
    plain = one_line(" ".join(text.split()), limit=2000)
    return _MD_SPECIAL.sub(r"\\\1", plain.replace("&", "&amp;"))


def label(text) -> str:
    return "".join(c if c.isalnum() or c in "-." else "-" for c in str(text))


def shipped_templates() -> Path:
    return Path(str(resources.files("ledgerbuild.templates")))


class UserTemplates(jinja2.BaseLoader):
    """A user's templates folder: only regular files directly inside it (a symbolic link, say
    to /etc/passwd, or a name reaching outside the folder is refused), read bounded as UTF-8."""

    def __init__(self, folder: Path, fallback: jinja2.BaseLoader) -> None:
        self.folder, self.fallback = Path(folder).resolve(), fallback

    def get_source(self, environment, template):
        path = self.folder / template
        if "/" in template or "\\" in template or template in ("", ".", ".."):
            raise LedgerError(
                f"{self.folder}: template {template[:60]!r}: only files inside the folder are read"
            )
        if not os.path.lexists(path):  # the shipped one (its loader names a missing template)
            return self.fallback.get_source(environment, template)
        if path.is_symlink() or path.resolve().parent != self.folder:
            raise LedgerError(f"{path}: a symbolic link; a templates folder is read only for its own files")
        return read_input(path), str(path), lambda: False


def environment(fmt: str, folder: Path | None) -> jinja2.Environment:
    """Templates from `folder` where it has them, the shipped ones for the rest (a team can
    override a single file)."""
    roots = [shipped_templates()]
    if folder is not None:
        folder = Path(folder)
        if not folder.is_dir():
            raise LedgerError(f"{folder}: templates folder does not exist")
        if not any((folder / n).is_file() for n in ALL_TEMPLATES):
            raise LedgerError(
                f"{folder}: no templates found (a templates folder overrides any "
                f"of {', '.join(ALL_TEMPLATES)}; `ledgerbuild templates export DIR` "
                "writes them all)"
            )
    shipped = jinja2.FileSystemLoader([str(r) for r in roots])
    loader = shipped if folder is None else UserTemplates(folder, shipped)
    # a user's templates run sandboxed (no attribute access to os, files or subprocesses); the
    # shipped ones are the package's own code and run without the sandbox's per-access checks
    cls = SandboxedEnvironment if folder is not None else jinja2.Environment
    options: dict = {"autoescape": False, "undefined": jinja2.StrictUndefined, "keep_trailing_newline": True}
    if fmt == "tex":  # LaTeX braces and percent signs clash with jinja's defaults
        options.update(
            block_start_string="<%",
            block_end_string="%>",
            variable_start_string="<<",
            variable_end_string=">>",
            comment_start_string="<#",
            comment_end_string="#>",
        )
    env = cls(loader=loader, **options)
    env.filters["esc"] = md_escape if fmt == "md" else tex_escape
    env.filters["label"] = label
    return env


def export_templates(out: Path, force: bool = False) -> str:
    """Copy the shipped templates into `out` to edit; existing files are kept unless `force`."""
    prepare_folder(Path(out))
    clash = [n for n in ALL_TEMPLATES if (Path(out) / n).exists()]
    if clash and not force:
        raise LedgerError(f"{Path(out) / clash[0]}: exists (use --force to overwrite {len(clash)} file(s))")
    for name in ALL_TEMPLATES:
        write_text(Path(out) / name, (shipped_templates() / name).read_text(encoding="utf-8"))
    return (
        f"wrote {len(ALL_TEMPLATES)} templates to {out}; edit any of them and pass "
        f"--templates {out} (files you delete fall back to the shipped ones)"
    )


def render(env: jinja2.Environment, name: str, context: dict) -> str:
    try:
        return env.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as e:
        raise LedgerError(
            f"{e.filename or name} line {e.lineno}: template syntax error: {e.message}"
        ) from None
    except jinja2.UndefinedError as e:
        raise LedgerError(f"{name}: template uses an unknown value ({e.message})") from None
    except jinja2.TemplateError as e:  # a missing include, the sandbox refusing an attribute
        raise LedgerError(f"{name}: template error: {e}") from None
    except (ArithmeticError, TypeError, ValueError, LookupError, RecursionError) as e:
        raise LedgerError(f"{name}: template failed while rendering ({type(e).__name__}: {e})") from None


@dataclass
class Derivation:
    name: str
    anchor: str
    label: str
    symbol: str
    formula: str
    substituted: str
    result: str
    unit: str
    description: str
    source: str
    caption: str = ""  # a snippet names its model and scenario; a model page says it once
    lines: list[str] = field(default_factory=list)  # the aligned rows, broken to the column
    blocks: list[list[str]] = field(default_factory=list)  # the rows in displays of <= 1,000 chars


def derivation(inputs: dict, result: NumericResult, q, caption: str = "") -> Derivation:
    """`inputs`: the numeric ledger's input records (their math symbols)."""
    template = latex_of(q, structural_zeros(result))
    d = Derivation(
        q.name,
        f"q-{label(result.model_id)}-{q.name}",
        f"eq:{label(result.model_id)}:{q.name}",
        tex_name(inputs, q.name),
        formula_tex(inputs, template),
        substituted_tex(template, result, lambda name: tex_name(inputs, name)),
        unit_tex(result.values[q.name], q.unit),
        q.unit,
        q.description,
        q.source,
        caption,
    )
    d.lines = aligned_rows(d.symbol, [d.formula, d.substituted, d.result])
    d.blocks = display_blocks(d.lines)
    return d


def fit_note(result: NumericResult) -> str:
    """'' when a request fits on the GPUs in force, else what the deployment lacks."""
    if to_plain(result.value("max_concurrency")) > 0:
        return ""
    gpus = to_plain(result.value("total_gpus"))
    need = to_plain(result.value("gpus_for_weights"))
    lack = (
        f"needs {need} for the weights alone"
        if need > gpus
        else "one request's KV does not fit beside the weights"
    )
    return f"does not fit on {gpus} x {catalog.row('gpus', result.keys['gpu']).name}: {lack}"


def scenario_text(result: NumericResult, per_model: bool = False) -> str:
    k, v = result.keys, result.inputs
    count = "GPU count per model (column GPUs)" if per_model else gpu_count_text(result)
    return (
        f"{count} x {catalog.row('gpus', k['gpu']).name}, "
        f"weights {k['weight_dtype']}, "
        f"KV {k['kv_dtype']}, workload {k['workload']} ({v['prompt_tokens']} in / "
        f"{v['output_tokens']} out), context {to_plain(v['context_tokens'])}, "
        f"batch {v['batch_size']}, {to_plain(result.value('gpu_price_usd_per_hour')):g} USD per "
        "GPU-hour"
    )


def model_context(inputs: dict, result: NumericResult, plots: list[str]) -> dict:
    """`inputs`: the numeric ledger's input records."""
    zeros = structural_zeros(result)
    used = set().union(*(latex_of(q, zeros).names for q in result.quantities))
    fields = [
        {"name": n, "value": f"{to_plain(result.inputs[n]):,}", "description": i["description"]}
        for n, i in inputs.items()
        if i["kind"] == "model" and n in used
    ]
    shown = [q for q in result.quantities if not trivially_zero(result, q)]
    topics = [
        {"name": t, "quantities": [derivation(inputs, result, q) for q in shown if q.topic == t]}
        for t in result.topics
    ]
    topics = [t for t in topics if t["quantities"]]  # no empty section (multimodal for a text model)
    return {
        "model": {"id": result.model_id, "name": result.model_name},
        "scenario": scenario_text(result),
        "fit": fit_note(result),
        "time_model": time_model_text(result.keys["time_model"], result.keys["gpu"]),
        "variants": sorted(result.tags),
        "fields": fields,
        "shapes": shape_rows(result),
        "prefill_tokens": f"{to_plain(result.inputs['prompt_tokens']):,}",
        "batch": to_plain(result.inputs["batch_size"]),
        "decode_cached": f"{decode_cached(result):,}",
        "layer_rows": layer_rows(result),
        "topics": topics,
        "plots": plots,
        "plot_alt": plot_caption(result),
        "layer_intensity": {
            p: tex_number(result.values[f"layer_intensity_{p}"]).replace("{,}", ",")
            for p in ("prefill", "decode")
        },
        "body": f"{result.model_id}-body",
    }


def trivially_zero(result: NumericResult, q) -> bool:
    """A quantity that is 0 for this model (a variant it does not have: no draft model, no
    sliding layers): a model's document leaves it out; `derive` still prints it."""
    value = to_plain(result.values[q.name])
    return isinstance(value, int | float) and value == 0


def index_row(result: NumericResult) -> dict:
    def h(name, unit):
        return human(to_plain(result.values[name]), unit).split("  (")[0]

    fit = fit_note(result)
    runs = {
        "concurrency": h("max_concurrency", "requests"),
        "tpot": h("tpot_s", "s"),
        "usd": h("usd_per_million_output_tokens", "USD"),
    }
    return {
        "id": result.model_id,
        "variants": ", ".join(sorted(result.tags)),
        "gpus": gpu_count_text(result),
        "params": h("params_total", "params"),
        "kv": h("kv_bytes_per_token", "bytes"),
        **(dict.fromkeys(runs, "-") | {"concurrency": fit} if fit else runs),
        "topics": topics_of(result),
    }


def topics_of(result: NumericResult) -> list[str]:
    """The sections a model's document has (a topic whose quantities are all 0 has none)."""
    return list(dict.fromkeys(q.topic for q in result.quantities if not trivially_zero(result, q)))


def prepare_folder(out: Path, made: bool = True) -> None:
    """-o checked a folder; made now, or (made=False: a staged set renamed in whole) its parent
    only, so an interrupted first run leaves no empty folder."""
    if out.exists() and not out.is_dir():
        raise LedgerError(f"{out}: is a file; -o takes a folder")
    try:
        (out if made else out.parent).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise LedgerError(f"{out}: cannot create the output folder ({e.strerror})") from None


def _forked(function, argument_lists: list[tuple]) -> list:
    """function(*arguments) for each list, in forked processes, one each. The workers are ended
    by closing the pool and waiting for them, never by terminating it: Pool.terminate
    SIGTERMs workers idle on its task queue, and a worker whose SIGTERM lands on a thread other
    than its main one (numpy's BLAS thread) never runs the handler and waits on the queue's
    lock forever, holding the whole run (seen in the benchmark: a docs run hung for 13 minutes)."""
    pool = multiprocessing.get_context("fork").Pool(
        len(argument_lists), initializer=quiet_worker, initargs=(os.getpid(),)
    )
    try:
        return pool.starmap(function, argument_lists)
    finally:  # a failed task: the other finishes its own, then both exit
        pool.close()
        pool.join()


def write_docs(
    model_spec: str,
    formats: list[str],
    sets: dict,
    out: Path,
    templates: Path | None = None,
    plots: bool = True,
    progress: bool = False,
) -> str:
    """Write the documents; return a one-line summary."""
    envs = {fmt: environment(fmt, templates) for fmt in formats}
    evaluator = NumericEvaluator(sets)
    # each model as show and xlsx read it (id, model YAML or config.json), and by the same
    # reference where the figures sweep it: a file's id is not a catalog id
    refs = select(model_spec, catalog.models(), "models")
    results = [evaluator.evaluate(m) for m in refs]
    final = Path(out)
    prepare_folder(final, made=False)
    out = staging_folder(final)  # written whole, then renamed in: an interrupted run leaves the old set
    written = 0
    figure_names = {r.model_id: figure_files(r.model_id) for r in results} if plots else {}
    global _DOCS
    _DOCS = (evaluator.inputs, results, refs, envs, figure_names, sets, out)
    try:
        if len(results) >= 8 and (os.cpu_count() or 1) > 1:
            # the second CPU takes half the models (forked: nothing pickled in)
            half = (len(results) + 1) // 2
            # the first worker draws the bar for its half (one bar, no interleaving)
            written += sum(_forked(_model_documents, [(0, half, progress), (half, len(results))]))
        else:
            written += _model_documents(0, len(results), progress)
    finally:
        _DOCS = None
    vlms = [i for i, r in enumerate(results) if "vision" in r.tags]
    vision_plots: list[str] = []
    if plots and vlms:
        vision_plots = vision_figure([results[i] for i in vlms], sets, out, [refs[i] for i in vlms])
        written += len(vision_plots)
    for fmt, env in envs.items():
        index = {
            "vision_plots": vision_plots,
            "vision_caption": VISION_CAPTION,
            "models": [index_row(r) for r in results],
            "scenario": scenario_text(results[0], per_model=True),
            "time_model": time_model_text(results[0].keys["time_model"], results[0].keys["gpu"]),
            "lecture_page": LECTURE_PAGE if fmt == "md" else "",
        }
        write_text(out / f"index.{fmt}", render(env, f"index.{fmt}.j2", index))
        written += 1
    if "md" in envs:  # the lecture's figures beside the ledger's (issue 31)
        written += write_lecture_page(out)
    move_into(out, final)
    return f"wrote {written} files for {len(results)} models to {final}"


_DOCS: tuple | None = None  # what _model_documents reads (a forked worker inherits it)


def _model_documents(start: int, stop: int, progress: bool = False) -> int:
    """Each model's documents, results[start:stop]; returns the number of files written."""
    assert _DOCS is not None
    inputs, results, refs, envs, figure_names, sets, out = _DOCS
    written = 0
    rows = list(zip(results, refs, strict=True))[start:stop]
    for result, ref in progress_bar(rows, progress, "writing documents"):
        if result.model_id in figure_names:
            written += len(model_figure(result, sets, out, ref))
        context = model_context(inputs, result, figure_names.get(result.model_id, []))
        for fmt, env in envs.items():
            main = "model.md.j2" if fmt == "md" else "model.tex.j2"
            write_text(out / f"{result.model_id}.{fmt}", render(env, main, context))
            written += 1
            if fmt == "tex":
                write_text(out / f"{result.model_id}-body.tex", render(env, "model-body.tex.j2", context))
                written += 1
    return written


def derive(model: str, quantity: str, fmt: str, sets: dict, templates: Path | None = None) -> str:
    """One quantity's derivation for one model, as an embeddable snippet."""
    evaluator = NumericEvaluator(sets)
    if quantity not in evaluator.forms:
        raise LedgerError(f"unknown quantity {quantity!r}{close_matches(quantity, evaluator.forms)}")
    result = evaluator.evaluate(model)
    q = next((q for q in result.quantities if q.name == quantity), None)
    if q is None:
        raise LedgerError(
            f"{quantity} does not apply to {result.model_id} (variants: {', '.join(sorted(result.tags))})"
        )
    caption = (
        f"{result.model_name} ({result.model_id}); scenario: {scenario_text(result)}"
        f"{'; ' + fit_note(result) if fit_note(result) else ''}; time model: "
        f"{time_model_text(result.keys['time_model'], result.keys['gpu'])}"
    )
    env = environment(fmt, templates)
    return render(env, f"quantity.{fmt}.j2", {"q": derivation(evaluator.inputs, result, q, caption)})
