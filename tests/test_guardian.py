"""Issue 30: a run killed with `kill -9` leaves nothing behind. Its temporary file, staging and
scratch folders are removed by its guardian (ledgerbuild/guardian.py) once the run is gone;
those of a concurrent run are never touched; its forked workers die with it.

The expectations are the operating system's, not the code's: a process ended by SIGKILL has
every descriptor closed by the kernel (kill(2), _exit(2): "any open file descriptors belonging
to the process are closed"), so a pipe whose only writer it was reads end-of-file (pipe(7));
a child that set PR_SET_PDEATHSIG gets that signal when its parent dies (prctl(2)); a rename
replaces its target whole (rename(2)), so the target is the old file or the new one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ledgerbuild import files, guardian

# a run that makes each kind of temporary path, says where they are, then waits: for a line on
# stdin (then finishes the write) or for its end
RUN = textwrap.dedent(
    """
    import json, multiprocessing, os, sys
    from pathlib import Path
    from ledgerbuild import files, guardian

    target = Path(sys.argv[1])
    scratch = files.ScratchFolder()
    (Path(scratch.name) / "rows.bin").write_bytes(b"x" * 4096)
    staging = files.staging_folder(target.parent / "docs")
    (staging / "a.md").write_text("half")
    workers = multiprocessing.get_context("fork").Pool(1, initializer=files.quiet_worker,
                                                      initargs=(os.getpid(),))
    worker = workers.apply(os.getpid)

    def save(tmp):
        Path(tmp).write_text("new " + sys.argv[2])
        print(json.dumps({"tmp": tmp, "scratch": scratch.name, "staging": str(staging),
                          "worker": worker, "guardian": guardian.pid()}), flush=True)
        sys.stdin.readline()

    files.atomic_save(target, save)
    scratch.cleanup()
    files.move_into(staging, target.parent / "docs")
    print("done", flush=True)
    """
)


def start(target: Path, tag: str, tmpdir: Path) -> tuple[subprocess.Popen, dict]:
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    p = subprocess.Popen(
        [sys.executable, "-c", RUN, str(target), tag], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    assert p.stdout is not None
    return p, json.loads(p.stdout.readline())


def paths(made: dict) -> list[Path]:
    return [Path(made[k]) for k in ("tmp", "scratch", "staging")]


def alive(pid: int) -> bool:
    """Running, not a zombie (a dead child reparented to an init that has not reaped it yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def gone_within(check, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def kill(p: subprocess.Popen) -> None:
    p.kill()
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL


@pytest.fixture
def place(tmp_path):
    (tmp_path / "tmp").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "book.xlsx").write_text("old")
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="the guardian is spawned")
def test_a_killed_run_leaves_no_temporary_scratch_or_staging_path(place):
    target = place / "out" / "book.xlsx"
    p, made = start(target, "A", place / "tmp")
    assert all(path.exists() for path in paths(made))  # made, and the run still holds them
    kill(p)
    assert gone_within(lambda: not any(path.exists() for path in paths(made))), made
    assert target.read_text() == "old"  # the target never saw the temporary
    assert sorted(os.listdir(place / "out")) == ["book.xlsx"] and os.listdir(place / "tmp") == []
    assert gone_within(lambda: not alive(made["guardian"])), "the guardian outlived its work"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_runs_worker_dies_with_it(place):
    p, made = start(place / "out" / "book.xlsx", "A", place / "tmp")
    assert alive(made["worker"])
    kill(p)
    assert gone_within(lambda: not alive(made["worker"]), 2.0)


@pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="the guardian is spawned")
def test_concurrent_runs_never_remove_each_others_paths(place):
    """Two runs writing the same target and the same docs folder: the killed one's paths go,
    the live one's stay; the live one then finishes its write."""
    target = place / "out" / "book.xlsx"
    a, made_a = start(target, "A", place / "tmp")
    b, made_b = start(target, "B", place / "tmp")
    assert not set(paths(made_a)) & set(paths(made_b))
    kill(a)
    assert gone_within(lambda: not any(path.exists() for path in paths(made_a)))
    time.sleep(0.3)  # a guardian that went on removing would remove within this
    assert all(path.exists() for path in paths(made_b)), made_b
    out, _ = b.communicate("\n", timeout=60)
    assert b.returncode == 0 and out.strip() == "done"
    assert target.read_text() == "new B"
    assert (place / "out" / "docs" / "a.md").read_text() == "half"
    assert sorted(os.listdir(place / "out")) == ["book.xlsx", "docs"] and os.listdir(place / "tmp") == []
    assert gone_within(lambda: not alive(made_b["guardian"]))
    assert target.read_text() == "new B"  # the guardian of a finished run removes nothing of it


def test_no_guardian_where_posix_spawn_is_missing(tmp_path, monkeypatch):
    """Without posix_spawn (Windows) the write still goes through, with no guardian."""
    monkeypatch.setattr(guardian, "_FD", None)
    monkeypatch.setattr(guardian, "_TRIED", False)
    monkeypatch.delattr(os, "posix_spawn")
    files.write_text(tmp_path / "a.txt", "text")
    assert (tmp_path / "a.txt").read_text() == "text" and os.listdir(tmp_path) == ["a.txt"]
    assert not guardian.started()


def test_a_read_only_command_starts_no_guardian():
    """`show --json` on a warm cache writes nothing: no process is started for it (its start-up
    stays as it was). The first run may fill the cache (a write, guarded like any other)."""
    code = textwrap.dedent(
        """
        import contextlib, io, sys
        from ledgerbuild import guardian
        from ledgerbuild.cli import main
        sys.argv = ["ledgerbuild", "show", "llama-3.2-1b", "--json"]
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main()
            except SystemExit as e:
                assert e.code in (0, None), e.code
        print(guardian.started(), guardian.pid())
        """
    )
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.split() == ["False", "0"]
