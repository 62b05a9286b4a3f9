"""Issue 30: every write safe. No command writes onto one of its own inputs, a FIFO, a device
or through a symbolic link; concurrent writes of one file never remove each other's temporary
file; a user's templates folder is read only for its own regular files; a legal long file
name is written; an empty --output is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerbuild.files import atomic_save, write_text
from one_line import refused

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def test_calibrate_never_writes_onto_its_measurements(tmp_path):
    source = ROOT / "measurements" / "trtllm_perf_v0.17.yaml"
    m = tmp_path / "m.yaml"
    m.write_bytes(source.read_bytes())
    refused(["calibrate", str(m), "-o", str(m)])  # not written by calibrate: refused
    refused(["calibrate", str(m), "-o", str(m), "--force"], "input")  # and --force never overwrites an input
    assert m.read_bytes() == source.read_bytes()


def test_no_write_onto_a_fifo_or_through_a_symlink(tmp_path):
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    refused(["calibrate", "-o", str(fifo)], "not a regular file")
    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("keep")
    link = tmp_path / "report.md"
    link.symlink_to(outside)
    refused(["numerics", "report", "-o", str(link)], "symbolic link")
    assert outside.read_text() == "keep" and link.is_symlink()


@pytest.mark.parametrize("command", [["validate"], ["numerics", "report"], ["calibrate"], ["xlsx"]])
def test_empty_output_is_one_line(command):
    refused([*command, "-o", ""], "empty")


def test_output_folder_refused_before_work(tmp_path):
    refused(["sample", "report", "-o", str(tmp_path)], "folder")


def test_a_legal_245_character_name_is_written(tmp_path):
    path = tmp_path / ("a" * 242 + ".md")  # 245 bytes; the file system allows 255
    write_text(path, "ok")
    assert path.read_text() == "ok"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_stale_cleanup_removes_only_dead_runs_temporaries(tmp_path):
    """A live run's temporary file (here: this test's parent process) is left alone; one of a
    process that no longer exists is removed."""
    target = tmp_path / "same.xlsx"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    live_tmp = tmp_path / f".same.xlsx.{os.getppid()}.abcd1234.tmp"
    dead_tmp = tmp_path / f".same.xlsx.{int(dead.stdout)}.abcd1234.tmp"
    live_tmp.write_text("live")
    dead_tmp.write_text("dead")
    atomic_save(target, lambda tmp: Path(tmp).write_text("new"))
    assert target.read_text() == "new" and live_tmp.exists() and not dead_tmp.exists()


def test_two_concurrent_workbooks_of_one_file_both_succeed(tmp_path):
    out = tmp_path / "same.xlsx"
    cmd = [sys.executable, "-m", "ledgerbuild.cli", "xlsx", "--models", "llama-3-8b", "-o", str(out)]
    env = {**os.environ, "LEDGERBUILD_CACHE": os.environ.get("LEDGERBUILD_CACHE", str(tmp_path / "cache"))}
    runs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read().decode()) for p in runs]
    assert [code for code, _ in results] == [0, 0], results
    assert out.stat().st_size > 0
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_templates_folder_symlink_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:SECRET")
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "model.md.j2").symlink_to(secret)
    out = tmp_path / "docs"
    refused(
        [
            "docs",
            "--models",
            "llama-3-8b",
            "--format",
            "md",
            "--no-plots",
            "--templates",
            str(folder),
            "-o",
            str(out),
        ],
        "symbolic link",
    )
    assert not any("SECRET" in p.read_text() for p in out.rglob("*.md")) if out.exists() else True


def test_frontier_plot_into_a_new_folder(tmp_path):
    """`frontier -o new/f.svg` makes the folder as every other output does (it named its own
    temporary file, '.f.svg.<pid>.<random>.tmp: No such file or directory')."""
    from one_line import invoke

    target = tmp_path / "new" / "f.svg"
    code, output = invoke(["frontier", "llama-3.2-1b", "--gpu", "h100-sxm", "--json", "-o", str(target)])
    assert code == 0, output
    assert target.read_text().startswith("<?xml") or "<svg" in target.read_text()[:400]
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.svg"]
