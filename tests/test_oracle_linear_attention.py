"""Oracle: Qwen3-Next's hybrid linear attention (issue 13) against transformers.

- params_total equals the transformers model for the catalog's Qwen3-Next (with every model,
  test_oracle_transformers.py) and for a tiny config here;
- LoRA parameters on attention equal PEFT's on the tiny model;
- after a prefill of N tokens, the KV tensors of transformers' cache hold N x
  kv_bytes_per_token / kv_dtype_bytes elements (full-attention layers only) and its
  linear-attention layers hold linear_attention_state_bytes / kv_dtype_bytes elements
  (convolution window and recurrent state), the same at any N.
"""

import json
import warnings

import pytest
import torch

from hf_oracle import TINY_DIMS, causal_lm, count_params
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle

TINY = dict(
    model_type="qwen3_next",
    architectures=["Qwen3NextForCausalLM"],
    num_hidden_layers=8,
    num_experts=4,
    num_experts_per_tok=2,
    moe_intermediate_size=32,
    shared_expert_intermediate_size=64,
    linear_num_value_heads=4,
    linear_num_key_heads=2,
    linear_key_head_dim=8,
    linear_value_head_dim=16,
    linear_conv_kernel_dim=4,
    full_attention_interval=4,
    **TINY_DIMS,
)


@pytest.mark.parametrize("tokens", [5, 23])
def test_hybrid_cache_and_parameters_equal_transformers(tmp_path, tokens):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY))
    r = evaluate(str(path), {"prompt_tokens": str(tokens)})
    model = causal_lm(TINY, "cpu").eval()
    assert r.value("params_total") == count_params(model)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache = model(torch.randint(0, 101, (1, tokens)), use_cache=True).past_key_values
    kv = state = 0
    for layer in cache.layers:
        if hasattr(
            layer, "recurrent_states"
        ):  # linear attention: shapes (1, conv_dim, K), (1, n_v, d_k, d_v)
            state += sum(t.numel() for t in (*layer.conv_states.values(), *layer.recurrent_states.values()))
        else:  # full attention: (1, n_kv, tokens, d_h) each
            kv += layer.keys.numel() + layer.values.numel()
    element = r.value("kv_dtype_bytes")
    assert kv == tokens * r.value("kv_bytes_per_token") / element
    assert state == r.value("linear_attention_state_bytes") / element


def test_lora_on_the_hybrid_equals_peft(tmp_path):
    """PEFT adapts q (with its gate), k, v, o of the full-attention layers; the linear
    layers' in_proj_qkvz has none of those names. (Attention only: this PEFT also adapts the
    fused routed-expert tensors, which the ledger keeps frozen.)"""
    from peft import LoraConfig, get_peft_model

    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY))
    targets = ["q_proj", "k_proj", "v_proj", "o_proj"]
    peft_model = get_peft_model(causal_lm(TINY, "meta"), LoraConfig(r=8, target_modules=targets))
    trainable = sum(p.numel() for p in peft_model.parameters() if p.requires_grad)
    assert evaluate(str(path), {"lora_rank": "8", "lora_mlp": "0"}).value("lora_params") == trainable
