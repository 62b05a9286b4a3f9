"""Stand-in for branch `load`'s formulas/load.py until it is merged (then this file goes).

It declares only what the plan reads under the names branch `load` declares: the scenario
input `concurrency` (0 = offline) and `output_tokens_per_s`, `output_tokens_per_s_per_gpu`
at it. Its latency is the lecture's (formulas/latency.py): TTFT is the prefill alone, TPOT a
decode step of `batch_size` sequences, so the plan re-binds batch_size with the concurrency.
Shortcut (the one branch `load` removes): no queueing, no prefill mixed into decode steps.
"""

from sympy import Eq, Max, Min, Piecewise, Symbol

from ledgerbuild.ledger import quantity, scenario_input

from .inputs import expert_parallel, output_tokens
from .memory import total_gpus
from .offline import offline_concurrency, throughput
from .sources import LECTURE

T = "load"
SRC = LECTURE + " §6.2-6.3 (stand-in for branch load)"
concurrency = scenario_input(
    "concurrency",
    "requests",
    "Requests in flight, as a benchmark client's max concurrency (0 = offline: all queued)",
    default=0,
    lo=0,
    integer=True,
    source="vLLM benchmark_serving --max-concurrency",
)
in_flight = quantity(
    "load_concurrency",
    Piecewise((offline_concurrency, Eq(concurrency, 0)), (Min(concurrency, offline_concurrency), True)),
    "requests",
    "Requests in flight per replica: the concurrency, at most the engine's limit (0: the limit)",
    source=SRC,
    topic=T,
)
output_tokens_per_s = quantity(
    "output_tokens_per_s",
    Piecewise(
        (throughput, Eq(concurrency, 0)),
        (expert_parallel * in_flight * Max(output_tokens, 1) / Symbol("request_latency_s"), True),
    ),
    "tokens/s",
    "Output tokens per second of the deployment at the concurrency (Little's law)",
    source=SRC,
    topic=T,
)
quantity(
    "output_tokens_per_s_per_gpu",
    output_tokens_per_s / total_gpus,
    "tokens/s",
    "Output tokens per second per GPU at the concurrency",
    source=SRC,
    topic=T,
)
