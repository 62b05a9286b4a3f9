"""Inputs for ownership: buying a GPU instead of renting it (formulas/ownership.py).

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

import sympy as sp

from ledgerbuild.ledger import constant, lookup_input, scenario_input

from ..sources import POWER
from .constants import SI

# --- ownership: buying a GPU instead of renting it (formulas/ownership.py) ------------------
# Every default sourced and dated (read 2026-12-01); each is a scenario setting anyone changes.
EIA = "US EIA Electric Power Monthly, Table 5.6.B (average price to ultimate customers, industrial, 2024)"
UPTIME = "Uptime Institute Global Data Center Survey 2024 (average annual PUE 1.56 at the largest site)"
hours_per_year = constant(
    "hours_per_year", 8760, "h/year", "Hours in a (365-day) year", source=SI, tex="8760"
)
months_per_year = constant("months_per_year", 12, "months/year", "Months in a year", source=SI, tex="12")
watts_per_kw = constant("watts_per_kw", 1000, "W/kW", "Watts in a kilowatt", source=SI, tex="10^{3}")
gpu_board_power_w = lookup_input(
    "gpu_board_power_w",
    "W",
    "Board power of one GPU (TDP / TBP as the datasheet states it)",
    key="gpu",
    column="tdp_w",
    source="GPU table: each board power with its datasheet",
)
gpu_purchase_usd = scenario_input(
    "gpu_purchase_usd",
    "USD/GPU",
    "Purchase price of one GPU with its share of the server (0 = rent at the GPU-hour price)",
    default=0,
    lo=0,
    source="your quote; 0 keeps the rental price",
)
depreciation_years = scenario_input(
    "depreciation_years",
    "years",
    "Years over which the purchase is recovered",
    default=5,
    lo=1,
    hi=30,
    source="Amazon.com 10-K for 2024, Note 1 (servers' useful life shortened from six to five years, "
    "1 January 2025)",
)
residual_value_fraction = scenario_input(
    "residual_value_fraction",
    "fraction",
    "Resale value at the end of depreciation_years, as a share of the purchase price",
    default=0,
    lo=0,
    hi=1,
    source="straight-line depreciation to zero (the book-value convention of the 10-K above)",
)
cost_of_capital = scenario_input(
    "cost_of_capital",
    "1/year",
    "Annual cost of the money tied up in the purchase (discount rate r)",
    default=sp.Rational(8, 100),
    lo=0,
    hi=1,
    source="Damodaran Online, 'Cost of Capital by Sector (US)', January 2025: computer services "
    "and semiconductor groups near 8-10 %/year",
)
power_usd_per_kwh = scenario_input(
    "power_usd_per_kwh",
    "USD/kWh",
    "Price of a kWh of electricity at the facility meter",
    default=sp.Rational(81, 1000),
    lo=0,
    hi=10,
    source=EIA + ": US industrial average about 8.1 US cents/kWh",
)
pue = scenario_input(
    "pue",
    "1",
    "Power usage effectiveness: facility power / IT power",
    default=sp.Rational(156, 100),
    lo=1,
    hi=5,
    source=UPTIME,
)
hosting_usd_per_gpu_month = scenario_input(
    "hosting_usd_per_gpu_month",
    "USD/GPU-month",
    "Space, cooling capacity and operations per GPU and month, electricity excluded",
    default=235,
    lo=0,
    source="CBRE North America Data Center Trends H2 2024 (average asking colocation rent about "
    "184 USD/kW/month, 250-500 kW) x 1.275 kW per GPU (NVIDIA DGX H100 datasheet: 10.2 kW max for 8 GPUs)",
)
idle_power_fraction = scenario_input(
    "idle_power_fraction",
    "fraction",
    "Power an idle, powered-on GPU draws, as a share of its board power",
    default=sp.Rational(15, 100),
    lo=0,
    hi=1,
    source="measured idle 62 W of 400 W on A100-80GB (chuyishang/inference-energy "
    "results_paste.md, commit 6e617d2; nvidia-smi); 80 W of 700 W on H200 (serialalice.pt GPU energy "
    "benchmark, 2026)",
)

busy_power_fraction = scenario_input(
    "busy_power_fraction",
    "fraction",
    "Power a GPU draws while it steps without pause (serving at its operating point), "
    "as a share of its board power",
    default=sp.Rational(85, 100),
    lo=0,
    hi=1,
    source=POWER,
)
