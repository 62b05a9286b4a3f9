"""Planning commands: plan (GPUs, layout, concurrency and dollars for a traffic and latency
targets) and frontier (a point per concurrency). Thin: ledgerbuild.planning does the work."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from ..errors import LedgerError
from .common import _sets, app, guarded, id_list, out
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

GPU_LIST = "h100-sxm,h200-sxm,mi300x"


def _target_sets(set_, requests_per_day, peak_to_mean, ttft, tpot, **scenario) -> dict:
    """The scenario inputs the options name; each is range-checked as its input declares."""
    for flag, value, lo in (
        ("--requests-per-day", requests_per_day, 1),
        ("--peak-to-mean", peak_to_mean, 1),
        ("--ttft", ttft, 0),
        ("--tpot", tpot, 0),
    ):
        if value is not None and not value >= lo:
            raise LedgerError(f"{flag}: must be >= {lo}, got {value:g}")
    named = {
        "requests_per_day": ("--requests-per-day", requests_per_day),
        "peak_to_mean_ratio": ("--peak-to-mean", peak_to_mean),
        "ttft_target_s": ("--ttft", ttft),
        "tpot_target_s": ("--tpot", tpot),
    }
    sets = _sets(set_)
    for name, (flag, value) in named.items():
        if value is not None and name in sets:  # one would be ignored
            raise LedgerError(f"--set {name}={sets[name][:40]}: {flag} sets it too; give it once")
    return _sets(
        list(set_ or []),
        **scenario_sets(None, **scenario),
        **{name: value for name, (_, value) in named.items()},
    )


def _money(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _usd(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def _ms(x) -> str:
    return "-" if x is None else f"{1000 * x:,.0f}"


@app.command(rich_help_panel="Ledger")
@guarded
def plan(
    model: str = typer.Argument(..., help="Catalog id, model YAML path or HF config.json"),
    gpu: str = gpu_option(GPU_LIST, "Comma-separated GPU ids or GPU YAML paths: the options on each"),
    requests_per_day: float = typer.Option(..., "--requests-per-day", help="Mean requests per day"),
    peak_to_mean: float | None = typer.Option(None, "--peak-to-mean", help="Peak rate / mean rate [2]"),
    ttft: float | None = typer.Option(None, "--ttft", help="Median TTFT target, s (0 = none) [2]"),
    tpot: float | None = typer.Option(None, "--tpot", help="Median TPOT target, s (0 = none) [0.2]"),
    gpus: str | None = gpus_option(),
    workload: str | None = workload_option(),
    set_: list[str] | None = set_option(),
    time_model: str | None = time_model_option(),
    engine: Engine | None = engine_option(),
    json_: bool = typer.Option(False, "--json", help="Print one JSON object"),
):
    """The options for a traffic and latency targets, cheapest per month first: GPUs, layout,
    concurrency per replica, replicas, USD per month and per million output tokens.

    Examples:

    * `ledgerbuild plan llama-3-70b --requests-per-day 1000000 --ttft 0.5 --tpot 0.05`
    * `ledgerbuild plan llama-3-8b --gpu h100-sxm,l40s --requests-per-day 2e5 --json`
    * `ledgerbuild plan llama-3-70b --requests-per-day 1e6 --set gpu_purchase_usd=30000`
    """
    from ..planning import CANNOT, plan_options

    sets = _target_sets(
        set_,
        requests_per_day,
        peak_to_mean,
        ttft,
        tpot,
        gpus=gpus,
        workload=workload,
        time_model=time_model,
        engine=engine,
    )
    result = plan_options(model, id_list(gpu, "--gpu"), sets)
    if json_:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        return
    from rich.table import Table

    t = result["targets"]
    table = Table(
        title=f"{model}: {t['requests_per_day']:,.0f} requests/day, peak x{t['peak_to_mean_ratio']:g}, "
        f"TTFT <= {_ms(t['ttft_target_s'] or None)} ms, TPOT <= {_ms(t['tpot_target_s'] or None)} ms"
    )
    for name in ("GPU", "layout", "conc.", "replicas", "GPUs", "USD/month", "USD/Mtok", "TTFT ms",
                 "TPOT ms", "meets"):  # fmt: skip
        table.add_column(name, justify="left" if name in ("GPU", "layout") else "right", no_wrap=True)
    unmet = [f"{r['gpu']} {r['layout']}" for r in result["options"] if not r["meets_targets"]]
    unpriced = sorted({f"* {r['gpu']}: {r['price_note']}" for r in result["options"] if not r["priced"]})
    notes = ([f"{CANNOT}: {', '.join(unmet)}"] if unmet else []) + unpriced
    if notes:
        table.caption = "; ".join(notes)
    for r in result["options"]:
        conc = str(r["concurrency"]) if r["meets_targets"] else "-"
        table.add_row(
            r["gpu"], r["layout"], conc, str(r["replicas"] or "-"), str(r["gpus"] or "-"),
            _money(r["usd_per_month"]) + ("" if r["priced"] else " *"),
            _usd(r["usd_per_million_output_tokens"]) + ("" if r["priced"] else " *"),
            _ms(r["ttft_s"]), _ms(r["tpot_s"]), "yes" if r["meets_targets"] else "no",
        )  # fmt: skip
    out.print(table)


@app.command(rich_help_panel="Ledger")
@guarded
def frontier(
    model: str = typer.Argument(..., help="Catalog id, model YAML path or HF config.json"),
    gpu: str = gpu_option(..., "GPU id or GPU YAML path (one)"),
    ttft: float | None = typer.Option(None, "--ttft", help="Median TTFT target, s (0 = none) [2]"),
    tpot: float | None = typer.Option(None, "--tpot", help="Median TPOT target, s (0 = none) [0.2]"),
    gpus: str | None = gpus_option(),
    workload: str | None = workload_option(),
    set_: list[str] | None = set_option(),
    time_model: str | None = time_model_option(),
    engine: Engine | None = engine_option(),
    json_: bool = typer.Option(False, "--json", help="Print one JSON object with `points`"),
    output: Path | None = typer.Option(None, "-o", "--output", help="Also draw it: .svg, .pdf or .png"),
):
    """A point per layout and concurrency (1, 2, 4 ... the engine's limit): tokens/s per user,
    output tokens/s per GPU, TTFT, TPOT, USD per million output tokens, the targets met, and
    the Pareto points (none beats them on both speeds).

    Examples:

    * `ledgerbuild frontier llama-3-70b --gpu h100-sxm`
    * `ledgerbuild frontier llama-3-70b --gpu h200-sxm --json -o frontier.svg`
    """
    from ..planning import frontier_points

    sets = _target_sets(
        set_, None, None, ttft, tpot, gpus=gpus, workload=workload, time_model=time_model, engine=engine
    )
    result = frontier_points(model, gpu, sets)
    if output is not None:
        from ..writers.docs.frontier_chart import save_frontier

        save_frontier(result, output)
    if json_:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        return
    from rich.table import Table

    priced = "" if result["priced"] else f"; USD/Mtok {result['price_note']}"
    table = Table(title=f"{model} on {gpu}: the frontier (* = Pareto{priced})")
    for name in ("GPUs", "layout", "conc.", "tok/s/user", "tok/s/GPU", "TTFT ms", "TPOT ms",
                 "USD/Mtok", "meets", "Pareto"):  # fmt: skip
        table.add_column(name, justify="left" if name == "layout" else "right", no_wrap=True)
    for p in result["points"]:
        table.add_row(
            str(p["gpu_count"]), p["layout"], str(p["concurrency"]), f"{p['tokens_per_s_per_user']:.1f}",
            f"{p['output_tokens_per_s_per_gpu']:.1f}", _ms(p["ttft_s"]), _ms(p["tpot_s"]),
            f"{p['usd_per_million_output_tokens']:.3f}", "yes" if p["meets_targets"] else "no",
            "*" if p["pareto"] else "",
        )  # fmt: skip
    out.print(table)
