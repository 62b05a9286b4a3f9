"""Issue 31: the derive/show/docs options, -V, --quiet, enum choices; long formulas broken."""

from typer.testing import CliRunner

from ledgerbuild import __version__
from ledgerbuild.cli import app
from ledgerbuild.printers.latex_lines import aligned_rows, rendered_width

runner = CliRunner()


def test_version_short_flag():
    r = runner.invoke(app, ["-V"])
    assert r.exit_code == 0 and r.output.strip() == f"ledgerbuild {__version__}"


def test_derive_takes_the_scenario_options_and_a_preamble(tmp_path):
    out = tmp_path / "s.tex"
    r = runner.invoke(
        app,
        [
            "derive",
            "llama-3-70b",
            "kv_bytes_per_token",
            "--gpus",
            "4",
            "--workload",
            "reasoning",
            "--format",
            "tex",
            "--preamble",
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert text.startswith("\\documentclass") and "\\usepackage{lmodern,amsmath,amssymb}" in text
    assert "4 x" in text and "\\end{document}" in text


def test_derive_refuses_a_gpu_list_and_a_markdown_preamble():
    r = runner.invoke(app, ["derive", "llama-3-8b", "tpot_s", "--gpu", "h100-sxm,l4"])
    assert r.exit_code == 2 and "give one GPU" in r.output
    r = runner.invoke(app, ["derive", "llama-3-8b", "tpot_s", "--preamble"])
    assert r.exit_code == 2 and "--format tex" in r.output


def test_format_choices_are_listed_in_help():
    r = runner.invoke(app, ["docs", "-h"])
    assert "md" in r.output and "tex" in r.output and "all" in r.output
    r = runner.invoke(app, ["derive", "llama-3-8b", "tpot_s", "--format", "pdf"])
    assert r.exit_code == 2


def test_show_leads_with_an_answer_and_takes_a_gpu_list():
    r = runner.invoke(app, ["show", "llama-3-8b", "--gpu", "h100-sxm,l4"])
    assert r.exit_code == 0, r.output
    assert r.output.count("answer (the whole ledger: --all)") == 2
    assert "read as 0 bytes" not in r.output and "multimodal" not in r.output
    full = runner.invoke(app, ["show", "llama-3-8b", "--all"])
    assert len(full.output.splitlines()) > 5 * len(r.output.splitlines()) / 2


def test_a_long_sum_is_broken_within_the_width():
    terms = " + ".join(rf"\mathrm{{term\_number\_{i}}}" for i in range(12))
    rows = aligned_rows(r"\mathrm{total}", [terms, "42"])  # the last form, the result, stays whole
    assert len(rows) > 3
    assert all(rendered_width(r.replace("&", "")) <= 60 for r in rows)


def test_fixed_choices_are_the_library_tables():
    """The CLI's enums list exactly what the library accepts (no drift)."""
    from ledgerbuild.cli.ledger_commands import RopeMethod
    from ledgerbuild.rope import METHODS

    assert {m.value for m in RopeMethod} == {"model", *METHODS.values()}
    r = runner.invoke(app, ["rope", "-h"], env={"COLUMNS": "200"})
    assert "model|none|pi|ntk|yarn|llama3" in r.output  # the choices in -h
    assert runner.invoke(app, ["rope", "llama-3-8b", "--method", "nonsense"]).exit_code == 2


def test_a_piecewise_condition_keeps_its_symbols():
    """Issue 31: the substituted form read "for 1,536 = 0" (DeepSeek-V2's q_lora_rank, 1,536 in
    its config.json); the condition now names the field, the value shows the numbers."""
    r = runner.invoke(app, ["derive", "deepseek-v2", "lora_params_attention_layer"])
    assert r.exit_code == 0, r.output
    assert r"\text{for}\: 1{,}536 = 0" not in r.output
    assert r"\text{for}\: \mathrm{q\_lora\_rank} = 0" in r.output and "2 \\cdot 1{,}536" in r.output


def test_no_negative_zero_for_people():
    from ledgerbuild.units import human

    assert human(-0.0, "s") == "0.000 ms" and human(-1e-9, "s") == "0.000 ms"
    assert human(-0.5, "s") == "-500.000 ms"  # a real negative keeps its sign


def test_quiet_turns_the_progress_bar_off(monkeypatch, tmp_path):
    import sys

    from ledgerbuild.cli import common

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    runner.invoke(app, ["--quiet", "list", "dtypes", "--json"])
    assert common.progress_wanted() is False
    runner.invoke(app, ["list", "dtypes", "--json"])
    assert common.QUIET["on"] is False
