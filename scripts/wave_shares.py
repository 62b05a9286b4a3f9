"""What a fixed-length harness's TTFT waits beyond the ledger's, per deployment
(`python scripts/wave_shares.py [FILES]`; default: the dense latency files, shipped and held out).

Scope: every row of a fixed-length harness (`request_lengths: fixed`) at a concurrency above 1
with a measured TTFT and no engine queue in the ledger (load_queue_wait_s = 0), evaluated under
the shipped time model as `validate` evaluates it. The wait to explain is the measured TTFT less
the ledger's TTFT without its wave term (ttft_s - load_wave_wait_s). One line per deployment and
prompt length (file, GPU, tensor parallel, model, weight precision, input tokens): the median
wait per prompt token of the other running requests (the shipped wave's unit,
wave_prompt_token_s: host work per token); the median share of the others' prefill compute
((load_running - 1) x prefill_compute_s) and of their prefill with its all-reduces (x
(prefill_compute_s + prefill_link_s): the GPU's work on the wave); then, per concurrency, the
prompt tokens whose prefill (with all-reduces) the wait equals against the others' prompt tokens,
in thousands ("c25 41/48": 41k of 48k). A rule that transfers from one GPU to another holds one
of these alike across GPUs.
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
WANTED = frozenset(
    {"ttft_s", "load_wave_wait_s", "load_queue_wait_s", "load_running", "prefill_compute_s", "prefill_link_s"}
)


def wait_of(m: measured.Measurement) -> dict[str, float] | None:
    """The row's wait and what it is measured against, or None when the ledger queues the row
    (its TTFT is then the queue's, not the wave's)."""
    entry, fields = catalog.load_model(m.model)
    v = NumericEvaluator(m.scenario("tensorrt-llm")).evaluate_floats(entry, fields, WANTED)
    if v["load_queue_wait_s"] > 0 or v["load_running"] <= 1:
        return None
    others = v["load_running"] - 1
    prefill = v["prefill_compute_s"] + v["prefill_link_s"]
    wait = m.metrics["ttft_ms"] / 1000 - (v["ttft_s"] - v["load_wave_wait_s"])
    return {
        "per_token": wait / (others * m.isl),
        "share_compute": wait / (others * v["prefill_compute_s"]),
        "share": wait / (others * prefill),
        "waited_tokens": wait / prefill * m.isl,
        "others_tokens": others * m.isl,
    }


def deployments(paths: list[str]) -> dict[tuple, list[tuple[int, dict[str, float]]]]:
    out: dict[tuple, list[tuple[int, dict[str, float]]]] = defaultdict(list)
    for path, rows in measured.load_many(paths):
        for m in rows:
            fixed = m.harness.get("harness_fixed_lengths") == "1"
            if m.reason or not fixed or m.concurrency < 2 or "ttft_ms" not in m.metrics:
                continue
            found = wait_of(m)
            if found:
                out[(path.name, m.gpu, m.tp, m.model, m.weight_dtype, m.isl)].append((m.concurrency, found))
    return out


def line(key: tuple, found: list[tuple[int, dict[str, float]]]) -> str:
    name, gpu, tp, model, weights, isl = key
    med = {k: median(f[k] for _, f in found) for k in ("per_token", "share_compute", "share")}
    by_concurrency: dict[int, list[dict[str, float]]] = defaultdict(list)
    for c, f in found:
        by_concurrency[c].append(f)
    waves = " ".join(
        f"c{c} {median(f['waited_tokens'] for f in fs) / 1e3:.0f}/{fs[0]['others_tokens'] / 1e3:.0f}"
        for c, fs in sorted(by_concurrency.items())
    )
    return (
        f"{name[:24]:24} {gpu[:13]:13} {tp:>2} {model[:11]:11} {weights:5} {isl:>6} "
        f"{1e6 * med['per_token']:>7.2f} {med['share_compute']:>5.2f} {med['share']:>5.2f}  {waves}"
    )


def main(argv: list[str]) -> int:
    paths = argv or [str(measured.shipped_path(name)) for name in FILES]
    print(f"{'file':24} {'gpu':13} {'tp':>2} {'model':11} {'wts':5} {'ISL':>6} {'us/tok':>7} "
          f"{'share':>5} {'+link':>5}  waited / others' prompt tokens (k) per concurrency")  # fmt: skip
    for key, found in sorted(deployments(paths).items()):
        print(line(key, found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
