"""Oracle: transformers as the referee for parameters, FLOPs and KV bytes.

- params_total equals, to the integer, the transformers *ForCausalLM built from each catalog
  entry on the meta device (every catalog model).
- FLOPs equal torch.utils.flop_counter.FlopCounterMode on tiny random-weight models of the
  Llama, Qwen2, Mixtral, DeepSeek-V3, GLM-4.x and MiniMax-M2 shapes: decode matmuls (aten.mm)
  and attention (aten.bmm, eager) exactly; prefill matmuls exactly (eager attention computes the full
  L x L square under a mask, the ledger counts the causal triangle, so prefill attention is
  not compared).
- KV bytes equal the cache tensors transformers allocates.
"""

import json

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from hf_oracle import TINY_DIMS, TINY_LLAMA, causal_lm, count_params
from ledgerbuild import catalog
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("model_id", sorted(catalog.models()))
def test_params_total_equals_transformers_meta_model(model_id):
    hf_model = causal_lm(catalog.models()[model_id].config, "meta")
    assert evaluate(model_id).value("params_total") == count_params(hf_model)


TINY = {
    "llama": {**TINY_LLAMA, "attention_bias": True},
    "qwen2": dict(
        model_type="qwen2",
        architectures=["Qwen2ForCausalLM"],
        hidden_size=48,
        num_hidden_layers=3,
        num_attention_heads=6,
        num_key_value_heads=2,
        intermediate_size=80,
        vocab_size=97,
        tie_word_embeddings=True,
    ),
    "mixtral": dict(
        model_type="mixtral",
        architectures=["MixtralForCausalLM"],
        num_hidden_layers=2,
        num_local_experts=4,
        num_experts_per_tok=2,
        **TINY_DIMS,
    ),
    "deepseek_v3": dict(
        model_type="deepseek_v3",
        architectures=["DeepseekV3ForCausalLM"],
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
    ),
    # issue 29 families: GLM-4.x (q/k/v biases, per-head q/k norm, dense-first MoE, half RoPE)
    # and MiniMax-M2 (q/k norm over all heads, partial rotary_dim, MoE without shared experts)
    "glm4_moe": dict(
        model_type="glm4_moe",
        architectures=["Glm4MoeForCausalLM"],
        num_hidden_layers=3,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_shared_experts=1,
        moe_intermediate_size=32,
        first_k_dense_replace=1,
        n_group=1,
        topk_group=1,
        attention_bias=True,
        use_qk_norm=True,
        partial_rotary_factor=0.5,
        **TINY_DIMS,
    ),
    "minimax_m2": dict(
        model_type="minimax_m2",
        architectures=["MiniMaxM2ForCausalLM"],
        num_hidden_layers=2,
        num_local_experts=4,
        num_experts_per_tok=2,
        rotary_dim=8,
        use_qk_norm=True,
        **TINY_DIMS,
    ),
}
PROMPT = 10


@pytest.fixture(scope="module", params=sorted(TINY))
def tiny(request, tmp_path_factory):
    """(config path, model, flops of prefill, flops of one decode step, cache after decode)."""
    config = TINY[request.param]
    path = tmp_path_factory.mktemp(request.param) / "config.json"
    path.write_text(json.dumps(config))
    torch.manual_seed(0)
    model = causal_lm(config, "cpu", attn="eager").eval()
    ids = torch.randint(0, 90, (1, PROMPT))
    with torch.no_grad():
        prefill = FlopCounterMode(display=False)
        with prefill:
            out = model(ids, use_cache=True, logits_to_keep=1)
        decode = FlopCounterMode(display=False)
        with decode:
            out = model(ids[:, :1], past_key_values=out.past_key_values, use_cache=True)
    counts = {}
    for phase, fc in (("prefill", prefill), ("decode", decode)):
        ops = {str(op): n for op, n in fc.get_flop_counts()["Global"].items()}
        # linear layers: aten.mm, or aten.addmm when they carry a bias; eager attention: bmm
        counts[phase] = {
            "linear": ops.get("aten.mm", 0) + ops.get("aten.addmm", 0),
            "attention": ops.get("aten.bmm", 0),
        }
    return str(path), model, counts, out.past_key_values


def test_tiny_params_equal(tiny):
    path, model, _, _ = tiny
    assert evaluate(path).value("params_total") == count_params(model)


def test_decode_matmul_flops_equal_flop_counter(tiny):
    """Dense/GQA: 2 x params_matmul. MLA: transformers caches the latent and runs the naive
    form, decompressing every cached latent each step; the ledger states that cost as
    mla_decompress_flops_layer (at context S, of which the new token's share is in
    params_matmul)."""
    path, _, counts, _ = tiny
    r = evaluate(path, {"context_tokens": str(PROMPT + 1)})
    expected = r.value("flops_per_token") - r.value("flops_attention_decode")
    if "mla" in r.tags:
        one = evaluate(path, {"context_tokens": "1"}).value("mla_decompress_flops_layer")
        expected += r.value("num_hidden_layers") * (r.value("mla_decompress_flops_layer") - one)
    assert expected == counts["decode"]["linear"]


def test_decode_attention_flops_equal_flop_counter(tiny):
    path, _, counts, _ = tiny
    r = evaluate(path, {"context_tokens": str(PROMPT + 1)})
    assert r.value("flops_attention_decode") == counts["decode"]["attention"]


def test_prefill_matmul_flops_equal_flop_counter(tiny):
    path, _, counts, _ = tiny
    r = evaluate(path, {"prompt_tokens": str(PROMPT)})
    assert r.value("flops_prefill_linear") == counts["prefill"]["linear"]


def test_kv_bytes_equal_cache_tensors(tiny):
    path, _, _, cache = tiny
    cached = sum(t.numel() * t.element_size() for layer in cache.layers for t in (layer.keys, layer.values))
    r = evaluate(path, {"context_tokens": str(PROMPT + 1), "kv_dtype": "fp32"})
    assert r.value("kv_bytes_at_context") == cached


WINDOWED = {  # sliding-window and chunked layer patterns, each family's own rule
    "mistral": dict(
        model_type="mistral",
        architectures=["MistralForCausalLM"],
        num_hidden_layers=2,
        sliding_window=4,
        **TINY_DIMS,
    ),
    "gemma2": dict(
        model_type="gemma2",
        architectures=["Gemma2ForCausalLM"],
        num_hidden_layers=4,
        sliding_window=4,
        **TINY_DIMS,
    ),
    "gemma3": dict(
        model_type="gemma3_text",
        architectures=["Gemma3ForCausalLM"],
        num_hidden_layers=6,
        sliding_window=4,
        sliding_window_pattern=3,
        **TINY_DIMS,
    ),
    "gpt_oss": dict(
        model_type="gpt_oss",
        architectures=["GptOssForCausalLM"],
        num_hidden_layers=4,
        sliding_window=4,
        num_local_experts=4,
        num_experts_per_tok=2,
        **TINY_DIMS,
    ),
    "llama4": dict(
        model_type="llama4_text",
        architectures=["Llama4ForCausalLM"],
        num_hidden_layers=4,
        attention_chunk_size=4,
        num_local_experts=2,
        num_experts_per_tok=1,
        intermediate_size_mlp=96,
        interleave_moe_layer_step=1,
        **TINY_DIMS,
    ),
}


@pytest.mark.parametrize("family", sorted(WINDOWED))
@pytest.mark.parametrize("prompt", [3, 10])
def test_windowed_kv_equals_transformers_cache(family, prompt, tmp_path):
    """Issue 13: per-layer KV of sliding-window and chunked patterns (Mistral v0.1, Gemma 2 and
    3, gpt-oss, Llama 4) against transformers' cache after a prompt shorter and longer than the
    window of 4. transformers keeps window - 1 tokens in a windowed layer and appends the
    attending token inside the step; the ledger counts the window (what engines allocate):
    beyond the window the two differ by exactly one token in each windowed layer."""
    config = WINDOWED[family]
    torch.manual_seed(0)
    model = causal_lm(config, "cpu", attn="eager").eval()
    with torch.no_grad():
        out = model(torch.randint(0, 90, (1, prompt)), use_cache=True, logits_to_keep=1)
    layers = out.past_key_values.layers
    cached = sum(t.numel() * t.element_size() for layer in layers for t in (layer.keys, layer.values))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    r = evaluate(str(path), {"context_tokens": str(prompt), "kv_dtype": "fp32"})
    windowed = int(r.inputs["num_sliding_layers"] + r.inputs["num_chunked_layers"])
    per_token_layer = 2 * config["num_key_value_heads"] * config["head_dim"] * 4
    assert windowed == sum(layer.keys.shape[-2] < prompt for layer in layers) or prompt <= 4
    assert r.value("kv_bytes_at_context") == cached + (windowed * per_token_layer if prompt > 4 else 0)
