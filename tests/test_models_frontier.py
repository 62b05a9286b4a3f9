"""Issue 29 models: DeepSeek-R1, GLM-4.7, MiniMax-M2.5, Qwen3-32B.

Golden: the total and active parameters their model cards print, at the printed precision,
each with the quantity (the convention) that reproduces it. CLI: `import-config` and `show` on
each published config.json (tests/configs/, sources in its README), and the one-line errors for
what the new families' fields cannot be. The transformers referee is
tests/test_oracle_models_frontier.py.
"""

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate, to_plain

CONFIGS = Path(__file__).parent / "configs"
runner = CliRunner()

# (id: card, model, quantity, printed figure, scale, digits after the point of the scaled figure)
# fmt: off
CARD = [
    # deepseek-ai/DeepSeek-R1 README.md model table (commit 0cf78561): "DeepSeek-R1 | 671B | 37B | 128K"
    ("dsr1-readme-total-671B", "deepseek-r1", "params_total", 671, 1e9, 0),
    ("dsr1-readme-active-37B", "deepseek-r1", "params_active_no_embedding", 37, 1e9, 0),
    # zai-org/GLM-4.5 README.md (commit 170f20b2): "GLM-4.7 ... 355B-A32B"; GLM-4.5 report Table 1
    ("glm47-readme-total-355B", "glm-4.7", "params_non_embedding_with_mtp", 355, 1e9, 0),
    ("glm47-readme-active-32B", "glm-4.7", "params_active_non_embedding", 32, 1e9, 0),
    # MiniMax-AI/MiniMax-M2 README.md (commit e304e33a): "230 billion total parameters with
    # 10 billion active parameters" (the M2 series: M2, M2.1, M2.5 share the shapes);
    # 230 printed to two significant figures (tens of billions)
    ("minimax-readme-total-230B", "minimax-m2.5", "params_total", 23, 1e10, 0),
    ("minimax-readme-active-10B", "minimax-m2.5", "params_active_no_embedding", 10, 1e9, 0),
    # https://huggingface.co/Qwen/Qwen3-32B model card: "Number of Parameters: 32.8B",
    # "Number of Paramaters (Non-Embedding): 31.2B"
    ("qwen3-32b-card-total-32.8B", "qwen3-32b", "params_total", 32.8, 1e9, 1),
    ("qwen3-32b-card-non-embedding-31.2B", "qwen3-32b", "params_non_embedding", 31.2, 1e9, 1),
]
# fmt: on


@pytest.mark.parametrize("case", CARD, ids=[c[0] for c in CARD])
def test_model_card_figures(case):
    _, model, quantity, printed, scale, digits = case
    got = to_plain(evaluate(model).value(quantity)) / scale
    assert round(got, digits) == pytest.approx(printed), got


def test_conventions_that_do_not_reproduce_the_cards():
    """Which conventions fail, so the choice above is not arbitrary: GLM-4.7's 355B is neither
    transformers' model (352.8B) nor it plus the MTP layer (356.8B); DeepSeek-R1's 37B is not
    the active count with the input embedding (37.6B)."""
    glm = evaluate("glm-4.7")
    assert round(to_plain(glm.value("params_total")) / 1e9) == 353
    assert round(to_plain(glm.value("params_total") + glm.value("params_mtp")) / 1e9) == 357
    assert round(to_plain(evaluate("deepseek-r1").value("params_active")) / 1e9) == 38


def fixture(name: str) -> Path:
    return CONFIGS / f"{name}.config.json"


FIXTURES = ["deepseek-r1", "glm-4.7", "minimax-m2.5", "qwen3-32b"]


@pytest.mark.parametrize("name", FIXTURES)
def test_import_config_keeps_the_published_fields(name):
    result = runner.invoke(app, ["import-config", str(fixture(name))])
    assert result.exit_code == 0, result.output
    entry = yaml.safe_load(result.output)
    assert entry["config"] == json.loads(fixture(name).read_text())


@pytest.mark.parametrize("name", FIXTURES)
def test_show_published_config_equals_catalog_entry(name):
    by_path = runner.invoke(app, ["show", str(fixture(name)), "--json"])
    by_id = runner.invoke(app, ["show", name, "--json"])
    assert by_path.exit_code == 0 and by_id.exit_code == 0, by_path.output + by_id.output
    rows = [json.loads(r.output)["quantities"] for r in (by_path, by_id)]
    for quantity in ("params_total", "params_active", "kv_bytes_per_token", "flops_per_token"):
        assert rows[0][quantity]["value"] == rows[1][quantity]["value"] > 0, quantity


def broken(tmp_path: Path, name: str, **changes) -> str:
    config = json.loads(fixture(name).read_text())
    for key, value in changes.items():
        if value is None:
            config.pop(key)
        else:
            config[key] = value
    path = tmp_path / name / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config))
    return str(path)


BROKEN = [
    ("glm-4.7", {"n_routed_experts": None}, "Glm4MoeForCausalLM config is missing n_routed_experts"),
    ("glm-4.7", {"partial_rotary_factor": "half"}, "field partial_rotary_factor: must be a number"),
    ("glm-4.7", {"partial_rotary_factor": 0.001}, "field partial_rotary_factor: rotary width 0"),
    ("glm-4.7", {"use_qk_norm": "yes"}, "field use_qk_norm: must be true or false"),
    ("minimax-m2.5", {"rotary_dim": 1000}, "field rotary_dim: rotary width 1000 must be in 2..head_dim"),
    ("minimax-m2.5", {"rotary_dim": 32.5}, "field rotary_dim: must be a whole number"),
    ("minimax-m2.5", {"num_local_experts": None}, "MiniMaxM2ForCausalLM config is missing num_local_experts"),
]


@pytest.mark.parametrize("command", ["show", "import-config"])
@pytest.mark.parametrize("case", BROKEN, ids=[f"{c[0]}-{next(iter(c[1]))}" for c in BROKEN])
def test_unreadable_fields_are_one_line_errors(tmp_path, command, case):
    name, changes, fragment = case
    path = broken(tmp_path, name, **changes)
    result = runner.invoke(app, [command, path])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert text.startswith("error:") and "\n" not in text and "Traceback" not in text
    assert path in text and fragment in text, text


def test_readme_model_table_lists_every_catalog_model():
    """The README's model catalog has one row per models/*.yaml, with its sources."""
    from pathlib import Path

    from ledgerbuild import catalog

    text = (Path(__file__).parents[1] / "README.md").read_text()
    table = text[text.index("| id | HF repo | published total / active |") :].split("\n\n")[0]
    listed = [line.split("|")[1].strip().strip("`") for line in table.splitlines()[2:]]
    assert sorted(listed) == sorted(catalog.models())
    assert all("http" in line for line in table.splitlines()[2:])  # every row names its sources
