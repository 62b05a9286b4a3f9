"""Sorting-free top-p / top-k / min-p sampling by rejection (lecture §7.4; FlashInfer 2025).

pivot = 0; draw j among the tokens above the pivot by inverse CDF (cumulative sum + binary
search, no sort); accept j if it belongs to the truncated set (top-p: the mass of tokens more
likely than j is < p; top-k: fewer than k are more likely; min-p: p_j >= min_p x max p);
otherwise raise the pivot to p_j and draw again. A rejected j is outside the set and every
member is more likely than it, so raising the pivot never drops a member: the accepted token
is distributed exactly as the sort-based truncation. The dual-pivot variant also moves a
second pivot at the midpoint of [low, high] each round, halving the interval, so the number
of rounds is bounded. Shortcut: one pass over the vocabulary per round (numpy), a batch of
rows at once in `sample_rejection_batch`, whose sums are floats: a token whose mass above sits
within rounding (~1e-16 x the row's mass) of top_p may fall on either side.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
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

    One read of the matrix: the block sums of every row. Every draw is then an inverse CDF over
    them and inside one block, the first for the whole batch at once (`_Blocks.draw`), a redraw
    for its row alone (`_draw_one`); each also gives the share of its block's mass above the
    drawn token, the guess that sizes the mass test's first chunk. Row by row, `_test` decides
    whether the tokens more likely than the drawn one hold less than top_p, chunk by chunk,
    stopping as soon as it can. After a rejection the pivot rises to the drawn token's
    probability and the next candidate is drawn from the row as it is, again and again until it
    lies above the pivot: that is a draw from the tokens above the pivot, as the pivot's masked
    row would give, without a pass over the row to mask it; only the candidates above the pivot
    are tested and count as rounds. No BLAS call: a BLAS `dot` with the mask
    split its 128,256 products across threads that a busy machine cannot give (81x one read of
    the matrix at load 8-10, 4x idle), so the caller's BLAS threads are neither needed nor changed.
    """
    n, vocab = probs2d.shape
    blocks = _Blocks(probs2d)
    tokens, shares = blocks.draw(rng.random(n))
    cum = blocks.cum.tolist()  # the mass up to each block's end, per row
    picked, guesses = probs2d[np.arange(n), tokens].tolist(), shares.tolist()
    mask = np.empty(vocab, dtype=bool)
    rounds = n
    for r in range(n):
        row, pj, guess = probs2d[r], picked[r], guesses[r]
        while not _test(row, pj, top_p, cum[r], blocks.size, mask, guess):
            pivot = pj
            while pj <= pivot:  # outside the set: drawn again, not tested
                tokens[r], guess = _draw_one(row, cum[r], blocks.size, rng.random())
                pj = float(row[tokens[r]])
            rounds += 1
    return tokens, rounds / n


def _draw_one(row: np.ndarray, cum: list[float], size: int, u: float) -> tuple[int, float]:
    """(token, share): one token of `row` by inverse CDF over its block sums (`cum`, cumulative)
    and inside the block, and the share of its block's mass held by tokens more likely than it
    (`_test`'s first guess). Rounding that runs past the last block or token moves back to the
    last with mass."""
    target = u * cum[-1]
    b = bisect_right(cum, target)
    while b >= len(cum) or cum[b] <= (cum[b - 1] if b else 0.0):  # past the end, or an empty block
        b -= 1
    segment = row[b * size : (b + 1) * size]
    k = int(np.searchsorted(np.cumsum(segment), target - (cum[b - 1] if b else 0.0), side="right"))
    if k >= len(segment) or segment[k] <= 0:
        k = int(np.flatnonzero(segment > 0)[-1])
    share = float(segment[segment > segment[k]].sum()) / (cum[b] - (cum[b - 1] if b else 0.0))
    return b * size + k, share


# Tokens a block and a piece of a block: a draw's cumulative sums run over a row's block sums,
# a block's piece sums and a piece's tokens (126, 32 and 32 at vocabulary 128,256).
_BLOCK, _PIECE = 1024, 32


class _Blocks:
    """Sums of consecutive blocks of `size` tokens in every row (the last block may be short),
    their cumulative sums, and inverse-CDF draws from them."""

    def __init__(self, probs2d: np.ndarray):
        n, vocab = probs2d.shape
        size = min(_BLOCK, -(-vocab // _PIECE) * _PIECE)
        self.probs, self.size, self.full = probs2d, size, vocab // size
        self.cube = probs2d[:, : self.full * size].reshape(n, self.full, size)  # a view
        self.sums = np.empty((n, -(-vocab // size)), dtype=probs2d.dtype)
        np.sum(self.cube, axis=2, out=self.sums[:, : self.full])
        if self.full < self.sums.shape[1]:
            np.sum(probs2d[:, self.full * size :], axis=1, out=self.sums[:, self.full])
        self.cum = np.cumsum(self.sums, axis=1)
        if not (self.cum[:, -1] > 0).all():
            raise ValueError("every row needs positive probability mass")

    def draw(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tokens, shares): one token per row by inverse CDF, in three steps of short cumulative
        sums: the block whose cumulative mass passes u x the row's total, the piece of `_PIECE`
        tokens inside it, the token inside that; and the share of the drawn block's mass held by
        tokens more likely than the drawn one (`_test`'s first guess)."""
        rows = np.arange(len(u))
        b, rest = _pick(self.sums, u * self.cum[:, -1], self.cum)
        segment = self._segments(rows, b)
        pieces = segment.reshape(len(rows), -1, _PIECE)
        c, rest = _pick(pieces.sum(axis=2), rest)
        k, _ = _pick(pieces[rows, c], rest)
        picked = pieces[rows, c, k]
        above = np.where(segment > picked[:, None], segment, 0.0).sum(axis=1)
        return b * self.size + c * _PIECE + k, above / self.sums[rows, b]

    def _segments(self, rows: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The tokens of block b[i] of row rows[i], zero-padded to `size` for the short block."""
        if self.full == 0:
            segment = np.zeros((len(rows), self.size), dtype=self.probs.dtype)
        else:
            segment = self.cube[rows, np.minimum(b, self.full - 1)]
        short = np.flatnonzero(b >= self.full)
        if len(short):
            tail = self.probs[rows[short], self.full * self.size :]
            segment[short] = 0.0
            segment[short, : tail.shape[1]] = tail
        return segment


def _pick(weights: np.ndarray, target: np.ndarray, cum: np.ndarray | None = None):
    """(i, rest) per row: the entry whose cumulative weight first passes the target (inverse
    CDF) and the target less the weight before it. Rounding that runs past the last entry or
    onto an entry without weight moves to the nearest entry with weight."""
    cum = np.cumsum(weights, axis=1) if cum is None else cum
    rows = np.arange(len(weights))
    i = np.minimum(np.count_nonzero(cum <= target[:, None], axis=1), weights.shape[1] - 1)
    for r in np.flatnonzero(weights[rows, i] <= 0):
        weighted = np.flatnonzero(weights[r] > 0)
        i[r] = weighted[min(int(np.searchsorted(weighted, i[r])), len(weighted) - 1)]
    return i, target - (cum[rows, i] - weights[rows, i])


def _test(row, pj: float, top_p: float, cum: list[float], size: int, mask, share: float) -> bool:
    """Whether the tokens more likely than pj hold less than top_p, chunk by chunk: the mass
    above pj in a chunk is the sum of the tokens a compare selects, the mass at or below it the
    mass scanned so far (block sums) less the mass above. Decided as soon as the mass above
    reaches top_p (no) or the mass at or below passes total - top_p (yes: what is left cannot
    reach top_p). Each chunk ends where the share of the mass above pj (a guess: `share`, from
    the drawn token's block; then the share in what was scanned) says the test will be decided."""
    above, done, total = 0.0, 0, cum[-1]
    enough_below = total - top_p
    end = _chunk_end(cum, 0, share, top_p, enough_below)
    while True:
        chunk = row[done * size : end * size]
        above += float(chunk.take(np.greater(chunk, pj, out=mask[: len(chunk)]).nonzero()[0]).sum())
        done, mass = end, cum[end - 1]
        if above >= top_p:
            return False
        if mass - above > enough_below:
            return True
        if done == len(cum):
            return above < top_p
        end = _chunk_end(cum, done, above / mass if mass > 0 else 0.0, top_p, enough_below)


def _chunk_end(cum: list[float], done: int, share: float, top_p: float, enough_below: float) -> int:
    """The block after which, if a share `share` of the mass lies above pj, the mass above
    reaches top_p (heading for a rejection) or the mass at or below passes enough_below."""
    if share * cum[-1] >= top_p:
        target = top_p / share
    else:
        target = enough_below / (1 - share) if share < 1 else 0.0
    return max(done + 1, min(len(cum), bisect_left(cum, target) + 1))
