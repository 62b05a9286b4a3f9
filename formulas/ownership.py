"""Owning versus renting a GPU: capital recovery, hosting, electricity, the break-even.

An owned GPU costs per hour what its purchase costs per year as an annuity, plus hosting,
plus the electricity it and its share of the facility draw. The annuity is the purchase times
the capital recovery factor CRF = r (1 + r)^n / ((1 + r)^n - 1) (r: cost of capital per year,
n: years; r = 0: 1 / n, straight-line), less the resale value S recovered after n years,
S x r / ((1 + r)^n - 1) = S x (CRF - r) per year (the sinking-fund factor).
Sources: the A/P and A/F factors of engineering economy (Blank & Tarquin, Engineering Economy,
8th ed., §2.3; NREL 'Simple Levelized Cost of Energy (LCOE) Calculator Documentation':
CRF = i(1+i)^n / ((1+i)^n - 1)).
Power: a serving GPU stepping without pause draws busy_power_fraction of its board power
(measured 0.73-0.97 in batched serving); an idle one idle_power_fraction of it. Shortcuts: the
power of the host (CPUs, NICs) sits in hosting, not in electricity; no taxes, no maintenance
contract; the rental price is taken as all-in.
"""

from sympy import Eq, Or, Piecewise

from ledgerbuild.ledger import quantity

from .inputs import (
    busy_power_fraction,
    cost_of_capital,
    default_price_per_gpu_hour,
    depreciation_years,
    gpu_board_power_w,
    gpu_list_price_usd_per_hour,
    gpu_purchase_usd,
    hosting_usd_per_gpu_month,
    hours_per_year,
    idle_power_fraction,
    months_per_year,
    power_usd_per_kwh,
    price_per_gpu_hour,
    pue,
    residual_value_fraction,
    watts_per_kw,
)
from .sources import LECTURE, POWER

T = "ownership"
ECON = "Blank & Tarquin, Engineering Economy (8th ed.) §2.3 A/P and A/F factors; NREL LCOE documentation"

rent = quantity(
    "rent_usd_per_gpu_hour",
    Piecewise(
        (price_per_gpu_hour, price_per_gpu_hour > 0),
        (gpu_list_price_usd_per_hour, gpu_list_price_usd_per_hour > 0),
        (default_price_per_gpu_hour, True),
    ),
    "USD/GPU-hour",
    "Rental price of one GPU-hour: the price you set, else the GPU's list price, else the default price",
    source="GPU table (each price with its provider page and date); " + LECTURE + " §6.3",
    topic=T,
)
quantity(
    "gpu_price_known",
    Piecewise(
        (1, Or(price_per_gpu_hour > 0, gpu_list_price_usd_per_hour > 0, gpu_purchase_usd > 0)), (0, True)
    ),
    "0/1",
    "1 if the GPU-hour cost is known (your price, the GPU's dated list price, or an owned GPU's "
    "purchase); 0: no public price, default_price_per_gpu_hour stands in and rankings put it last",
    source="GPU table (prices: provider, rate type, date, URL; 'no public price' where none)",
    topic=T,
    integer=True,
)
growth = (1 + cost_of_capital) ** depreciation_years
crf = quantity(
    "capital_recovery_factor",
    Piecewise(
        (1 / depreciation_years, Eq(cost_of_capital, 0)),
        (cost_of_capital * growth / (growth - 1), True),
    ),
    "1/year",
    "Capital recovery factor: the share of a purchase paid back each year, interest included "
    "(r = 0: 1 / years)",
    source=ECON,
    topic=T,
)
capital = quantity(
    "capital_usd_per_gpu_year",
    gpu_purchase_usd * crf - residual_value_fraction * gpu_purchase_usd * (crf - cost_of_capital),
    "USD/GPU-year",
    "The purchase as an annuity over depreciation_years, less the resale value recovered at the end",
    source=ECON,
    topic=T,
)
gpu_power = quantity(
    "gpu_power_w",
    gpu_board_power_w * busy_power_fraction,
    "W",
    "Power one GPU draws at its operating point (stepping without pause)",
    source=POWER,
    topic=T,
)
quantity(
    "gpu_idle_power_w",
    gpu_board_power_w * idle_power_fraction,
    "W",
    "Power one GPU draws powered on and idle",
    source=POWER,
    topic=T,
)
energy = quantity(
    "energy_usd_per_gpu_hour",
    gpu_power / watts_per_kw * pue * power_usd_per_kwh,
    "USD/GPU-hour",
    "Electricity of one GPU-hour at the operating point, the facility's overhead (PUE) included",
    source="power x PUE x price per kWh; " + POWER,
    topic=T,
)
fixed = quantity(
    "owned_fixed_usd_per_gpu_hour",
    (capital + hosting_usd_per_gpu_month * months_per_year) / hours_per_year,
    "USD/GPU-hour",
    "What an owned GPU costs per hour whether busy or idle: capital and hosting",
    source=ECON,
    topic=T,
)
owned = quantity(
    "owned_usd_per_gpu_hour",
    fixed + energy,
    "USD/GPU-hour",
    "Cost of one GPU-hour of an owned GPU at its operating point: capital, hosting, electricity",
    source=ECON,
    topic=T,
)
quantity(
    "energy_share_of_owned_cost",
    energy / owned,
    "fraction",
    "Share of an owned GPU-hour's cost that is electricity",
    source=ECON,
    topic=T,
)
annuity_per_usd = crf - residual_value_fraction * (crf - cost_of_capital)
quantity(
    "breakeven_gpu_purchase_usd",
    (rent - energy - hosting_usd_per_gpu_month * months_per_year / hours_per_year)
    * hours_per_year
    / annuity_per_usd,
    "USD/GPU",
    "Purchase price at which owning costs what renting costs, every hour in use "
    "(buy below it, rent above it; negative: renting wins at any price)",
    source=ECON,
    topic=T,
)
quantity(
    "breakeven_rent_utilisation",
    owned / rent,
    "fraction",
    "Share of the hours you would have to rent for renting to cost what owning does "
    "(needing the GPU for fewer hours: rent; above 1: renting always wins)",
    source=ECON,
    topic=T,
)
