"""Benchmarks (figures, not timed tests): run `python benchmarks/bench.py` (every section, a few
minutes on an idle 2-core machine), or name sections: `python benchmarks/bench.py planning xlsx`
(`-h` lists them). Every figure is printed beside the 1-minute load average when it was taken.

1. show: `ledgerbuild show llama-2-7b --json` as a whole process against the peer llm-analysis's
   CLI on the same model and GPU, installed into a venv of the benchmark's own (offline from
   the package index when it has it), in interleaved runs; a float and an exact evaluate()
   in process.
2. planning: `show --json`, `frontier MODEL --gpu ID --json` and a three-GPU `plan ... --json`
   as whole processes, interleaved in one loop with `python -c "import numpy"`, as multiples of
   it (issue 32: the planning commands within 3x).
3. sweep: a vectorised sweep of ~1,000,000 (model, GPU, batch, context) points of
   decode_step_s, cold (lambdify included) and warm, against exact evaluation of the same
   points (extrapolated from a sample) as the alternative.
4. sampling, tokenization (bench_sim.py): top-p by rejection at a vocabulary of 128,256, idle
   and beside two busy-loop processes, as multiples of one read of the matrix; BPE training
   against HF tokenizers and encoding against tiktoken on the same merges, cold and warm;
   incremental against full re-decode.
5. docs: `ledgerbuild docs` for all models, with and without plots.
6. xlsx: `ledgerbuild xlsx --models all` as a whole process with its Frontier sheet and
   without (the same process with the Frontier's writer replaced by a no-op), interleaved, wall
   and CPU time (the process and its workers), as ratios (issue 32: within 1.5x); the file size.
7. thousand: `xlsx --models DIR` with 1,000 model files (the catalog's models renamed in
   turn), time and peak memory of the process and of its workers.
Every process starts in a folder of its own, so it imports the package this interpreter
imports (the installed one), never a source tree in the current directory: `python -m` and
`python -c` put the current directory first on sys.path, and a clone's root holds `ledgerbuild/`
without its `formulas` (setuptools maps that folder into the package). Runs from the clone's
root and from anywhere else alike. Machines here are shared and noisy: read the medians, and
the ratios (taken within one run, interleaved) more than the seconds.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from bench_sim import sampling_benchmark, tokenization_benchmark  # beside this file

_WORKDIR: list[str] = []  # the empty folder every process starts in (made on first use)


def workdir() -> str:
    if not _WORKDIR:
        folder = tempfile.mkdtemp(prefix="ledgerbuild-bench-")
        atexit.register(shutil.rmtree, folder, True)
        _WORKDIR.append(folder)
    return _WORKDIR[0]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ledgerbuild.cli", *args]


def whole_process(args: list[str], runs: int) -> float:
    return statistics.median(timed(cli(*args)) for _ in range(runs))


def same_package() -> None:
    """The processes import the package this one measures in process, or the figures mix two."""
    import ledgerbuild

    where = subprocess.run(
        [sys.executable, "-c", "import ledgerbuild; print(ledgerbuild.__file__)"],
        cwd=workdir(),
        capture_output=True,
        text=True,
    )
    if where.returncode != 0 or Path(where.stdout.strip()) != Path(ledgerbuild.__file__):
        raise SystemExit(
            f"the benchmark's processes import {where.stdout.strip() or where.stderr.strip()[-200:]}, "
            f"this interpreter {ledgerbuild.__file__}: install the package (pip install -e .)"
        )


def timed(command: list[str]) -> float:
    """Wall time of a whole process."""
    return timed_cpu(command)[0]


def timed_cpu(command: list[str]) -> tuple[float, float]:
    """(wall, CPU seconds) of a whole process; the CPU time (user + system, os.wait4) counts
    the workers it waited for. A watchdog kills a run that hangs (a failure to report, not a
    benchmark that never ends); subprocess's own timeout would poll the child with sleeps of
    up to 50 ms and add them to the figure."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir())
    watchdog = threading.Timer(300, process.kill)
    watchdog.start()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    watchdog.cancel()
    process.returncode = code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
    return elapsed, usage.ru_utime + usage.ru_stime


def load() -> str:
    """The 1-minute load average (uptime's first figure), printed beside each figure."""
    return f"load {os.getloadavg()[0]:.1f}"


PEER = [  # llm-analysis 0.2.2: Llama-2-7B from its bundled configs, A100 80 GB, 1,000 in / 300 out
    "-m", "llm_analysis.analysis", "infer", "--model_name", "NousResearch_Llama-2-7b-hf",
    "--gpu_name", "a100-sxm-80gb", "--seq_len", "1000", "--num_tokens_to_generate", "300",
    "--batch_size_per_gpu", "1",
]  # fmt: skip


def show_benchmark(runs: int = 9) -> None:
    """ledgerbuild show against llm-analysis's CLI, interleaved; in-process evaluate()."""
    ours_cmd = cli("show", "llama-2-7b", "--gpu", "a100-80gb-sxm", "--json")
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
        f"show llama-2-7b --json, whole process ({load()}): median {o:.2f} s ({runs} interleaved runs); "
        f"{peer}; {alone:.2f} s in {runs} runs of its own (target 0.15 s; a bare interpreter {bare:.2f} s)"
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
        f"evaluate() of every quantity in process ({load()}): floats {floats * 1e3:.2f} ms, exact "
        f"(Fractions) {exact * 1e3:.2f} ms (target for floats: 0.1 ms)"
    )


# --- planning commands (issue 32 item 1) ---------------------------------------------------
PLANNING = {
    "show": ["show", "llama-2-7b", "--gpu", "a100-80gb-sxm", "--json"],
    "frontier": ["frontier", "llama-3-8b", "--gpu", "h100-sxm", "--json"],
    "plan": [
        "plan", "llama-3-8b", "--gpu", "h100-sxm,a100-80gb-sxm,l40s", "--requests-per-day", "1000000",
        "--json",
    ],
}  # fmt: skip
NUMPY = [sys.executable, "-c", "import numpy"]


def planning_benchmark(runs: int = 9) -> None:
    """`show --json`, `frontier` and a three-GPU `plan` as whole processes, interleaved in one
    loop with `python -c "import numpy"` (target for the planning commands: within 3x), wall
    and CPU time."""
    commands = {name: cli(*args) for name, args in PLANNING.items()} | {"numpy": NUMPY}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    loads = [os.getloadavg()[0]]
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(timed_cpu(command))
        loads.append(os.getloadavg()[0])
    median = {name: [statistics.median(x) for x in zip(*found, strict=True)] for name, found in times.items()}
    (floor, floor_cpu) = median["numpy"]
    for name, args in PLANNING.items():
        o, cpu = median[name]
        target = "" if name == "show" else "; target 3x"
        print(
            f"{' '.join(args)}, whole process (load {min(loads):.1f}-{max(loads):.1f}): median {o:.3f} s = "
            f'{o / floor:.2f}x `python -c "import numpy"` ({floor:.3f} s{target}); CPU {cpu:.3f} s = '
            f"{cpu / floor_cpu:.2f}x its {floor_cpu:.3f} s; {runs} interleaved runs"
        )


# --- end of the planning commands --------------------------------------------------------


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
        f"sweep ({load()}): {n:,} points of decode_step_s; cold {cold:.2f} s (first call of the process), "
        f"warm {warm:.3f} s (best of 5: {n / warm / 1e6:.1f} M points/s; target 20); exact per point "
        f"{per_point * 1e3:.1f} ms -> {per_point * n:,.0f} s "
        f"for all; vectorised is {per_point * n / warm:,.0f}x faster warm; worst relative "
        f"difference vs exact on 200 sampled points {worst:.1e}"
    )


def docs_benchmark() -> None:
    from ledgerbuild import catalog

    bare, declared = sympy_floor()
    with tempfile.TemporaryDirectory() as tmp:
        with_plots = whole_process(["docs", "-o", tmp], runs=3)
        without = whole_process(["docs", "--no-plots", "-o", tmp], runs=3)
        print(
            f"docs, {len(catalog.models())} models, Markdown + LaTeX ({load()}): with plots median "
            f"{with_plots:.2f} s (target 2.5 s), without plots {without:.2f} s (target 0.8 s)"
        )
    print(
        f"floors, same run ({load()}): a bare Python process {bare:.2f} s; one that only imports sympy "
        f"and declares the ledger {declared:.2f} s (what xlsx, docs and derive paid before they read "
        "the generated ledger's printed forms)"
    )


WITHOUT_FRONTIER = """import sys
from ledgerbuild.writers import xlsx
if sys.argv[1] == "without":  # the Frontier's writer a no-op, its sheets no views to fill
    xlsx.write_frontier = lambda *args: None
    xlsx.VIEW_SHEETS = tuple(s for s in xlsx.VIEW_SHEETS if not s.startswith("Frontier"))
from ledgerbuild.cli import main
sys.argv = ["ledgerbuild", "xlsx", "--models", "all", "-o", sys.argv[2]]
main()
"""


def xlsx_benchmark(runs: int = 5) -> None:
    """`xlsx --models all` with its Frontier sheet and without, interleaved (wall and CPU)."""
    from ledgerbuild import catalog

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.xlsx"
        times: dict[str, list[tuple[float, float]]] = {"with": [], "without": []}
        start_load = os.getloadavg()[0]
        for _ in range(runs):
            for kind, found in times.items():
                found.append(timed_cpu([sys.executable, "-c", WITHOUT_FRONTIER, kind, str(path)]))
        (w, wc), (o, oc) = ((statistics.median(x) for x in zip(*times[k], strict=True)) for k in times)
        print(
            f"xlsx --models all ({len(catalog.models())} models, {len(catalog.gpus())} GPUs; load "
            f"{start_load:.1f}-{os.getloadavg()[0]:.1f}): with the Frontier sheet median {w:.2f} s wall, "
            f"{wc:.2f} s CPU (process and workers); without it {o:.2f} s, {oc:.2f} s CPU: "
            f"{w / o:.2f}x wall, {wc / oc:.2f}x CPU (target 1.5x); {runs} interleaved runs; "
            f"{path.stat().st_size / 1e6:.2f} MB (the last, without)"
        )
        alone = whole_process(["xlsx", "--models", "all", "-o", str(path)], runs=runs)
        print(
            f"xlsx --models all through `python -m ledgerbuild.cli` ({load()}): median {alone:.2f} s per "
            f"process ({runs} runs; target 1.0 s); {path.stat().st_size / 1e6:.2f} MB"
        )


SECTIONS = {
    "show": show_benchmark,
    "planning": planning_benchmark,
    "sweep": sweep_benchmark,
    "sampling": sampling_benchmark,
    "tokenization": tokenization_benchmark,
    "docs": docs_benchmark,
    "xlsx": xlsx_benchmark,
    "thousand": lambda: thousand_models_benchmark(),
}


def main() -> None:
    import compileall

    import ledgerbuild

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sections", nargs="*", metavar="SECTION", help=f"of {', '.join(SECTIONS)} [all]")
    chosen = parser.parse_args().sections or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        parser.error(f"no section {', '.join(unknown)}; the sections: {', '.join(SECTIONS)}")
    # bytecode as `pip install` leaves it: a checkout run with PYTHONDONTWRITEBYTECODE would
    # compile each edited module again in every timed process (~13 ms of `show`)
    compileall.compile_dir(Path(ledgerbuild.__file__).parent, quiet=1)
    same_package()
    start = time.perf_counter()
    print(f"bench.py: {', '.join(chosen)}; {os.cpu_count()} CPUs, {load()} at the start")
    for name in chosen:
        SECTIONS[name]()
    print(f"bench.py: {time.perf_counter() - start:.0f} s, {load()} at the end")


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
        command = cli("xlsx", "--models", str(folder), "-o", str(path))
        start = time.perf_counter()
        build = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=workdir())
        peak = 0
        while build.poll() is None:
            peak = max(peak, sum(_pss_kib(pid) for pid in _process_tree(build.pid)))
            time.sleep(0.1)
        seconds = time.perf_counter() - start
        print(
            f"xlsx --models DIR, {count} models ({load()}): {seconds:.1f} s whole process (target 15 s), "
            f"peak {peak / 1024:.0f} MiB summed over the process and its workers (target 500 MiB); "
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


if __name__ == "__main__":
    main()
