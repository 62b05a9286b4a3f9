"""RoPE and its extrapolation: the wavelength of each rotary dimension, before and after
scaling (seeds/001 §RoPE).

Dimension pair i of d_r rotates at inverse frequency base^(-2i/d_r): wavelength
lambda_i = 2 pi base^(2i/d_r) tokens, from 2 pi (i = 0) to 2 pi base^((d_r-2)/d_r). Scaling a
model beyond its trained context L by s: PI divides every frequency by s; NTK-aware raises the
base to base s^(d/(d-2)) (high frequencies kept); YaRN keeps the dimensions that turn at least
beta_fast times in L, interpolates those turning under beta_slow times, ramps between and
scales attention by 0.1 ln s + 1; Llama 3 interpolates wavelengths above L / low_freq_factor,
keeps those below L / high_freq_factor and smooths between. `inv_freq(i)` states each once;
the `rope` command evaluates it at every i, the quantities at the first and last pair.
Shortcut: a rope type the ledger does not model (longrope) reads as plain RoPE.
"""

import sympy as sp
from sympy import Max, Min, Piecewise, ceiling, floor, log, pi

from ledgerbuild.ledger import quantity

from .inputs import (
    ramp_epsilon,
    rope_beta_fast,
    rope_beta_slow,
    rope_dim,
    rope_factor,
    rope_high_freq_factor,
    rope_low_freq_factor,
    rope_method_code,
    rope_mscale,
    rope_mscale_all_dim,
    rope_original_max_position,
    rope_scaling_factor,
    rope_theta,
    rope_truncate,
    rope_type_code,
    yarn_mscale_coefficient,
)
from .sources import SHAPES

T = "rope"
SRC = SHAPES + " §RoPE; transformers modeling_rope_utils"

code = quantity(
    "rope_code_in_force",
    Piecewise((rope_type_code, rope_method_code < 0), (rope_method_code, True)),
    "code",
    "RoPE method in force: 0 none, 1 PI, 2 NTK-aware, 3 YaRN, 4 llama3",
    source=SRC,
    topic=T,
    integer=True,
)
factor = quantity(
    "rope_factor_in_force",
    Piecewise((rope_scaling_factor, sp.Eq(rope_factor, 0)), (rope_factor, True)),
    "ratio",
    "RoPE scaling factor s in force: rope_factor, else the model's own",
    source=SRC,
    topic=T,
)
ntk_base = quantity(
    "rope_ntk_base",
    Piecewise((rope_theta, rope_dim <= 2), (rope_theta * factor ** (rope_dim / (rope_dim - 2)), True)),
    "1",
    "NTK-aware base: base s^(d/(d-2)) (one rotary pair, d = 2: unchanged)",
    source=SHAPES + " §RoPE (NTK-aware scaling)",
    topic=T,
)


def _mscale(scale, m):
    return Piecewise((1, scale <= 1), (yarn_mscale_coefficient * m * log(scale) + 1, True))


is_yarn = sp.Eq(code, 3)
both_mscales = (rope_mscale > 0) & (rope_mscale_all_dim > 0)
MSCALE = "YaRN's 0.1 m ln s + 1 (1 when s <= 1)"
mscale, mscale_all_dim = (
    quantity(
        f"yarn_{name}_factor",
        _mscale(factor, m),
        "ratio",
        f"{MSCALE} at m = {name} (DeepSeek's rope_scaling field)",
        source="Peng et al. 2023 (YaRN) eq. 22; transformers _compute_yarn_parameters (get_mscale)",
        topic=T,
    )
    for name, m in (("mscale", rope_mscale), ("mscale_all_dim", rope_mscale_all_dim))
)
cos_sin = quantity(
    "yarn_cos_sin_scale",
    Piecewise(
        (1, ~is_yarn),
        (mscale / mscale_all_dim, both_mscales),
        (_mscale(factor, 1), True),
    ),
    "ratio",
    "YaRN: factor on cos and sin (so on q and k): 0.1 ln s + 1, or with DeepSeek's mscale and "
    "mscale_all_dim their ratio; 1 for any other method",
    source="Peng et al. 2023 (YaRN) eq. 22; transformers _compute_yarn_parameters (attention_factor)",
    topic=T,
)
TEMPERATURE = (
    "YaRN attention temperature sqrt(1/t) (0.1 ln s + 1) on every attention logit's q and k: the "
    "cos/sin factor"
)
TEMPERATURE_SOURCE = (
    "Peng et al. 2023 (YaRN) eq. 22; deepseek-ai/DeepSeek-V3 inference/model.py MLA "
    "softmax_scale; transformers DeepseekV3Attention.scaling"
)
quantity(
    "yarn_attention_scale",
    Piecewise(
        (cos_sin * _mscale(factor, rope_mscale_all_dim), is_yarn & (rope_mscale_all_dim > 0)), (cos_sin, True)
    ),
    "ratio",
    TEMPERATURE + ", times DeepSeek MLA's 0.1 mscale_all_dim ln s + 1 (squared into its softmax_scale)",
    source=TEMPERATURE_SOURCE,
    topic=T,
    when="mla",
)
quantity(
    "yarn_attention_scale",
    cos_sin,
    "ratio",
    TEMPERATURE + "; 1 for PI, NTK-aware and Llama 3, which have no temperature",
    source=TEMPERATURE_SOURCE,
    topic=T,
)


def _correction(rotations):
    """Dimension index at which a pair turns `rotations` times in the trained context (0 for a
    config without a trained context)."""
    turns = rope_dim * log(rope_original_max_position / (rotations * 2 * pi)) / (2 * log(rope_theta))
    return Piecewise((0, (rope_original_max_position <= 0) | (rope_theta <= 1)), (turns, True))


fast, slow = _correction(rope_beta_fast), _correction(rope_beta_slow)  # truncate: 0 or 1
yarn_low = quantity(
    "rope_yarn_low_pair",
    Max(0, rope_truncate * floor(fast) + (1 - rope_truncate) * fast),
    "pairs",
    "YaRN: pairs below this turn beta_fast times or more in the trained context (kept)",
    source="Peng et al. 2023 (YaRN) §3.2; transformers find_correction_range",
    topic=T,
)
yarn_high = quantity(
    "rope_yarn_high_pair",
    Min(rope_dim - 1, rope_truncate * ceiling(slow) + (1 - rope_truncate) * slow),
    "pairs",
    "YaRN: pairs above this turn under beta_slow times (interpolated); a ramp between",
    source="Peng et al. 2023 (YaRN) §3.2; transformers find_correction_range",
    topic=T,
)


def yarn_kept(i):
    """YaRN: 1 where pair i is extrapolated (kept), 0 where interpolated, a ramp between."""
    span = Piecewise((ramp_epsilon, sp.Eq(yarn_high, yarn_low)), (yarn_high - yarn_low, True))
    return 1 - Min(Max((i - yarn_low) / span, 0), 1)


def llama3_smooth(plain):
    """Llama 3: the smoothing weight of a pair of unscaled inverse frequency `plain`."""
    spread = rope_high_freq_factor - rope_low_freq_factor  # 0: no band between (Llama 4)
    weight = (rope_original_max_position * plain / (2 * pi) - rope_low_freq_factor) / spread
    return Piecewise((0, sp.Eq(spread, 0)), (weight, True))


def yarn_inv(plain, kept, s=factor):
    return plain / s * (1 - kept) + plain * kept


def llama3_inv(plain, smooth, s=factor):
    wavelength = 2 * pi / plain
    return Piecewise(
        (plain / s, wavelength > rope_original_max_position / rope_low_freq_factor),
        (plain, wavelength < rope_original_max_position / rope_high_freq_factor),
        ((1 - smooth) * plain / s + smooth * plain, True),
    )


def inv_freq(i, method=code, s=factor, plain=None, yarn=None, llama3=None):
    """Inverse frequency of rotary pair i under `method` (a code) and factor `s` (`plain`,
    `yarn`, `llama3`: the unscaled frequency and the two methods' values where declared)."""
    plain = rope_theta ** (-2 * i / rope_dim) if plain is None else plain
    yarn = yarn_inv(plain, yarn_kept(i), s) if yarn is None else yarn
    llama3 = llama3_inv(plain, llama3_smooth(plain), s) if llama3 is None else llama3
    return Piecewise(
        (plain / s, sp.Eq(method, 1)),
        (plain * s ** (-2 * i / Max(rope_dim - 2, 1)), sp.Eq(method, 2)),  # one pair: d - 2 = 0
        (yarn, sp.Eq(method, 3)),
        (llama3, sp.Eq(method, 4)),
        (plain, True),
    )


def _pair(tag: str, what: str, i, plain):
    """Declare the YaRN and Llama 3 weights and the scaled inverse frequency of one pair."""
    kept = quantity(
        f"rope_yarn_kept_{tag}",
        yarn_kept(i),
        "fraction",
        f"YaRN: how much of the {what} pair is kept (1) rather than interpolated (0)",
        source="Peng et al. 2023 (YaRN) §3.2",
        topic=T,
    )
    smooth = quantity(
        f"rope_llama3_smooth_{tag}",
        llama3_smooth(plain),
        "fraction",
        f"Llama 3: the smoothing weight of the {what} pair",
        source="transformers _compute_llama3_parameters",
        topic=T,
    )
    yarn = quantity(
        f"rope_yarn_inv_freq_{tag}",
        yarn_inv(plain, kept),
        "1/token",
        f"YaRN: inverse frequency of the {what} pair",
        source="Peng et al. 2023 (YaRN) §3.2",
        topic=T,
    )
    llama3 = quantity(
        f"rope_llama3_inv_freq_{tag}",
        llama3_inv(plain, smooth),
        "1/token",
        f"Llama 3: inverse frequency of the {what} pair",
        source="transformers _compute_llama3_parameters",
        topic=T,
    )
    return quantity(
        f"rope_inv_freq_{tag}",
        inv_freq(i, plain=plain, yarn=yarn, llama3=llama3),
        "1/token",
        f"Inverse frequency of the {what} rotary pair after scaling",
        source=SRC,
        topic=T,
    )


last = rope_dim / 2 - 1
plain_last = quantity(
    "rope_plain_inv_freq_last",
    rope_theta ** (-2 * last / rope_dim),
    "1/token",
    "Unscaled inverse frequency of the last rotary pair, base^(-(d-2)/d)",
    source=SRC,
    topic=T,
)
quantity(
    "rope_wavelength_min_tokens",
    2 * pi / _pair("first", "first", 0, 1),
    "tokens",
    "Shortest rotary wavelength after scaling (pair 0; 2 pi unscaled)",
    source=SRC,
    topic=T,
)
quantity(
    "rope_wavelength_max_tokens",
    2 * pi / _pair("last", "last", last, plain_last),
    "tokens",
    "Longest rotary wavelength after scaling (the last pair; 2 pi base^((d-2)/d) unscaled)",
    source=SRC,
    topic=T,
)
