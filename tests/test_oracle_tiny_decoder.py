"""Referee for the numpy tiny decoder: LlamaForCausalLM with the same weights (float64)."""

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from ledgerbuild.sim.tiny_decoder import TinyDecoder

pytestmark = pytest.mark.oracle


def _hf_twin(model: TinyDecoder):
    c = model.config
    hf = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=c.vocab,
            hidden_size=c.d,
            num_hidden_layers=c.layers,
            num_attention_heads=c.heads,
            num_key_value_heads=c.kv_heads,
            head_dim=c.head_dim,
            intermediate_size=c.d_ff,
            rms_norm_eps=1e-6,
            rope_theta=c.rope_theta,
            tie_word_embeddings=False,
            attn_implementation="eager",
        )
    )
    w = {k: torch.tensor(v, dtype=torch.float64) for k, v in model.w.items()}
    sd = {
        "model.embed_tokens.weight": w["embed"],
        "model.norm.weight": w["norm"],
        "lm_head.weight": w["lm_head"].T,
    }
    names = {
        "wq": "self_attn.q_proj",
        "wk": "self_attn.k_proj",
        "wv": "self_attn.v_proj",
        "wo": "self_attn.o_proj",
        "gate": "mlp.gate_proj",
        "up": "mlp.up_proj",
        "down": "mlp.down_proj",
    }
    for i in range(c.layers):
        sd |= {f"model.layers.{i}.{hf}.weight": w[f"{i}.{ours}"].T for ours, hf in names.items()}
        sd |= {
            f"model.layers.{i}.input_layernorm.weight": w[f"{i}.n1"],
            f"model.layers.{i}.post_attention_layernorm.weight": w[f"{i}.n2"],
        }
    hf = hf.double()
    hf.load_state_dict(sd)
    return hf.eval()


def test_forward_equals_transformers_llama():
    model = TinyDecoder(seed=3, dtype=np.float64)
    ids = [5, 17, 200, 3, 99, 42, 7]
    ours, _ = model.forward(ids)
    with torch.no_grad():
        theirs = _hf_twin(model)(torch.tensor([ids])).logits[0].numpy()
    # HF's RMSNorm and RoPE tables compute in float32 even for a float64 model: ~5e-7 apart;
    # a wrong norm, rotation or head grouping would be O(1) apart.
    assert np.abs(ours - theirs).max() < 1e-5
