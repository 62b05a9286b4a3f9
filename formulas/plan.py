"""The plan: traffic and latency targets in; concurrency, replicas, GPUs and dollars out.

Per replica (one deployment of `total_gpus` GPUs in the scenario's layout; `concurrency` is
its requests in flight, as in formulas/load.py), the plan tries a
bounded set of concurrencies, 1, 2, 4, ... 1024 and the engine's own limit
(`offline_concurrency`: batch cap, KV pool, token budget), each evaluated by the ledger's own
TTFT and TPOT re-stated at that concurrency (`restate`: every step that depends on the
concurrency declared again under `<name>_at_<c>`), and keeps the largest that meets both
targets (a target of 0 is no target) and the engine's limit: a Max over formulas, so the
choice stays a workbook formula. 0 = no concurrency meets the targets (every writer prints
"cannot meet the targets").
Replicas for the peak by Little's law (Little 1961, Operations Research 9(3): L = lambda W): a
replica holding c requests, each in flight for a request latency W, serves c / W requests per
second, output_tokens_per_s / output tokens; the peak rate over that is the replicas.
Cost at the mean load: every GPU of the plan is paid for every hour (rented: the GPU-hour
price; owned: capital and hosting, plus electricity at the mean utilisation between idle and
busy power), spread over the mean day's output tokens.
Shortcuts: requests alike (the workload's prompt and output tokens); no queueing beyond the
concurrency; a replica at partial load draws idle and busy power in proportion to its load.
"""

import sympy as sp
from sympy import And, Eq, Max, Or, Piecewise, ceiling

from ledgerbuild.ledger import LEDGER, Quantity, constant, quantity

from .inputs import (
    busy_power_fraction,
    concurrency,
    expert_parallel,
    gpu_board_power_w,
    gpu_purchase_usd,
    hours_per_day,
    hours_per_year,
    idle_power_fraction,
    months_per_year,
    output_tokens,
    peak_to_mean_ratio,
    power_usd_per_kwh,
    pue,
    requests_per_day,
    seconds_per_hour,
    tokens_per_million,
    tpot_target_s,
    ttft_target_s,
    watts_per_kw,
)
from .load import throughput as output_tokens_per_s
from .load import tpot as tpot
from .load import ttft as ttft
from .memory import total_gpus
from .offline import offline_concurrency
from .ownership import fixed as owned_fixed_usd_per_gpu_hour
from .ownership import gpu_power, rent
from .serving import gpu_price
from .sources import LECTURE

T = "plan"
LITTLE = "Little 1961, A proof for the queuing formula L = lambda W (Operations Research 9(3))"
SRC = "formulas/plan.py: largest concurrency meeting the targets; " + LITTLE
# the candidate concurrencies 1 ... 1024 (and the engine's limit), named: no formula hides a number
CANDIDATES = [
    constant(
        f"concurrency_{2**k}",
        2**k,
        "requests",
        f"A candidate concurrency of the plan: {2**k} requests in flight",
        source="formulas/plan.py (powers of two, as serving benchmarks sweep them)",
        tex=str(2**k),
    )
    for k in range(11)
]
outputs = Max(output_tokens, 1)


def restate(targets, value, suffix):
    """Declare again, under `<name>_<suffix>`, every step of `targets` that depends on the
    concurrency, with the concurrency inputs bound to `value`; returns name -> new symbol."""
    bound = {concurrency: value}
    needed, stack = set(), list(targets)
    while stack:
        name = stack.pop()
        if name in LEDGER.forms and name not in needed:
            needed.add(name)
            stack.extend(s.name for f in LEDGER.forms[name] for s in f.expr.free_symbols)
    renamed: dict = {}
    for name, forms in list(LEDGER.forms.items()):
        uses = {s for f in forms for s in f.expr.free_symbols}
        if name not in needed or not uses & (set(bound) | set(renamed)):
            continue
        new = sp.Symbol(f"{name}_{suffix}")
        for f in forms:
            expr = f.expr.xreplace({**bound, **renamed})
            desc = f"{f.description} (at concurrency {suffix[3:]})"
            LEDGER.add_quantity(Quantity(new.name, expr, f.unit, desc, f.source, T, f.when, f.integer))
        renamed[sp.Symbol(name)] = new
    return {k.name: v for k, v in renamed.items()}


usd_at_concurrency = quantity(
    "concurrency_usd_per_million_output_tokens",
    Piecewise(
        (
            gpu_price * total_gpus / seconds_per_hour * tokens_per_million / output_tokens_per_s,
            output_tokens_per_s > 0,
        ),
        (0, True),
    ),
    "USD",
    "Cost of a million output tokens at the concurrency, every GPU paid for (0 = does not fit)",
    source=LECTURE + " §6.3 at the concurrency (formulas/load.py)",
    topic=T,
)
limit = quantity(
    "plan_concurrency_limit",
    expert_parallel * offline_concurrency,
    "requests",
    "Most requests a deployment runs at once (the engine's limit on every attention replica)",
    source="formulas/offline.py offline_concurrency; formulas/load.py",
    topic=T,
    integer=True,
)
# what each candidate concurrency re-states: the targets, and the frontier's columns
FRONTIER = [
    "ttft_s",
    "tpot_s",
    "tokens_per_s_per_user",
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "concurrency_usd_per_million_output_tokens",
]


def meets(value, at):
    """1 where the concurrency is within the engine's limit and meets both targets."""
    ok_ttft = Or(Eq(ttft_target_s, 0), at["ttft_s"] <= ttft_target_s)
    ok_tpot = Or(Eq(tpot_target_s, 0), at["tpot_s"] <= tpot_target_s)
    return Piecewise((1, And(value <= limit, value >= 1, ok_ttft, ok_tpot)), (0, True))


def candidate(value, label):
    at = restate(FRONTIER, value, f"at_{label}")
    at = {n: at.get(n, sp.Symbol(n)) for n in FRONTIER}  # a figure the concurrency leaves alone
    ok = quantity(
        f"plan_meets_at_{label}",
        meets(value, at),
        "0/1",
        f"1 if concurrency {label} is within the engine's limit and meets both targets",
        source=SRC,
        topic=T,
        integer=True,
    )
    return value, ok, at


choices = [candidate(c, c.name.removeprefix("concurrency_")) for c in CANDIDATES] + [
    candidate(limit, "limit")
]
HALVES = (choices[:6], choices[6:])  # two steps each: no workbook formula runs past 500 characters
best = [
    quantity(
        f"plan_concurrency_{part}",
        Max(*(value * ok for value, ok, _ in half)),
        "requests",
        f"Largest concurrency among the {part} candidates that meets both targets (0 = none)",
        source=SRC,
        topic=T,
        integer=True,
    )
    for part, half in zip(("low", "high"), HALVES, strict=True)
]
concurrency_chosen = quantity(
    "plan_concurrency",
    Max(*best),
    "requests",
    "Largest concurrency per replica that meets both targets (0 = cannot meet the targets)",
    source=SRC,
    topic=T,
    integer=True,
)
found = concurrency_chosen > 0


def chosen(name, unit, description):
    """A frontier figure at plan_concurrency (0 = cannot meet the targets), in two steps."""
    parts = []
    for part, half in zip(("low", "high"), HALVES, strict=True):
        pieces = [(at[name], Eq(concurrency_chosen, value)) for value, _, at in reversed(half)]
        parts.append(
            quantity(
                f"plan_{name}_{part}",
                Piecewise(*pieces, (0, True)),
                unit,
                f"{description.split(' (')[0]}, if it is among the {part} candidates (else 0)",
                source=SRC,
                topic=T,
            )
        )
    pick = Piecewise((parts[1], concurrency_chosen > best[0]), (parts[0], True))
    return quantity(f"plan_{name}", pick, unit, description, source=SRC, topic=T)


chosen("ttft_s", "s", "Median TTFT at plan_concurrency (0 = cannot meet the targets)")
chosen("tpot_s", "s", "Median TPOT at plan_concurrency (0 = cannot meet the targets)")
replica_tokens = chosen(
    "output_tokens_per_s",
    "tokens/s",
    "Output tokens per second of one replica at plan_concurrency (0 = cannot meet the targets)",
)
mean_rate = quantity(
    "plan_mean_requests_per_s",
    requests_per_day / (hours_per_day * seconds_per_hour),
    "requests/s",
    "Mean request rate over the day",
    source=SRC,
    topic=T,
)
replicas = quantity(
    "plan_replicas",
    Piecewise((ceiling(mean_rate * peak_to_mean_ratio * outputs / replica_tokens), found), (0, True)),
    "replicas",
    "Replicas for the peak: peak request rate x output tokens / a replica's output tokens/s, "
    "rounded up (Little's law: a replica at concurrency c serves c / latency requests/s; 0 = cannot "
    "meet the targets)",
    source=LITTLE,
    topic=T,
    integer=True,
)
gpus = quantity(
    "plan_gpus",
    replicas * total_gpus,
    "GPUs",
    "GPUs of the plan: replicas x GPUs per replica (0 = cannot meet the targets)",
    source=SRC,
    topic=T,
    integer=True,
)
utilisation = quantity(
    "plan_utilisation",
    Piecewise((mean_rate * outputs / (replicas * replica_tokens), found), (0, True)),
    "fraction",
    "Mean load over the plan's capacity (mean output tokens/s / the replicas' output tokens/s)",
    source=LITTLE,
    topic=T,
)
mean_power = quantity(
    "plan_gpu_power_w",
    gpu_board_power_w * (idle_power_fraction + (busy_power_fraction - idle_power_fraction) * utilisation),
    "W",
    "Mean power of one GPU of the plan: idle power plus the busy share of the rest",
    source="formulas/ownership.py power model at the plan's utilisation",
    topic=T,
)
hourly = quantity(
    "plan_usd_per_gpu_hour",
    Piecewise(
        (
            owned_fixed_usd_per_gpu_hour + mean_power / watts_per_kw * pue * power_usd_per_kwh,
            gpu_purchase_usd > 0,
        ),
        (rent, True),
    ),
    "USD/GPU-hour",
    "Cost of one GPU-hour of the plan: owned (capital, hosting, electricity at the mean power) or rented",
    source="formulas/ownership.py",
    topic=T,
)
per_month = quantity(
    "plan_usd_per_month",
    gpus * hourly * hours_per_year / months_per_year,
    "USD/month",
    "Cost of the plan per month: every GPU every hour, idle capacity paid for (0 = cannot meet the targets)",
    source=SRC,
    topic=T,
)
tokens_per_month = quantity(
    "plan_output_tokens_per_month",
    requests_per_day * outputs * hours_per_year / hours_per_day / months_per_year,
    "tokens/month",
    "Output tokens the plan serves in a mean month",
    source=SRC,
    topic=T,
)
quantity(
    "plan_usd_per_million_output_tokens",
    Piecewise((per_month * tokens_per_million / tokens_per_month, found), (0, True)),
    "USD",
    "Cost of a million output tokens at the mean load (idle capacity paid for; 0 = cannot meet the targets)",
    source=SRC,
    topic=T,
)
quantity(
    "plan_meets_targets",
    Piecewise((1, found), (0, True)),
    "0/1",
    "1 if some concurrency meets both targets within the engine's limit",
    source=SRC,
    topic=T,
    integer=True,
)
quantity(
    "joules_per_output_token",
    Piecewise((gpu_power * total_gpus / output_tokens_per_s, output_tokens_per_s > 0), (0, True)),
    "J/token",
    "GPU energy per output token at the operating point (concurrency; 0 = offline), facility excluded",
    source="formulas/ownership.py power model / output_tokens_per_s",
    topic=T,
)
quantity(
    "plan_joules_per_output_token",
    Piecewise((mean_power * gpus * pue / (mean_rate * outputs), found), (0, True)),
    "J/token",
    "Facility energy per output token of the plan at the mean load (GPUs x mean power x PUE)",
    source="formulas/ownership.py power model at the plan's utilisation",
    topic=T,
)
