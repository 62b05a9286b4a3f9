"""Output commands: xlsx, docs, derive, templates export."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..errors import LedgerError
from .common import GPUS_HELP, SET_HELP, _sets, app, gpu_count_setting, guarded, out, print_error


@app.command(rich_help_panel="Outputs")
@guarded
def xlsx(
    models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
    gpu: str = typer.Option(
        "all",
        "--gpu",
        help="GPUs of the GPU table and the Compare columns: all, or comma-separated ids / GPU YAML paths",
    ),
    gpus: str | None = typer.Option(None, "--gpus", help=GPUS_HELP),
    workload: str | None = typer.Option(None, help="Workload id [chat]"),
    set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
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
        _sets(set_, workload=workload, gpu_count_setting=gpu_count_setting(gpus)),
        output,
        progress=sys.stderr.isatty(),
        sweep_model=sweep_model,
    )
    typer.echo(summary)  # plain: a path is data, not rich markup


def _formats(fmt: str) -> list[str]:
    if fmt not in ("md", "tex", "all"):
        raise LedgerError(f"--format {fmt!r}: valid: md, tex, all")
    return ["md", "tex"] if fmt == "all" else [fmt]


@app.command(rich_help_panel="Outputs")
@guarded
def docs(
    models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
    format_: str = typer.Option("all", "--format", help="md | tex | all"),
    gpu: str | None = typer.Option(None, help="GPU id or GPU YAML path [h100-sxm]"),
    gpus: str | None = typer.Option(None, "--gpus", help=GPUS_HELP),
    workload: str | None = typer.Option(None, help="Workload id [chat]"),
    set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
    output: Path = typer.Option(Path("build/docs"), "-o", "--output", help="Folder"),
    templates: Path | None = typer.Option(None, help="A folder of your own templates"),
    plots: bool = typer.Option(
        True,
        "--plots/--no-plots",
        help="a figure per model (one more for the VLMs): SVG for Markdown, PDF for LaTeX",
    ),
):
    """Write derivations: one Markdown / LaTeX document per model and an index.

    Examples:

    * `ledgerbuild docs`
    * `ledgerbuild docs --models llama-3-8b --format tex -o paper/`
    * `ledgerbuild docs --templates my-templates/ --no-plots`
    """
    from ..writers.docs import write_docs

    summary = write_docs(
        models,
        _formats(format_),
        _sets(set_, gpu=gpu, workload=workload, gpu_count_setting=gpu_count_setting(gpus)),
        output,
        templates,
        plots,
        progress=sys.stderr.isatty(),
    )
    typer.echo(summary)  # plain: a path is data, not rich markup


@app.command(rich_help_panel="Outputs")
@guarded
def derive(
    model: str = typer.Argument(..., help="Catalog id, model YAML or HF config.json"),
    quantity: str = typer.Argument(..., help="A quantity name (ledgerbuild list quantities)"),
    format_: str = typer.Option("md", "--format", help="md | tex"),
    set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
    templates: Path | None = typer.Option(None, help="A folder of your own templates"),
):
    """Print one quantity's derivation as an embeddable snippet (stable anchor / label).

    Examples:

    * `ledgerbuild derive llama-3-8b kv_bytes_per_token`
    * `ledgerbuild derive deepseek-v3 params_active --format tex`
    """
    from ..writers.docs import derive as derive_snippet

    if format_ not in ("md", "tex"):
        raise LedgerError(f"--format {format_!r}: valid: md, tex")
    sys.stdout.write(derive_snippet(model, quantity, format_, _sets(set_), templates))


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
