"""Kimi-K2.5 and Qwen3.5-397B-A17B (issue 29 items 2 and 5): the model cards' totals at their
printed precision, and `import-config` / `show` on the published config.json files (fixtures
copied verbatim, tests/fixtures/README.md) with one-line errors for what the ledger cannot
read. params_total against transformers: test_oracle_transformers.py (every catalog model)
and test_oracle_kimi_qwen35.py.

Conventions: params_total is what transformers builds (language model, vision tower,
projector; no MTP module: Qwen3.5's one module is params_mtp, as DeepSeek-V3's is). Both
cards' "activated" figures are reproduced without the input embedding (DeepSeek's
convention, params_active_no_embedding); with it they would read 33B and 18B.
"""

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

runner = CliRunner()
FIXTURES = Path(__file__).parent / "fixtures"
KIMI = FIXTURES / "kimi-k2.5" / "config.json"
QWEN = FIXTURES / "qwen3.5-397b-a17b" / "config.json"

# (model, quantity, the card's figure, its unit): compared at the precision the card prints
CARDS = [
    # huggingface.co/moonshotai/Kimi-K2.5 §2 Model Summary: Total 1T, Activated 32B, MoonViT 400M
    ("kimi-k2.5", "params_total", 1, 1e12),
    ("kimi-k2.5", "params_active_no_embedding", 32, 1e9),
    ("kimi-k2.5", "params_vision", 4, 1e8),
    # huggingface.co/Qwen/Qwen3.5-397B-A17B: 397B in total, 17B activated
    ("qwen3.5-397b-a17b", "params_total", 397, 1e9),
    ("qwen3.5-397b-a17b", "params_active_no_embedding", 17, 1e9),
]


@pytest.mark.parametrize("model, quantity, printed, unit", CARDS)
def test_model_card_figures_at_their_printed_precision(model, quantity, printed, unit):
    assert round(int(evaluate(model).value(quantity)) / unit) == printed


def test_the_active_convention_that_reproduces_the_cards():
    """With the input embedding the two would print 33B and 18B: the cards leave it out."""
    assert round(int(evaluate("kimi-k2.5").value("params_active")) / 1e9) == 33
    assert round(int(evaluate("qwen3.5-397b-a17b").value("params_active")) / 1e9) == 18


def test_the_card_total_leaves_the_mtp_module_out():
    """Qwen3.5's card total is the model transformers builds: with its MTP module (6.6B) it
    would read 403B."""
    r = evaluate("qwen3.5-397b-a17b")
    assert round(int(r.value("params_total") + r.value("params_mtp")) / 1e9) == 403


def test_qwen3_5_layer_pattern_and_mtp_from_the_config():
    """config.json: 60 layers, layer_types with 45 linear_attention and 15 full_attention;
    mtp_num_hidden_layers 1 (vLLM qwen3_5_mtp.py builds one module)."""
    r = evaluate("qwen3.5-397b-a17b")
    assert (r.value("num_linear_attention_layers"), r.value("num_full_layers")) == (45, 15)
    assert r.value("num_nextn_predict_layers") == 1 and r.value("params_mtp") > 0


@pytest.mark.parametrize("path, model", [(KIMI, "kimi-k2.5"), (QWEN, "qwen3.5-397b-a17b")])
def test_show_reads_the_published_config(path, model):
    result = runner.invoke(app, ["show", str(path), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)["quantities"]
    want = evaluate(model)
    for name in ("params_total", "params_vision", "params_connector", "kv_bytes_per_token"):
        assert got[name]["value"] == want.value(name), name


@pytest.mark.parametrize("path", [KIMI, QWEN])
def test_import_config_prints_an_entry_that_loads(path, tmp_path):
    result = runner.invoke(app, ["import-config", str(path)])
    assert result.exit_code == 0, result.output
    entry = yaml.safe_load(result.output)
    assert entry["config"]["model_type"] == json.loads(path.read_text())["model_type"]
    out = tmp_path / f"{entry['id']}.yaml"
    out.write_text(result.output)
    shown = runner.invoke(app, ["show", str(out), "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["quantities"]["params_total"]["value"] > 0


def _broken(tmp_path, source, edit):
    config = json.loads(source.read_text())
    edit(config)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


BROKEN = [
    (QWEN, lambda c: c["text_config"]["layer_types"].pop(), "layer_types"),
    (QWEN, lambda c: c["text_config"]["layer_types"].__setitem__(0, "mamba"), "layer_types"),
    (QWEN, lambda c: c["vision_config"].update(deepstack_visual_indexes=[8, 16]), "deepstack_visual_indexes"),
    (QWEN, lambda c: c["text_config"].update(linear_num_value_heads="64"), "linear_num_value_heads"),
    (QWEN, lambda c: c["text_config"].update(mlp_only_layers=[0]), "mlp_only_layers"),
    (QWEN, lambda c: c["text_config"].pop("shared_expert_intermediate_size"), "intermediate_size"),
    (KIMI, lambda c: c["vision_config"].update(merge_kernel_size=[2, 3]), "merge_kernel_size"),
    (KIMI, lambda c: c["vision_config"].pop("vt_hidden_size"), "vt_hidden_size"),
    (KIMI, lambda c: c.update(text_config=[1]), "text_config"),
    (KIMI, lambda c: c["text_config"].pop("kv_lora_rank"), "kv_lora_rank"),
]


@pytest.mark.parametrize("source, edit, field", BROKEN, ids=[f"{i}-{b[2]}" for i, b in enumerate(BROKEN)])
def test_what_cannot_be_read_is_a_one_line_error(tmp_path, source, edit, field):
    path = _broken(tmp_path, source, edit)
    for command in ("show", "import-config"):
        result = runner.invoke(app, [command, str(path)])
        assert result.exit_code == 2, result.output
        text = result.output.strip()
        assert text.startswith("error:") and "\n" not in text and "Traceback" not in text, text
        assert str(path) in text and field in text, text
