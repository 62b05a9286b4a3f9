"""Benchmarks (figures, not timed tests): run `python benchmarks/bench.py`.

1. `ledgerbuild show llama-2-7b --json` as a whole process against the peer llm-analysis's
   CLI on the same model and GPU, installed into a venv of the benchmark's own (offline from
   the package index when it has it), in interleaved runs; a float and an exact evaluate()
   in process.
2. A vectorised sweep of ~1,000,000 (model, GPU, batch, context) points of decode_step_s, cold
   (lambdify included) and warm, against exact sympy evaluation of the same points
   (extrapolated from a sample) as the alternative.
3. `ledgerbuild xlsx --models all` as a whole process, and the file size; `xlsx --models DIR`
   with 1,000 model files (the catalog's models renamed in turn), time and peak memory of the
   process and of its workers.
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
import threading
import time
from pathlib import Path

import numpy as np


def whole_process(args: list[str], runs: int) -> float:
    return statistics.median(timed([sys.executable, "-m", "ledgerbuild.cli", *args]) for _ in range(runs))


def timed(command: list[str]) -> float:
    """Wall time of a whole process. A watchdog kills a run that hangs (a failure to report, not
    a benchmark that never ends); subprocess's own timeout would poll the child with sleeps of
    up to 50 ms and add them to the figure."""
    start = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as process:
        watchdog = threading.Timer(300, process.kill)
        watchdog.start()
        code = process.wait()
        watchdog.cancel()
    elapsed = time.perf_counter() - start
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
    return elapsed


PEER = [  # llm-analysis 0.2.2: Llama-2-7B from its bundled configs, A100 80 GB, 1,000 in / 300 out
    "-m", "llm_analysis.analysis", "infer", "--model_name", "NousResearch_Llama-2-7b-hf",
    "--gpu_name", "a100-sxm-80gb", "--seq_len", "1000", "--num_tokens_to_generate", "300",
    "--batch_size_per_gpu", "1",
]  # fmt: skip


def show_benchmark(runs: int = 9) -> None:
    """ledgerbuild show against llm-analysis's CLI, interleaved; in-process evaluate()."""
    ours_cmd = [
        sys.executable,
        "-m",
        "ledgerbuild.cli",
        "show",
        "llama-2-7b",
        "--gpu",
        "a100-80gb-sxm",
        "--json",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "peer"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        install = subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "llm-analysis==0.2.2"],
            capture_output=True,
            text=True,
        )
        peer_cmd = (
            [str(venv / "bin" / "python"), *PEER, "--output_dir", tmp] if install.returncode == 0 else None
        )
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(timed(ours_cmd))
            if peer_cmd:
                theirs.append(timed(peer_cmd))
    o = statistics.median(ours)
    peer = (
        f"llm-analysis 0.2.2 CLI {statistics.median(theirs):.2f} s "
        f"({o / statistics.median(theirs):.1f}x its time)"
        if theirs
        else f"llm-analysis not installed ({install.stderr.strip()[-120:]})"
    )
    alone = statistics.median(timed(ours_cmd) for _ in range(runs))  # the peer's runs evict caches
    bare = statistics.median(timed([sys.executable, "-c", "pass"]) for _ in range(runs))
    print(
        f"show llama-2-7b --json, whole process: median {o:.2f} s ({runs} interleaved runs); {peer}; "
        f"{alone:.2f} s in {runs} runs of its own (target 0.15 s; a bare interpreter {bare:.2f} s)"
    )
    from ledgerbuild import catalog
    from ledgerbuild.numeric import NumericEvaluator

    evaluator = NumericEvaluator()
    entry = catalog.load_model("llama-2-7b")
    evaluator.evaluate_floats(*entry)
    evaluator.evaluate_entry(*entry)
    n = 200
    start = time.perf_counter()
    for _ in range(n):
        evaluator.evaluate_floats(*entry)
    floats = (time.perf_counter() - start) / n
    start = time.perf_counter()
    for _ in range(n):
        evaluator.evaluate_entry(*entry)
    exact = (time.perf_counter() - start) / n
    print(
        f"evaluate() of every quantity in process: floats {floats * 1e3:.2f} ms, exact "
        f"(Fractions) {exact * 1e3:.2f} ms (target for floats: 0.1 ms)"
    )


def _timed_call(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def sweep_benchmark() -> None:
    from ledgerbuild import catalog
    from ledgerbuild.evaluate import evaluate
    from ledgerbuild.sweeps import sweep

    models, gpus = list(catalog.models()), list(catalog.gpus())
    grid = {"batch_size": list(range(1, 257)), "context_tokens": [1024 * 2**i for i in range(13)]}
    start = time.perf_counter()
    out = sweep("decode_step_s", models, gpus, grid)
    cold = time.perf_counter() - start
    warm = min(_timed_call(lambda: sweep("decode_step_s", models, gpus, grid)) for _ in range(5))
    n = len(out["decode_step_s"])
    rng = np.random.default_rng(0)
    sample = rng.choice(n, 200, replace=False)
    start = time.perf_counter()
    worst = 0.0
    for i in sample:
        exact = evaluate(
            out["model_labels"][out["model"][i]],
            {
                "gpu": out["gpu_labels"][out["gpu"][i]],
                "batch_size": str(int(out["batch_size"][i])),
                "context_tokens": str(int(out["context_tokens"][i])),
            },
        )
        want = float(exact.value("decode_step_s"))
        worst = max(worst, abs(out["decode_step_s"][i] - want) / want)
    per_point = (time.perf_counter() - start) / len(sample)
    print(
        f"sweep: {n:,} points of decode_step_s; cold {cold:.2f} s (first call of the process), warm "
        f"{warm:.3f} s (best of 5: {n / warm / 1e6:.1f} M points/s; target 20); exact per point "
        f"{per_point * 1e3:.1f} ms -> {per_point * n:,.0f} s "
        f"for all; vectorised is {per_point * n / warm:,.0f}x faster warm; worst relative "
        f"difference vs exact on 200 sampled points {worst:.1e}"
    )


def main() -> None:
    import compileall

    import ledgerbuild
    from ledgerbuild import catalog

    # bytecode as `pip install` leaves it: a checkout run with PYTHONDONTWRITEBYTECODE would
    # compile each edited module again in every timed process (~13 ms of `show`)
    compileall.compile_dir(Path(ledgerbuild.__file__).parent, quiet=1)
    show_benchmark()
    sweep_benchmark()
    sampling_benchmark()
    tokenization_benchmark()
    bare, declared = sympy_floor()
    with tempfile.TemporaryDirectory() as tmp:
        with_plots = whole_process(["docs", "-o", tmp], runs=3)
        without = whole_process(["docs", "--no-plots", "-o", tmp], runs=3)
        print(
            f"docs, {len(catalog.models())} models, Markdown + LaTeX: with plots median {with_plots:.2f} s "
            f"(target 2.5 s), without plots {without:.2f} s (target 0.8 s)"
        )
    print(
        f"floors, same run: a bare Python process {bare:.2f} s; one that only imports sympy and "
        f"declares the ledger {declared:.2f} s (what xlsx, docs and derive paid before they read "
        "the generated ledger's printed forms)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.xlsx"
        xlsx = whole_process(["xlsx", "--models", "all", "-o", str(path)], runs=5)
        print(
            f"xlsx --models all ({len(catalog.models())} models, {len(catalog.gpus())} GPUs): "
            f"median {xlsx:.2f} s per process "
            f"(5 runs; target 1.0 s); {path.stat().st_size / 1e6:.2f} MB"
        )
    thousand_models_benchmark()


def sympy_floor(runs: int = 5) -> tuple[float, float]:
    """(bare interpreter, interpreter + sympy + the declared ledger), whole processes, medians."""
    bare = statistics.median(timed([sys.executable, "-c", "pass"]) for _ in range(runs))
    declare = "from ledgerbuild.ledger import load_formulas; load_formulas()"
    declared = statistics.median(timed([sys.executable, "-c", declare]) for _ in range(runs))
    return bare, declared


def thousand_models_benchmark(count: int = 1000) -> None:
    """A workbook of 1,000 model files: whole process, and the peak of the summed PSS of the
    process and its workers (proportional set size: pages a worker shares with its parent
    are split between them, not counted twice), sampled every 0.1 s from /proc."""
    import yaml

    from ledgerbuild import catalog

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "models"
        folder.mkdir()
        sources = sorted(catalog.model_paths().values())
        for i in range(count):
            entry = yaml.safe_load(sources[i % len(sources)].read_text())
            entry["id"], entry["name"] = f"{entry['id']}-v{i:04d}", f"{entry['name']} v{i}"
            (folder / f"{entry['id']}.yaml").write_text(yaml.safe_dump(entry, sort_keys=False))
        path = Path(tmp) / "ledger.xlsx"
        command = [sys.executable, "-m", "ledgerbuild.cli", "xlsx", "--models", str(folder), "-o", str(path)]
        start = time.perf_counter()
        build = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        peak = 0
        while build.poll() is None:
            peak = max(peak, sum(_pss_kib(pid) for pid in _process_tree(build.pid)))
            time.sleep(0.1)
        seconds = time.perf_counter() - start
        print(
            f"xlsx --models DIR, {count} models: {seconds:.1f} s whole process (target 15 s), peak "
            f"{peak / 1024:.0f} MiB summed over the process and its workers (target 500 MiB); "
            f"{path.stat().st_size / 1e6:.1f} MB"
        )


def _process_tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def sampling_benchmark() -> None:
    """Sort-based top-p vs rejection top-p in numpy, vocabulary 128,256."""
    from ledgerbuild.sim.rejection import sample_rejection_batch, sample_top_p_sorted

    rng = np.random.default_rng(0)
    for batch in (1, 64, 256):
        logits = rng.normal(size=(batch, 128_256)) * 2
        probs = np.exp(logits - logits.max(1, keepdims=True))
        probs /= probs.sum(1, keepdims=True)
        sort_t, rej_t, rounds, read_t = [], [], [], []
        for _ in range(3):
            start = time.perf_counter()
            probs.sum()  # the floor: one read of the matrix
            read_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            sample_top_p_sorted(probs, 0.9, rng)
            sort_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            rounds.append(sample_rejection_batch(probs, 0.9, rng)[1])
            rej_t.append(time.perf_counter() - start)
        s, r = statistics.median(sort_t), statistics.median(rej_t)
        print(
            f"top-p 0.9, vocab 128,256, batch {batch}: sort {s * 1e3:.1f} ms, rejection "
            f"{r * 1e3:.1f} ms ({s / r:.1f}x), mean rounds {statistics.mean(rounds):.3f}; "
            f"floor (one read) {statistics.median(read_t) * 1e3:.1f} ms"
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
