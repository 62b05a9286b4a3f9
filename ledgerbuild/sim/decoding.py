"""Beam search and per-request random generators on the tiny decoder (lecture §7.5-7.6).

Beam search keeps the `width` sequences of highest total log-probability; a parent with
several surviving children hands its KV cache to the first and each other child copies it
(the copies are counted: copy-on-write would share all but the last block). Reproducibility:
request A sampled alone, first or third in a batch, with one generator per request (seeded by
the request) or one shared generator for the batch. Shortcut: no length normalisation.
"""

from __future__ import annotations

import numpy as np

from .tiny_decoder import TinyDecoder


def log_softmax(logits):
    shifted = logits - logits.max()
    return shifted - np.log(np.exp(shifted).sum())


def beam_search(model: TinyDecoder, prompt, width: int, steps: int):
    """(best tokens, its total log-probability, KV copies per step)."""
    if width < 1 or steps < 1:
        raise ValueError("width and steps must be >= 1")
    logits, cache = model.forward(list(prompt))
    beams: list[tuple] = [([], 0.0, cache, logits[-1])]
    copies = []
    for _ in range(steps):
        candidates = []
        for b, (_, score, _, last) in enumerate(beams):
            lp = log_softmax(last.astype(np.float64))
            for t in np.argsort(-lp, kind="stable")[:width]:
                candidates.append((score + lp[t], b, int(t)))
        candidates.sort(key=lambda c: -c[0])
        chosen = candidates[:width]
        parents = [b for _, b, _ in chosen]
        copies.append(len(parents) - len(set(parents)))
        next_beams = []
        for score, b, t in chosen:
            tokens, _, cache, _ = beams[b]
            logits, new_cache = model.forward([t], cache)
            next_beams.append((tokens + [t], float(score), new_cache, logits[-1]))
        beams = next_beams
    best = max(beams, key=lambda x: x[1])
    return best[0], best[1], copies


def sequence_log_prob(model: TinyDecoder, prompt, tokens) -> float:
    """Total log-probability of `tokens` after `prompt`, from one full forward pass."""
    logits, _ = model.forward(list(prompt) + list(tokens))
    start = len(prompt) - 1
    return float(sum(log_softmax(logits[start + i].astype(np.float64))[t] for i, t in enumerate(tokens)))


def sample_batch(
    model: TinyDecoder, prompts: list, seeds: list, steps: int, per_request: bool, shared_seed: int = 0
):
    """Sample `steps` tokens for each request of a batch (temperature 1), step by step."""
    rngs = [np.random.default_rng(s) for s in seeds] if per_request else None
    shared = np.random.default_rng(shared_seed)
    states = [model.forward(list(p)) for p in prompts]
    out: list[list[int]] = [[] for _ in prompts]
    for _ in range(steps):
        for i, (logits, cache) in enumerate(states):
            p = np.exp(log_softmax(logits[-1].astype(np.float64)))
            rng = rngs[i] if rngs is not None else shared
            token = int(rng.choice(len(p), p=p))
            out[i].append(token)
            states[i] = model.forward([token], cache)
    return out
