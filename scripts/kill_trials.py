"""Kill trials (issue 30): `ledgerbuild xlsx --models all -o OUT` and `ledgerbuild docs --models all
-o DIR` killed (SIGKILL) or sent SIGTERM / SIGINT / SIGHUP at a random moment of their run (seeded),
each trial checked for what it left behind.

Each trial starts from a previous output (a one-model run's), sends the signal to the run's
process alone (`kill -9 PID`: a terminal's Ctrl-C would reach the whole group, a harder case
for the run than its workers dying first is not), then checks:
- intact: the output is the previous one byte for byte, or the whole new one (a workbook that
  opens with every sheet; a docs folder equal to a finished run's) -- never a mix, never a half;
- leftovers: entries beside the target (temporary files, staging folders) or in the run's
  TMPDIR (scratch folders) once it and its group have ended (a kill -9 runs no cleanup in the
  run: its guardian, a process of the same group, removes them); counted again after the next
  run of the same command (the fallback where no guardian ran: the next run removes a dead run's);
- workers left: processes of the run's process group (workers, the guardian) still alive 2 s
  after it ended;
- for a catchable signal: the exit code (128 + the signal), one line on stderr, the time from
  the signal to the end (at most 2 s).

The signal comes at a random moment between the run's handlers being in place and `--latest` of a
full run: before the interpreter has started and imported ledgerbuild.files (about 0.2 s on an
idle machine, more under load) no program can answer a signal, and the default action ends it
with nothing written (the likely cause of a CI trial's wrong exit with the output intact). That
moment is measured once per run of the script: twice the slowest of three
`python -c "import ledgerbuild.files"` (printed as `signal_after_s`).

    python scripts/kill_trials.py --trials 30                       # all four combinations
    python scripts/kill_trials.py --trials 3 --kinds docs --signals TERM --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

CLI = [sys.executable, "-m", "ledgerbuild.cli"]
OLD = {
    "xlsx": ["xlsx", "--models", "llama-3-8b"],
    "docs": ["docs", "--models", "llama-3-8b", "--format", "md", "--no-plots"],
}
NEW = {
    "xlsx": ["xlsx", "--models", "all"],
    "docs": ["docs", "--models", "all", "--format", "md", "--no-plots"],
}
TARGET = {"xlsx": "book.xlsx", "docs": "docs"}
GRACE_S = 2.0  # a worker must be gone this long after its run ended


def snapshot(path: Path):
    """A file's bytes, or a folder's {relative name: bytes}; None when missing."""
    if not path.exists():
        return None
    if path.is_file():
        return path.read_bytes()
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def whole_workbook(path: Path, sheets: int) -> bool:
    """A workbook a finished run wrote: a valid zip holding every sheet."""
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            return z.testzip() is None and sum(n.startswith("xl/worksheets/sheet") for n in names) == sheets
    except (zipfile.BadZipFile, OSError):
        return False


def group_alive(pgid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    rows = (line.split() for line in out.splitlines())
    return [int(p) for p, g, s in rows if int(g) == pgid and not s.startswith("Z")]  # a zombie is dead


def run(args: list[str], env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def leftovers(trial: Path, target: str, tmpdir: Path) -> list[str]:
    beside = [p.name for p in trial.iterdir() if p.name not in (target, "tmp")]
    return beside + [f"TMPDIR/{p.name}" for p in tmpdir.iterdir()]


class Combination:
    """One command under one signal: its previous and new outputs, its trials' tallies."""

    def __init__(
        self, kind: str, sig: signal.Signals, root: Path, env: dict, latest: float = 0.95,
        earliest: float = 0.2,
    ):  # fmt: skip
        self.kind, self.sig, self.root = kind, sig, root / f"{kind}-{sig.name}"
        self.latest = latest  # the signal comes at most this fraction of the reference run in
        self.earliest = earliest  # and not before the run's handlers are in place
        self.tmpdir = self.root / "tmp"
        self.tmpdir.mkdir(parents=True)
        self.env = {**env, "TMPDIR": str(self.tmpdir)}
        self.out = self.root / TARGET[kind]
        start = time.monotonic()
        self._run(OLD[kind])
        self.old = snapshot(self.out)
        self.old_copy = self.root.parent / f"old-{kind}-{sig.name}"
        self._save_old()
        start = time.monotonic()
        self._run(NEW[kind])
        self.duration = time.monotonic() - start
        self.new = snapshot(self.out)
        self.sheets = self._sheets() if kind == "xlsx" else 0
        self._restore()
        self.rows: list[dict] = []

    def _run(self, args):
        done = run([*args, "-o", str(self.out)], self.env, self.root)
        if done.returncode != 0:
            raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr[-400:]}")

    def _sheets(self) -> int:
        with zipfile.ZipFile(self.out) as z:
            return sum(n.startswith("xl/worksheets/sheet") for n in z.namelist())

    def _save_old(self):
        if self.out.is_dir():
            shutil.copytree(self.out, self.old_copy)
        else:
            shutil.copy2(self.out, self.old_copy)

    def _restore(self):
        if self.out.is_dir():
            shutil.rmtree(self.out)
            shutil.copytree(self.old_copy, self.out)
        else:
            self.out.unlink(missing_ok=True)
            shutil.copy2(self.old_copy, self.out)

    def state(self) -> str:
        now = snapshot(self.out)
        if now == self.old:
            return "old"
        if self.kind == "docs" and now == self.new:
            return "new"
        if self.kind == "xlsx" and isinstance(now, bytes) and whole_workbook(self.out, self.sheets):
            return "new"
        return "BROKEN"

    def trial(self, rng: random.Random) -> dict:
        # up to `latest` of the run's own length (measured once)
        delay = rng.uniform(self.earliest, max(self.earliest, self.latest * self.duration))
        args = [*CLI, *NEW[self.kind], "-o", str(self.out)]
        p = subprocess.Popen(
            args, env=self.env, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
        )  # fmt: skip
        time.sleep(delay)
        sent = time.monotonic()
        finished_first = p.poll() is not None
        if not finished_first:
            p.send_signal(self.sig)
        _, err = p.communicate(timeout=600)
        ended_s = time.monotonic() - sent
        deadline = time.monotonic() + GRACE_S
        while group_alive(p.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = group_alive(p.pid)
        for pid in workers:  # ours: end them so the next trial starts clean
            os.kill(pid, signal.SIGKILL)
        row = {
            "delay_s": round(delay, 2),
            "finished_first": finished_first or p.returncode == 0,
            "code": p.returncode,
            "stderr_lines": len(err.strip().splitlines()),
            "end_s": round(ended_s, 2),
            "state": self.state(),
            "leftovers": leftovers(self.root, TARGET[self.kind], self.tmpdir),
            "workers": len(workers),
        }
        row["leftovers_after_next"] = row["leftovers"]
        if self.sig == signal.SIGKILL:  # the next run: it must remove a dead run's scratch
            self._run(OLD[self.kind])
            row["leftovers_after_next"] = leftovers(self.root, TARGET[self.kind], self.tmpdir)
        self._restore()
        self.rows.append(row)
        return row

    def summary(self) -> dict:
        caught = self.sig != signal.SIGKILL
        interrupted = [r for r in self.rows if not r["finished_first"]]
        return {
            "command": self.kind,
            "signal": self.sig.name,
            "trials": len(self.rows),
            "finished_before_signal": len(self.rows) - len(interrupted),
            "intact": sum(r["state"] != "BROKEN" for r in self.rows),
            "left_old": sum(r["state"] == "old" for r in self.rows),
            "leftovers": sum(bool(r["leftovers"]) for r in self.rows),
            "leftovers_after_next_run": sum(bool(r["leftovers_after_next"]) for r in self.rows),
            "workers_left": sum(r["workers"] for r in self.rows),
            "right_exit": sum(r["code"] == (128 + self.sig if caught else -self.sig) for r in interrupted),
            "one_line": sum(r["stderr_lines"] == (1 if caught else 0) for r in interrupted),
            "max_end_s": max((r["end_s"] for r in interrupted), default=0.0),
        }


COLUMNS = [
    ("command", 7), ("signal", 6), ("trials", 6), ("finished_before_signal", 8), ("intact", 6),
    ("left_old", 8), ("leftovers", 9), ("leftovers_after_next_run", 10), ("workers_left", 8),
    ("right_exit", 10), ("one_line", 8), ("max_end_s", 9),
]  # fmt: skip
HEADS = {
    "finished_before_signal": "finished",
    "leftovers_after_next_run": "after next",
    "workers_left": "workers",
}


def table(summaries: list[dict]) -> str:
    head = " | ".join(HEADS.get(c, c).rjust(w) for c, w in COLUMNS)
    lines = [head, "-" * len(head)]
    for s in summaries:
        lines.append(" | ".join(str(s[c]).rjust(w) for c, w in COLUMNS))
    return "\n".join(lines)


def handlers_ready_s(env: dict) -> float:
    """When a run can first answer a signal: twice the slowest of three interpreter starts that
    import ledgerbuild.files (where the CLI installs its handlers), at least 0.2 s."""
    times = []
    for _ in range(3):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", "import ledgerbuild.files"], env=env, check=True)
        times.append(time.monotonic() - start)
    return max(0.2, 2 * max(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--kinds", default="xlsx,docs")
    parser.add_argument("--signals", default="KILL,TERM")
    parser.add_argument(
        "--latest", type=float, default=0.95, help="signal at most this fraction of a full run in [0.95]"
    )
    parser.add_argument("--json", action="store_true", help="every trial's row and the summaries as JSON")
    a = parser.parse_args(argv)
    rng = random.Random(a.seed)
    root = Path(tempfile.mkdtemp(prefix="ledgerbuild-kill-trials-"))
    env = dict(os.environ)
    summaries, rows = [], {}
    earliest = handlers_ready_s(env)
    try:
        for kind in a.kinds.split(","):
            for name in a.signals.split(","):
                combo = Combination(kind, signal.Signals[f"SIG{name}"], root, env, a.latest, earliest)
                for _ in range(a.trials):
                    combo.trial(rng)
                summaries.append(combo.summary())
                rows[f"{kind}-{name}"] = combo.rows
                print(table(summaries[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    doc = {"signal_after_s": round(earliest, 3), "summaries": summaries, "trials": rows}
    print(json.dumps(doc, indent=1) if a.json else f"signals from {earliest:.2f} s in\n" + table(summaries))
    return 1 if any(failed(s) for s in summaries) else 0


def failed(s: dict) -> bool:
    """A trial broke an invariant: a mixed or half output, anything left behind once the run
    and its group ended, a worker alive, a wrong exit, more than one line, > 2 s (caught)."""
    interrupted = s["trials"] - s["finished_before_signal"]
    caught = s["signal"] != "SIGKILL"
    return bool(
        s["intact"] < s["trials"]
        or s["leftovers"]
        or s["leftovers_after_next_run"]
        or s["workers_left"]
        or (caught and s["max_end_s"] > GRACE_S)
        or s["right_exit"] < interrupted
        or s["one_line"] < interrupted
    )


if __name__ == "__main__":
    sys.exit(main())
