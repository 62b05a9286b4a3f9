"""Issue 31's CLI probe: one grammar for the scenario options, enums with their choices, --quiet,
-V, a progress bar only on a terminal, and every option the README's command list names present
in that command's -h (tests/test_cli.py checks the README's help screens equal the real ones).

"The same meaning" is checked by outcome: each option gives what `--set` of its scenario input
gives, and `show`, `derive` and `plan` print the same figure for the same options."""

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerbuild import __version__, catalog
from ledgerbuild.cli import app
from ledgerbuild.cli.scenario_options import SCENARIO_COMMANDS, Engine

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
SHARED = ("--gpu", "--gpus", "--workload", "--set", "--time-model", "--engine")
OPTIONS = ["--gpus", "2", "--workload", "reasoning", "--time-model", "roofline", "--engine", "lecture"]
AS_SETS = ["--set", "gpu_count_setting=2", "--set", "workload=reasoning", "--set", "time_model=roofline",
           "--set", "serving_engine=lecture"]  # fmt: skip


def wide_help(*args) -> str:
    r = runner.invoke(app, [*args, "-h"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("command", SCENARIO_COMMANDS)
def test_every_scenario_command_takes_the_shared_options(command):
    text = wide_help(command)
    for option in SHARED:
        assert re.search(rf"{option}\s", text), (command, option)
    assert "vllm | tensorrt-llm | nim | lecture | sglang" in text  # the engine's choices
    r = runner.invoke(app, [command, "llama-3-8b", "--engine", "nonsense"])
    assert r.exit_code == 2 and "nonsense" in r.output and "Traceback" not in r.output


def test_the_engine_choices_are_the_engine_table():
    assert [e.value for e in Engine] == list(catalog.table("engines"))


def test_choice_options_list_their_choices():
    assert re.search(r"\[md\|tex\|all\]|md\|tex\|all", wide_help("docs"))
    assert "mkdocs|sphinx" in wide_help("docs")
    assert "md|tex" in wide_help("derive")


def _json(args):
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_an_option_means_its_scenario_input_in_every_command():
    shown = _json(["show", "llama-3-70b", *OPTIONS, "--json"])
    assert shown == _json(["show", "llama-3-70b", *AS_SETS, "--json"])
    tpot = shown["quantities"]["tpot_s"]["value"]
    snippets = [
        runner.invoke(app, ["derive", "llama-3-70b", "tpot_s", *o]).output for o in (OPTIONS, AS_SETS)
    ]
    assert snippets[0] == snippets[1] and "2 x" in snippets[0] and "roofline" in snippets[0]
    assert "workload reasoning" in snippets[0] and f"{tpot * 1000:.4g}"[:4] in snippets[0].replace("{,}", "")
    plans = [
        _json(["plan", "llama-3-70b", "--gpu", "h100-sxm", "--requests-per-day", "1e5", *o, "--json"])
        for o in (OPTIONS, AS_SETS)
    ]
    assert plans[0] == plans[1] and len(plans[0]["options"]) == 1  # --gpus 2: that layout only
    assert plans[0]["options"][0]["gpus"] % 2 == 0


def test_docs_and_xlsx_take_the_options(tmp_path):
    r = runner.invoke(app, ["docs", "--models", "llama-3-8b", "--no-plots", "--format", "md", *OPTIONS,
                            "-o", str(tmp_path / "d")])  # fmt: skip
    assert r.exit_code == 0, r.output
    page = (tmp_path / "d" / "llama-3-8b.md").read_text()
    assert "workload reasoning" in page and "roofline" in page
    r = runner.invoke(app, ["xlsx", "--models", "llama-3-8b", "--gpu", "h100-sxm", *OPTIONS,
                            "-o", str(tmp_path / "a.xlsx")])  # fmt: skip
    assert r.exit_code == 0, r.output
    import openpyxl

    inputs = {
        row[0]: row[1]
        for row in openpyxl.load_workbook(tmp_path / "a.xlsx")["Inputs"].iter_rows(values_only=True)
    }
    assert (inputs["time_model"], inputs["serving_engine"], inputs["workload"]) == (
        "roofline",
        "lecture",
        "reasoning",
    )


def test_version_and_quiet():
    for flag in ("-V", "--version"):
        r = runner.invoke(app, [flag])
        assert r.exit_code == 0 and r.output.strip() == f"ledgerbuild {__version__}"
    r = runner.invoke(app, ["--quiet", "show", "llama-3-8b", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["model"]


def _stderr_on_a_terminal(args, tmp_path) -> str:
    """Run the real command with stderr on a pseudo-terminal (stdout a pipe); what it drew there."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "ledgerbuild.cli", *args], stdout=subprocess.PIPE,
                            stderr=follower, cwd=tmp_path, env=env)  # fmt: skip
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        drawn += chunk
    proc.wait(timeout=600)
    os.close(leader)
    assert proc.returncode == 0, drawn[-2000:]
    return drawn.decode("utf-8", errors="replace")


def test_a_progress_bar_only_on_a_terminal_and_not_with_quiet(tmp_path):
    args = ["docs", "--models", "llama-3-8b,qwen3-8b,mistral-7b-v0.1", "--no-plots", "-o", "d"]
    assert "writing documents" in _stderr_on_a_terminal(args, tmp_path)
    assert "writing documents" not in _stderr_on_a_terminal(["--quiet", *args], tmp_path)
    piped = subprocess.run(
        [sys.executable, "-m", "ledgerbuild.cli", *args], capture_output=True, cwd=tmp_path
    )
    assert piped.returncode == 0 and piped.stderr == b""
    xlsx = ["xlsx", "--models", "llama-3-8b", "--gpu", "h100-sxm", "-o", "a.xlsx"]
    drawn = _stderr_on_a_terminal(xlsx, tmp_path)
    assert "evaluating" in drawn and "model sheets" in drawn
    assert _stderr_on_a_terminal(["--quiet", *xlsx], tmp_path) == ""


def test_every_option_in_the_readmes_command_list_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Commands", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    checked = 0
    for line in block.splitlines():
        for part in line.split("#")[0].split("|"):  # `a | b` lines list alternatives
            words = part.split()
            if len(words) < 2 or words[0] != "ledgerbuild" or words[1].startswith("-"):
                continue
            command = []  # the command words (a subcommand, arguments: -h is read first)
            for word in words[1:]:
                if not re.fullmatch(r"[a-z][\w.-]*", word):
                    break
                command.append(word)
            text = wide_help(*command)
            for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*|-[a-zA-Z])\b", part):
                if option in ("-h", "--version", "--quiet", "-V", "-q"):
                    continue
                assert re.search(rf"(?<![\w-]){re.escape(option)}\b", text), (line, option)
                checked += 1
    assert checked > 60
