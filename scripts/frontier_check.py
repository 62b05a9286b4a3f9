"""The ledger's serving frontier against the shipped latency measurements
(`python scripts/frontier_check.py [--json] [--worst N] [-o docs/img/frontier_check.png]`).

Prints, for each measured frontier point (ledgerbuild/frontier_check.py), the measured tokens/s
per user and output tokens/s per GPU beside the ledger's best output tokens/s per GPU at that
decode speed, then |ledger / measured - 1| per GPU and overall (median, p90), twice: the
ledger's frontier over the layouts the plan searches (tensor parallel 1, 2, 4, 8; for MoE
models also attention data parallel x expert parallel, planning.layouts), and over the layouts
measured. `-o` draws ledger against measured (log-log, the 20 % band dotted) as
.png, .svg or .pdf.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from ledgerbuild.frontier_check import frontier_check
from ledgerbuild.writers.docs.chart import COLORS, Chart, Panel, Series
from ledgerbuild.writers.docs.frontier_chart import save_chart_file

MODES = (
    (False, "the plan's layouts (TP; MoE: DP x EP)"),
    (True, "the layouts measured"),
)
M, L = "measured_output_tokens_per_s_per_gpu", "ledger_output_tokens_per_s_per_gpu"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:+.0f}%"


def print_table(result: dict, title: str, worst: int = 0) -> None:
    """Every row (`worst` > 0: only that many of the largest |error|, largest first), then the summaries."""
    print(f"\n== ledger frontier over {title} ==")
    print(f"{'gpu':9} {'model':12} {'engine':13} {'prec':6} {'ISL/OSL':11} {'layout':8} {'conc':>5} "
          f"{'tok/s/user':>10} {'measured':>9} {'ledger':>9} {'error':>7}  "
          "ledger's layout@concurrency")  # fmt: skip
    rows = result["rows"]
    if worst:
        rows = sorted((r for r in rows if not math.isnan(r["error"])), key=lambda r: -abs(r["error"]))[:worst]
    for r in rows:
        print(
            f"{r['gpu']:9} {r['model'][:12]:12} {r['engine'][:13]:13} {r['weight_dtype']:6} "
            f"{r['isl']}/{r['osl']:<6} {r['layout']:8} {r['concurrency']:>5} "
            f"{r['measured_tokens_per_s_per_user']:>10.1f} {r[M]:>9.1f} {r[L]:>9.1f} "
            f"{_pct(r['error']) if r['ledger_read'] != 'beyond' else 'beyond':>7}  "
            f"{r['ledger_frontier_layouts']}"
        )
    for name, s in result["per_series"].items():
        print(f"{name:48} points {s['points']:>2}  |error| median {100 * s['median_abs_error']:6.1f}%  "
              f"signed median {_pct(s['median_signed_error'])}")  # fmt: skip
    for name, s in [*result["per_gpu"].items(), ("overall", result["overall"])]:
        print(
            f"{name:9} points {s['points']:>4} (beyond the ledger's fastest: {s['beyond']}, does not fit: "
            f"{s['does_not_fit']})  |error| median {100 * s['median_abs_error']:.1f}%  "
            f"p90 {100 * s['p90_abs_error']:.0f}%  signed median {_pct(s['median_signed_error'])}"
        )


def chart(results: list[tuple[str, dict]]) -> Chart:
    panels = []
    for title, result in results:
        rows = [r for r in result["rows"] if not math.isnan(r["error"])]
        gpus = list(dict.fromkeys(r["gpu"] for r in rows))
        series = [
            Series(
                [r[M] for r in rows if r["gpu"] == g],
                [r[L] for r in rows if r["gpu"] == g],
                COLORS[i % 10],
                "o",
                False,
                g,
            )  # fmt: skip
            for i, g in enumerate(gpus)
        ]
        lo = min(min(r[M], r[L]) for r in rows)
        hi = max(max(r[M], r[L]) for r in rows)
        series.append(Series([lo, hi], [lo, hi], "#000000", "", True, "ledger = measured"))
        series += [Series([lo, hi], [f * lo, f * hi], "#808080", "", True) for f in (0.8, 1.2)]
        o = result["overall"]
        panels.append(
            Panel(
                f"{title}: median |error| {100 * o['median_abs_error']:.0f}%",
                "measured output tokens/s per GPU",
                "ledger's frontier at that tokens/s per user",
                series,
                xlog=True,
                ylog=True,
                legend=True,
            )
        )
    return Chart(
        11 * 72,
        5 * 72,
        "Measured frontier points against the ledger's frontier at the same tokens/s per user",
        panels,
        "Each point: a measured non-dominated (tokens/s per user, output tokens/s per GPU) point of "
        "the shipped latency measurements (ledgerbuild/frontier_check.py LATENCY_FILES), against the "
        "ledger's best output tokens/s per GPU at that decode speed; grey lines: +-20 %",
        margins=(0.08, 0.98, 0.14, 0.86),
        wspace=0.3,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-o", "--output", type=Path, help="draw it: .png, .svg or .pdf")
    parser.add_argument("--worst", type=int, default=0, help="print only the N rows of largest |error|")
    args = parser.parse_args(argv)
    results = [(title, frontier_check(same_layouts=same)) for same, title in MODES]
    if args.json:
        sys.stdout.write(json.dumps({("same_layouts" if s else "plan_layouts"): r for (s, _), (_, r)
                                     in zip(MODES, results, strict=True)}, indent=2) + "\n")  # fmt: skip
    else:
        for title, result in results:
            print_table(result, title, args.worst)
    if args.output:
        save_chart_file(chart(results), args.output, "the check's figure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
