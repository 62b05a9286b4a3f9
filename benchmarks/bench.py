"""Benchmarks (figures, not timed tests): run `python benchmarks/bench.py`.

1. `ledgerbuild show llama-3-8b --json` as a whole process (median of runs).
2. A vectorised sweep of ~1,000,000 (model, GPU, batch, context) points of tpot_s, cold
   (lambdify included) and warm, against exact sympy evaluation of the same points
   (extrapolated from a sample) as the alternative.
3. `ledgerbuild xlsx --models all` as a whole process, and the file size.
4. Sort-based vs sorting-free (rejection) top-p sampling at a vocabulary of 128,256.
5. BPE training against HF tokenizers; incremental against full re-decode.
6. `ledgerbuild docs` for all models, with and without plots.
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
        subprocess.run(
            [sys.executable, "-m", "ledgerbuild.cli", *args], check=True, stdout=subprocess.DEVNULL
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sweep_benchmark() -> None:
    from ledgerbuild import catalog
    from ledgerbuild.evaluate import evaluate
    from ledgerbuild.sweeps import sweep

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
        exact = evaluate(
            out["model"][i],
            {
                "gpu": out["gpu"][i],
                "batch_size": str(int(out["batch_size"][i])),
                "context_tokens": str(int(out["context_tokens"][i])),
            },
        )
        want = float(exact.value("tpot_s"))
        worst = max(worst, abs(out["tpot_s"][i] - want) / want)
    per_point = (time.perf_counter() - start) / len(sample)
    print(
        f"sweep: {n:,} points of tpot_s; cold {cold:.2f} s (lambdify included), warm "
        f"{warm:.2f} s; exact sympy per point {per_point * 1e3:.1f} ms -> {per_point * n:,.0f} s "
        f"for all; vectorised is {per_point * n / warm:,.0f}x faster warm; worst relative "
        f"difference vs exact on 200 sampled points {worst:.1e}"
    )


def main() -> None:
    show = whole_process(["show", "llama-3-8b", "--json"], runs=7)
    print(f"show llama-3-8b --json: median {show:.2f} s per process (7 runs; target < 1 s)")
    sweep_benchmark()
    sampling_benchmark()
    tokenization_benchmark()
    with tempfile.TemporaryDirectory() as tmp:
        with_plots = whole_process(["docs", "-o", tmp], runs=3)
        without = whole_process(["docs", "--no-plots", "-o", tmp], runs=3)
        print(
            f"docs, 24 models, Markdown + LaTeX: with plots median {with_plots:.2f} s "
            f"(target < 5 s), without plots {without:.2f} s (target < 2 s)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.xlsx"
        xlsx = whole_process(["xlsx", "--models", "all", "-o", str(path)], runs=5)
        print(
            f"xlsx --models all (26 models, 16 GPUs): median {xlsx:.2f} s per process "
            f"(5 runs; target < 2 s); {path.stat().st_size / 1e6:.2f} MB (target < 2 MB)"
        )


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
        print(
            f"top-p 0.9, vocab 128,256, batch {batch}: sort {s * 1e3:.1f} ms, rejection "
            f"{r * 1e3:.1f} ms ({s / r:.1f}x), mean rounds {statistics.mean(rounds):.3f}"
        )


def tokenization_benchmark() -> None:
    """BPE training vs HF tokenizers (1 MB, 1,000 merges); incremental vs full re-decode."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from ledgerbuild.sim.bpe import train
    from ledgerbuild.sim.streaming import IncrementalDetokenizer, full_redecode
    from ledgerbuild.sim.token_demos import corpus

    text = (corpus() * (1_000_000 // len(corpus()) + 1))[:1_000_000]
    text = "".join(f"{line} {i}\n" for i, line in enumerate(text.splitlines()))  # vary repeats
    text = text.encode("utf-8")[:1_000_000].decode("utf-8", errors="ignore")  # 1 MB
    start = time.perf_counter()
    ours = train(text, 256 + 1000, tie_break="hf")
    ours_t = time.perf_counter() - start
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + 1000, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    start = time.perf_counter()
    hf.train_from_iterator([text], trainer)
    hf_t = time.perf_counter() - start
    print(
        f"BPE training, {len(text.encode()) / 1e6:.2f} MB, 1,000 merges: ours {ours_t:.2f} s, "
        f"HF tokenizers {hf_t:.2f} s ({ours_t / hf_t:.1f}x; target within 10x)"
    )
    start = time.perf_counter()
    ours.encode(text)
    ours_enc = time.perf_counter() - start
    start = time.perf_counter()
    hf.encode(text)
    hf_enc = time.perf_counter() - start
    print(
        f"BPE encode, the same 1 MB: ours {ours_enc:.2f} s (pieces cached), HF tokenizers "
        f"{hf_enc:.2f} s ({ours_enc / hf_enc:.1f}x; target within 2x)"
    )
    ids = (ours.encode(corpus()) * 20)[:10_000]
    start = time.perf_counter()
    _, work = full_redecode(ours.decode, ids)
    full_t = time.perf_counter() - start
    inc = IncrementalDetokenizer(ours.decode)
    start = time.perf_counter()
    for i in ids:
        inc.step(i)
    inc.flush()
    inc_t = time.perf_counter() - start
    print(
        f"10,000-token stream: full re-decode {work:,} tokens decoded in {full_t:.2f} s; "
        f"incremental {inc.decoded_tokens:,} in {inc_t:.3f} s ({full_t / inc_t:,.0f}x faster)"
    )


if __name__ == "__main__":
    main()
