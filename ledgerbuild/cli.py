"""The command line: parse, make one library call, map LedgerError to one line and exit 2.

Thin by design: every number comes from `ledgerbuild.evaluate`, every file from a writer.
"""
from __future__ import annotations

import gc
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from . import __version__
from .errors import LedgerError, one_line

try:  # typer >= 0.26 vendors click; its exceptions are not click's
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]

app = typer.Typer(add_completion=True, no_args_is_help=True, rich_markup_mode="markdown",
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="The arithmetic of transformer LLM inference: parameters, FLOPs, KV "
                       "cache, memory, latency floors and cost, declared once in sympy.")
SET_HELP = "Override any input (model field by its config.json name, or a scenario input) or " \
           "quantity: NAME=VALUE. Repeatable."
out = Console()


def print_error(message: str) -> None:
    """One line on stderr; the message is data (no markup, no control characters)."""
    Console(stderr=True).print(Text("error: ", style="red") + Text(one_line(message)),
                               highlight=False, soft_wrap=True)


def fail(message: str) -> None:
    print_error(message)
    raise typer.Exit(2)


def _version(value: bool) -> None:
    if value:
        out.print(f"ledgerbuild {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """The arithmetic of transformer LLM inference: parameters, FLOPs, KV cache, memory,
    latency floors and cost, declared once in sympy."""


def main() -> None:
    """Entry point: usage errors as one line with exit 2, Ctrl-C exits at once with 130.
    The cyclic collector runs rarely (it cost ~20 % of a workbook build at its defaults) and
    not at all at exit (a tenth of a second): what a run leaves is freed with the process."""
    gc.set_threshold(200_000, 50, 1000)
    try:
        code = app(standalone_mode=False)
    except click_errors.NoArgsIsHelpError:  # the help is printed already
        sys.exit(2)
    except click_errors.UsageError as e:
        where = f"{e.ctx.command_path}: " if e.ctx else ""
        print_error(where + e.format_message() + " (try -h)")
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    gc.freeze()  # nothing left for the collector at interpreter exit
    sys.exit(code if isinstance(code, int) else 0)


GPUS_HELP = "GPU count (tensor parallel): N, or auto = the smallest of 1, 2, 4, 8 that fits [auto]"


def gpu_count_setting(gpus: str | None) -> str | None:
    """--gpus N | auto -> the gpu_count_setting input (0 = auto)."""
    if gpus is None:
        return None
    if gpus.strip().lower() == "auto":
        return "0"
    if not gpus.strip().isdigit() or int(gpus) < 1:
        raise LedgerError(f"--gpus: expected a GPU count (1, 2, ...) or auto, got {gpus!r}")
    return str(int(gpus))


def _sets(set_: list[str] | None, **named) -> dict:
    from .evaluate import parse_sets

    sets = parse_sets(set_)
    sets.update({k: str(v) for k, v in named.items() if v is not None})
    return sets


def guarded(fn):
    """Run a command body, turning user errors into one line and exit code 2: a LedgerError,
    and any file error the checks before it did not foresee (a name too long, a path through
    a file, a full disk)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except LedgerError as e:
            fail(str(e))
        except OSError as e:
            where = f"{e.filename}: " if e.filename else ""
            fail(f"{where}{e.strerror or e}")
    return wrapper


@app.command("list", rich_help_panel="Ledger")
@guarded
def list_(what: str = typer.Argument(..., help="models | gpus | workloads | quantities | "
                                                "dtypes | time_models | engines | "
                                                "training_recipes"),
          json_: bool = typer.Option(False, "--json", help="Print JSON for scripts.")):
    """List a catalog or the ledger's quantities.

    Examples:

    * `ledgerbuild list models`
    * `ledgerbuild list dtypes --json`
    """
    from .writers.terminal import LISTS, list_rows, show_list

    if what not in LISTS:
        raise LedgerError(f"unknown list {what!r}; valid: {', '.join(LISTS)}")
    if json_:
        import json
        out.print_json(json.dumps(list_rows(what), default=str))
    else:
        show_list(what, out)


@app.command(rich_help_panel="Ledger")
@guarded
def show(models: list[str] = typer.Argument(..., help="Catalog ids, model YAML paths or HF "
                                                     "config.json files (one or more)"),
         gpu: str | None = typer.Option(None, help="GPU id or GPU YAML path [h100-sxm]"),
         gpus: str | None = typer.Option(None, "--gpus", help=GPUS_HELP),
         workload: str | None = typer.Option(None, help="Workload id [chat]"),
         time_model: str | None = typer.Option(None, help="Time model id or YAML file "
                                                  "[calibrated; roofline for the floor]"),
         engine: str | None = typer.Option(None, help="Serving engine: vllm | tensorrt-llm "
                                              "| lecture [vllm]"),
         pp: int | None = typer.Option(None, "--pp", help="Pipeline-parallel stages [1]"),
         set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
         json_: bool = typer.Option(False, "--json", help="Print one JSON document: an object "
                                    "for one model, an array for several.")):
    """Every quantity of one or more models for a scenario.

    Examples:

    * `ledgerbuild show llama-3-8b`
    * `ledgerbuild show llama-3-70b --gpus 8 --json`
    * `ledgerbuild show llama-3-8b qwen3-8b --json`
    * `ledgerbuild show llama-3-8b --set num_key_value_heads=32 --set prompt_tokens=4096`
    """
    import json

    from .evaluate import Evaluator
    from .writers.terminal import show_table

    evaluator = Evaluator(_sets(set_, gpu=gpu, gpu_count_setting=gpu_count_setting(gpus),
                                workload=workload, time_model=time_model,
                                serving_engine=engine, pipeline_parallel=pp))
    results = [evaluator.evaluate(m) for m in models]  # every model checked before printing
    if json_:
        docs = [r.as_json() for r in results]
        sys.stdout.write(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2) + "\n")
        return
    for result in results:
        show_table(result, out)


@app.command("import-config", rich_help_panel="Ledger")
@guarded
def import_config(config: Path = typer.Argument(..., help="An HF config.json")):
    """Print a catalog YAML entry for a model from its HF config.json.

    Example: `ledgerbuild import-config config.json > models/my-model.yaml`
    """
    from .catalog import export_entry, load_model

    if config.suffix != ".json":
        raise LedgerError(f"{config}: expected an HF config.json")
    entry, _ = load_model(str(config))
    sys.stdout.write(export_entry(entry))


@app.command(rich_help_panel="Outputs")
@guarded
def xlsx(models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
         gpu: str = typer.Option("all", "--gpu", help="GPUs of the GPU table and the Compare "
                                 "columns: all, or comma-separated ids / GPU YAML paths"),
         gpus: str | None = typer.Option(None, "--gpus", help=GPUS_HELP),
         workload: str | None = typer.Option(None, help="Workload id [chat]"),
         set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
         sweep_model: str | None = typer.Option(None, help="Model of the Sweeps sheet "
                                                   "[llama-3-8b if selected, else the first]"),
         output: Path = typer.Option(Path("build/ledger.xlsx"), "-o", "--output",
                                     help="Workbook path")):
    """Write the live-formula workbook (the main job).

    Examples:

    * `ledgerbuild xlsx --models all`
    * `ledgerbuild xlsx --models llama-3-8b,qwen2.5-7b --gpu h100-sxm,l4 --workload reasoning -o p.xlsx`
    """
    from .writers.xlsx import write_workbook

    if gpus is not None and not (gpus.strip().isdigit() or gpus.strip().lower() == "auto"):
        print_error(f"--gpus {gpus}: GPU ids now go to --gpu (--gpus is the GPU count); "
                    "read as --gpu for now")
        gpu, gpus = gpus, None
    summary = write_workbook(models, gpu, _sets(set_, workload=workload,
                                                gpu_count_setting=gpu_count_setting(gpus)), output,
                             progress=sys.stderr.isatty(), sweep_model=sweep_model)
    out.print(summary, highlight=False)




def _formats(fmt: str) -> list[str]:
    if fmt not in ("md", "tex", "all"):
        raise LedgerError(f"--format {fmt!r}: valid: md, tex, all")
    return ["md", "tex"] if fmt == "all" else [fmt]


@app.command(rich_help_panel="Outputs")
@guarded
def docs(models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
         format_: str = typer.Option("all", "--format", help="md | tex | all"),
         gpu: str | None = typer.Option(None, help="GPU id or GPU YAML path [h100-sxm]"),
         gpus: str | None = typer.Option(None, "--gpus", help=GPUS_HELP),
         workload: str | None = typer.Option(None, help="Workload id [chat]"),
         set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
         output: Path = typer.Option(Path("build/docs"), "-o", "--output", help="Folder"),
         templates: Path | None = typer.Option(None, help="A folder of your own templates"),
         plots: bool = typer.Option(True, "--plots/--no-plots", help="matplotlib SVG + PNG")):
    """Write derivations: one Markdown / LaTeX document per model and an index.

    Examples:

    * `ledgerbuild docs`
    * `ledgerbuild docs --models llama-3-8b --format tex -o paper/`
    * `ledgerbuild docs --templates my-templates/ --no-plots`
    """
    from .writers.docs import write_docs

    out.print(write_docs(models, _formats(format_),
                         _sets(set_, gpu=gpu, workload=workload,
                               gpu_count_setting=gpu_count_setting(gpus)),
                         output, templates, plots, progress=sys.stderr.isatty()), highlight=False)


@app.command(rich_help_panel="Outputs")
@guarded
def derive(model: str = typer.Argument(..., help="Catalog id, model YAML or HF config.json"),
           quantity: str = typer.Argument(..., help="A quantity name (ledgerbuild list quantities)"),
           format_: str = typer.Option("md", "--format", help="md | tex"),
           set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
           templates: Path | None = typer.Option(None, help="A folder of your own templates")):
    """Print one quantity's derivation as an embeddable snippet (stable anchor / label).

    Examples:

    * `ledgerbuild derive llama-3-8b kv_bytes_per_token`
    * `ledgerbuild derive deepseek-v3 params_active --format tex`
    """
    from .writers.docs import derive as derive_snippet

    if format_ not in ("md", "tex"):
        raise LedgerError(f"--format {format_!r}: valid: md, tex")
    sys.stdout.write(derive_snippet(model, quantity, format_, _sets(set_), templates))


templates_app = typer.Typer(no_args_is_help=True, help="The jinja2 templates of `docs` and "
                            "`derive`: export them to edit, override any single file.")
app.add_typer(templates_app, name="templates", rich_help_panel="Outputs")


@templates_app.command("export")
@guarded
def templates_export(folder: Path = typer.Argument(..., help="Folder to write the templates to"),
                     force: bool = typer.Option(False, "--force", help="Overwrite existing "
                                                "template files")):
    """Copy the shipped templates into FOLDER; pass `--templates FOLDER` to `docs` / `derive`.

    A folder may hold only the files you change: the rest come from the shipped set.

    Examples:

    * `ledgerbuild templates export my-templates/`
    * `ledgerbuild docs --templates my-templates/`
    """
    from .writers.docs import export_templates

    out.print(export_templates(folder, force), highlight=False, soft_wrap=True)


MEASURED_HELP = "Measurement file (YAML rows or CSV): model, gpu, precision, tp, pp, isl, osl, " \
                "tokens_per_s [the shipped TensorRT-LLM v0.17 table]"


@app.command(rich_help_panel="Ledger")
@guarded
def calibrate(measurements: Path | None = typer.Argument(None, help=MEASURED_HELP),
              output: Path = typer.Option(Path("build/calibrated.yaml"), "-o", "--output",
                                          help="Time-model YAML to write"),
              name: str | None = typer.Option(None, help="Time-model id [the output file's "
                                                 "name]"),
              engine: str = typer.Option("tensorrt-llm", help="Engine the rows were measured "
                                         "with (engine table id)")):
    """Fit the time model's efficiencies per GPU to measured throughput.

    Writes a time-model YAML usable as `--time-model FILE` and a per-row report (CSV).

    Examples:

    * `ledgerbuild calibrate my-cluster.csv -o my-cluster.yaml`
    * `ledgerbuild show llama-3-70b --gpus 4 --time-model my-cluster.yaml`
    """
    from .writers.validation import summary

    fit = _calibrate(measurements, output, name, engine)
    _print_summary(summary(*fit), f"calibrated fit written to {output}")


def _calibrate(measurements, output: Path, name, engine):
    import re

    from . import calibration
    from . import measurements as measured
    from .catalog import ID
    from .files import write_text
    from .writers.validation import rows_table, write_csv

    name = name or output.stem
    if not re.match(ID, name):
        raise LedgerError(f"--name {name!r}: a time-model id is lowercase letters, digits, '.', "
                          "'_' and '-'")
    path, rows = measured.load(measurements)
    prepared = calibration.prepare(rows, engine)
    fitted, fallback = calibration.fit(prepared)
    write_text(output, calibration.time_model_yaml(name, fitted, fallback, prepared, str(path)))
    predicted = calibration.predict(prepared, fitted)
    ceiling = calibration.ceiling(prepared)
    write_csv(output.with_suffix(".report.csv"), rows_table(prepared, predicted, ceiling))
    return prepared, predicted, ceiling


def _print_summary(s: dict, title: str) -> None:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in ("GPU", "rows", "median |error|", "p90 |error|", "max |error|"):
        table.add_column(col, justify="left" if col == "GPU" else "right")
    for gpu, e in [*s["per_gpu"].items(), ("all", s["overall"])]:
        table.add_row(gpu, str(e["rows"]), f"{e['median']:.1%}", f"{e['p90']:.1%}",
                      f"{e['max']:.1%}")
    out.print(table)
    out.print(f"rows above the roofline ceiling: {len(s['ceiling_breaks'])}"
              + (f" (rows {', '.join(map(str, s['ceiling_breaks']))})" if s["ceiling_breaks"]
                 else ""), highlight=False)


@app.command(rich_help_panel="Ledger")
@guarded
def validate(measurements: Path | None = typer.Argument(None, help=MEASURED_HELP),
             time_model: str = typer.Option("calibrated", help="Time-model id or YAML file"),
             engine: str = typer.Option("tensorrt-llm", help="Engine the rows were measured with"),
             output: Path = typer.Option(Path("build/validate"), "-o", "--output",
                                         help="Path stem of the CSV, PNG and SVG"),
             json_: bool = typer.Option(False, "--json", help="Print one JSON object.")):
    """Put the ledger's offline throughput beside measurements: error table, ceiling breaks,
    a log-log plot.

    Examples:

    * `ledgerbuild validate`
    * `ledgerbuild validate my-cluster.csv --time-model my-cluster.yaml`
    * `ledgerbuild validate --time-model roofline`
    """
    import json

    from . import calibration
    from . import measurements as measured
    from .catalog import load_time_model
    from .writers.validation import rows_table, summary, write_csv, write_plot

    path, rows = measured.load(measurements)
    if output.with_suffix(".csv").resolve() == path.resolve():
        raise LedgerError(f"--output {output}: would overwrite the measurements {path}; pick "
                          "another path stem")
    time_model = load_time_model(time_model)
    prepared = calibration.prepare(rows, engine, time_model)
    predicted, ceiling = calibration.predict(prepared), calibration.ceiling(prepared)
    s = summary(prepared, predicted, ceiling)
    write_csv(output.with_suffix(".csv"), rows_table(prepared, predicted, ceiling))
    write_plot(output, prepared, predicted, f"{path.name}: time model {time_model}, "
               f"engine {engine}")
    if json_:
        sys.stdout.write(json.dumps({"measurements": str(path), "time_model": time_model,
                                     "engine": engine, **s}) + "\n")
    else:
        _print_summary(s, f"{path.name} vs offline_throughput_tokens_per_s (time model "
                          f"{time_model}, engine {engine})")
        out.print(f"wrote {output.with_suffix('.csv')}, {output.with_suffix('.png')}, "
                  f"{output.with_suffix('.svg')}", highlight=False)


from . import cli_sim  # noqa: E402,F401  (registers sample, bpe, stream, tokens)

if __name__ == "__main__":  # python -m ledgerbuild.cli: run the imported module's app, on which
    from ledgerbuild.cli import main as imported_main  # cli_sim registered its commands

    imported_main()
