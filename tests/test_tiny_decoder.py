"""The numpy tiny decoder and the §5/§7 demos built on it: transformers' LlamaForCausalLM with
the same weights is the referee for the forward pass."""
import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from ledgerbuild.sim.decoding import beam_search, sample_batch, sequence_log_prob
from ledgerbuild.sim.tiny_decoder import (
    TinyConfig,
    TinyDecoder,
    duplicate_kv_heads,
    mla_naive_vs_absorbed,
    pool_kv_heads,
)

PROMPT = [1, 2, 3, 4, 5]


def _hf_twin(model: TinyDecoder):
    c = model.config
    hf = LlamaForCausalLM(LlamaConfig(vocab_size=c.vocab, hidden_size=c.d, num_hidden_layers=c.layers,
                                      num_attention_heads=c.heads, num_key_value_heads=c.kv_heads,
                                      head_dim=c.head_dim, intermediate_size=c.d_ff,
                                      rms_norm_eps=1e-6, rope_theta=c.rope_theta,
                                      tie_word_embeddings=False, attn_implementation="eager"))
    w = {k: torch.tensor(v, dtype=torch.float64) for k, v in model.w.items()}
    sd = {"model.embed_tokens.weight": w["embed"], "model.norm.weight": w["norm"],
          "lm_head.weight": w["lm_head"].T}
    names = {"wq": "self_attn.q_proj", "wk": "self_attn.k_proj", "wv": "self_attn.v_proj",
             "wo": "self_attn.o_proj", "gate": "mlp.gate_proj", "up": "mlp.up_proj",
             "down": "mlp.down_proj"}
    for i in range(c.layers):
        sd |= {f"model.layers.{i}.{hf}.weight": w[f"{i}.{ours}"].T for ours, hf in names.items()}
        sd |= {f"model.layers.{i}.input_layernorm.weight": w[f"{i}.n1"],
               f"model.layers.{i}.post_attention_layernorm.weight": w[f"{i}.n2"]}
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


def test_kv_cache_equals_full_forward():
    model = TinyDecoder(seed=1, dtype=np.float64)
    tokens, stepwise = model.greedy(PROMPT, 12)
    full, _ = model.forward(PROMPT + tokens[:-1])
    assert np.abs(full[len(PROMPT) - 1:] - stepwise).max() < 1e-10


def test_5_2_gqa_equals_mha_with_duplicated_kv_heads():
    """§5.2: same 40 tokens; logits differ at most by float32 rounding."""
    gqa = TinyDecoder(seed=0)
    a, la = gqa.greedy(PROMPT, 40)
    b, lb = duplicate_kv_heads(gqa).greedy(PROMPT, 40)
    assert a == b and np.abs(la - lb).max() < 1e-5


def test_5_2_pooling_kv_heads_changes_the_output():
    mha = TinyDecoder(TinyConfig(kv_heads=4), seed=1)
    ref, _ = mha.greedy(PROMPT, 40)
    pooled, _ = pool_kv_heads(mha, 2).greedy(PROMPT, 40)
    assert pooled != ref


def test_5_3_mla_absorbed_equals_naive_in_float64():
    """§5.3: the lecture measured 6.7e-16; the orders of magnitude agree."""
    assert mla_naive_vs_absorbed(0) < 1e-13


def test_7_5_beam_search():
    model = TinyDecoder(seed=0)
    greedy, _ = model.greedy(PROMPT, 20)
    tokens, score, copies = beam_search(model, PROMPT, 1, 20)
    assert tokens == greedy and sum(copies) == 0
    for width in (2, 4):
        tokens, score, copies = beam_search(model, PROMPT, width, 20)
        assert abs(score - sequence_log_prob(model, PROMPT, tokens)) < 1e-3
        assert all(0 <= c < width for c in copies)


def test_7_6_per_request_generators_are_reproducible():
    model = TinyDecoder(seed=0)
    a, others = [7, 8, 9], [[1, 2], [3, 4, 5]]
    alone = sample_batch(model, [a], [42], 10, True)[0]
    assert sample_batch(model, [a] + others, [42, 1, 2], 10, True)[0] == alone
    assert sample_batch(model, others + [a], [1, 2, 42], 10, True)[2] == alone
    shared = {tuple(sample_batch(model, [a], [42], 10, False)[0]),
              tuple(sample_batch(model, [a] + others, [42, 1, 2], 10, False)[0]),
              tuple(sample_batch(model, others + [a], [1, 2, 42], 10, False)[2])}
    assert len(shared) > 1
