"""What a fixed-length harness's TTFT waits beyond the ledger's, per deployment
(`python scripts/wave_shares.py [FILES]`; default: the dense latency files, shipped and held out).

Scope: every row of a fixed-length harness (`request_lengths: fixed`) at a concurrency above 1
with a measured TTFT and no engine queue in the ledger (load_queue_wait_s = 0), evaluated under
the shipped time model as `validate` evaluates it. The wait to explain is the measured TTFT less
the ledger's TTFT without its wave term (ttft_s - load_wave_wait_s); it is printed per group
(file, GPU, tensor parallel, model, weight precision) three ways, as medians over the group's
rows: in milliseconds, per prompt token of the other running requests (the shipped wave's
unit, wave_prompt_token_s: host work per token), and as a share of the other running requests'
prefill compute ((load_running - 1) x prefill_compute_s: the GPU's work on the wave). A rule
that transfers from one GPU to another holds one of the last two columns alike across GPUs.
Shortcuts: the ledger's figures are those of the shipped calibrated time model, whose fit saw
the shipped files (in-sample there); nothing here is fitted.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from statistics import median

from ledgerbuild import catalog
from ledgerbuild import measurements as measured
from ledgerbuild.numeric import NumericEvaluator

FILES = ("nim_gpustack_dense_latency.yaml", "nim_dli_llama3_latency.yaml")
WANTED = frozenset({"ttft_s", "load_wave_wait_s", "load_queue_wait_s", "load_running", "prefill_compute_s"})


def waits(m: measured.Measurement) -> tuple[float, float, float] | None:
    """(wait in s, per other prompt token in s, share of the others' prefill compute), or None
    when the ledger queues the row (its TTFT is the queue's, not the wave's)."""
    entry, fields = catalog.load_model(m.model)
    v = NumericEvaluator(m.scenario("tensorrt-llm")).evaluate_floats(entry, fields, WANTED)
    if v["load_queue_wait_s"] > 0 or v["load_running"] <= 1:
        return None
    wait = m.metrics["ttft_ms"] / 1000 - (v["ttft_s"] - v["load_wave_wait_s"])
    others = v["load_running"] - 1
    return wait, wait / (others * m.isl), wait / (others * v["prefill_compute_s"])


def groups(paths: list[str]) -> dict[tuple, list[tuple[float, float, float]]]:
    out: dict[tuple, list[tuple[float, float, float]]] = defaultdict(list)
    for path, rows in measured.load_many(paths or None):
        for m in rows:
            fixed = m.harness.get("harness_fixed_lengths") == "1"
            if m.reason or not fixed or m.concurrency < 2 or "ttft_ms" not in m.metrics:
                continue
            found = waits(m)
            if found:
                out[(path.name, m.gpu, m.tp, m.model, m.weight_dtype)].append(found)
    return out


def main(argv: list[str]) -> int:
    paths = argv or [str(measured.shipped_path(name)) for name in FILES]
    print(f"{'file':32} {'gpu':14} {'tp':>2} {'model':12} {'weights':7} {'rows':>4} "
          f"{'wait ms':>8} {'us/token':>8} {'share':>6}")  # fmt: skip
    for (name, gpu, tp, model, weights), found in sorted(groups(paths).items()):
        wait, per_token, share = (median(x[i] for x in found) for i in range(3))
        print(f"{name[:32]:32} {gpu:14} {tp:>2} {model[:12]:12} {weights:7} {len(found):>4} "
              f"{1e3 * wait:>8.1f} {1e6 * per_token:>8.2f} {share:>6.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
