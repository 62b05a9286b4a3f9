"""From logits to the next-token distribution (lecture §7, seeds/000), in numpy float64.

Scope: penalties (CTRL/HF multiplicative repetition penalty; OpenAI additive frequency and
presence penalties, each counting the tokens its scope names), temperature (0 = greedy),
top-k (ties at the k-th value kept), top-p (the smallest set whose mass reaches p: the tokens
whose ascending cumulative mass exceeds 1 - p), min-p and typical sampling, composed in a
named order: "transformers" (its generate(): repetition -> temperature -> top-k -> top-p ->
min-p -> typical), "vllm" (penalties, temperature, min-p, top-k, top-p), or a list of stages.
Each stage follows the arithmetic of transformers' logits processors, so the result can be
checked against them. Shortcut: one sequence (a 1-D vector); HF has no frequency/presence
penalties, so the "transformers" order applies them right after the repetition penalty.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

ORDERS = {
    "transformers": [
        "repetition",
        "frequency",
        "presence",
        "temperature",
        "top_k",
        "top_p",
        "min_p",
        "typical",
    ],
    "vllm": ["repetition", "frequency", "presence", "temperature", "min_p", "top_k", "top_p"],
}
SCOPES = {"prompt": ("prompt",), "output": ("output",), "prompt+output": ("prompt", "output")}


def softmax(logits: np.ndarray) -> np.ndarray:
    finite = np.isfinite(logits)
    shifted = np.where(finite, logits - np.max(logits[finite]), -np.inf)
    e = np.exp(shifted)
    return e / e.sum()


def _counts(prompt_ids, output_ids, scope: str) -> Counter:
    parts = {"prompt": prompt_ids, "output": output_ids}
    if scope not in SCOPES:
        raise ValueError(f"penalty scope {scope!r}: valid: {', '.join(SCOPES)}")
    return Counter(int(t) for part in SCOPES[scope] for t in parts[part])


def apply_repetition_penalty(logits, penalty: float, counts: Counter):
    """CTRL (Keskar et al. 2019) as in HF: a seen token's logit is divided by the penalty when
    positive and multiplied by it when negative."""
    ids = np.fromiter(counts, dtype=np.int64)
    if penalty != 1.0 and len(ids):
        seen = logits[ids]
        logits[ids] = np.where(seen < 0, seen * penalty, seen / penalty)
    return logits


def frequency_presence(logits, frequency: float, presence: float, counts: Counter):
    """OpenAI API: logit -= frequency x count + presence x [count > 0]."""
    for token, n in counts.items():
        logits[token] -= frequency * n + presence * (n > 0)
    return logits


def top_k_filter(logits, k: int):
    if 0 < k < len(logits):
        kth = np.partition(logits, -k)[-k]
        logits[logits < kth] = -np.inf  # ties at the k-th value are kept (as HF)
    return logits


def top_p_filter(logits, p: float):
    if p < 1.0:
        order = np.argsort(logits, kind="stable")  # ascending, as HF
        cumulative = np.cumsum(softmax(logits[order]))
        remove = cumulative <= 1 - p
        remove[-1] = False  # min_tokens_to_keep = 1
        logits[order[remove]] = -np.inf
    return logits


def min_p_filter(logits, min_p: float):
    if min_p > 0:
        probs = softmax(logits)
        logits[probs < min_p * probs.max()] = -np.inf
    return logits


def typical_filter(logits, mass: float):
    """Typical sampling (Meister et al. 2022) in HF's arithmetic."""
    if mass < 1.0:
        with np.errstate(invalid="ignore", divide="ignore"):
            log_p = np.log(softmax(logits))
            p = np.exp(log_p)
            entropy = -np.nansum(log_p * p)
            shifted = np.abs(-log_p - entropy)
        order = np.argsort(shifted, kind="stable")
        cumulative = np.cumsum(softmax(logits[order]))
        last = min(int((cumulative < mass).sum()), len(logits) - 1)
        remove = shifted[order] > shifted[order][last]
        remove[0] = False
        logits[order[remove]] = -np.inf
    return logits


def _check(logits, temperature, top_k, top_p, min_p, typical_p, ids):
    if logits.ndim != 1 or logits.size == 0:
        raise ValueError("logits must be a non-empty 1-D vector")
    if np.isnan(logits).any():
        raise ValueError("logits contain NaN")
    if not np.isfinite(logits).any():
        raise ValueError("every logit is -inf: nothing can be sampled")
    if not 0 <= temperature < float("inf"):  # NaN fails too
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature}")
    biggest = float(np.abs(logits[np.isfinite(logits)]).max())
    dtype = logits.dtype if np.issubdtype(logits.dtype, np.floating) else np.float64
    if temperature > 0 and biggest / float(np.finfo(dtype).max) > temperature:  # 1e-320: x / t = inf
        raise ValueError(f"temperature {temperature:g}: logits / temperature overflow (0 is greedy)")
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0 (0: off), got {top_k}")
    for name, value in (("top_p", top_p), ("typical_p", typical_p)):
        if not 0 < value <= 1:
            raise ValueError(f"{name} must be in (0, 1], got {value}")
    if not 0 <= min_p <= 1:
        raise ValueError(f"min_p must be in [0, 1], got {min_p}")
    bad = [t for t in ids if not 0 <= int(t) < logits.size]
    if bad:
        raise ValueError(f"token ids outside the vocabulary of {logits.size}: {bad[:5]}")


def filter_probs(
    logits,
    *,
    temperature=1.0,
    top_k=0,
    top_p=1.0,
    min_p=0.0,
    typical_p=1.0,
    repetition_penalty=1.0,
    frequency_penalty=0.0,
    presence_penalty=0.0,
    prompt_ids=(),
    output_ids=(),
    order="transformers",
    repetition_scope="prompt+output",
    frequency_scope="output",
) -> np.ndarray:
    """The final probability vector (float64) after penalties, temperature and truncation."""
    logits = np.array(logits, dtype=np.float64)
    _check(logits, temperature, top_k, top_p, min_p, typical_p, [*prompt_ids, *output_ids])
    stages = ORDERS.get(order, []) if isinstance(order, str) else list(order)
    unknown = set(stages) - set(ORDERS["transformers"])
    if (isinstance(order, str) and order not in ORDERS) or unknown:
        raise ValueError(
            f"order {order!r}: valid: {', '.join(ORDERS)} or a list of {', '.join(ORDERS['transformers'])}"
        )
    rep = _counts(prompt_ids, output_ids, repetition_scope)
    freq = _counts(prompt_ids, output_ids, frequency_scope)
    actions = {
        "repetition": lambda x: apply_repetition_penalty(x, repetition_penalty, rep),
        "frequency": lambda x: frequency_presence(x, frequency_penalty, 0.0, freq),
        "presence": lambda x: frequency_presence(x, 0.0, presence_penalty, freq),
        "temperature": lambda x: x / temperature if temperature > 0 else greedy(x),
        "top_k": lambda x: top_k_filter(x, top_k),
        "top_p": lambda x: top_p_filter(x, top_p),
        "min_p": lambda x: min_p_filter(x, min_p),
        "typical": lambda x: typical_filter(x, typical_p),
    }

    for stage in stages:
        logits = actions[stage](logits)
    return softmax(logits)


def greedy(logits):
    out = np.full_like(logits, -np.inf)
    out[int(np.argmax(logits))] = 0.0
    return out


def zipf_logits(vocab: int = 32_000, exponent: float = 1.5) -> np.ndarray:
    """log p for p proportional to r^-exponent (the lecture's synthetic vocabulary, §7.1)."""
    return -exponent * np.log(np.arange(1, vocab + 1, dtype=np.float64))


def total_variation(p, q) -> float:
    return 0.5 * float(np.abs(np.asarray(p) - np.asarray(q)).sum())


# The sampling API in one place (issue 11): the samplers that live beside this module.
from .decoding import beam_search  # noqa: E402
from .rejection import expected_rejection_rounds, sample_rejection  # noqa: E402

__all__ = [
    "filter_probs",
    "sample_rejection",
    "expected_rejection_rounds",
    "beam_search",
    "softmax",
    "greedy",
    "zipf_logits",
    "total_variation",
    "top_k_filter",
    "top_p_filter",
    "min_p_filter",
    "typical_filter",
    "apply_repetition_penalty",
    "frequency_presence",
]
