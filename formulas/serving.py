"""Serving estimate: full-batch step, throughput, dollars per million output tokens.

Lecture §6.3 (seeds/000): concurrency = min(batch cap, KV capacity / tokens per request); a
full-batch decode step under the time model in force; throughput = concurrency / step time;
cost = GPU price per second / output tokens per second. Shortcut: prefill time is not charged
(the lecture's calculator charges decode steps only; its step is at the mean context) and
pipeline stages are not overlapped; `offline.py` is the estimate that charges both.
"""

from sympy import Piecewise

from ledgerbuild.ledger import quantity

from .inputs import (
    expert_parallel,
    gpu_purchase_usd,
    output_tokens,
    seconds_per_hour,
    tokens_per_million,
)
from .latency import decode_step
from .memory import max_concurrency, total_gpus
from .ownership import owned as owned_usd_per_gpu_hour
from .ownership import rent as rent_usd_per_gpu_hour
from .sources import LECTURE

T = "serving"
S63 = LECTURE + " §6.3"

gpu_price = quantity(
    "gpu_price_usd_per_hour",
    Piecewise((owned_usd_per_gpu_hour, gpu_purchase_usd > 0), (rent_usd_per_gpu_hour, True)),
    "USD/GPU-hour",
    "Cost of one GPU-hour: owned (gpu_purchase_usd > 0: capital, hosting, electricity), else rented "
    "(the price you set, else the GPU's list price, else the default price)",
    source="formulas/ownership.py; GPU table (each price with its provider page and date); " + S63,
    topic=T,
)
_, full_batch_step = decode_step("full_batch", max_concurrency, S63)
full_batch_step_s = quantity(
    "full_batch_step_s", full_batch_step, "s", "Decode step time at max_concurrency", source=S63, topic=T
)
throughput = quantity(
    "throughput_tokens_per_s",
    expert_parallel * max_concurrency / full_batch_step_s,
    "tokens/s",
    "Output tokens per second of the whole deployment",
    source=S63,
    topic=T,
)
quantity(
    "tokens_per_s_per_user_full_batch",
    1 / full_batch_step_s,
    "tokens/s",
    "Decode speed one user sees at full batch",
    source=S63 + " demo 4",
    topic=T,
)
usd_per_million = quantity(
    "usd_per_million_output_tokens",
    Piecewise(
        (gpu_price * total_gpus / seconds_per_hour * tokens_per_million / throughput, max_concurrency > 0),
        (0, True),
    ),
    "USD",
    "Cost of a million output tokens (floor under the time model); "
    "0 = does not fit (no request's KV fits beside the weights)",
    source=S63,
    topic=T,
)
quantity(
    "usd_per_request",
    usd_per_million * output_tokens / tokens_per_million,
    "USD",
    "Cost of one request's output tokens",
    source=S63 + " demo 2-3",
    topic=T,
)
