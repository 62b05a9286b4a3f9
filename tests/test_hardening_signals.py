"""Issue 30: clean ends. SIGTERM, SIGINT and SIGHUP sent to a running `docs` or `xlsx` end it
with one line and exit 128 + the signal, no worker left, no temporary or staging folder left,
the previous output intact (a docs folder is written beside its target and renamed in)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "ledgerbuild.cli"]


def run(args, **kw):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, **kw)


def interrupt(args, sig, after: float, cwd):
    p = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    time.sleep(after)
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    return p.returncode, err, p.pid


def children_of(pid: int) -> list[str]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return out.stdout.split()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_docs_interrupted_keeps_the_previous_folder(tmp_path, sig):
    out = tmp_path / "docs"
    assert (
        run(["docs", "--models", "llama-3-8b", "--format", "md", "--no-plots", "-o", str(out)]).returncode
        == 0
    )
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, err, pid = interrupt(
        ["docs", "--models", "all", "--format", "all", "-o", str(out)], sig, 2.5, tmp_path
    )
    if code == 0:
        pytest.skip("the run finished before the signal (a fast machine)")
    assert code == 128 + sig, err
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]
    assert children_of(pid) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_xlsx_interrupted_keeps_the_previous_workbook(tmp_path, sig):
    book = tmp_path / "x.xlsx"
    assert run(["xlsx", "--models", "llama-3-8b", "-o", str(book)]).returncode == 0
    before = book.read_bytes()
    code, err, _ = interrupt(["xlsx", "--models", "all", "-o", str(book)], sig, 2.0, tmp_path)
    if code == 0:
        pytest.skip("the run finished before the signal (a fast machine)")
    assert code == 128 + sig, err
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err, err
    assert book.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["x.xlsx"]


# the long commands (seconds to minutes of work), each sent a signal once its work has started
LONG = {
    "xlsx": ["xlsx", "--models", "all", "-o", "x.xlsx"],
    "docs": ["docs", "--models", "all", "--format", "md", "-o", "docs"],
    "calibrate": ["calibrate", "-o", "c.yaml"],  # the shipped tables: minutes of fitting
    "validate": ["validate", "-o", "v"],
    "sample-report": ["sample", "report", "-o", "s.md"],
}


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("command", sorted(LONG))
def test_a_long_command_ends_within_two_seconds(tmp_path, command, sig):
    """The run's own process signalled (as `kill -TERM PID` does; a terminal's Ctrl-C reaches
    the whole group) 3 s in: it ends within 2 s, one line, exit 128 + the signal, nothing of its
    own left beside the output or in its TMPDIR, no process of its group alive."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    p = subprocess.Popen(
        [*CLI, *LONG[command]], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    time.sleep(3)
    if p.poll() is not None:
        pytest.skip(f"{command} finished in 3 s (a fast machine)")
    sent = time.monotonic()
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    took = time.monotonic() - sent
    assert p.returncode == 128 + sig, err
    assert len(err.strip().splitlines()) == 1 and "interrupted" in err, err
    assert took < 2, took
    assert sorted(os.listdir(tmp_path)) == ["tmp"] and os.listdir(scratch) == []
    time.sleep(0.5)
    assert group_alive(p.pid) == []


def group_alive(pgid: int) -> list[str]:
    """Processes of a process group still running (a zombie is dead, waiting to be reaped)."""
    out = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    return [p for p, g, s in (line.split() for line in out.splitlines()) if int(g) == pgid and s[0] != "Z"]


@pytest.mark.slow
def test_kill_trials_leave_every_output_whole_and_nothing_behind():
    """scripts/kill_trials.py, three trials of each of xlsx and docs under kill -9 and SIGTERM
    at a random moment (seed 30): every output the previous one or the whole new one, nothing
    left once the run and its group ended (kill -9 runs no cleanup in the run: its guardian
    removes what it made), nor after the next run, no worker alive 2 s after its parent ended."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "kill_trials.py"
    done = subprocess.run(
        [sys.executable, str(script), "--trials", "3", "--json"], capture_output=True, text=True, timeout=1800
    )
    summaries = json.loads(done.stdout)["summaries"]
    assert len(summaries) == 4, done.stderr
    for s in summaries:
        interrupted = s["trials"] - s["finished_before_signal"]
        assert s["intact"] == s["trials"], s
        assert s["leftovers"] == 0 and s["leftovers_after_next_run"] == 0 and s["workers_left"] == 0, s
        assert s["right_exit"] == interrupted and s["one_line"] == interrupted, s
        if s["signal"] == "SIGTERM":
            assert s["max_end_s"] < 2, s
    assert done.returncode == 0, done.stdout
