"""Output commands: xlsx, docs, derive, templates export."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from ..errors import LedgerError
from .common import (
    app,
    guarded,
    id_list,
    out,
    print_error,
    progress_wanted,
)
from .scenario_options import (
    Engine,
    engine_option,
    gpu_option,
    gpus_option,
    scenario_sets,
    set_option,
    time_model_option,
    workload_option,
)


class DocFormat(str, Enum):
    md = "md"
    tex = "tex"
    all = "all"


class SnippetFormat(str, Enum):
    md = "md"
    tex = "tex"


class Site(str, Enum):
    mkdocs = "mkdocs"
    sphinx = "sphinx"


@app.command(rich_help_panel="Outputs")
@guarded
def xlsx(
    models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
    gpu: str = typer.Option(
        "all",
        "--gpu",
        help="GPUs of the GPU table and the Compare columns: all, or comma-separated ids / GPU YAML paths",
    ),
    gpus: str | None = gpus_option(),
    workload: str | None = workload_option(),
    set_: list[str] | None = set_option(),
    time_model: str | None = time_model_option(),
    engine: Engine | None = engine_option(),
    sweep_model: str | None = typer.Option(
        None, help="Model of the Sweeps sheet [llama-3-8b if selected, else the first]"
    ),
    output: Path = typer.Option(Path("build/ledger.xlsx"), "-o", "--output", help="Workbook path"),
):
    """Write the live-formula workbook (the main job).

    Examples:

    * `ledgerbuild xlsx --models all`
    * `ledgerbuild xlsx --models llama-3-8b,qwen2.5-7b --gpu h100-sxm,l4 --workload reasoning -o p.xlsx`
    """
    from ..catalog import gpus as gpu_table
    from ..writers.xlsx import write_workbook

    alias = gpus is not None and all(g.strip() in gpu_table() for g in gpus.split(","))
    if alias and gpus is not None and not (gpus.strip().isdigit() or gpus.strip().lower() == "auto"):
        print_error(
            f"--gpus {gpus}: GPU ids now go to --gpu (--gpus is the GPU count); read as --gpu for now"
        )
        gpu, gpus = gpus, None
    summary = write_workbook(
        models,
        gpu,
        scenario_sets(set_, gpus=gpus, workload=workload, time_model=time_model, engine=engine),
        output,
        progress=progress_wanted(),
        sweep_model=sweep_model,
    )
    typer.echo(summary)  # plain: a path is data, not rich markup


def _formats(fmt: DocFormat | str) -> list[str]:
    fmt = DocFormat(fmt).value
    return ["md", "tex"] if fmt == "all" else [fmt]


@app.command(rich_help_panel="Outputs")
@guarded
def docs(
    models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
    format_: DocFormat = typer.Option(DocFormat.all, "--format", help="Markdown, LaTeX or both"),
    gpu: str | None = gpu_option(
        help="GPU id or GPU YAML path [h100-sxm]; several (a,b): one folder per GPU under -o"
    ),
    gpus: str | None = gpus_option(),
    workload: str | None = workload_option(),
    set_: list[str] | None = set_option(),
    time_model: str | None = time_model_option(),
    engine: Engine | None = engine_option(),
    output: Path = typer.Option(Path("build/docs"), "-o", "--output", help="Folder"),
    templates: Path | None = typer.Option(None, help="A folder of your own templates"),
    plots: bool = typer.Option(
        True,
        "--plots/--no-plots",
        help="a figure per model (one more for the VLMs): SVG for Markdown, PDF for LaTeX",
    ),
    site: Site | None = typer.Option(
        None,
        "--site",
        help="Also write the site configuration: mkdocs (mkdocs.yml, the pages in -o/docs) or "
        "sphinx (conf.py, contents.md), built as written with `mkdocs build --strict` / `sphinx-build -W`",
    ),
):
    """Write derivations: one Markdown / LaTeX document per model, an index and the page
    "Reproduce the lecture".

    Examples:

    * `ledgerbuild docs`
    * `ledgerbuild docs --models llama-3-8b --format tex -o paper/`
    * `ledgerbuild docs --templates my-templates/ --no-plots`
    * `ledgerbuild docs --site mkdocs -o site && cd site && mkdocs build --strict`
    """
    from ..writers.docs import write_docs
    from ..writers.docs.site import documents_folder, write_site

    kind = Site(site).value if site is not None else None
    ids = _gpu_list(gpu)
    for one in ids:
        folder = output / Path(one).stem if len(ids) > 1 and one else output
        sets = scenario_sets(
            set_, gpu=one, gpus=gpus, workload=workload, time_model=time_model, engine=engine
        )
        summary = write_docs(
            models,
            _formats(format_),
            sets,
            documents_folder(kind, folder),
            templates,
            plots,
            progress=progress_wanted(),
        )
        typer.echo(summary)  # plain: a path is data, not rich markup
        if kind is not None:
            typer.echo(f"site configuration written; build it with: {write_site(kind, folder)}")


def _gpu_list(gpu: str | None) -> list:
    """--gpu a,b -> ["a", "b"]; none given -> [None] (the scenario's default)."""
    if gpu is None:
        return [None]
    return id_list(gpu, "--gpu")


@app.command(rich_help_panel="Outputs")
@guarded
def derive(
    model: str = typer.Argument(..., help="Catalog id, model YAML or HF config.json"),
    quantity: str = typer.Argument(..., help="A quantity name (ledgerbuild list quantities)"),
    format_: SnippetFormat = typer.Option(SnippetFormat.md, "--format", help="Markdown or LaTeX"),
    gpu: str | None = gpu_option(help="GPU id or GPU YAML path [h100-sxm] (one: a snippet has one scenario)"),
    gpus: str | None = gpus_option(),
    workload: str | None = workload_option(),
    set_: list[str] | None = set_option(),
    time_model: str | None = time_model_option(),
    engine: Engine | None = engine_option(),
    templates: Path | None = typer.Option(None, help="A folder of your own templates"),
    preamble: bool = typer.Option(
        False, "--preamble", help="LaTeX: print a complete document (class, packages) around the snippet"
    ),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the snippet to a file [stdout]"),
):
    """Print one quantity's derivation as an embeddable snippet (stable anchor / label).

    Examples:

    * `ledgerbuild derive llama-3-8b kv_bytes_per_token`
    * `ledgerbuild derive deepseek-v3 params_active --format tex --preamble -o params.tex`
    * `ledgerbuild derive llama-3-70b tpot_s --gpu h200 --gpus 4 --workload reasoning`
    """
    from ..files import write_text
    from ..printers.latex import standalone
    from ..writers.docs import derive as derive_snippet

    fmt = SnippetFormat(format_).value
    if preamble and fmt != "tex":
        raise LedgerError("--preamble: only with --format tex (a Markdown snippet needs no preamble)")
    if gpu is not None and "," in gpu:
        raise LedgerError(f"--gpu {gpu}: derive prints one snippet; give one GPU")
    sets = scenario_sets(set_, gpu=gpu, gpus=gpus, workload=workload, time_model=time_model, engine=engine)
    text = derive_snippet(model, quantity, fmt, sets, templates)
    text = standalone(text) if preamble else text
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)
        typer.echo(f"wrote {output}")


templates_app = typer.Typer(
    no_args_is_help=True,
    help="The jinja2 templates of `docs` and `derive`: export them to edit, override any single file.",
)
app.add_typer(templates_app, name="templates", rich_help_panel="Outputs")


@templates_app.command("export")
@guarded
def templates_export(
    folder: Path = typer.Argument(..., help="Folder to write the templates to"),
    force: bool = typer.Option(False, "--force", help="Overwrite existing template files"),
):
    """Copy the shipped templates into FOLDER; pass `--templates FOLDER` to `docs` / `derive`.

    A folder may hold only the files you change: the rest come from the shipped set.

    Examples:

    * `ledgerbuild templates export my-templates/`
    * `ledgerbuild docs --templates my-templates/`
    """
    from ..writers.docs import export_templates

    out.print(export_templates(folder, force), highlight=False, markup=False, soft_wrap=True)
