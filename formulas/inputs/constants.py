"""Inputs: named unit conversions and numeric constants (no formula hides a number; the
workbook lists them on Inputs).

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

import sympy as sp

from ledgerbuild.ledger import constant

# --- unit conversions, named (no formula hides a number; the workbook lists them on Inputs) -
SI = "SI prefixes (BIPM SI Brochure, 9th ed., Table 7)"
IEC = "IEC 80000-13 binary prefixes"
seconds_per_hour = constant("seconds_per_hour", 3600, "s/h", "Seconds in an hour", source=SI, tex="3600")
tokens_per_million = constant(
    "tokens_per_million",
    10**6,
    "tokens",
    "Tokens in a million (prices are per million tokens)",
    source=SI,
    tex="10^{6}",
)
bits_per_byte = constant("bits_per_byte", 8, "bits/byte", "Bits in a byte", source=IEC, tex="8")
bytes_per_mib = constant("bytes_per_mib", 2**20, "bytes/MiB", "Bytes in a MiB", source=IEC, tex="2^{20}")
bytes_per_gib = constant("bytes_per_gib", 2**30, "bytes/GiB", "Bytes in a GiB", source=IEC, tex="2^{30}")
per_giga = constant("per_giga", 10**9, "1/G", "Units in a giga-unit (GB/s -> B/s)", source=SI, tex="10^{9}")
per_tera = constant(
    "per_tera",
    10**12,
    "1/T",
    "Units in a tera-unit (TFLOP/s -> FLOP/s, TB/s -> B/s)",
    source=SI,
    tex="10^{12}",
)
seconds_per_microsecond = constant(
    "seconds_per_microsecond",
    sp.Rational(1, 10**6),
    "s/us",
    "Seconds in a microsecond",
    source=SI,
    tex="10^{-6}",
)
underflow_exponent = constant(
    "underflow_exponent",
    700,
    "1",
    "x beyond which e^-x is taken as 0 "
    "(e^-700 = 1e-304, near a double's smallest normal 2.2e-308; "
    "LibreOffice errs rather than underflow to 0)",
    source="IEEE 754 binary64",
    tex="700",
)
yarn_mscale_coefficient = constant(
    "yarn_mscale_coefficient",
    sp.Rational(1, 10),
    "1",
    "YaRN's attention-temperature slope: sqrt(1/t) = 0.1 ln s + 1",
    source="Peng et al. 2023 (YaRN) eq. 22",
    tex="0.1",
)
ramp_epsilon = constant(
    "ramp_epsilon",
    sp.Rational(1, 1000),
    "pairs",
    "YaRN ramp width when its two ends meet (avoids 0/0)",
    source="transformers modeling_rope_utils linear_ramp_factor",
    tex="0.001",
)
ms_per_second = constant(
    "ms_per_second", 1000, "ms/s", "Milliseconds in a second (latencies shown in ms)", source=SI, tex="10^{3}"
)
