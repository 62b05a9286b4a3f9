"""Terminal and JSON rendering of an evaluated model (rich tables for people)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import catalog
from ..errors import one_line
from ..rules import gpu_count_text, time_model_text, to_plain
from ..units import human


def show_json(result) -> str:
    return json.dumps(result.as_json(), indent=2)


def data(value, limit: int = 200) -> str:
    """A catalog or user string for the terminal: control characters shown escaped, rich markup
    shown as typed, long text cut."""
    return escape(one_line(str(value), limit))


def show_table(result, console: Console, every: bool = True) -> None:
    """A Result (exact) or NumericResult: topic tables of every quantity."""
    k = result.keys
    inp = {n: to_plain(v) for n, v in result.inputs.items()}
    gpu = catalog.row("gpus", k["gpu"])
    console.print(
        f"[bold]{data(result.model_id)}[/bold] ({data(result.model_name)}) - variants: "
        f"{', '.join(sorted(result.tags))}"
    )
    console.print(
        f"scenario: {gpu_count_text(result)} x {data(gpu.name)}, weights {k['weight_dtype']}, "
        f"KV {k['kv_dtype']}, workload {k['workload']} "
        f"({inp['prompt_tokens']:,} in / {inp['output_tokens']:,} out)"
    )
    console.print(f"time model: {data(time_model_text(k['time_model'], k['gpu']), 800)}")
    console.print(f"engine: {k['serving_engine']}")
    unit = inp["memory_gb_unit_bytes"]
    memory = (
        "GPU memory as the driver reports it (memory_mib)"
        if not unit
        else f"GPU memory as marketed GB x {unit:,} bytes"
    )
    console.print(f"units: GB = 1e9 bytes, GiB = 2^30 bytes; {memory}")
    if not every:
        answer_block(result, console)
        return
    for topic in result.topics:
        table = Table(title=topic, title_justify="left", show_lines=False)
        table.add_column("quantity", style="cyan", no_wrap=True)
        table.add_column("value", justify="right")
        table.add_column("description")
        for q in result.quantities:
            if q.topic == topic:
                mark = " (--set)" if q.name in result.overridden else ""
                table.add_row(q.name, human(to_plain(result.values[q.name]), q.unit) + mark, q.description)
        if table.row_count:  # no empty section
            console.print(table)


ANSWER = (
    ("fits on (GPUs)", "total_gpus", "GPUs"),
    ("concurrency", "max_concurrency", "requests"),
    ("TTFT", "ttft_s", "s"),
    ("TPOT", "tpot_s", "s"),
    ("tokens/s (offline)", "offline_throughput_tokens_per_s", "tokens/s"),
    ("$/Mtok output (serving)", "usd_per_million_output_tokens", "USD"),
    ("$/Mtok output (offline)", "offline_usd_per_million_output_tokens", "USD"),
    ("$/Mtok floor (roofline)", "offline_floor_usd_per_million_output_tokens", "USD"),
)


def answer_block(result, console) -> None:
    """The short answer `show` leads with (the whole ledger with --all)."""
    if not to_plain(result.values.get("max_concurrency", 1)):
        from .docs import fit_note

        console.print(f"{data(result.model_id)} {data(fit_note(result))} (try --gpus)", highlight=False)
        return
    table = Table(title="answer (the whole ledger: --all)", title_justify="left")
    for col in ("", "value", "quantity"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for what, name, unit in ANSWER:
        if name in result.values:
            table.add_row(what, human(to_plain(result.values[name]), unit), name)
    console.print(table)


LISTS = (
    "models",
    "gpus",
    "workloads",
    "quantities",
    "dtypes",
    "time_models",
    "engines",
    "training_recipes",
    "rope_methods",
)


def list_rows(what: str) -> list[dict]:
    if what == "models":
        return [
            {
                "id": m.id,
                "name": m.name,
                "hf_repo": m.hf_repo,
                "published_total": str(m.published.get("total", "")),
            }
            for m in catalog.models().values()
        ]
    if what == "quantities":
        from ..numeric import quantity_forms  # the generated ledger: no sympy

        return [
            {
                "name": n,
                "unit": f[0].unit,
                "topic": f[0].topic,
                "variants": ",".join(x.when or "all" for x in f),
                "description": f[0].description,
            }
            for n, f in quantity_forms().items()
        ]
    rows = [r.model_dump(exclude={"sources"}) for r in catalog.table(what).values()]
    if what == "dtypes":
        from ..formulas.numerics import bits_per_element

        for r in rows:
            r["bits_per_element"] = float(bits_per_element(r["bits"], r["scale_bits"], r["block_size"]))
    return rows


# wide tables: the columns a terminal shows (--json prints every field)
TERMINAL_COLUMNS = {
    "dtypes": [
        "id",
        "bits_per_element",
        "kind",
        "bits",
        "exponent_bits",
        "mantissa_bits",
        "block_size",
        "scale_dtype",
        "max",
        "min_normal",
        "unit_roundoff",
        "math_bits",
    ],
    "gpus": [
        "id",
        "memory_gb",
        "hbm_bandwidth_tb_per_s",
        "bf16_dense_tflops",
        "fp8_dense_tflops",
        "fp4_dense_tflops",
        "interconnect_gb_per_s",
    ],
}


def show_list(what: str, console: Console) -> None:
    rows = list_rows(what)
    cols = TERMINAL_COLUMNS.get(what, list(rows[0]))
    table = Table(
        title=what + (" (every field: --json)" if what in TERMINAL_COLUMNS else ""), title_justify="left"
    )
    for col in cols:  # ids never wrap or cut; other columns fold rather than cut
        table.add_column(
            col.replace("_", " "),
            overflow="fold",
            no_wrap=col == "id",
            min_width=max(len(str(r[col])) for r in rows) if col == "id" else None,
        )
    for r in rows:
        table.add_row(
            *("" if r[c] is None else f"{r[c]:.6g}" if isinstance(r[c], float) else data(r[c]) for c in cols)
        )
    console.print(table)
