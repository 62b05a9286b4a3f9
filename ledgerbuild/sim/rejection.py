"""Sorting-free top-p / top-k / min-p sampling by rejection (lecture §7.4; FlashInfer 2025).

pivot = 0; draw j among the tokens above the pivot by inverse CDF (cumulative sum + binary
search, no sort); accept j if it belongs to the truncated set (top-p: the mass of tokens more
likely than j is < p; top-k: fewer than k are more likely; min-p: p_j >= min_p x max p);
otherwise raise the pivot to p_j and draw again. A rejected j is outside the set and every
member is more likely than it, so raising the pivot never drops a member: the accepted token
is distributed exactly as the sort-based truncation. The dual-pivot variant also moves a
second pivot at the midpoint of [low, high] each round, halving the interval, so the number
of rounds is bounded. Shortcut: one pass over the vocabulary per round (numpy), a batch of
rows at once in `sample_rejection_batch`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def _accepts(probs, j, top_p, top_k, min_p):
    pj = probs[j]
    if top_p < 1.0 and probs[probs > pj].sum() >= top_p:
        return False
    if top_k > 0 and int((probs > pj).sum()) >= top_k:
        return False
    return not (min_p > 0 and pj < min_p * probs.max())


def sample_rejection(probs, *, top_p=1.0, top_k=0, min_p=0.0, rng, dual_pivot=False):
    """(token, rounds): one draw from probs truncated by top-p / top-k / min-p, no sorting."""
    probs = np.asarray(probs, dtype=np.float64)
    if not 0 < top_p <= 1 or top_k < 0 or not 0 <= min_p <= 1:
        raise ValueError("top_p must be in (0, 1], top_k >= 0, min_p in [0, 1]")
    low, high, rounds = 0.0, float(probs.max()), 0
    while True:
        rounds += 1
        cumulative = np.cumsum(np.where(probs > low, probs, 0.0))
        j = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        j = min(j, len(probs) - 1)
        if _accepts(probs, j, top_p, top_k, min_p):
            return j, rounds
        low = max(low, float(probs[j]))
        if dual_pivot and top_p < 1.0:
            mid = (low + high) / 2
            if probs[probs > mid].sum() >= top_p:  # nothing at or below mid is in the set
                low = mid
            else:  # everything above mid is in the set: the boundary lies below mid
                high = mid


def expected_rejection_rounds(probs, top_p) -> Fraction:
    """Exact mean number of rounds of top-p rejection sampling (rational arithmetic).

    E(pivot) = 1 + sum over rejected j above the pivot of (p_j / mass above pivot) E(p_j).
    """
    p = [Fraction(str(x)) for x in probs]
    p_cut = Fraction(str(top_p))

    def member(x):
        return sum(y for y in p if y > x) < p_cut

    memo = {}

    def rounds(pivot):
        if pivot not in memo:
            alive = [x for x in p if x > pivot]
            total = sum(alive)
            memo[pivot] = 1 + sum(x / total * rounds(x) for x in alive if not member(x))
        return memo[pivot]

    return rounds(Fraction(0))


def sample_top_p_sorted(probs2d: np.ndarray, top_p: float, rng) -> np.ndarray:
    """The sort-based reference for a batch: sort, cumulative sum, truncate, draw."""
    order = np.argsort(-probs2d, axis=1, kind="stable")
    sorted_p = np.take_along_axis(probs2d, order, axis=1)
    cumulative = np.cumsum(sorted_p, axis=1)
    keep = (cumulative - sorted_p) < top_p
    kept = np.where(keep, sorted_p, 0.0)
    cdf = np.cumsum(kept, axis=1)
    u = rng.random(len(probs2d))[:, None] * cdf[:, -1:]
    pos = np.minimum((cdf < u).sum(axis=1), probs2d.shape[1] - 1)
    return order[np.arange(len(probs2d)), pos]


def sample_rejection_batch(probs2d: np.ndarray, top_p: float, rng) -> tuple[np.ndarray, float]:
    """(tokens, mean rounds): top-p by rejection for every row of a batch, no sorting.

    Row by row, each round draws a token by inverse CDF over block sums (one read of the row,
    then a cumulative sum inside one block of ~sqrt(V) tokens, instead of a cumulative sum
    written over the whole row), and accepts it when the tokens more likely than it hold less
    than top_p: a compare and a sum of the tokens it selects, which numpy does in this thread.
    Not a BLAS `dot` with the mask: BLAS splits a 128,256-long dot across its threads, and on a
    busy machine waits for cores it cannot get (81x one read of the matrix measured at load
    8-10, against 4x idle); no BLAS call, so the caller's BLAS threads are left as they are.
    """
    n, vocab = probs2d.shape
    starts = np.arange(0, vocab, max(1, math.isqrt(vocab)))
    tokens = np.empty(n, dtype=np.int64)
    total_rounds = 0
    u = rng.random(n * 8)  # enough uniforms for all rows' rounds in the common case
    used = 0
    for r in range(n):
        row, pivot = probs2d[r], 0.0
        while True:
            total_rounds += 1
            if used == len(u):
                u, used = rng.random(n * 8), 0
            j = _draw(row if pivot == 0.0 else np.where(row > pivot, row, 0.0), u[used], starts)
            used += 1
            pj = row[j]
            if row[row > pj].sum() < top_p:
                tokens[r] = j
                break
            pivot = pj
    return tokens, total_rounds / n


def _draw(weights: np.ndarray, u: float, starts: np.ndarray) -> int:
    """Inverse-CDF draw from a row of non-negative weights: the block whose cumulative mass
    passes u x total (block sums), then the token inside it."""
    block_sums = np.add.reduceat(weights, starts)
    block_cum = np.cumsum(block_sums)
    target = u * block_cum[-1]
    b = min(int(np.searchsorted(block_cum, target, side="right")), len(starts) - 1)
    end = starts[b + 1] if b + 1 < len(starts) else len(weights)
    segment = weights[starts[b] : end]
    k = int(np.searchsorted(np.cumsum(segment), target - (block_cum[b] - block_sums[b]), side="right"))
    if k >= len(segment):  # rounding ran past the block's end: its last token with weight
        k = int(np.flatnonzero(segment)[-1])
    return int(starts[b]) + k
