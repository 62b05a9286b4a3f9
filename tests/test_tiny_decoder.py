"""The numpy tiny decoder and the §5/§7 demos built on it: transformers' LlamaForCausalLM with
the same weights is the referee for the forward pass."""

import numpy as np

from ledgerbuild.sim.decoding import beam_search, sample_batch, sequence_log_prob
from ledgerbuild.sim.tiny_decoder import (
    TinyConfig,
    TinyDecoder,
    duplicate_kv_heads,
    mla_naive_vs_absorbed,
    pool_kv_heads,
)

PROMPT = [1, 2, 3, 4, 5]


def test_kv_cache_equals_full_forward():
    model = TinyDecoder(seed=1, dtype=np.float64)
    tokens, stepwise = model.greedy(PROMPT, 12)
    full, _ = model.forward(PROMPT + tokens[:-1])
    assert np.abs(full[len(PROMPT) - 1 :] - stepwise).max() < 1e-10


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
    shared = {
        tuple(sample_batch(model, [a], [42], 10, False)[0]),
        tuple(sample_batch(model, [a] + others, [42, 1, 2], 10, False)[0]),
        tuple(sample_batch(model, others + [a], [1, 2, 42], 10, False)[2]),
    }
    assert len(shared) > 1
