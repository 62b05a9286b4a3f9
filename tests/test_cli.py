"""CLI contract: every command through typer's CliRunner, exit codes, one-line errors."""

import json
import re
from pathlib import Path

import openpyxl
import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def one_line_error(result):
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert text.startswith("error:") and "Traceback" not in text
    return text


@pytest.mark.parametrize("what", ["models", "gpus", "workloads", "quantities", "dtypes", "time_models"])
def test_list(what):
    result = run("list", what, "--json")
    assert result.exit_code == 0
    assert len(json.loads(result.output)) >= 4
    assert run("list", what).exit_code == 0


def test_show_json_contract():
    result = run("show", "llama-3-8b", "--json")
    data = json.loads(result.output)
    assert set(data) >= {"model", "scenario", "time_model", "quantities"}
    stable = [
        "params_total",
        "params_active",
        "params_embedding",
        "params_lm_head",
        "params_matmul",
        "weight_bytes",
        "kv_bytes_per_token",
        "flops_per_token",
        "flops_prefill",
        "kv_capacity_tokens",
        "max_concurrency",
        "ttft_s",
        "tpot_s",
        "throughput_tokens_per_s",
        "usd_per_million_output_tokens",
    ]
    for name in stable:
        assert set(data["quantities"][name]) == {"value", "unit"}
    assert data["quantities"]["params_total"]["value"] == 8_030_261_248  # lecture §3.1


def test_show_options_and_sets():
    result = run(
        "show",
        "llama-3-70b",
        "--gpus",
        "8",
        "--gpu",
        "h200-sxm",
        "--workload",
        "reasoning",
        "--set",
        "num_key_value_heads=64",
        "--json",
    )
    data = json.loads(result.output)
    assert data["scenario"]["gpu_count"] == 8 and data["scenario"]["gpu"] == "h200-sxm"
    assert data["scenario"]["prompt_tokens"] == 500
    # lecture §5.1: 2 x layers x KV heads x head_dim x bytes
    assert data["quantities"]["kv_bytes_per_token"]["value"] == 2 * 80 * 64 * 128 * 2


def test_show_table_for_people():
    result = run("show", "deepseek-v3", "--all")  # the whole ledger (issue 28: an answer block first)
    assert result.exit_code == 0
    assert "params_total" in result.output and "GiB" in result.output
    assert "time model: calibrated@h100-sxm" in result.output  # the default, fitted per GPU


def test_show_model_yaml_and_hf_config(tmp_path):
    with open("models/qwen2.5-7b.yaml") as f:
        entry = yaml.safe_load(f)
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(entry))
    (tmp_path / "config.json").write_text(json.dumps(entry["config"]))
    by_id = json.loads(run("show", "qwen2.5-7b", "--json").output)["quantities"]
    for ref in (tmp_path / "m.yaml", tmp_path / "config.json"):
        got = json.loads(run("show", str(ref), "--json").output)["quantities"]
        assert got["params_total"] == by_id["params_total"]


def test_import_config_prints_a_loadable_entry(tmp_path):
    with open("models/mixtral-8x7b.yaml") as f:
        config = yaml.safe_load(f)["config"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run("import-config", str(tmp_path / "config.json"))
    assert result.exit_code == 0
    (tmp_path / "new.yaml").write_text(result.output)
    data = json.loads(run("show", str(tmp_path / "new.yaml"), "--json").output)
    assert data["quantities"]["params_total"]["value"] == 46_702_792_704


def test_xlsx_writes_workbook(tmp_path):
    out = tmp_path / "plan.xlsx"
    result = run(
        "xlsx",
        "--models",
        "llama-3-8b,qwen2.5-7b",
        "--gpu",
        "h100-sxm,l4",
        "--workload",
        "reasoning",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "formula cells" in result.output and str(out) in result.output
    wb = openpyxl.load_workbook(out)
    assert {
        "About",
        "Inputs",
        "Summary",
        "Compare",
        "Sweeps",
        "llama-3-8b",
        "qwen2.5-7b",
        "GPUs",
        "Models",
    } <= set(wb.sheetnames)
    assert (
        wb["llama-3-8b"]
        .defined_names["kv_bytes_per_token"]
        .attr_text.endswith(
            "$B$" + str(next(c.row for c in wb["llama-3-8b"]["A"] if c.value == "kv_bytes_per_token"))
        )
    )
    sheet = wb["llama-3-8b"]
    cell = sheet[sheet.defined_names["kv_bytes_per_token"].attr_text.split("!")[1].replace("$", "")]
    # reads through names (DESIGN.md: =n_layers*kv_elems_per_token_layer*kv_dtype_bytes)
    assert sorted(cell.value.lstrip("=").split("*")) == ["kv_bytes_per_token_layer", "num_hidden_layers"]


@pytest.mark.parametrize(
    "args,fragment",
    [
        (("show", "llama-3-8c"), "did you mean llama-3-8b"),
        (("show", "llama-3-8b", "--gpu", "h100"), "field gpu: unknown gpu 'h100'"),
        (("show", "llama-3-8b", "--set", "attention_dtype=bogus"), "field attention_dtype: unknown dtype"),
        (("show", "llama-3-8b", "--set", "weight_dtype=fp3"), "field weight_dtype: unknown dtype 'fp3'"),
        (("show", "llama-3-8b", "--set", "num_kv=3"), "unknown name"),
        (("show", "llama-3-8b", "--set", "hidden_size=abc"), "not a number"),
        (("show", "llama-3-8b", "--set", "hidden_size=0"), "must be >= 1"),
        (("show", "llama-3-8b", "--set", "hidden_size=-5"), "must be >= 1"),
        (("show", "llama-3-8b", "--set", "num_key_value_heads=5"), "does not divide"),
        (("show", "llama-3-8b", "--set", "novalue"), "expected NAME=VALUE"),
        (("show", "llama-3-8b", "--workload", "chit-chat"), "unknown workload"),
        (("list", "things"), "unknown list"),
        (("xlsx", "--models", "llama-3-8c"), "valid:"),
        (("xlsx", "--gpu", "h1000"), "valid:"),
    ],
)
def test_bad_input_one_line_exit_2(args, fragment):
    assert fragment in one_line_error(run(*args))


def test_bad_files(tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("id: x\nconfig: [unclosed\n")
    assert "malformed YAML" in one_line_error(run("show", str(bad_yaml)))
    bad_json = tmp_path / "config.json"
    bad_json.write_text("{not json")
    assert "malformed JSON" in one_line_error(run("show", str(bad_json)))
    unknown = tmp_path / "u" / "config.json"
    unknown.parent.mkdir()
    unknown.write_text(json.dumps({"model_type": "rwkv", "architectures": ["RwkvForCausalLM"]}))
    assert "not a known architecture" in one_line_error(run("show", str(unknown)))
    partial = tmp_path / "p" / "config.json"
    partial.parent.mkdir()
    partial.write_text(json.dumps({"model_type": "llama", "hidden_size": 64}))
    message = one_line_error(run("show", str(partial)))
    assert "missing" in message and "num_hidden_layers" in message and "vocab_size" in message
    missing_field = tmp_path / "m.yaml"
    missing_field.write_text(yaml.safe_dump({"id": "m", "config": {}}))
    assert "field name" in one_line_error(run("show", str(missing_field)))


def test_xlsx_bad_output_leaves_nothing(tmp_path):
    assert "is a folder" in one_line_error(run("xlsx", "--models", "llama-3-8b", "-o", str(tmp_path)))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")  # as root, permissions do not stop a write; this does
    message = one_line_error(run("xlsx", "--models", "llama-3-8b", "-o", str(blocker / "x.xlsx")))
    assert "cannot create the output folder" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_failed_run_keeps_previous_workbook(tmp_path):
    out = tmp_path / "ledger.xlsx"
    assert run("xlsx", "--models", "llama-3-8b", "-o", str(out)).exit_code == 0
    before = out.read_bytes()
    one_line_error(run("xlsx", "--models", "llama-3-8b", "--set", "hidden_size=-1", "-o", str(out)))
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ledger.xlsx"]


def leaf_commands(group=None, path=()) -> list[list[str]]:
    """Every command the Typer app registers, walked from the app itself (cannot drift)."""
    import typer.main

    group = group or typer.main.get_command(app)
    out = []
    for name, command in sorted(group.commands.items()):
        sub = getattr(command, "commands", None)
        out += leaf_commands(command, (*path, name)) if sub else [[*path, name]]
    return out


COMMANDS = leaf_commands()


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help_on_every_command_shows_examples(cmd):
    result = run(*cmd, "--help")
    assert result.exit_code == 0 and "Example" in result.output, cmd


def test_readme_lists_every_command_and_shows_the_current_help_screens():
    """The README's command list names every command of the app, and its help screens are what
    the app prints (scripts/readme_help.py rewrites them)."""
    import importlib.util

    readme = open("README.md", encoding="utf-8").read()
    commands = readme.split("## Commands", 1)[1].split("```", 2)[1]
    missing = [
        " ".join(c)
        for c in COMMANDS
        if f"ledgerbuild {' '.join(c)}" not in commands
        and not (len(c) == 2 and re.search(rf"ledgerbuild {c[0]} [^\n]*\b{c[1]}\b", commands))
    ]
    assert not missing, f"commands missing from the README's list: {missing}"
    spec = importlib.util.spec_from_file_location("readme_help", "scripts/readme_help.py")
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    shown = helper.blocks(readme)
    assert len(shown) >= 2
    for command, screen in shown:
        assert screen == helper.help_screen(command), f"{command}: run scripts/readme_help.py"


def test_gpu_yaml_file_works_like_an_id(tmp_path):
    with open("hardware/h100-sxm.yaml") as f:
        gpu = yaml.safe_load(f)
    gpu["id"], gpu["hbm_bandwidth_tb_per_s"] = "my-gpu", 6.7  # twice the H100's bandwidth
    path = tmp_path / "my-gpu.yaml"
    path.write_text(yaml.safe_dump(gpu))
    floor = ("--time-model", "roofline")  # a user's GPU has no fit of its own: compare floors
    fast = json.loads(run("show", "llama-3-8b", "--gpu", str(path), *floor, "--json").output)
    base = json.loads(run("show", "llama-3-8b", *floor, "--json").output)
    tpot = lambda d: d["quantities"]["decode_step_s"]["value"]  # noqa: E731  memory-bound at batch 1
    assert tpot(fast) == pytest.approx(tpot(base) / 2)
    out = tmp_path / "g.xlsx"
    assert run("xlsx", "--models", "llama-3-8b", "--gpu", f"{path},l4", "-o", str(out)).exit_code == 0
    assert "my-gpu" in [c.value for c in openpyxl.load_workbook(out)["GPUs"]["A"]]


def _main(*args):
    """The installed entry point's code path (ledgerbuild.cli:main), as a user runs it."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "ledgerbuild.cli", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["show", "llama-3-8b", "--bogus"], "No such option: --bogus"),
        (["show"], "Missing argument 'models'"),
        (["frob"], "No such command 'frob'"),
        (["show", "llama-3-8b", "--gpus", "abc"], "--gpus"),
        (["show", "[/x]"], "unknown model '[/x]'"),  # rich markup in user text is data
        (["show", "a\x1b[31mred"], "a\\x1b[31mred"),  # control characters shown escaped
    ],
)
def test_usage_and_input_errors_are_one_line_exit_2(args, needle):
    result = _main(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_version_and_short_help():
    from ledgerbuild import __version__

    assert _main("--version").stdout.strip() == f"ledgerbuild {__version__}"
    assert "show [OPTIONS] {models}" in _main("show", "-h").stdout


def test_gpus_is_a_count_everywhere_and_old_xlsx_spelling_still_works(tmp_path):
    assert (
        json.loads(run("show", "llama-3-70b", "--gpus", "auto", "--json").output)["scenario"]["gpu_count"]
        == 2
    )  # 141 GB of BF16 weights: over one H100 (0.9 x 80 GiB), under two
    assert one_line_error(run("show", "llama-3-8b", "--gpus", "0")).count("--gpus") == 1
    old = _main("xlsx", "--models", "llama-3-8b", "--gpus", "h100-sxm,l4", "-o", str(tmp_path / "old.xlsx"))
    assert old.returncode == 0 and "now go to --gpu" in old.stderr


def test_help_is_grouped_with_one_example_per_line_and_lists_never_cut_ids():
    import os
    import subprocess
    import sys

    top = _main("-h").stdout
    assert all(panel in top for panel in ("Ledger", "Outputs", "Simulations"))
    assert "• ledgerbuild show llama-3-8b" in _main("show", "-h").stdout  # one per line
    listed = subprocess.run(
        [sys.executable, "-m", "ledgerbuild.cli", "list", "gpus"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
    ).stdout
    assert "a100-80gb-sxm" in listed and "10000" in listed and "…" not in listed


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_outputs_follow_the_umask_and_stale_temporaries_are_removed(tmp_path, umask, mode):
    """Issue 17: mkstemp's 0600 no longer leaks into outputs; a killed run's temporary file
    beside the target is removed by the next write of it."""
    import os

    stale = tmp_path / ".plan.xlsx.abc123.tmp"
    stale.write_text("half a workbook")
    old = os.umask(umask)
    try:
        assert (
            run(
                "xlsx", "--models", "llama-3.2-1b", "--gpu", "h100-sxm", "-o", str(tmp_path / "plan.xlsx")
            ).exit_code
            == 0
        )
        assert run("numerics", "report", "-o", str(tmp_path / "n.md")).exit_code == 0
    finally:
        os.umask(old)
    for name in ("plan.xlsx", "n.md", "n.png"):
        assert (tmp_path / name).stat().st_mode & 0o777 == mode, name
    assert not stale.exists()


def test_a_terminated_build_leaves_no_scratch_no_workers_and_no_output(tmp_path, monkeypatch):
    """Issue 17: SIGTERM during a workbook built by workers removes the scratch folder of
    rendered rows, ends the workers and leaves no workbook; a folder a killed (-9) run left
    is removed by the next build."""
    import os
    import signal
    import subprocess
    import sys
    import time

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    (tmp_path / "ledgerbuild-scratch-999999999-x").mkdir()  # no such process
    out = tmp_path / "w.xlsx"
    build = subprocess.Popen(
        [sys.executable, "-m", "ledgerbuild.cli", "xlsx", "--models", "all,all", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    scratch = []
    for _ in range(1500):  # until the workers have started (the folder appears with them; 30 s at most)
        scratch = list(tmp_path.glob("ledgerbuild-scratch-*"))
        if any(str(build.pid) in p.name for p in scratch) or build.poll() is not None:
            break
        time.sleep(0.02)
    build.send_signal(signal.SIGTERM)
    build.wait(timeout=60)
    time.sleep(0.5)  # the workers notice their parent is gone
    assert not list(tmp_path.glob("ledgerbuild-scratch-*")), scratch
    assert not out.exists() and not list(tmp_path.glob(".w.xlsx.*"))
    workers = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(out).encode() in cmdline.read_bytes():
                workers.append(cmdline.parent.name)
        except OSError:  # a process that ended meanwhile
            pass
    assert workers == []


def test_models_take_folders_globs_and_all_plus_paths(tmp_path):
    from ledgerbuild import catalog

    folder = tmp_path / "mine"
    folder.mkdir()
    for mid in ("llama-3.2-1b", "qwen2.5-0.5b"):
        text = catalog.model_paths()[mid].read_text().replace(f"id: {mid}", f"id: my-{mid}")
        (folder / f"my-{mid}.yaml").write_text(text)
    for spec, count in (
        (str(folder), 2),
        (str(folder / "*.yaml"), 2),
        (f"all,{folder}", len(catalog.models()) + 2),
    ):
        out = tmp_path / "w.xlsx"
        result = run("xlsx", "--models", spec, "--gpu", "h100-sxm", "-o", str(out))
        assert result.exit_code == 0, result.output
        assert openpyxl.load_workbook(out)["Summary"].max_row == 3 + count
    assert "matches no file" in one_line_error(run("xlsx", "--models", str(tmp_path / "*.json")))


def test_show_takes_several_models_as_one_json_array():
    both = json.loads(run("show", "llama-3-8b", "qwen3-8b", "--json").output)
    assert [d["model"] for d in both] == ["llama-3-8b", "qwen3-8b"]
    assert both[0] == json.loads(run("show", "llama-3-8b", "--json").output)
    bad = _main("show", "llama-3-8b", "nope-7b", "--json")
    assert bad.returncode == 2 and bad.stdout == "" and "nope-7b" in bad.stderr


JSON_ARGS = {  # the least each --json command needs; a new --json command must be added here
    "list": ["models"],
    "show": ["llama-3-8b", "qwen3-8b"],
    "rope": ["llama-3.2-1b"],
    "image": ["qwen2-vl-7b"],
    "bpe encode": ["hello world"],
    "bpe stats": [],
    "numerics demo": [],
    "numerics round": ["1.001,65519", "--dtype", "fp16"],
    "sample attention": [],
    "sample beam": [],
    "sample filter": [],
    "sample order": [],
    "sample penalties": [],
    "sample rejection": [],
    "sample reproducibility": [],
    "sample speculative": [],
    "sample truncation": [],
    "stream demo": [],
    "tokens": ["README.md", "--tokenizers", "gpt2"],
    "validate": ["--time-model", "roofline", "-o", "{tmp}/v"],
    "plan": ["llama-3-8b", "--gpu", "h100-sxm", "--requests-per-day", "1000"],
    "frontier": ["llama-3-8b", "--gpu", "h100-sxm"],
}


@pytest.mark.parametrize("cmd", [c for c in COMMANDS if "--json" in run(*c, "--help").output], ids=" ".join)
def test_every_json_output_is_exactly_one_document(cmd, tmp_path):
    """Issue 15: every --json output of every command parses with json.loads (one document)."""
    args = [a.format(tmp=tmp_path) for a in JSON_ARGS[" ".join(cmd)]]
    result = run(*cmd, *args, "--json")
    assert result.exit_code == 0, result.output[-500:]
    json.loads(result.stdout)


def test_cli_package_has_no_import_cycle():
    """Issue 17: command modules import only `common` and `scenario_options` (never the package
    that imports them; scenario_options itself only `common`), and the library below never
    imports the CLI or typer."""
    import ast
    from pathlib import Path as P

    root = P(__file__).parent.parent / "ledgerbuild"
    for path in (root / "cli").glob("*.py"):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                allowed = (
                    ("common",)
                    if path.name in ("common.py", "scenario_options.py")
                    else ("common", "scenario_options")
                )
                assert node.module in allowed, (path.name, node.module)
    for path in root.rglob("*.py"):
        if "cli" in path.relative_to(root).parts[:1]:
            continue
        text = path.read_text()
        assert (
            "import typer" not in text
            and "ledgerbuild.cli" not in text
            and "from .cli" not in text
            and "from ..cli" not in text
        ), path


def test_summaries_print_paths_as_written(tmp_path):
    """A path is data: "[red]" in a folder name is printed, not taken as rich markup."""
    folder = tmp_path / "a[red]b"
    result = run("xlsx", "--models", "llama-3.2-1b", "-o", str(folder / "x.xlsx"))
    assert result.exit_code == 0 and f"wrote {folder / 'x.xlsx'}:" in result.output
    result = run("docs", "--models", "llama-3.2-1b", "--no-plots", "-o", str(folder / "docs"))
    assert result.exit_code == 0 and f"to {folder / 'docs'}" in result.output


_BUSY_WORKER = """
import multiprocessing, os, time
from ledgerbuild.files import ScratchFolder

def write(folder):
    i, parent = 0, os.getppid()
    while os.getppid() == parent:  # a worker writing into the folder until its parent is gone
        try:
            open(f"{folder}/{i}", "w").close()
        except OSError:
            pass
        i += 1

scratch = ScratchFolder()
multiprocessing.get_context("fork").Process(target=write, args=(scratch.name,), daemon=True).start()
time.sleep(0.3)
print(scratch.name, flush=True)
time.sleep(60)
"""


def test_sigterm_removes_a_scratch_folder_its_workers_are_writing_into(tmp_path):
    """The race behind a rare CI failure: on SIGTERM the folder was removed while a forked
    worker still made files in it, so the last rmdir found it not empty. The workers are
    ended first now."""
    import os
    import signal
    import subprocess
    import sys

    run = subprocess.Popen(
        [sys.executable, "-c", _BUSY_WORKER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    folder = Path(run.stdout.readline().strip())
    assert folder.is_dir() and any(folder.iterdir())  # the worker is writing
    run.send_signal(signal.SIGTERM)
    assert run.wait(timeout=30) == 128 + signal.SIGTERM  # issue 30: one line, exit 143
    assert not folder.exists()
