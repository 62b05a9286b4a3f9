"""The lecture's §7 sampling demos as tables (lists of dicts): CLI, JSON and the report read
these. Parameters the lecture does not state are stated here (min-p: T = 1.5, min_p = 0.05)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .rejection import expected_rejection_rounds, sample_rejection
from .sampling import (
    apply_repetition_penalty,
    filter_probs,
    frequency_presence,
    total_variation,
    zipf_logits,
)
from .tiny_decoder import TinyDecoder

TRUNCATIONS: list[tuple[str, dict[str, Any]]] = [
    ("none", {}),
    ("top-k 50", {"top_k": 50}),
    ("top-p 0.9", {"top_p": 0.9}),
    ("min-p 0.05", {"min_p": 0.05}),
    ("T 1.5, top-p 0.9", {"temperature": 1.5, "top_p": 0.9}),
    ("T 1.5, min-p 0.05", {"temperature": 1.5, "min_p": 0.05}),
]


def _entropy_bits(p):
    q = p[p > 0]
    return float(-(q * np.log2(q)).sum())


def truncation(vocab=32_000, exponent=1.5) -> list[dict]:
    """§7.1: how many tokens each rule keeps on a Zipf vocabulary (p ~ r^-exponent)."""
    z = zipf_logits(vocab, exponent)
    rows = []
    for name, kw in TRUNCATIONS:
        p = filter_probs(z, **kw)
        rows.append(
            {
                "rule": name,
                "kept_tokens": int((p > 0).sum()),
                "top_token_prob": round(float(p.max()), 4),
                "entropy_bits": round(_entropy_bits(p), 3),
            }
        )
    return rows


def order(vocab=32_000, exponent=1.5, temperature=1.5, top_p=0.9) -> list[dict]:
    """§7.2: temperature then top-p, against top-p then temperature."""
    z = zipf_logits(vocab, exponent)
    a = filter_probs(z, temperature=temperature, top_p=top_p)
    b = filter_probs(z, temperature=temperature, top_p=top_p, order=["top_p", "temperature"])
    tv = round(total_variation(a, b), 4)
    return [
        {"order": "temperature -> top-p", "kept_tokens": int((a > 0).sum()), "tv_distance": tv},
        {"order": "top-p -> temperature", "kept_tokens": int((b > 0).sum()), "tv_distance": tv},
    ]


def penalties() -> list[dict]:
    """§7.3: token 0 seen 3 times (logit +2), token 1 seen once (logit -1)."""
    logits, seen = np.array([2.0, -1.0]), Counter({0: 3, 1: 1})
    rows = [
        ("repetition_penalty 1.3 (CTRL/HF)", apply_repetition_penalty(logits.copy(), 1.3, seen)),
        ("frequency_penalty 0.5 (OpenAI)", frequency_presence(logits.copy(), 0.5, 0.0, seen)),
        ("presence_penalty 0.5 (OpenAI)", frequency_presence(logits.copy(), 0.0, 0.5, seen)),
    ]
    return [
        {"penalty": n, "token_0": round(float(v[0]), 2), "token_1": round(float(v[1]), 2)} for n, v in rows
    ]


def rejection(draws=20_000, seed=0) -> list[dict]:
    """§7.4 and exercise 5(b): rounds of sorting-free top-p, exact and measured."""
    rng = np.random.default_rng(seed)
    rows = []
    cases = [("exercise 5 [0.5,0.2,0.15,0.1,0.05]", np.array([0.5, 0.2, 0.15, 0.1, 0.05]), 0.6)]
    z = np.exp(zipf_logits(1_000))
    cases.append(("Zipf 1,000, top-p 0.9", z / z.sum(), 0.9))
    for name, probs, top_p in cases:
        want = filter_probs(np.log(probs), top_p=top_p)
        for dual in (False, True):
            got = [sample_rejection(probs, top_p=top_p, rng=rng, dual_pivot=dual) for _ in range(draws)]
            hist = np.bincount([t for t, _ in got], minlength=len(probs)) / draws
            exact = expected_rejection_rounds(probs, top_p) if len(probs) <= 50 else None
            rows.append(
                {
                    "case": name,
                    "dual_pivot": dual,
                    "mean_rounds": round(float(np.mean([r for _, r in got])), 4),
                    "max_rounds": int(max(r for _, r in got)),
                    "exact_mean_rounds": str(exact) if exact is not None else "",
                    "tv_vs_sorted": round(total_variation(hist, want), 4),
                }
            )
    return rows


DEMOS = {"truncation": truncation, "order": order, "penalties": penalties, "rejection": rejection}


PROMPT = [1, 2, 3, 4, 5]


def beam(steps=20, widths=(1, 2, 4, 8), seed=0) -> list[dict]:
    """§7.5: beam width against the best sequence's total log-probability (tiny decoder, 20 tokens)."""
    from .decoding import beam_search

    model = TinyDecoder(seed=seed)
    rows = []
    for w in widths:
        tokens, score, copies = beam_search(model, PROMPT, w, steps)
        rows.append(
            {
                "width": w,
                "total_log_prob": round(score, 3),
                "kv_copies": sum(copies),
                "tokens": " ".join(map(str, tokens[:8])) + " ...",
            }
        )
    return rows


def reproducibility(steps=10, seed=0) -> list[dict]:
    """§7.6: request A alone, first and third in a batch; per-request generators vs one shared."""
    from .decoding import sample_batch

    model = TinyDecoder(seed=seed)
    a, others, seeds = [7, 8, 9], [[1, 2], [3, 4, 5]], [11, 12]
    rows = []
    for per_request in (True, False):
        runs = {
            "alone": sample_batch(model, [a], [42], steps, per_request)[0],
            "first": sample_batch(model, [a] + others, [42, *seeds], steps, per_request)[0],
            "third": sample_batch(model, others + [a], [*seeds, 42], steps, per_request)[2],
        }
        for where, tokens in runs.items():
            rows.append(
                {
                    "generators": "per request" if per_request else "shared",
                    "position_of_A": where,
                    "tokens_of_A": " ".join(map(str, tokens)),
                    "same_as_alone": tokens == runs["alone"],
                }
            )
    return rows


def attention_variants(steps=40, seed=0) -> list[dict]:
    """§5.2-5.3: GQA = MHA with duplicated KV heads; pooling an MHA model's KV heads changes
    its output (random weights exaggerate it); MLA absorbed = naive in float64."""
    from .tiny_decoder import TinyConfig, duplicate_kv_heads, mla_naive_vs_absorbed, pool_kv_heads

    gqa = TinyDecoder(seed=seed)
    base, base_logits = gqa.greedy(PROMPT, steps)
    dup, dup_logits = duplicate_kv_heads(gqa).greedy(PROMPT, steps)
    mha = TinyDecoder(TinyConfig(kv_heads=4), seed=seed + 1)
    ref, _ = mha.greedy(PROMPT, steps)
    rows = [
        {
            "comparison": "GQA (2 KV heads) vs MHA with duplicated KV heads",
            "same_tokens": f"{sum(x == y for x, y in zip(base, dup, strict=False))}/{steps}",
            "max_abs_diff": f"{np.abs(base_logits - dup_logits).max():.1e} (logits, float32)",
        }
    ]
    for kv, name in ((2, "GQA"), (1, "MQA")):
        pooled, _ = pool_kv_heads(mha, kv).greedy(PROMPT, steps)
        rows.append(
            {
                "comparison": f"MHA pooled to {name} ({kv} KV heads), no retraining",
                "same_tokens": f"{sum(x == y for x, y in zip(ref, pooled, strict=False))}/{steps}",
                "max_abs_diff": "",
            }
        )
    rows.append(
        {
            "comparison": "MLA naive vs absorbed attention (float64)",
            "same_tokens": "",
            "max_abs_diff": f"{mla_naive_vs_absorbed(seed):.1e}",
        }
    )
    return rows


DEMOS.update({"beam": beam, "reproducibility": reproducibility, "attention": attention_variants})


def speculative(samples: int = 100_000, seed: int = 0) -> list[dict]:
    """Speculative sampling on a one-layer draft of a three-layer target (lecture §6.2, §7.7;
    Leviathan et al. 2023): the emitted text is distributed as the target's (exact enumeration;
    chi-squared on 10^5 samples, and the same test failing a broken sampler), acceptance equals
    sum min(p, q), greedy speculation reproduces greedy decoding, and processors must be
    applied to both sides (to the draft only, the output is the unprocessed target's)."""
    from .speculative import demo

    return demo(samples, seed)


DEMOS["speculative"] = speculative
