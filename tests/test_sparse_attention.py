"""DeepSeek-V3.2 and GLM-5 (DSA): published figures, the sparse-attention topic, their config.json files.

Golden figures, each with its source:
- GLM-5 model card (huggingface.co/zai-org/GLM-5, 2026-02-12) and technical report
  (arXiv:2602.15763) Table 1: 744B total, 40B activated, 3 dense + 75 MoE layers. Of the
  active-parameter conventions, only "without the input embedding and the lm_head"
  (params_active_non_embedding) prints as 40B.
- DeepSeek-V3.2 report (arXiv:2512.02556) §2: V3.1-Terminus (= V3's architecture, 671B total,
  37B activated, DeepSeek counting active parameters without the input embedding) with DSA
  added as the only architectural change; the HF model page: 685B parameters in the
  checkpoint, which holds the MTP module with its own copy of the embedding and output head
  (as DeepSeek-V3's 685B: README_WEIGHTS.md).
- DeepSeek-V3.2-Exp inference/model.py (class Indexer): one FP8 key of index_head_dim = 128
  and one FP32 scale per 128 elements, 132 bytes per token and layer.
The published config.json files sit in tests/fixtures/configs/ with their source (SOURCES.md).
"""

import json
import math
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

FIXTURES = Path(__file__).parent / "fixtures" / "configs"
runner = CliRunner()


def value(model, name, sets=None):
    return evaluate(model, sets or {}).value(name)


def billions(x) -> int:
    return round(float(x) / 1e9)


def test_glm5_card_744b_total_40b_active_75_moe_layers():
    assert billions(value("glm-5", "params_total")) == 744
    assert billions(value("glm-5", "params_active_non_embedding")) == 40
    assert value("glm-5", "num_moe_layers") == 75
    assert value("glm-5", "num_indexer_layers") == 78


def test_deepseek_v32_is_v3_plus_its_indexers():
    """Report §2: the only architectural change from V3.1-Terminus (V3's shapes) is DSA."""
    assert value("deepseek-v3.2", "params_total") - value("deepseek-v3.2", "params_indexer") == value(
        "deepseek-v3", "params_total"
    )
    assert billions(value("deepseek-v3.2", "params_total") - value("deepseek-v3.2", "params_indexer")) == 671


def test_deepseek_v32_hf_checkpoint_685b_and_37b_active():
    r = evaluate("deepseek-v3.2")
    v = r.value
    checkpoint = v("params_total") + v("params_mtp") + v("params_embedding") + v("params_lm_head")
    assert billions(checkpoint) == 685
    assert billions(v("params_active_no_embedding")) == 37


def test_indexer_key_cache_132_bytes_per_token_layer():
    """DeepSeek's reference caches 128 FP8 bytes + one FP32 scale per indexer key."""
    assert value("deepseek-v3.2", "indexer_kv_bytes_per_token_layer") == 128 + 4
    assert value("deepseek-v3.2", "indexer_kv_bytes_per_token") == 61 * 132


@pytest.mark.parametrize("model", ["deepseek-v3.2", "glm-5"])
def test_sparse_decode_pays_beyond_the_crossover(model):
    """Below index_topk the indexer is overhead; beyond the crossover, DSA decode attention
    costs fewer FLOPs (and reads fewer KV bytes) than dense attention."""
    r = evaluate(model)
    for name, sparse, dense in (
        ("sparse_crossover_context_flops", "flops_attention_decode", "dense_attention_flops_decode"),
        ("sparse_crossover_context_bytes", "kv_bytes_read_decode", "dense_kv_bytes_read_decode"),
    ):
        s_star = float(r.value(name))
        assert s_star > r.value("index_topk")
        below = evaluate(model, {"context_tokens": str(math.floor(s_star))})
        above = evaluate(model, {"context_tokens": str(math.ceil(s_star) + 1)})
        assert below.value(sparse) >= below.value(dense)
        assert above.value(sparse) < above.value(dense)


def test_long_context_decode_reads_topk_latents():
    """Report eq. (2): at 128K a decode step reads index_topk latents per layer (what dense
    attention reads at a 2,048-token context) plus every cached indexer key."""
    at_128k = evaluate("deepseek-v3.2", {"context_tokens": "131072"})
    at_2k = evaluate("deepseek-v3.2", {"context_tokens": "2048"})
    assert at_128k.value("index_selected_tokens") == 2048
    keys = at_128k.value("indexer_kv_bytes_per_token") * 131072
    assert at_128k.value("kv_bytes_read_decode") == at_2k.value("dense_kv_bytes_read_decode") + keys
    assert at_128k.value("kv_bytes_at_context") == at_128k.value("dense_kv_bytes_read_decode") + keys


@pytest.mark.parametrize("model", ["deepseek-v3", "llama-3-8b"])
def test_dense_models_read_their_whole_cache(model):
    r = evaluate(model)
    assert "dsa" not in r.tags
    assert r.value("kv_bytes_read_decode") == r.value("kv_bytes_at_context")


# --- config.json files -------------------------------------------------------------------
def run(*args):
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("model", ["deepseek-v3.2", "glm-5"])
def test_show_and_import_the_published_config(model, tmp_path):
    path = FIXTURES / model / "config.json"
    shown = run("show", str(path), "--json")
    assert shown.exit_code == 0, shown.output
    total = json.loads(shown.output)["quantities"]["params_total"]["value"]
    assert total == value(model, "params_total")
    imported = run("import-config", str(path))
    assert imported.exit_code == 0, imported.output
    entry = yaml.safe_load(imported.output)
    assert entry["id"] == model
    (tmp_path / f"{model}.yaml").write_text(imported.output)
    assert value(str(tmp_path / f"{model}.yaml"), "params_total") == total


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"index_topk": None}, "missing index_topk"),
        ({"index_topk": "2048"}, "field index_topk: must be a whole number"),
        ({"indexer_types": ["full"] * 3}, "field indexer_types: expected 78 entries"),
        ({"index_n_heads": 0}, "field index_n_heads: must be in 1..2^53"),
    ],
)
def test_bad_dsa_fields_one_line_error(change, fragment, tmp_path):
    config = json.loads((FIXTURES / "glm-5" / "config.json").read_text())
    config.update(change)
    path = tmp_path / "bad" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps({k: v for k, v in config.items() if v is not None}))
    for command in ("show", "import-config"):
        result = run(command, str(path))
        assert result.exit_code == 2, result.output
        text = result.output.strip()
        assert text.startswith("error:") and "\n" not in text and "Traceback" not in text
        assert str(path) in text and fragment in text


def test_layer_steps_attention_is_the_dsa_layer():
    """The per-layer table's DSA attention step, one sequence, is the model's decode attention
    and indexer projections shared over its layers (every layer of DeepSeek-V3.2 has an indexer)."""
    r = evaluate("deepseek-v3.2", {"context_tokens": "65536", "batch_size": "1"})
    whole = r.value("flops_attention_decode") + 2 * r.value("num_indexer_layers") * r.value(
        "matmul_indexer_layer"
    )
    assert r.value("layer_attention_flops_decode") * r.value("num_hidden_layers") == whole


@pytest.mark.parametrize("model", ["deepseek-v3.2", "glm-5"])
def test_context_attention_equals_rest_with_dsa(model):
    """At the context the ledger names, decode attention (top-k entries and the indexer) costs
    what the matmuls cost: 2 x params_matmul."""
    s = float(value(model, "context_attention_equals_rest"))
    assert s > value(model, "index_topk")
    r = evaluate(model, {"context_tokens": repr(s)})
    assert float(r.value("flops_attention_decode")) == pytest.approx(
        2 * float(r.value("params_matmul")), rel=1e-12
    )
