"""Speculative decoding on two tiny numpy decoders (a small draft, a larger target, one vocabulary).

Lecture §6.2 and §7.7 (seeds/000); Leviathan et al. 2023, Chen et al. 2023. A round: the draft
samples gamma tokens from q; the target scores all of them in one step; draft token x is
accepted with probability min(1, p(x) / q(x)); at the first rejection a token is drawn from
norm(max(0, p - q)); if all gamma are accepted a bonus token is drawn from p. The emitted text
is distributed exactly as the target's (`exact_first_tokens` proves it by enumeration; the
sampler in `sample_continuations` is checked by a chi-squared test). Greedy verification
(`greedy_speculative`) runs the real decoders with their KV caches: one target forward of
gamma + 1 tokens per round, and reproduces the target's greedy text token for token.

Shortcut: the samplers read next-token distributions from tables built once per model over
every prefix up to the depth a run can reach (`Tables`), so 10^5 continuations are numpy
array operations; small vocabularies keep the tables small (8^4 prefixes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sampling import filter_probs, total_variation
from .tiny_decoder import TinyConfig, TinyDecoder

TARGET = TinyConfig(vocab=8, d=32, layers=3, heads=4, kv_heads=2, head_dim=8, d_ff=64)
DRAFT_LAYERS = 1  # the draft: the target's first layer, its final norm and lm_head
PROMPT = (1, 2, 3)


def models(vocab: int = 8, seed: int = 0) -> tuple[TinyDecoder, TinyDecoder]:
    """(draft, target) sharing one vocabulary. The draft is the target cut to its first layer
    (self-speculation by layer skipping, as LayerSkip does): a third of the target's layers,
    with outputs correlated enough to be accepted often."""
    config = TinyConfig(**{**TARGET.__dict__, "vocab": vocab})
    target = TinyDecoder(config, seed=seed, dtype=np.float64)
    kept = {k: w for k, w in target.w.items() if not k[0].isdigit() or int(k.split(".")[0]) < DRAFT_LAYERS}
    draft = TinyDecoder(
        TinyConfig(**{**config.__dict__, "layers": DRAFT_LAYERS}), dtype=np.float64, weights=kept
    )
    return draft, target


class Tables:
    """Next-token distributions of `model` after `prompt` + every continuation of up to `depth`
    tokens. Row `offset[k] + code` holds the distribution after continuation `code` (its k
    tokens in base V, first token most significant)."""

    def __init__(self, model: TinyDecoder, prompt, depth: int, **processors):
        v = model.config.vocab
        logits, cache = model.forward(list(prompt))
        rows, level = [logits[-1]], [cache]
        for _ in range(depth):
            nxt = []
            for parent in level:
                for token in range(v):
                    out, child = model.forward([token], parent)
                    rows.append(out[-1])
                    nxt.append(child)
            level = nxt
        self.vocab = v
        self.offset = np.cumsum([0] + [v**k for k in range(depth + 1)])
        self.probs = np.array([filter_probs(r, **processors) for r in rows])

    def row(self, depth, code):
        return self.offset[depth] + code


def _draw(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draw of one token per row."""
    cdf = np.cumsum(probs, axis=1)
    return np.minimum((u[:, None] > cdf).sum(axis=1), probs.shape[1] - 1)


@dataclass
class Run:
    tokens: np.ndarray  # [samples, length] emitted continuations
    rounds: np.ndarray  # verification rounds per sample
    accepted: int  # draft tokens accepted
    proposed: int  # draft tokens the target judged (up to and including the first rejection)
    expected_accepted: float  # sum of sum_x min(p, q) over the same judgements
    first_round: np.ndarray  # tokens each sample emitted in its first round


def sample_continuations(
    draft: Tables, target: Tables, gamma: int, length: int, samples: int, rng, residual: str = "correct"
) -> Run:
    """Speculative sampling of `samples` continuations of `length` tokens, all in lockstep.

    residual="correct" draws a rejected position from norm(max(0, p - q)); "target" (draws
    from p) and "draft" (from q) are the classic broken variants a test must catch.
    """
    v = target.vocab
    out = np.full((samples, length), -1)
    done = np.zeros(samples, dtype=int)  # tokens emitted so far
    code = np.zeros(samples, dtype=int)
    rounds = np.zeros(samples, dtype=int)
    accepted = proposed = 0
    expected = 0.0
    first_round = None
    while (active := np.flatnonzero(done < length)).size:
        if first_round is None and rounds.any():
            first_round = done.copy()
        rounds[active] += 1
        depth0, c = done[active], code[active].copy()
        alive = np.ones(active.size, dtype=bool)  # every draft so far accepted
        for j in range(gamma + 1):
            rows = target.row(depth0 + j, c)
            p = target.probs[rows]
            if j == gamma:  # all accepted: the bonus token from p
                new = _draw(p, rng.random(active.size))
                _emit(out, done, code, active, alive, new, v)
                break
            q = draft.probs[draft.row(depth0 + j, c)]
            x = _draw(q, rng.random(active.size))
            px, qx = p[np.arange(active.size), x], q[np.arange(active.size), x]
            ok = rng.random(active.size) < np.minimum(1.0, px / np.maximum(qx, 1e-300))
            judged = alive & (done[active] < length)
            proposed += int(judged.sum())
            accepted += int((judged & ok).sum())
            expected += float(np.minimum(p, q)[judged].sum())
            fresh = {"correct": np.maximum(p - q, 0.0), "target": p, "draft": q}[residual]
            fresh = fresh / np.maximum(fresh.sum(axis=1, keepdims=True), 1e-300)
            resampled = _draw(fresh, rng.random(active.size))
            _emit(out, done, code, active, alive, np.where(ok, x, resampled), v)
            alive &= ok
            c = c * v + x
    return Run(out, rounds, accepted, proposed, expected, done.copy() if first_round is None else first_round)


def _emit(out, done, code, active, alive, token, v) -> None:
    """Append `token` to the samples still in this round that have room for it."""
    take = alive & (done[active] < out.shape[1])
    idx = active[take]
    out[idx, done[idx]] = token[take]
    code[idx] = code[idx] * v + token[take]
    done[idx] += 1


def target_joint(target: Tables, length: int) -> np.ndarray:
    """The target's exact probability of every continuation of `length` tokens (base-V codes)."""
    v = target.vocab
    joint = np.ones(1)
    for k in range(length):
        rows = target.probs[target.offset[k] : target.offset[k] + v**k]
        joint = (joint[:, None] * rows).reshape(-1)
    return joint


def exact_first_tokens(draft: Tables, target: Tables, gamma: int, length: int) -> np.ndarray:
    """The exact distribution of the first `length` emitted tokens under speculative sampling,
    by enumerating every draft proposal and accept/reject outcome (no sampling)."""
    v = target.vocab
    dist = np.zeros(v**length)

    def continue_from(depth, code, prob):
        if depth >= length:
            dist[code // v ** (depth - length)] += prob
            return
        for emitted, p_round in one_round(depth, code, 0).items():
            d, c = depth, code
            for t in emitted:
                d, c = d + 1, c * v + t
            continue_from(d, c, prob * p_round)

    def one_round(depth, code, j) -> dict:
        p = target.probs[target.row(depth, code)]
        if j == gamma:
            return {(t,): p[t] for t in range(v) if p[t] > 0}
        q = draft.probs[draft.row(depth, code)]
        outcomes: dict = {}
        for x in range(v):
            if q[x] == 0:
                continue
            keep = q[x] * min(1.0, p[x] / q[x])
            if keep > 0 and depth + 1 < length:  # past `length` the rest does not matter
                for rest, pr in one_round(depth + 1, code * v + x, j + 1).items():
                    outcomes[(x, *rest)] = outcomes.get((x, *rest), 0.0) + keep * pr
            elif keep > 0:
                outcomes[(x,)] = outcomes.get((x,), 0.0) + keep
        residual = np.maximum(p - q, 0.0)
        reject = 1.0 - float(np.minimum(p, q).sum())
        if residual.sum() > 0 and reject > 0:
            for t in np.flatnonzero(residual):
                outcomes[(t,)] = outcomes.get((t,), 0.0) + reject * residual[t] / residual.sum()
        return outcomes

    continue_from(0, 0, 1.0)
    return dist


def greedy_speculative(
    draft: TinyDecoder, target: TinyDecoder, prompt, gamma: int, steps: int
) -> tuple[list[int], int]:
    """Greedy drafts, greedy verification, the target's real KV cache: (tokens, target
    forward passes). Each round is one target forward of gamma + 1 tokens (the newest emitted
    token and the gamma proposals); the accepted prefix and the target's own next token are
    kept and the cache is cut back to the text. The tiny draft re-reads the text each round."""
    text = list(prompt)
    t_cache = target.forward(text[:-1])[1] if len(text) > 1 else None
    out: list[int] = []
    passes = 0
    while len(out) < steps:
        logits, cache = draft.forward(text)
        proposal = []
        for _ in range(gamma):
            proposal.append(int(np.argmax(logits[-1])))
            logits, cache = draft.forward([proposal[-1]], cache)
        scores, t_all = target.forward([text[-1], *proposal], t_cache)
        passes += 1
        want = [int(np.argmax(s)) for s in scores]  # the target's token after each prefix
        n = 0
        while n < gamma and proposal[n] == want[n]:
            n += 1
        keep = len(text) + n  # the text and the accepted drafts; the new token is pending
        t_cache = [(k[:, :keep], v[:, :keep]) for k, v in t_all]
        emitted = [*proposal[:n], want[n]]
        text += emitted
        out += emitted
    return out[:steps], passes


def chi_squared(run: Run, target: Tables) -> tuple[float, int, float]:
    """(statistic, degrees of freedom, p-value) of the sampled continuations against the
    target's exact joint distribution."""
    from scipy.stats import chisquare

    v, length = target.vocab, run.tokens.shape[1]
    codes = (run.tokens * v ** np.arange(length - 1, -1, -1)).sum(axis=1)
    counts = np.bincount(codes, minlength=v**length)
    expected = target_joint(target, length) * len(codes)
    stat, p = chisquare(counts, expected)
    return float(stat), v**length - 1, float(p)


def demo(samples: int = 100_000, seed: int = 0) -> list[dict]:
    """Speculative sampling keeps the target's distribution; greedy speculation keeps its text."""
    rows = []
    draft, target = models(32, seed)
    d1, t1 = Tables(draft, PROMPT, 1), Tables(target, PROMPT, 1)
    exact = exact_first_tokens(d1, t1, 3, 2)
    rows.append(
        {
            "check": "emitted = target, exact enumeration",
            "setting": "V=32, first 2 tokens, gamma=3",
            "speculative": f"max |difference| {np.abs(exact - target_joint(t1, 2)).max():.1e}",
            "reference": "target joint (1,024 cells)",
            "holds": True,
        }
    )
    gamma, length = 2, 3
    d8, t8 = models(8, seed)
    dt, tt = Tables(d8, PROMPT, length - 1 + gamma), Tables(t8, PROMPT, length - 1 + gamma)
    for residual in ("correct", "target"):
        run = sample_continuations(dt, tt, gamma, length, samples, np.random.default_rng(seed), residual)
        stat, dof, p = chi_squared(run, tt)
        rows.append(
            {
                "check": f"chi-squared, {residual} residual"
                + (" (broken: resample from p)" if residual == "target" else ""),
                "setting": f"V=8, {length} tokens, gamma={gamma}, {samples:,} samples",
                "speculative": f"chi2 {stat:,.0f} on {dof} dof, p = {p:.3g}",
                "reference": "target joint (512 cells)",
                "holds": bool(p > 1e-3) if residual == "correct" else bool(p < 1e-6),
            }
        )
        if residual == "correct":
            good = run
    rows.append(
        {
            "check": "acceptance per judged draft token",
            "setting": f"{good.proposed:,} judgements",
            "speculative": f"{good.accepted / good.proposed:.4f}",
            "reference": f"mean sum min(p, q) = {good.expected_accepted / good.proposed:.4f}",
            "holds": bool(abs(good.accepted - good.expected_accepted) < 4 * np.sqrt(good.proposed * 0.25)),
        }
    )
    alpha = float(np.minimum(tt.probs[0], dt.probs[0]).sum())
    iid = (1 - alpha ** (gamma + 1)) / (1 - alpha)
    rows.append(
        {
            "check": "tokens in the first round",
            "setting": f"gamma={gamma}, alpha at the prompt {alpha:.4f}",
            "speculative": f"{good.first_round.mean():.4f}",
            "reference": f"i.i.d. formula {iid:.4f} (differs: alpha varies by prefix)",
            "holds": True,
        }
    )
    out, passes = greedy_speculative(draft, target, PROMPT, 4, 40)
    rows.append(
        {
            "check": "greedy speculation = target greedy",
            "setting": "V=32, gamma=4, 40 tokens",
            "speculative": f"{passes} target passes for 40 tokens",
            "reference": "40 passes without a draft",
            "holds": out == target.greedy(list(PROMPT), 40)[0],
        }
    )
    rows += processors_rows(draft, target)
    return rows


def processors_rows(draft, target) -> list[dict]:
    """Lecture §7.7: verification must see the distribution the user asked for."""
    wanted = {"temperature": 0.7, "top_p": 0.9}
    want = target_joint(Tables(target, PROMPT, 1, **wanted), 2)
    rows = []
    for sides in ("both", "draft only", "target only"):
        d = Tables(draft, PROMPT, 1, **(wanted if sides in ("both", "draft only") else {}))
        t = Tables(target, PROMPT, 1, **(wanted if sides in ("both", "target only") else {}))
        tv = total_variation(exact_first_tokens(d, t, 3, 2), want)
        accept = float(np.minimum(d.probs[0], t.probs[0]).sum())
        rows.append(
            {
                "check": f"temperature 0.7 + top-p 0.9 on {sides}",
                "setting": "V=32, first 2 tokens, gamma=3",
                "speculative": f"TV to the wanted distribution {tv:.2e}",
                "reference": f"acceptance at the prompt {accept:.3f}",
                "holds": (tv < 1e-12) == (sides != "draft only"),
            }
        )
    return rows
