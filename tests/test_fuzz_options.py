"""Issue 30: a case table over every command (fast tier, deterministic: no random seed at all).
Every leaf command the Typer app registers, walked from the app, gets each of its value options
set to each hostile value below, beside the minimal arguments it needs (1,998 cases; those of a
string option with a value that may be legal, so running the whole job, are marked slow). Every
run ends with exit 0, or exit 2 and exactly one line starting 'error:'; never a traceback, never
a hang (test_fuzz.run: 20 s of CPU time a case, or a wall-clock limit of 20 s stretched by the
machine's load). The hostile values a number option must refuse are checked to be refused."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
import typer.main
from test_fuzz import run as fuzz_run

from ledgerbuild.cli import app

TMP = Path(tempfile.mkdtemp(prefix="ledgerbuild-fuzz-options-"))
(TMP / "t.txt").write_text("hello world")
(TMP / "m.csv").write_text(
    "model,gpu,precision,tp,pp,isl,osl,tokens_per_s\nllama-3-8b,h100-sxm,bf16,1,1,128,128,1000\n"
)
CONFIG = TMP / "config.json"
CONFIG.write_text((Path(__file__).parent / "configs" / "qwen3-32b.config.json").read_text())

# the arguments a command needs to get as far as its options (positional ones, a light model)
NEEDS = {
    ("show",): ["llama-3.2-1b"],
    ("rope",): ["llama-3.2-1b"],
    ("image",): ["llava-1.5-7b"],
    ("import-config",): [str(CONFIG)],
    ("calibrate",): [str(TMP / "m.csv")],
    ("validate",): [str(TMP / "m.csv")],
    ("derive",): ["llama-3.2-1b", "params_total"],  # was "--model X": every case a usage error
    ("tokens",): [str(TMP / "t.txt"), "--tokenizers", "gpt2"],  # tekken takes 20 s to load
    ("numerics", "round"): ["1.5,2"],
    ("bpe", "encode"): ["hello"],
    ("xlsx",): ["--models", "llama-3.2-1b"],
    ("docs",): ["--models", "llama-3.2-1b", "--no-plots", "--format", "md"],
}
# hostile values: non-ASCII digits, NaN, infinities, huge, negative, empty, markup, control
# characters, a path through a file, a device, a long name
HOSTILE = [
    "",
    "nan",
    "inf",
    "-1",
    "0",
    "1e30",
    "2.5",
    "٣",
    "３",
    "1_000",
    "abc",
    "[bold]x[/bold]",
    "\x1b[31m",
    "/dev/null/x",
    "/dev/zero",
    "x" * 300,
    "1/0",
    "-0",
    "1e-320",
    "+inf",
    "0x10",
    "1e309",
    "١٠٠",
    "9" * 400,
    " ",
    "\n",
    "../../etc/passwd",
]
# a value no number option may accept ("1_000" too: Python's int() reads it as 1000, the
# project's rule does not: ASCII digits only)
NOT_A_NUMBER = {"", "nan", "inf", "٣", "３", "1_000", "abc", "[bold]x[/bold]", "\x1b[31m", "/dev/null/x"}
NOT_A_NUMBER |= {"/dev/zero", "1/0", "+inf", "0x10", "1e309", "١٠٠", " ", "\n", "../../etc/passwd"}


REFUSED_EARLY = {"", "/dev/null/x", "/dev/zero", "x" * 300, "9" * 400}  # refused or tiny


def leaf_commands(group=None, path=()) -> list:
    group = group or typer.main.get_command(app)
    out = []
    for name, command in sorted(group.commands.items()):
        sub = getattr(command, "commands", None)
        out += leaf_commands(command, (*path, name)) if sub else [((*path, name), command)]
    return out


def cases() -> list:
    out = []
    for path, command in leaf_commands():
        if path == ("templates", "export"):
            continue  # writes the shipped templates: its folder option is covered by test_cli
        for param in command.params:
            if param.param_type_name != "option" or param.is_flag or param.name in ("help",):
                continue
            flag = max(param.opts, key=len)
            kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            numeric = kind in (int, float, int | None, float | None)
            for value in HOSTILE:
                # a string option's hostile value is often a legal one (a file name, an id):
                # the command then does its whole job, seconds a case: with the referees
                marks = () if numeric or value in REFUSED_EARLY else (pytest.mark.slow,)
                out.append(pytest.param(path, flag, value, numeric, marks=marks))
    return out


CASES = cases()


def run(args: list[str]) -> tuple[int, str]:
    """test_fuzz's in-process run (exit code, stderr; a hang alarm), from the scratch folder."""
    here = os.getcwd()
    os.chdir(TMP)
    try:
        return fuzz_run(*args)
    finally:
        os.chdir(here)


def test_the_table_covers_every_command_and_enough_cases():
    commands = {path for path, _ in leaf_commands()} - {("templates", "export")}
    assert {c.values[0] for c in CASES} >= commands - {p for p, c in leaf_commands() if not _options(c)}
    assert len(CASES) >= 1_500, len(CASES)


def _options(command) -> list:
    return [p for p in command.params if p.param_type_name == "option" and not p.is_flag and p.name != "help"]


@pytest.mark.parametrize("path, flag, value, numeric", CASES)
def test_hostile_option_value(path, flag, value, numeric):
    args = [*path, *NEEDS.get(path, []), flag, value]
    code, err = run(args)
    assert code in (0, 2), (args, code, err[-600:])
    if code == 2:
        lines = err.strip("\n").splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (args, err[-800:])
    if numeric and value in NOT_A_NUMBER:
        assert code == 2, (args, "a number option accepted", value)


M, T = str(TMP / "m.csv"), str(TMP / "t.txt")
# hostile cases on the newest commands, tried by hand (issue 30): each was accepted (a GPU run
# twice, an empty name dropped, a --set overridden by an option without a word, a measurement
# file counted twice, Arabic-Indic digits read as a count) or its message showed a numpy repr;
# each is now one line and exit 2 naming the option
NEWEST = [
    (["show", "llama-3.2-1b", "--gpu", ","], "--gpu"),
    (["show", "llama-3.2-1b", "--gpu", "h100-sxm,"], "empty name"),
    (["show", "llama-3.2-1b", "--gpu", "h100-sxm,h100-sxm"], "twice"),
    (["show", "llama-3.2-1b", "--gpus", "３"], "--gpus"),
    (["plan", "llama-3.2-1b", "--requests-per-day", "1e6", "--gpu", ",,"], "--gpu"),
    (["plan", "llama-3.2-1b", "--requests-per-day", "1e6", "--gpu", "h100-sxm,h100-sxm"], "twice"),
    (
        ["plan", "llama-3.2-1b", "--requests-per-day", "1e6", "--set", "requests_per_day=5"],
        "--requests-per-day",
    ),
    (
        ["plan", "llama-3.2-1b", "--requests-per-day", "1e6", "--ttft", "1", "--set", "ttft_target_s=2"],
        "--ttft",
    ),
    (["plan", "llama-3.2-1b", "--requests-per-day", "1_000"], "--requests-per-day"),
    (["plan", "llama-3.2-1b", "--requests-per-day", "1e30"], "requests_per_day"),
    (["frontier", "llama-3.2-1b", "--gpu", "h100-sxm,h200-sxm"], "h100-sxm,h200-sxm"),
    (["frontier", "llama-3.2-1b", "--gpu", "h100-sxm", "--set", "max_batch=1e30"], "max_batch"),
    (["validate", M, "--cv", ""], "--cv"),
    (["validate", M, "--cv", "engine"], "nothing left to fit on"),
    (["validate", M, M], "twice"),
    (["calibrate", M, M, "-o", "c.yaml"], "twice"),
    (["calibrate", M, "-o", M, "--force"], "input"),
    (["calibrate", M, "--name", "", "-o", "c.yaml"], "--name"),  # took the file's name
    (["derive", "llama-3.2-1b", "params_total", "--gpus", "٣"], "--gpus"),
    (["derive", "llama-3.2-1b", "params_total", "--preamble"], "--preamble"),
    (["derive", "llama-3.2-1b", "params_total", "--format", "tex", "--preamble", "-o", "."], "--output"),
    (["tokens", T, "--tokenizers", "gpt2,gpt2"], "twice"),
    (["show", "llama-3.2-1b", "--set", "prompt_tokens=1e30"], "prompt_tokens"),
]


@pytest.mark.parametrize("args, word", NEWEST)
def test_hostile_case_on_the_newest_commands(args, word):
    code, err = run(args)
    lines = err.strip("\n").splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), (args, code, err[-600:])
    assert word in lines[0] and "np." not in lines[0], lines[0]
