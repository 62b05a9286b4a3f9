"""Benchmarks (figures, not timed tests): run `python benchmarks/bench.py`.

1. `ledgerbuild show llama-3-8b --json` as a whole process (median of runs).
2. A vectorised sweep of ~1,000,000 (model, GPU, batch, context) points of tpot_s, cold
   (lambdify included) and warm, against exact sympy evaluation of the same points
   (extrapolated from a sample) as the alternative.
3. `ledgerbuild xlsx --models all` as a whole process, and the file size.
4. Sort-based vs sorting-free (rejection) top-p sampling at a vocabulary of 128,256.
Machines here are shared and noisy: read the medians, and the ratios more than the seconds.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def whole_process(args: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ledgerbuild.cli", *args], check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sweep_benchmark() -> None:
    from ledgerbuild import catalog
    from ledgerbuild.evaluate import evaluate, sweep

    models, gpus = list(catalog.models()), list(catalog.gpus())
    grid = {"batch_size": list(range(1, 257)), "context_tokens": [1024 * 2**i for i in range(13)]}
    start = time.perf_counter()
    out = sweep("tpot_s", models, gpus, grid)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    out = sweep("tpot_s", models, gpus, grid)
    warm = time.perf_counter() - start
    n = len(out["tpot_s"])
    rng = np.random.default_rng(0)
    sample = rng.choice(n, 200, replace=False)
    start = time.perf_counter()
    worst = 0.0
    for i in sample:
        exact = evaluate(out["model"][i], {"gpu": out["gpu"][i],
                                           "batch_size": str(int(out["batch_size"][i])),
                                           "context_tokens": str(int(out["context_tokens"][i]))})
        want = float(exact.value("tpot_s"))
        worst = max(worst, abs(out["tpot_s"][i] - want) / want)
    per_point = (time.perf_counter() - start) / len(sample)
    print(f"sweep: {n:,} points of tpot_s; cold {cold:.2f} s (lambdify included), warm "
          f"{warm:.2f} s; exact sympy per point {per_point * 1e3:.1f} ms -> {per_point * n:,.0f} s "
          f"for all; vectorised is {per_point * n / warm:,.0f}x faster warm; worst relative "
          f"difference vs exact on 200 sampled points {worst:.1e}")


def main() -> None:
    show = whole_process(["show", "llama-3-8b", "--json"], runs=7)
    print(f"show llama-3-8b --json: median {show:.2f} s per process (7 runs; target < 1 s)")
    sweep_benchmark()
    sampling_benchmark()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.xlsx"
        xlsx = whole_process(["xlsx", "--models", "all", "-o", str(path)], runs=5)
        print(f"xlsx --models all (24 models, 13 GPUs): median {xlsx:.2f} s per process "
              f"(5 runs; target < 2 s); {path.stat().st_size / 1e6:.2f} MB (target < 2 MB)")


if __name__ == "__main__":
    main()


def sampling_benchmark() -> None:
    """Sort-based top-p vs rejection top-p in numpy, vocabulary 128,256."""
    from ledgerbuild.sim.rejection import sample_rejection_batch, sample_top_p_sorted

    rng = np.random.default_rng(0)
    for batch in (1, 64, 256):
        logits = rng.normal(size=(batch, 128_256)) * 2
        probs = np.exp(logits - logits.max(1, keepdims=True))
        probs /= probs.sum(1, keepdims=True)
        sort_t, rej_t, rounds = [], [], []
        for _ in range(3):
            start = time.perf_counter()
            sample_top_p_sorted(probs, 0.9, rng)
            sort_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            rounds.append(sample_rejection_batch(probs, 0.9, rng)[1])
            rej_t.append(time.perf_counter() - start)
        s, r = statistics.median(sort_t), statistics.median(rej_t)
        print(f"top-p 0.9, vocab 128,256, batch {batch}: sort {s * 1e3:.1f} ms, rejection "
              f"{r * 1e3:.1f} ms ({s / r:.1f}x), mean rounds {statistics.mean(rounds):.3f}")
