"""Oracle: transformers' DeepSeek-V3.2 and GLM-5 (DSA) on tiny configs referee the sparse-attention ledger.

transformers 5.23.0 (models/deepseek_v32, models/glm_moe_dsa) runs the lightning indexer,
caches its keys beside the MLA latent (DynamicIndexedLayer.indexer_keys) and turns the top-k
into a mask over eager attention. So the referee sees, on random-weight models of 3 layers:
- parameters (indexer wq_b, wk, k_norm, weights_proj included) on the CPU model;
- the cache tensors after a prefill and a decode step (latent, RoPE key, indexer keys), bytes
  equal to kv_bytes_at_context at FP32;
- FlopCounterMode: linear layers (aten.mm) of prefill and decode, the indexer's matmuls
  among them; attention (aten.bmm) of a decode step = the dense attention eager computes under
  the mask plus the indexer's scoring (eager does not skip the masked entries, so the sparse
  saving is refereed by the indexer's selection instead: the number of entries it hands each
  query, causal ones only, equals min(position, index_topk));
- GLM-5's "shared" layers (indexer_types) have no indexer and cache no indexer keys; on the
  published GLM-5.2 config (21 indexer layers of 78) the meta-device count equals the ledger's.
"""

import json
from pathlib import Path

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from hf_oracle import causal_lm, count_params
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle

BASE = dict(
    hidden_size=64,
    num_hidden_layers=3,
    num_attention_heads=4,
    num_key_value_heads=4,
    intermediate_size=96,
    vocab_size=101,
    n_routed_experts=4,
    num_experts_per_tok=2,
    n_shared_experts=1,
    moe_intermediate_size=32,
    first_k_dense_replace=1,
    q_lora_rank=24,
    kv_lora_rank=16,
    qk_nope_head_dim=8,
    qk_rope_head_dim=4,
    v_head_dim=8,
    n_group=1,
    topk_group=1,
    index_n_heads=2,
    index_head_dim=8,
)
V32 = dict(model_type="deepseek_v32", architectures=["DeepseekV32ForCausalLM"], **BASE)
GLM = dict(model_type="glm_moe_dsa", architectures=["GlmMoeDsaForCausalLM"], **BASE)
TINY = {  # index_topk 4 < the context (sparse), 16 >= it (every entry selected)
    "v32-top4": {**V32, "index_topk": 4},
    "v32-top16": {**V32, "index_topk": 16},
    "glm-shared-top4": {**GLM, "index_topk": 4, "indexer_types": ["full", "shared", "full"]},
}
PROMPT = 10
FIXTURES = Path(__file__).parent / "fixtures" / "configs"
FP32 = {"kv_dtype": "fp32", "indexer_kv_dtype": "fp32"}


def _flops(fc) -> dict:
    ops = {str(op): n for op, n in fc.get_flop_counts()["Global"].items()}
    return {"linear": ops.get("aten.mm", 0) + ops.get("aten.addmm", 0), "attention": ops.get("aten.bmm", 0)}


def _valid_selections(indices: torch.Tensor, past: int) -> int:
    """Selected entries that are causal (key position <= query position), summed over queries."""
    positions = torch.arange(indices.shape[1]).view(1, -1, 1) + past
    return int((indices <= positions).sum())


@pytest.fixture(scope="module", params=sorted(TINY))
def run(request, tmp_path_factory):
    config = TINY[request.param]
    path = tmp_path_factory.mktemp(request.param) / "config.json"
    path.write_text(json.dumps(config))
    torch.manual_seed(0)
    model = causal_lm(config, "cpu", attn="eager").eval()
    picked: list = []
    for layer in model.model.layers:
        if layer.self_attn.indexer is not None:
            layer.self_attn.indexer.register_forward_hook(lambda m, a, out: picked.append(out))
    ids = torch.randint(0, 90, (1, PROMPT))
    with torch.no_grad():
        prefill = FlopCounterMode(display=False)
        with prefill:
            out = model(ids, use_cache=True, logits_to_keep=1)
        n_prefill = len(picked)
        decode = FlopCounterMode(display=False)
        with decode:
            out = model(ids[:, :1], past_key_values=out.past_key_values, use_cache=True)
    return {
        "path": str(path),
        "config": config,
        "model": model,
        "flops": {"prefill": _flops(prefill), "decode": _flops(decode)},
        "cache": out.past_key_values,
        "picked": (picked[:n_prefill], picked[n_prefill:]),
    }


def test_tiny_dsa_params_equal(run):
    assert evaluate(run["path"]).value("params_total") == count_params(run["model"])


def test_indexer_params_equal_the_indexer_modules(run):
    modules = [layer.self_attn.indexer for layer in run["model"].model.layers]
    expected = sum(count_params(m) for m in modules if m is not None)
    assert evaluate(run["path"]).value("params_indexer") == expected


def test_cache_tensors_equal_kv_bytes_with_indexer_keys(run):
    """Latent + RoPE key in every layer, indexer keys in the layers with an indexer."""
    tensors = []
    for layer in run["cache"].layers:
        tensors += [layer.keys, layer.values] + (
            [layer.indexer_keys] if layer.indexer_keys is not None else []
        )
    cached = sum(t.numel() * t.element_size() for t in tensors)
    r = evaluate(run["path"], {"context_tokens": str(PROMPT + 1), **FP32})
    assert r.value("kv_bytes_at_context") == cached
    with_keys = sum(layer.indexer_keys is not None for layer in run["cache"].layers)
    assert r.value("num_indexer_layers") == with_keys
    assert r.value("indexer_kv_bytes_per_token") * (PROMPT + 1) == sum(
        layer.indexer_keys.numel() * 4 for layer in run["cache"].layers if layer.indexer_keys is not None
    )


def test_indexer_selects_min_context_topk(run):
    """Decode: each indexer layer hands attention min(S, k) entries; prefill: the causal ones
    over positions 1..L_p sum to prefill_selected_tokens_layer."""
    r = evaluate(run["path"], {"context_tokens": str(PROMPT + 1), "prompt_tokens": str(PROMPT)})
    prefill, decode = run["picked"]
    assert {int(t.shape[-1]) for t in decode} == {int(r.value("index_selected_tokens"))}
    assert {_valid_selections(t, 0) for t in prefill} == {int(r.value("prefill_selected_tokens_layer"))}


def test_decode_attention_flops_dense_under_mask_plus_indexer(run):
    """Eager attention computes every entry under the top-k mask: the counter's bmm equals the
    ledger's dense attention plus its indexer FLOPs; at index_topk >= S the ledger's sparse
    attention is the same figure."""
    r = evaluate(run["path"], {"context_tokens": str(PROMPT + 1)})
    counted = run["flops"]["decode"]["attention"]
    assert r.value("dense_attention_flops_decode") + r.value("indexer_flops_decode") == counted
    if run["config"]["index_topk"] >= PROMPT + 1:
        assert r.value("flops_attention_decode") == counted
    else:
        assert r.value("flops_attention_decode") < counted


def test_prefill_attention_flops_per_entry(run):
    """Prefill: eager fills the L_p x L_p square in every layer (attention) and indexer layer
    (scores): the ledger's per-entry FLOPs times L_p^2."""
    r = evaluate(run["path"])
    per_entry = r.value("attn_flops_per_visible_token") * r.value("num_hidden_layers") + r.value(
        "indexer_flops_per_scored_token"
    ) * r.value("num_indexer_layers")
    assert per_entry * PROMPT**2 == run["flops"]["prefill"]["attention"]


def test_prefill_matmul_flops_equal_flop_counter(run):
    r = evaluate(run["path"], {"prompt_tokens": str(PROMPT)})
    assert r.value("flops_prefill_linear") == run["flops"]["prefill"]["linear"]


def test_decode_matmul_flops_equal_flop_counter(run):
    """2 x params_matmul (indexer matmuls included) plus transformers' naive MLA, which
    decompresses every cached latent each step (mla_decompress_flops_layer)."""
    r = evaluate(run["path"], {"context_tokens": str(PROMPT + 1)})
    one = evaluate(run["path"], {"context_tokens": "1"}).value("mla_decompress_flops_layer")
    expected = r.value("flops_per_token") - r.value("flops_attention_decode")
    expected += r.value("num_hidden_layers") * (r.value("mla_decompress_flops_layer") - one)
    assert expected == run["flops"]["decode"]["linear"]


@pytest.mark.parametrize("form", ["indexer_types", "index_topk_freq"])
def test_glm52_shared_indexer_layers_equal_transformers(form, tmp_path):
    """GLM-5.2's published config runs the indexer on 21 of 78 layers (the rest "shared"),
    stated as a list and as index_topk_freq / index_skip_topk_offset; the ledger's count of
    indexer layers and params_total equal transformers' GlmMoeDsaForCausalLM on the meta device
    either way."""
    config = json.loads((FIXTURES / "glm-5.2" / "config.json").read_text())
    if form == "index_topk_freq":
        config.pop("indexer_types")
    path = tmp_path / "glm-5.2" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config))
    model = causal_lm(config, "meta")
    r = evaluate(str(path))
    assert r.value("num_indexer_layers") == sum(
        layer.self_attn.indexer is not None for layer in model.model.layers
    )
    assert r.value("num_indexer_layers") == 21
    assert r.value("params_total") == count_params(model)
