"""Number formats at work: rounding to a format, block-scaled quantisation, five demonstrations.

`round_to(array, dtype_id)` rounds to a format of the dtype table (scenarios/dtypes.yaml):
plain formats are a cast (ml_dtypes, round to nearest even, as torch's casts; E4M3, which has
no infinity, saturates out-of-range values to +-448 as torch does); block-scaled
formats quantise each block of `block_size` consecutive elements along the last axis and
return the dequantised values:
- MX (mxfp4, mxfp8; OCP MX v1.0 §6.3): scale = 2^(floor(log2 amax) - emax of the element),
  an E8M0 power of two; elements saturate at the element's max;
- NVFP4 (NVIDIA 2025): one FP32 scale per tensor (amax / (6 x 448)) and one E4M3 scale per
  16 (block amax / 6, in units of the tensor scale);
- INT4 g128 (AWQ/GPTQ): asymmetric, scale (max - min) / 15 and zero point, both FP16;
- INT8: symmetric per row (last axis), scale amax / 127.
Shortcuts: the last axis is padded with zeros to a whole number of blocks; NaN and infinity
inputs are not treated specially in block formats.
"""

from __future__ import annotations

import math
from functools import cache

import ml_dtypes
import numpy as np

from .. import catalog

CASTS = {
    "fp32": np.float32,
    "bf16": ml_dtypes.bfloat16,
    "fp16": np.float16,
    "fp8": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "e8m0": ml_dtypes.float8_e8m0fnu,
}
SATURATING = {"fp8": 448.0}  # formats without infinity: casts clamp to +-max (torch, TensorRT)
E2M1 = ml_dtypes.float4_e2m1fn
ELEMENT_EMAX = {"mxfp4": 2, "mxfp8": 8}  # exponent of the element's largest power of two


def cast(x: np.ndarray, np_dtype) -> np.ndarray:
    """Round to a plain format and back to float64."""
    with np.errstate(over="ignore"):  # overflow is the answer: inf or NaN, as the format says
        return np.asarray(x, dtype=np.float64).astype(np_dtype).astype(np.float64)


def _blocks(x: np.ndarray, block: int) -> tuple[np.ndarray, int]:
    n = x.shape[-1]
    pad = (-n) % block
    if pad:
        x = np.concatenate([x, np.zeros(x.shape[:-1] + (pad,))], axis=-1)
    return x.reshape(x.shape[:-1] + (-1, block)), n


def _saturating_cast(x: np.ndarray, element, limit: float) -> np.ndarray:
    return cast(np.clip(x, -limit, limit), element)


def _mx(b: np.ndarray, dtype_id: str, limit: float) -> np.ndarray:
    amax = np.abs(b).max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        exp = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))), 0)
    scale = np.exp2(np.clip(exp - ELEMENT_EMAX[dtype_id], -127, 127))
    element = E2M1 if dtype_id == "mxfp4" else ml_dtypes.float8_e4m3fn
    return _saturating_cast(b / scale, element, limit) * scale


def _nvfp4(b: np.ndarray) -> np.ndarray:
    tensor_scale = np.abs(b).max() / (6 * 448) or 1.0
    block_scale = cast(np.abs(b).max(axis=-1, keepdims=True) / 6 / tensor_scale, ml_dtypes.float8_e4m3fn)
    scale = block_scale * tensor_scale
    safe = np.where(scale > 0, scale, 1)
    return np.where(scale > 0, _saturating_cast(b / safe, E2M1, 6.0) * scale, 0.0)


def _int_asymmetric(b: np.ndarray, levels: int) -> np.ndarray:
    lo, hi = b.min(axis=-1, keepdims=True), b.max(axis=-1, keepdims=True)
    scale = cast((hi - lo) / levels, np.float16)
    safe = np.where(scale > 0, scale, 1)
    zero = cast(np.clip(np.round(-lo / safe), 0, levels), np.float16)
    q = np.clip(np.round(b / safe) + zero, 0, levels)
    return np.where(scale > 0, (q - zero) * scale, b)


def _int_symmetric(x: np.ndarray, qmax: int) -> np.ndarray:
    amax = np.abs(x).max(axis=-1, keepdims=True)
    scale = np.where(amax > 0, amax / qmax, 1)
    return np.clip(np.round(x / scale), -qmax, qmax) * scale


@cache
def _row(dtype_id: str):
    return catalog.row("dtypes", dtype_id)


def round_to(array, dtype_id: str, block_size: int | None = None) -> np.ndarray:
    """`array` rounded to the format `dtype_id` (dequantised, float64). `block_size`
    overrides a block-scaled format's block (the outlier demo sweeps it)."""
    x = np.asarray(array, dtype=np.float64)
    if dtype_id in SATURATING:  # E4M3 has no infinity: out of range saturates (as torch)
        return cast(np.clip(x, -SATURATING[dtype_id], SATURATING[dtype_id]), CASTS[dtype_id])
    if dtype_id in CASTS:
        return cast(x, CASTS[dtype_id])
    row = _row(dtype_id)
    block = row.block_size if block_size is None else block_size
    if not isinstance(block, int) or block < 1:
        raise ValueError(f"block_size: must be an integer >= 1, got {block!r}")
    if dtype_id == "int8":
        return _int_symmetric(x, 127)
    b, n = _blocks(x, block)
    if dtype_id in ELEMENT_EMAX:
        out = _mx(b, dtype_id, row.max)
    elif dtype_id == "nvfp4":
        out = _nvfp4(b)
    elif dtype_id == "int4-g128":
        out = _int_asymmetric(b, 15)
    else:
        raise ValueError(f"dtype {dtype_id!r} has no rounding rule")
    return out.reshape(b.shape[:-2] + (-1,))[..., :n]


# --- demonstrations ------------------------------------------------------------------------
def demo_bf16_add() -> list[dict]:
    """1.0 + 0.001 in each format: BF16 keeps 8 significant bits, so the sum rounds to 1.0."""
    rows = []
    for fmt in ("fp32", "fp16", "bf16"):
        one, small = round_to(1.0, fmt), round_to(0.001, fmt)
        total = float(round_to(one + small, fmt))
        rows.append(
            {
                "format": fmt,
                "1.0 + 0.001": total,
                "lost": total == 1.0,
                "spacing at 1.0": float(2.0 * _row(fmt).unit_roundoff),
            }
        )
    return rows


def softmax_fp16(logits: np.ndarray, subtract_max: bool) -> np.ndarray:
    z = cast(logits, np.float16).astype(np.float16)
    if subtract_max:
        z = z - z.max()
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(z)
        return (e / e.sum()).astype(np.float64)


def demo_softmax_fp16(logits=(12.0, 11.0, 8.0, 0.0)) -> list[dict]:
    """FP16 softmax of a logit of 12: exp(12) = 162,755 > 65,504 overflows to inf (inf / inf =
    NaN) unless the maximum is subtracted first."""
    z = np.asarray(logits, dtype=np.float64)
    exact = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    rows = []
    for subtract in (False, True):
        p = softmax_fp16(z, subtract)
        nan = bool(np.isnan(p).any())
        rows.append(
            {
                "max subtracted": subtract,
                "probabilities": ", ".join(f"{v:.6g}" for v in p),
                "nan": nan,
                "max abs error": None if nan else float(np.abs(p - exact).max()),
            }
        )
    return rows


def accumulate(x: np.ndarray, y: np.ndarray, fmt: str) -> np.ndarray:
    """Row-wise dot products summed left to right, rounding the running sum to `fmt` after
    each addition (products exact: inputs are BF16, products fit FP32)."""
    prods = x * y
    s = np.zeros(x.shape[0])
    for i in range(x.shape[1]):
        s = round_to(s + prods[:, i], fmt)
    return s


def demo_dot_accumulation(k: int = 4096, trials: int = 300, seed: int = 0) -> list[dict]:
    """A k = 4096 dot product of Gaussian vectors accumulated in BF16 vs FP32: relative error
    |s^ - s| / |s| over many trials against the estimate u sqrt(k) (rounding errors of a
    random-sign sum add like a random walk; Higham and Mary 2019)."""
    rng = np.random.default_rng(seed)
    x = round_to(rng.standard_normal((trials, k)), "bf16")
    y = round_to(rng.standard_normal((trials, k)), "bf16")
    exact = (x * y).sum(axis=1)
    rows = []
    for fmt in ("bf16", "fp32"):
        err = np.abs(accumulate(x, y, fmt) - exact) / np.abs(exact)
        estimate = _row(fmt).unit_roundoff * math.sqrt(k)
        rows.append(
            {
                "accumulator": fmt,
                "k": k,
                "trials": trials,
                "median rel error": float(np.median(err)),
                "p90 rel error": float(np.quantile(err, 0.9)),
                "u sqrt(k)": estimate,
                "median / u sqrt(k)": float(np.median(err) / estimate),
            }
        )
    return rows


def gaussian_rows(rows: int = 64, cols: int = 4096, outlier: float = 0.0, seed: int = 0):
    """Gaussian weights; with `outlier` > 0, one element per row is set to outlier x sigma."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((rows, cols))
    where = rng.integers(0, cols, size=rows)
    if outlier:
        w[np.arange(rows), where] = outlier
    return w, where


def block_errors(dtype_id: str, w: np.ndarray, where: np.ndarray, block: int | None = None):
    """(relative RMS error of the ordinary weights, of the weights in an outlier's block,
    elsewhere)."""
    block = block or _row(dtype_id).block_size
    err = round_to(w, dtype_id, block) - w
    mask = np.ones_like(w, dtype=bool)
    mask[np.arange(w.shape[0]), where] = False
    same = np.zeros_like(mask)
    for r, c in enumerate(where):
        start = c // block * block
        same[r, start : start + block] = True
    same &= mask

    def rel(m):
        return float(np.sqrt((err[m] ** 2).mean() / (w[m] ** 2).mean())) if m.any() else 0.0

    return rel(mask), rel(same), rel(mask & ~same)


def demo_block_quantisation(outlier: float = 40.0) -> list[dict]:
    """NVFP4, MXFP4, MXFP8 and INT4 g128 on Gaussian weights, and with one outlier (40 sigma)
    per row of 4096: the outlier stretches its block's scale, so block_size - 1 neighbours
    lose precision."""
    plain, where = gaussian_rows()
    spiky, _ = gaussian_rows(outlier=outlier)
    rows = []
    for fmt in ("nvfp4", "mxfp4", "mxfp8", "int4-g128"):
        base = block_errors(fmt, plain, where)[0]
        _, near, far = block_errors(fmt, spiky, where)
        rows.append(
            {
                "format": fmt,
                "block": _row(fmt).block_size,
                "rel error (Gaussian)": round(base, 5),
                "rel error, outlier's block": round(near, 5),
                "rel error, other blocks": round(far, 5),
                "elements disturbed per outlier": _row(fmt).block_size - 1,
            }
        )
    return rows


def demo_outlier_block_sweep(dtype_id: str = "mxfp4", outlier: float = 40.0) -> list[dict]:
    """One outlier per row: share of a row's weights quantised against the outlier's scale,
    and the error of the whole row, for block sizes 8 .. 4096."""
    spiky, where = gaussian_rows(outlier=outlier)
    rows = []
    for block in (8, 16, 32, 64, 128, 512, 4096):
        overall, near, _ = block_errors(dtype_id, spiky, where, block)
        rows.append(
            {
                "format": dtype_id,
                "block": block,
                "elements disturbed": block - 1,
                "rel error, outlier's block": round(near, 5),
                "rel error, whole row": round(overall, 5),
            }
        )
    return rows


def demo_fp8_gradients(seed: int = 0) -> list[dict]:
    """E4M3 vs E5M2 on gradient-like values (log-uniform magnitudes 1e-7 .. 1e-1, random
    signs): without scaling E4M3 flushes the small ones to zero; with a per-tensor scale
    (amax -> max) both keep the range and E4M3 is twice as precise."""
    rng = np.random.default_rng(seed)
    g = 10 ** rng.uniform(-7, -1, 100_000) * rng.choice([-1, 1], 100_000)
    rows = []
    for fmt in ("fp8", "e5m2"):
        for scaled in (False, True):
            s = _row(fmt).max / np.abs(g).max() if scaled else 1.0
            q = round_to(g * s, fmt) / s
            kept = q != 0
            rows.append(
                {
                    "format": "e4m3" if fmt == "fp8" else fmt,
                    "per-tensor scale": scaled,
                    "flushed to zero": round(float((~kept).mean()), 4),
                    "median rel error (kept)": float(np.median(np.abs(q[kept] - g[kept]) / np.abs(g[kept]))),
                    "max": _row(fmt).max,
                    "unit roundoff": _row(fmt).unit_roundoff,
                }
            )
    return rows


DEMOS = {
    "bf16-add": demo_bf16_add,
    "softmax-fp16": demo_softmax_fp16,
    "dot-accumulation": demo_dot_accumulation,
    "block-quantisation": demo_block_quantisation,
    "outlier-blocks": demo_outlier_block_sweep,
    "fp8-gradients": demo_fp8_gradients,
}
