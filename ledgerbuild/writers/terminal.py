"""Terminal and JSON rendering of an evaluated model (rich tables for people)."""
from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from .. import catalog
from ..evaluate import Result, time_model_text, to_plain
from ..ledger import load_formulas
from ..units import human


def show_json(result: Result) -> str:
    return json.dumps(result.as_json(), indent=2)


def show_table(result: Result, console: Console) -> None:
    k = result.keys
    inp = {n: to_plain(v) for n, v in result.inputs.items()}
    gpu = catalog.row("gpus", k["gpu"])
    console.print(f"[bold]{result.model_id}[/bold] ({result.model_name}) - variants: "
                  f"{', '.join(sorted(result.tags))}")
    console.print(f"scenario: {inp['gpu_count']} x {gpu.name}, weights {k['weight_dtype']}, "
                  f"KV {k['kv_dtype']}, workload {k['workload']} "
                  f"({inp['prompt_tokens']:,} in / {inp['output_tokens']:,} out)")
    console.print(f"time model: {time_model_text(k['time_model'], k['gpu'])}")
    console.print(f"engine: {k['serving_engine']}")
    console.print("units: GB = 1e9 bytes, GiB = 2^30 bytes; marketed GPU GB read as "
                  f"{inp['memory_gb_unit_bytes']:,} bytes")
    for topic in load_formulas().topics:
        table = Table(title=topic, title_justify="left", show_lines=False)
        table.add_column("quantity", style="cyan", no_wrap=True)
        table.add_column("value", justify="right")
        table.add_column("description")
        for q in result.quantities:
            if q.topic == topic:
                mark = " (--set)" if q.name in result.overridden else ""
                table.add_row(q.name, human(to_plain(result.values[q.name]), q.unit) + mark,
                              q.description)
        console.print(table)


def list_rows(what: str) -> list[dict]:
    if what == "models":
        return [{"id": m.id, "name": m.name, "hf_repo": m.hf_repo,
                 "published_total": str(m.published.get("total", ""))}
                for m in catalog.models().values()]
    if what == "quantities":
        ledger = load_formulas()
        return [{"name": n, "unit": f[0].unit, "topic": f[0].topic,
                 "variants": ",".join(x.when or "all" for x in f), "description": f[0].description}
                for n, f in ledger.forms.items()]
    rows = catalog.table(what)
    return [r.model_dump(exclude={"sources"}) for r in rows.values()]


def show_list(what: str, console: Console) -> None:
    rows = list_rows(what)
    table = Table(title=what, title_justify="left")
    for col in rows[0]:
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(v) for v in r.values()))
    console.print(table)
