"""A tiny random-weight Llama-style decoder in numpy, for the §5 and §7 demonstrations.

RMSNorm, RoPE, grouped-query attention with a KV cache, SwiGLU MLP, untied lm_head. Random
weights (seeded): the demos show mechanisms (GQA = MHA with duplicated KV heads; pooling KV
heads changes the output; beam search; per-request RNG), not model quality.
Shortcut: one sequence at a time; the cache is a list of per-layer (K, V) arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class TinyConfig:
    vocab: int = 256
    d: int = 64
    layers: int = 2
    heads: int = 4
    kv_heads: int = 2
    head_dim: int = 16
    d_ff: int = 128
    rope_theta: float = 10_000.0


def rms_norm(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def rope(x, positions, theta):
    """Rotate pairs of dimensions by position x frequency. x: [heads, T, head_dim]."""
    half = x.shape[-1] // 2
    freq = theta ** (-np.arange(half) / half)
    angle = positions[:, None] * freq[None, :]  # [T, half]
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)


class TinyDecoder:
    def __init__(
        self, config: TinyConfig = TinyConfig(), seed: int = 0, dtype=np.float32, weights: dict | None = None
    ):
        self.config, self.dtype = config, dtype
        self.w = weights or self._random(config, np.random.default_rng(seed))
        self.w = {k: v.astype(dtype) for k, v in self.w.items()}

    @staticmethod
    def _random(c: TinyConfig, rng) -> dict:
        def mat(rows, cols):
            return rng.normal(0, 1 / np.sqrt(rows), size=(rows, cols))

        w = {
            "embed": rng.normal(0, 1, size=(c.vocab, c.d)),
            "norm": np.ones(c.d),
            "lm_head": mat(c.d, c.vocab),
        }
        for i in range(c.layers):
            w |= {
                f"{i}.wq": mat(c.d, c.heads * c.head_dim),
                f"{i}.wk": mat(c.d, c.kv_heads * c.head_dim),
                f"{i}.wv": mat(c.d, c.kv_heads * c.head_dim),
                f"{i}.wo": mat(c.heads * c.head_dim, c.d),
                f"{i}.gate": mat(c.d, c.d_ff),
                f"{i}.up": mat(c.d, c.d_ff),
                f"{i}.down": mat(c.d_ff, c.d),
                f"{i}.n1": np.ones(c.d),
                f"{i}.n2": np.ones(c.d),
            }
        return w

    def forward(self, ids, cache=None):
        """(logits [T, vocab], cache) for new tokens `ids` after the cached ones."""
        c, w = self.config, self.w
        cache = (
            [(np.zeros((c.kv_heads, 0, c.head_dim), self.dtype),) * 2 for _ in range(c.layers)]
            if cache is None
            else cache
        )
        start = cache[0][0].shape[1]
        positions = np.arange(start, start + len(ids), dtype=np.float64)
        x = w["embed"][np.asarray(ids)]  # [T, d]
        new_cache = []
        for i, (k_cache, v_cache) in enumerate(cache):
            h = rms_norm(x, w[f"{i}.n1"])
            q = (h @ w[f"{i}.wq"]).reshape(len(ids), c.heads, c.head_dim).transpose(1, 0, 2)
            k = (h @ w[f"{i}.wk"]).reshape(len(ids), c.kv_heads, c.head_dim).transpose(1, 0, 2)
            v = (h @ w[f"{i}.wv"]).reshape(len(ids), c.kv_heads, c.head_dim).transpose(1, 0, 2)
            q, k = rope(q, positions, c.rope_theta), rope(k, positions, c.rope_theta)
            k_all = np.concatenate([k_cache, k], axis=1)  # [kv_heads, S, head_dim]
            v_all = np.concatenate([v_cache, v], axis=1)
            new_cache.append((k_all, v_all))
            group = c.heads // c.kv_heads
            kk, vv = np.repeat(k_all, group, axis=0), np.repeat(v_all, group, axis=0)
            scores = q @ kk.transpose(0, 2, 1) / np.sqrt(c.head_dim)  # [heads, T, S]
            causal = positions[:, None] < np.arange(k_all.shape[1])[None, :]
            scores = np.where(causal, -np.inf, scores)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            o = (scores / scores.sum(-1, keepdims=True)) @ vv  # [heads, T, head_dim]
            x = x + o.transpose(1, 0, 2).reshape(len(ids), -1) @ w[f"{i}.wo"]
            h = rms_norm(x, w[f"{i}.n2"])
            gate = h @ w[f"{i}.gate"]
            x = x + (gate / (1 + np.exp(-gate)) * (h @ w[f"{i}.up"])) @ w[f"{i}.down"]
        return rms_norm(x, w["norm"]) @ w["lm_head"], new_cache

    def greedy(self, prompt, steps):
        """(generated ids, logits of each step)."""
        logits, cache = self.forward(prompt)
        out, seen = [], []
        for _ in range(steps):
            seen.append(logits[-1])
            token = int(np.argmax(logits[-1]))
            out.append(token)
            logits, cache = self.forward([token], cache)
        return out, np.array(seen)


def duplicate_kv_heads(model: TinyDecoder) -> TinyDecoder:
    """The MHA model equal to a GQA model: each KV head copied for every query head of its group."""
    c = model.config
    group = c.heads // c.kv_heads
    w = dict(model.w)
    for i in range(c.layers):
        for name in ("wk", "wv"):
            heads = w[f"{i}.{name}"].reshape(c.d, c.kv_heads, c.head_dim)
            w[f"{i}.{name}"] = np.repeat(heads, group, axis=1).reshape(c.d, -1)
    return TinyDecoder(replace(c, kv_heads=c.heads), dtype=model.dtype, weights=w)


def pool_kv_heads(model: TinyDecoder, kv_heads: int) -> TinyDecoder:
    """GQA from an MHA model by mean-pooling KV heads within groups (the GQA paper's init)."""
    c = model.config
    w = dict(model.w)
    for i in range(c.layers):
        for name in ("wk", "wv"):
            heads = w[f"{i}.{name}"].reshape(c.d, kv_heads, c.heads // kv_heads, c.head_dim)
            w[f"{i}.{name}"] = heads.mean(axis=2).reshape(c.d, -1)
    return TinyDecoder(replace(c, kv_heads=kv_heads), dtype=model.dtype, weights=w)


def mla_naive_vs_absorbed(seed=0, d=64, heads=4, latent=16, head_dim=16, context=32) -> float:
    """§5.3 in float64: attention through decompressed K/V equals attention in the latent space
    (W_UK absorbed into the query, W_UV applied after the weighted sum). Max |difference|."""
    rng = np.random.default_rng(seed)
    x, c = rng.normal(size=d), rng.normal(size=(context, latent))  # query token, cached latents
    w_q = rng.normal(size=(heads, d, head_dim))
    w_uk, w_uv = rng.normal(size=(heads, latent, head_dim)), rng.normal(size=(heads, latent, head_dim))
    naive, absorbed = [], []
    for h in range(heads):
        q = x @ w_q[h]
        k, v = c @ w_uk[h], c @ w_uv[h]  # decompress every cached latent: [context, head_dim]
        p = np.exp(q @ k.T - (q @ k.T).max())
        naive.append((p / p.sum()) @ v)
        q_latent = w_uk[h] @ q  # absorb W_UK into the query: [latent]
        p = np.exp(c @ q_latent - (c @ q_latent).max())
        absorbed.append(((p / p.sum()) @ c) @ w_uv[h])  # weighted sum in latent space, then W_UV
    return float(np.abs(np.array(naive) - np.array(absorbed)).max())
