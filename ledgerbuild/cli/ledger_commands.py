"""Ledger commands: list, show, import-config, calibrate, validate, sweep."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from ..errors import LedgerError
from .common import SET_HELP, _sets, app, guarded, id_list, out, progress_wanted
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


class RopeMethod(str, Enum):
    """rope --method: the model's own, or one of rope.METHODS."""

    model = "model"
    none = "none"
    pi = "pi"
    ntk = "ntk"
    yarn = "yarn"
    llama3 = "llama3"


@app.command("list", rich_help_panel="Ledger")
@guarded
def list_(
    what: str = typer.Argument(
        ...,
        help="models | gpus | workloads | quantities | dtypes | time_models | engines | training_recipes "
        "| rope_methods",
    ),
    json_: bool = typer.Option(False, "--json", help="Print JSON for scripts."),
):
    """List a catalog or the ledger's quantities.

    Examples:

    * `ledgerbuild list models`
    * `ledgerbuild list dtypes --json`
    """
    from ..writers.terminal import LISTS, list_rows, show_list

    if what not in LISTS:
        raise LedgerError(f"unknown list {what!r}; valid: {', '.join(LISTS)}")
    if json_:
        import json

        out.print_json(json.dumps(list_rows(what), default=str))
    else:
        show_list(what, out)


@app.command(rich_help_panel="Ledger")
@guarded
def show(
    models: list[str] = typer.Argument(
        ..., help="Catalog ids, model YAML paths or HF config.json files (one or more)"
    ),
    gpu: str | None = gpu_option(),
    gpus: str | None = gpus_option(),
    workload: str | None = workload_option(),
    time_model: str | None = time_model_option(),
    all_: bool = typer.Option(False, "--all", help="Every quantity, not only the answer block"),
    engine: Engine | None = engine_option(),
    pp: int | None = typer.Option(None, "--pp", help="Pipeline-parallel stages [1]"),
    set_: list[str] | None = set_option(),
    json_: bool = typer.Option(
        False, "--json", help="Print one JSON document: an object for one model, an array for several."
    ),
):
    """Every quantity of one or more models for a scenario.

    Examples:

    * `ledgerbuild show llama-3-8b`
    * `ledgerbuild show llama-3-70b --gpus 8 --json`
    * `ledgerbuild show llama-3-8b qwen3-8b --json`
    * `ledgerbuild show llama-3-8b --set num_key_value_heads=32 --set prompt_tokens=4096`
    """
    import json

    from ..numeric import NumericEvaluator

    gpu_ids = id_list(gpu, "--gpu") if gpu is not None else [None]
    results = []
    for one in gpu_ids:
        evaluator = NumericEvaluator(
            scenario_sets(
                set_,
                gpu=one,
                gpus=gpus,
                workload=workload,
                time_model=time_model,
                engine=engine,
                pipeline_parallel=pp,
            )
        )
        results += [evaluator.evaluate(m) for m in models]  # every model checked before printing
    if json_:
        docs = [r.as_json() for r in results]
        sys.stdout.write(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2) + "\n")
        return
    from ..writers.terminal import show_table  # rich: only for people

    for result in results:
        show_table(result, out, every=all_)


@app.command("import-config", rich_help_panel="Ledger")
@guarded
def import_config(config: Path = typer.Argument(..., help="An HF config.json")):
    """Print a catalog YAML entry for a model from its HF config.json.

    Example: `ledgerbuild import-config config.json > models/my-model.yaml`
    """
    from ..catalog import export_entry, load_model
    from ..numeric import NumericEvaluator

    if config.suffix != ".json":
        raise LedgerError(f"{config}: expected an HF config.json")
    entry, fields = load_model(str(config))
    NumericEvaluator().model_values(fields, entry.where)  # ranges and cross-field rules (KV heads)
    sys.stdout.write(export_entry(entry))


MEASURED_HELP = (
    "Measurement files (YAML rows or CSV; offline throughput rows or rows at a concurrency with "
    "TTFT/TPOT) [every shipped file: TensorRT-LLM v0.17 and v1.0, InferenceX DeepSeek-R1, "
    "NIM / GPUStack dense models]"
)
WRITTEN_BY = "# Time model `"  # the first line of every file calibrate writes


@app.command(rich_help_panel="Ledger")
@guarded
def calibrate(
    measurements: list[Path] | None = typer.Argument(None, help=MEASURED_HELP),
    output: Path = typer.Option(
        Path("build/calibrated.yaml"), "-o", "--output", help="Time-model YAML to write"
    ),
    name: str | None = typer.Option(None, help="Time-model id [the output file's name]"),
    engine: str = typer.Option("tensorrt-llm", help="Engine of rows that name none (engine table id)"),
    force: bool = typer.Option(False, "--force", help="Overwrite a file calibrate did not write"),
):
    """Fit the time model's physical figures to measured throughput, TTFT and TPOT: one shared
    set (what a GPU without measurements gets) and a refit per measured GPU.

    Writes a time-model YAML usable as `--time-model FILE` and a per-row report (CSV); prints
    every figure at a bound and every figure it could not fit. With two or more GPUs measured,
    each GPU's row also carries its error when a fit without its rows predicts them (the band
    of a GPU without measurements; minutes more on the shipped tables).

    Examples:

    * `ledgerbuild calibrate my-cluster.csv -o my-cluster.yaml`
    * `ledgerbuild show llama-3-70b --gpus 4 --time-model my-cluster.yaml`
    """
    import re

    from .. import calibration
    from ..catalog import ID
    from ..files import write_text
    from ..writers.time_model_file import time_model_yaml
    from ..writers.validation import records, write_csv

    name = output.stem if name is None else name  # --name '' is refused, not the file's name
    if not re.match(ID, name):
        raise LedgerError(f"--name {name!r}: a time-model id is lowercase letters, digits, '.', '_' and '-'")
    if output.is_file() and not force and not output.read_text(encoding="utf-8").startswith(WRITTEN_BY):
        raise LedgerError(f"{output}: not written by calibrate; pass --force to overwrite it")
    rows, prepared, moe, label = _prepare(measurements, engine, None)
    result = calibration.fit(prepared)
    left_out = None
    if len(set(prepared.gpus)) > 1:  # the band of a GPU never measured: each GPU left out in turn
        if progress_wanted():
            typer.echo(f"leaving each of {len(set(prepared.gpus))} GPUs out in turn ...", err=True)
        left_out = calibration.cross_validate(prepared, "gpu", engine)
    write_text(output, time_model_yaml(name, result, prepared, label, left_out))
    predicted = calibration.predict(prepared, result.params(set(prepared.gpus)))
    bound = calibration.bounds(prepared)
    write_csv(output.with_suffix(".report.csv"), records(rows, prepared, predicted, bound))
    _print_report(prepared, predicted, bound, moe, f"calibrated fit written to {output}")
    for note in result.notes:
        out.print(f"note: {note}", highlight=False, markup=False)


def _prepare(measurements, engine: str, time_model: str | None):
    """(every row of the files, the prepared evaluable rows, model -> MoE, a label)."""
    from .. import calibration, catalog
    from .. import measurements as measured

    loaded = measured.load_many(measurements)
    rows = []
    for path, file_rows in loaded:
        for m in file_rows:
            m.labels["file"] = path.name
        rows += file_rows
    prepared = calibration.prepare(rows, engine, time_model)
    moe = {m.model: bool(catalog.load_model(m.model)[1].get("n_routed_experts")) for m in prepared.rows}
    shipped = {measured.shipped_path(n).resolve() for n in measured.SHIPPED}
    names = [f"measurements/{p.name}" if p.resolve() in shipped else str(p) for p, _ in loaded]
    return rows, prepared, moe, ", ".join(names)


def _print_report(prepared, predicted, bound, moe, title: str) -> None:
    from rich.table import Table

    from ..writers.validation import summary

    s = summary(prepared, predicted, bound, moe)
    for by, groups in [("all", {"all rows": s["summary"]}), *s["groups"].items()]:
        table = Table(title=f"{title}: by {by}", title_justify="left")
        table.add_column(by, justify="left")
        for metric in s["summary"]:
            table.add_column(f"{metric} n / median / p90", justify="right")
        for group, metrics in groups.items():
            cells = [
                f"{e['rows']} / {e['median']:.1%} / {e['p90']:.1%}" if e["rows"] else "-"
                for e in metrics.values()
            ]
            table.add_row(group, *cells)
        out.print(table)
    for metric, rows in s["bound_breaks"].items():
        out.print(
            f"rows beating the roofline bound on {metric}: {len(rows)} {rows[:10]}",
            highlight=False,
            markup=False,
        )
    out.print(
        f"rows refused (with their reason in the CSV / JSON): {s['refused']}", highlight=False, markup=False
    )


@app.command(rich_help_panel="Ledger")
@guarded
def validate(
    measurements: list[Path] | None = typer.Argument(None, help=MEASURED_HELP),
    time_model: str = typer.Option("calibrated", help="Time-model id or YAML file"),
    engine: str = typer.Option("tensorrt-llm", help="Engine of rows that name none"),
    cv: str | None = typer.Option(
        None, "--cv", help="gpu | model | engine: refit with each group's rows left out and score them"
    ),
    output: Path = typer.Option(
        Path("build/validate"), "-o", "--output", help="Path stem of the CSV and the SVG plots"
    ),
    json_: bool = typer.Option(False, "--json", help="Print one JSON object: rows and summary."),
):
    """Put the ledger's serving figures beside measurements: throughput, median TTFT and TPOT
    per row (or the reason a row is refused), error tables per GPU, engine, precision and
    parallelism, rows beating the roofline, one log-log plot per metric.

    Examples:

    * `ledgerbuild validate`
    * `ledgerbuild validate --cv gpu --json`
    * `ledgerbuild validate my-cluster.csv --time-model my-cluster.yaml`
    * `ledgerbuild validate --time-model roofline`
    * `ledgerbuild validate measurements/kv_pool_logs.yaml` (engine start-up logs: kv_pool_tokens
      beside each logged KV pool)
    """
    import json

    from .. import kv_pool_logs

    logs = [path for path in measurements or [] if kv_pool_logs.is_pool_log_file(path)]
    if logs and len(measurements or []) > 1:
        raise LedgerError(f"{logs[0]}: a start-up log file is validated on its own, not with other files")
    if logs:
        return _validate_pool_logs(logs[0], json_)

    from .. import calibration
    from ..catalog import load_time_model
    from ..writers.validation import records, summary, write_csv, write_plots

    for path in measurements or []:
        if output.with_suffix(".csv").resolve() == path.resolve():
            raise LedgerError(
                f"--output {output}: would overwrite the measurements {path}; pick another path stem"
            )
    if cv is not None and cv not in ("gpu", "model", "engine"):  # '' is not "no --cv"
        raise LedgerError(f"--cv {cv!r}: expected gpu, model or engine")
    model = None if cv else load_time_model(time_model)
    rows, prepared, moe, label = _prepare(measurements, engine, model)
    if cv:
        predicted = calibration.cross_validate(prepared, cv, engine)
        how = f"leave-one-{cv}-out refit"
    else:
        predicted, how = calibration.predict(prepared), f"time model {model}"
    bound = calibration.bounds(prepared)
    recs = records(rows, prepared, predicted, bound)
    write_csv(output.with_suffix(".csv"), recs)
    plots = write_plots(output, prepared, predicted, f"predicted vs measured ({how})")
    if json_:
        s = summary(prepared, predicted, bound, moe)
        doc = {"measurements": label, "time_model": how, "engine": engine, "rows": recs, **s}
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    _print_report(prepared, predicted, bound, moe, how)
    written = ", ".join(str(p) for p in [output.with_suffix(".csv"), *plots])
    out.print(f"wrote {written}", highlight=False, markup=False)


def _validate_pool_logs(path: Path, json_: bool) -> None:
    """kv_pool_tokens beside every logged KV pool of an engine start-up log file."""
    import json

    from .. import kv_pool_logs

    _, logs = kv_pool_logs.load(path)
    errors = kv_pool_logs.evaluate_logs(logs)
    s = kv_pool_logs.summary(errors)
    if json_:
        table = [
            {
                "id": e.log.id,
                "model": e.log.model,
                "logged": e.log.logged_tokens,
                "predicted": e.predicted_tokens,
                "error": e.error,
                "outside_rule": e.log.outside_rule,
            }
            for e in errors
        ]
        sys.stdout.write(json.dumps({"measurements": str(path), **s, "logs": table}) + "\n")
        return
    for e in errors:
        note = f"  (outside the rules: {e.log.outside_rule})" if e.log.outside_rule else ""
        log = e.log
        out.print(
            f"{log.id:8} {log.model:20} {log.sets['serving_engine']:13} tp {log.sets['gpu_count']:>2}"
            f"  logged {log.logged_tokens:>10,}  kv_pool_tokens {e.predicted_tokens:>10,}"
            f"  {e.error:+7.2%}{note}",
            highlight=False,
            markup=False,
        )
    out.print(
        f"{path.name}: kv_pool_tokens vs logged pools, {s['rows']} logs the rules cover: "
        f"median |error| {s['median']:.2%}, p90 {s['p90']:.2%}",
        highlight=False,
        markup=False,
    )


@app.command(rich_help_panel="Ledger")
@guarded
def rope(
    model: str = typer.Argument(..., help="Catalog id, model YAML or HF config.json"),
    method: RopeMethod | None = typer.Option(None, help="Scaling method [model: the model's own]"),
    factor: float | None = typer.Option(None, help="Scaling factor s [the model's own]"),
    target_tokens: int | None = typer.Option(None, help="Context to reach: s = target / trained"),
    set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
    json_: bool = typer.Option(False, "--json", help="Print JSON for scripts."),
):
    """RoPE wavelengths of every rotary pair before and after scaling: kept, interpolated or
    blended; the NTK base and YaRN's attention scale.

    Example: `ledgerbuild rope llama-3-8b --method yarn --target-tokens 131072`
    """
    import json

    from rich.table import Table

    from ..rope import rope_report, rope_sets

    chosen = RopeMethod(method).value if method is not None else None
    report = rope_report(model, rope_sets(model, _sets(set_), chosen, factor, target_tokens))
    if json_:
        out.print_json(json.dumps(report))
        return
    out.print(
        f"{report['model']}: {report['method']} x {report['factor']:g}, base {report['base']:g}, "
        f"rotary width {report['rotary_dim']}, trained context {report['trained_context_tokens']:,}; "
        f"NTK base {report['ntk_base']:.6g}, YaRN attention scale {report['yarn_attention_scale']:.4f}",
        highlight=False,
        markup=False,
    )
    table = Table(title="wavelength per rotary pair (tokens)", title_justify="left")
    for col in ("pair", "before", "after", "band"):
        table.add_column(col, justify="right" if col != "band" else "left")
    for p in report["pairs"]:
        table.add_row(
            str(p["pair"]),
            f"{p['wavelength_before_tokens']:,.1f}",
            f"{p['wavelength_after_tokens']:,.1f}",
            p["band"],
        )
    out.print(table)


@app.command(rich_help_panel="Ledger")
@guarded
def image(
    model: str = typer.Argument(
        ..., help="A vision-language model: catalog id, model YAML or HF config.json"
    ),
    size: str | None = typer.Option(None, help="Image size WIDTHxHEIGHT in pixels [1024x1024]"),
    gpu: str | None = typer.Option(None, help="GPU id or GPU YAML path [h100-sxm]"),
    time_model: str | None = typer.Option(
        None, help="Time model id or YAML file [calibrated; roofline for the floor]"
    ),
    set_: list[str] | None = typer.Option(None, "--set", help=SET_HELP),
    json_: bool = typer.Option(False, "--json", help="Print JSON for scripts."),
):
    """What one image costs a vision-language model: the pixels the encoder sees, patches and
    tokens, encoder FLOPs and time, the image's KV against the encoder's output, its price.

    Examples:

    * `ledgerbuild image qwen2-vl-7b --size 1024x1024`
    * `ledgerbuild image llama-3.2-11b-vision --size 1120x560 --json`
    """
    import json

    from rich.table import Table

    from ..vision import image_report

    report = image_report(model, _sets(set_, gpu=gpu, time_model=time_model), size)
    if json_:
        out.print_json(json.dumps(report))
        return
    out.print(
        f"{report['model']}: one {report['image_width_pixels']}x{report['image_height_pixels']} image on "
        f"{report['gpu']} x {report['gpu_count']}; encoder {report['params_vision']:,} + connector "
        f"{report['params_connector']:,} parameters\ntime model: {report['time_model']}",
        highlight=False,
        markup=False,
    )
    table = Table(title="per image", title_justify="left")
    for col in ("quantity", "value", "unit"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for name, row in report["per_image"].items():
        value = row["value"]
        shown = f"{value:,}" if isinstance(value, int) else f"{float(value):,.6g}"
        table.add_row(name, shown, row["unit"])
    out.print(table)
