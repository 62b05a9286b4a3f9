"""Inputs: the plan: traffic and latency targets (formulas/plan.py).

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

import sympy as sp

from ledgerbuild.ledger import constant, scenario_input

from .constants import SI

# --- the plan: traffic and latency targets (formulas/plan.py) ------------------------------
MLPERF = (
    "MLCommons inference loadgen/mlperf.conf: llama2-70b.Server.ttft_latency = 2000 ms, "
    "tpot_latency = 200 ms (MLPerf bounds the p99; the ledger's TTFT and TPOT are medians)"
)
hours_per_day = constant("hours_per_day", 24, "h/day", "Hours in a day", source=SI, tex="24")
requests_per_day = scenario_input(
    "requests_per_day",
    "requests/day",
    "Requests the service answers in a day (mean traffic)",
    default=1000000,
    lo=1,
    hi=10**12,
    source="illustrative (issue 28's planning question); set your own",
)
peak_to_mean_ratio = scenario_input(
    "peak_to_mean_ratio",
    "1",
    "Request rate in the busiest hour over the day's mean rate (the plan is sized for the peak)",
    default=2,
    lo=1,
    hi=10**4,
    source="illustrative: measure yours (the peak hour's requests x 24 / the day's requests)",
)
ttft_target_s = scenario_input(
    "ttft_target_s",
    "s",
    "Largest median time to first token users accept (0 = no target)",
    default=2,
    lo=0,
    source=MLPERF,
)
tpot_target_s = scenario_input(
    "tpot_target_s",
    "s",
    "Largest median time per output token users accept (0 = no target)",
    default=sp.Rational(2, 10),
    lo=0,
    source=MLPERF,
)
