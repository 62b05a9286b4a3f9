"""Issue 30: clean ends. SIGTERM, SIGINT and SIGHUP sent to a running `docs` or `xlsx` end it
with one line and exit 128 + the signal, no worker left, no temporary or staging folder left,
the previous output intact (a docs folder is written beside its target and renamed in)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

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
