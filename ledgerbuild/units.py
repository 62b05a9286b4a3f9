"""Display units: how writers show a quantity's value (the ledger itself is in base units).

Scope: one table from a ledger unit to its display forms (terminal text, Excel number
format). Bytes show as GB (1e9) with GiB (2^30) beside them; seconds as ms below one second.
"""

from __future__ import annotations

import math
import re

EXCEL_FORMATS = {
    "params": '#,##0 "params"',
    "bytes": '#,##0 "bytes"',
    "USD/GPU-hour": '"$"#,##0.00',
    "GPUs": "#,##0",
    "requests": "#,##0",
    "FLOP": '0.000E+00 "FLOP"',
    "FLOP/s": '0.000E+00 "FLOP/s"',
    "s": '0.000000 "s"',
    "USD": '"$"#,##0.0000;-"$"#,##0.0000;"$"0',
    "fraction": "0.00%",
    "tokens/s": '#,##0.0 "tok/s"',
    "B/s": '0.000E+00 "B/s"',
}


# views for people (Summary, Compare, Scenarios): the header carries the unit
SUMMARY_FORMATS = {
    "USD/month": '"$"#,##0',
    "USD/GPU-hour": '"$"#,##0.00',
    "replicas": "#,##0",
    "0/1": '"yes";"yes";"no"',
    "priced": '"priced";"priced";"not priced (default price)"',
    "params": "#,##0.00,,,",
    "bytes": "#,##0.00,,,",
    "ms": "#,##0.0",
    "bytes/token": "#,##0",
    "USD": '"$"#,##0.000',
    "USD, 0 = not priced": '"$"#,##0.000;-"$"#,##0.000;"not priced"',
    "tokens/s": "#,##0",
    "requests": "#,##0",
    "GPUs": "#,##0",
}
# (label, unit shown, the ledger constant the cell multiplies by, if any) of the quantities
# the views show
VIEW_LABELS = {
    "plan_gpus": ("Plan: GPUs", "GPUs", None),
    "plan_usd_per_month": ("Plan: USD per month", "USD/month", None),
    "plan_usd_per_million_output_tokens": ("Plan: USD per 1M output tokens (mean load)", "USD", None),
    "plan_replicas": ("Plan: replicas", "replicas", None),
    "total_gpus": ("GPUs per replica", "GPUs", None),
    "plan_concurrency": ("Plan: requests in flight per replica", "requests", None),
    "plan_ttft_s": ("Plan: time to first token (ms)", "ms", "ms_per_second"),
    "plan_tpot_s": ("Plan: time per output token (ms)", "ms", "ms_per_second"),
    "plan_meets_targets": ("Plan meets the targets", "0/1", None),
    "gpu_price_usd_per_hour": ("USD per GPU-hour (rented or owned)", "USD/GPU-hour", None),
    "gpu_price_known": ("GPU-hour price: dated public price or yours (else the default)", "priced", None),
    "gpu_count": ("GPUs (tensor parallel)", "GPUs", None),
    "params_total": ("Parameters (billions)", "params", None),
    "params_active": ("Active parameters (billions)", "params", None),
    "weight_bytes": ("Weights (GB)", "bytes", None),
    "kv_bytes_per_token": ("KV cache per token (bytes)", "bytes/token", None),
    "gpus_for_weights": ("GPUs just for the weights", "GPUs", None),
    "max_concurrency": ("Requests in flight (decode-only)", "requests", None),
    "ttft_s": ("Time to first token (ms)", "ms", "ms_per_second"),
    "tpot_s": ("Time per output token (ms)", "ms", "ms_per_second"),
    "offline_throughput_tokens_per_s": ("Output tokens/s (estimate)", "tokens/s", None),
    "offline_ceiling_tokens_per_s": ("Output tokens/s (roofline ceiling)", "tokens/s", None),
    "offline_usd_per_million_output_tokens": ("Cost per 1M output tokens, estimate (USD)", "USD", None),
    "offline_floor_usd_per_million_output_tokens": ("Cost per 1M output tokens, floor (USD)", "USD", None),
    "usd_per_million_output_tokens": ("Cost per 1M output tokens, lecture decode-only (USD)", "USD", None),
    "offline_usd_per_million_output_tokens_input_priced": (
        "Cost per 1M output tokens, input priced too (USD)",
        "USD",
        None,
    ),
    "offline_usd_per_million_input_tokens": (
        "Cost per 1M input tokens (USD)",
        "USD, 0 = not priced",  # 0: the workload's input_token_price_ratio is 0
        None,
    ),
}


def excel_format(unit: str, integer: bool = False) -> str:
    """The Excel number format for a unit (views for people use SUMMARY_FORMATS)."""
    if unit in EXCEL_FORMATS:
        return EXCEL_FORMATS[unit]
    if integer:
        return f'#,##0 "{unit}"'
    return f'[=0]0 "{unit}";[<0.001]0.00E+00 "{unit}";#,##0.0### "{unit}"'  # 1e-6 not as 0.0


def value_format(unit: str, integer: bool = False) -> str:
    """A number format without the unit (the unit is printed in its own column, once): whole
    numbers with separators, others as General (1E-06 stays readable, 0.8 stays 0.8)."""
    if unit == "fraction":
        return "0.00%"
    return "#,##0" if integer else "General"


_NEGATIVE_ZERO = re.compile(r"(?<![\d.,])-(?=0(?:\.0+)?(?![\d.,]))")


def human(value: float, unit: str) -> str:
    """A value with its unit for people: thousands separators, GB and GiB, ms; a value that
    prints as zero prints without a sign (no "-0.000 ms")."""
    return _NEGATIVE_ZERO.sub("", _human(value, unit))


def _human(value: float, unit: str) -> str:
    if isinstance(value, int) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 1e15 and unit not in ("s", "USD")
    ):
        text = f"{int(value):,} {unit}"
        if unit == "bytes" and abs(value) >= 1e6:
            text += f"  ({value / 1e9:,.3f} GB = {value / 2**30:,.3f} GiB)"
        elif unit == "params" and abs(value) >= 1e6:
            text += f"  ({value / 1e9:,.3f} B)"
        return text
    if unit == "s":
        return f"{value * 1e3:,.3f} ms" if abs(value) < 1 else f"{value:,.3f} s"
    if unit == "bytes":
        return f"{value:,.0f} bytes  ({value / 1e9:,.3f} GB = {value / 2**30:,.3f} GiB)"
    if unit == "fraction":
        return f"{value * 100:.2f} %"
    if unit in ("FLOP", "FLOP/s"):
        return f"{value:.4e} {unit}"
    if unit == "USD":
        return f"${value:,.4f}"
    if math.isfinite(value) and abs(value) >= 1000:
        return f"{value:,.1f} {unit}"
    return f"{value:.4g} {unit}"
