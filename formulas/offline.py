"""Offline serving: output tokens per second when every request is queued, and its cost.

What engines measure with all requests queued at once (TensorRT-LLM trtllm-bench, vLLM's
offline benchmark): in-flight batching keeps `offline_concurrency` requests running; each
forward step of a pipeline stage carries one decode token for each of its requests plus, with
chunked prefill, the prompt tokens of the requests that replace the finished ones
(prompt / output of them per decode token, in steady state). Concurrency is the least of the
engine's batch cap, the requests whose whole KV fits its pool (no eviction), and the requests
whose decode and prefill tokens fit its per-step token budget. A pipeline of P stages keeps P
micro-batches in flight, one per stage.

The ceiling (`offline_ceiling_tokens_per_s`) is the same step at the roofline: every FLOP at
peak and every HBM byte at peak bandwidth, overlapped, with no link time and no overheads;
no engine on this hardware exceeds it. The estimate charges the time model in
force (default `calibrated`: fitted per GPU to measured throughput).
Shortcuts: steady state (ramp-up and drain not charged); attention at the mean context; MoE
routing uniform; a request yields at least its first token (output_tokens 0 counts as 1).
"""

from sympy import Max, Min, Piecewise, floor

from ledgerbuild.ledger import quantity

from .flops import flops_per_token, flops_prefill, prefill_tokens
from .inputs import (
    bandwidth_efficiency,
    expert_parallel,
    hbm_bandwidth_bytes_per_s,
    input_token_price_ratio,
    max_batch,
    max_num_tokens,
    mfu,
    num_hidden_layers,
    output_tokens,
    pipeline_parallel,
    seconds_per_hour,
    tokens_per_million,
)
from .kv_cache import kv_bytes_read_decode
from .latency import (
    experts_unread,
    link_time,
    step_time,
    weights_read_per_gpu,
)
from .memory import kv_capacity_requests, kv_share_per_gpu, replica_gpus, total_gpus
from .numerics import peak_flops_per_s, weight_dequant_factor
from .serving import gpu_price
from .sources import LECTURE, NCCL, TRTLLM

T = "offline"
outputs = Max(output_tokens, 1)  # the prefill itself yields the first token
SRC = LECTURE + " §6.3 (extended: prefill charged); " + TRTLLM

offline_concurrency = quantity(
    "offline_concurrency",
    Min(max_batch, kv_capacity_requests, floor(max_num_tokens * outputs / (prefill_tokens + outputs))),
    "requests",
    "Requests in flight: min(batch cap, KV pool / request KV, token budget per "
    "step / (prompt + output) x output)",
    source=SRC,
    topic=T,
    integer=True,
)
micro_batch = quantity(
    "offline_micro_batch",
    offline_concurrency / pipeline_parallel,
    "requests",
    "Requests one pipeline stage steps at a time",
    source=SRC,
    topic=T,
)
step_tokens = quantity(
    "offline_step_tokens",
    micro_batch * (prefill_tokens + outputs) / outputs,
    "tokens",
    "Tokens per stage step: one decode token per request plus its share of prefill (chunked prefill)",
    source=SRC,
    topic=T,
)
flops_per_output_token = quantity(
    "offline_flops_per_output_token",
    flops_per_token + flops_prefill / outputs,
    "FLOP",
    "FLOPs per output token, the prompt's prefill shared out",
    source=SRC,
    topic=T,
)
unread = experts_unread(
    "offline_experts_unread_bytes", floor(step_tokens), "a step of offline_step_tokens", SRC
)
weights_read = weights_read_per_gpu(unread)
step_bytes = quantity(
    "offline_bytes_per_gpu",
    weights_read + micro_batch * kv_bytes_read_decode * kv_share_per_gpu,
    "bytes",
    "HBM bytes one GPU reads in a stage step (weights, the micro-batch's KV)",
    source=SRC,
    topic=T,
)
compute_floor = quantity(
    "offline_compute_floor_s",
    micro_batch * flops_per_output_token / (replica_gpus * peak_flops_per_s),
    "s",
    "Stage step compute at peak FLOP/s",
    source=SRC,
    topic=T,
)
memory_floor = quantity(
    "offline_memory_floor_s",
    step_bytes / hbm_bandwidth_bytes_per_s,
    "s",
    "Stage step HBM reads at peak bandwidth",
    source=SRC,
    topic=T,
)
link = quantity(
    "offline_link_s",
    link_time("offline", step_tokens, num_hidden_layers / pipeline_parallel),
    "s",
    "Stage step all-reduces and hand-off under the time model",
    source=NCCL,
    topic=T,
)
compute = quantity(
    "offline_compute_s",
    compute_floor / mfu,
    "s",
    "Stage step compute under the time model (at mfu)",
    source=SRC,
    topic=T,
)
memory = quantity(
    "offline_memory_s",
    (memory_floor + (weight_dequant_factor - 1) * weights_read / hbm_bandwidth_bytes_per_s)
    / bandwidth_efficiency,
    "s",
    "Stage step HBM time under the time model (dequantisation included)",
    source=SRC,
    topic=T,
)
step = quantity(
    "offline_step_s",
    step_time(compute, memory, link, micro_batch),
    "s",
    "Stage step time under the time model in force",
    source=SRC,
    topic=T,
)
fits = offline_concurrency > 0
throughput = quantity(
    "offline_throughput_tokens_per_s",
    Piecewise((expert_parallel * micro_batch / step, fits), (0, True)),
    "tokens/s",
    "Output tokens per second of the deployment, all requests queued "
    "(estimate under the time model; 0 = does not fit)",
    source=SRC,
    topic=T,
)
ceiling = quantity(
    "offline_ceiling_tokens_per_s",
    Piecewise((expert_parallel * micro_batch / Max(compute_floor, memory_floor), fits), (0, True)),
    "tokens/s",
    "Roofline ceiling of offline throughput: no engine exceeds it (0 = does not fit)",
    source=SRC,
    topic=T,
)


def usd_per_million(tokens_per_s):
    return Piecewise(
        (gpu_price * total_gpus / seconds_per_hour * tokens_per_million / tokens_per_s, fits), (0, True)
    )


quantity(
    "offline_usd_per_million_output_tokens",
    usd_per_million(throughput),
    "USD",
    "Cost of a million output tokens, prefill charged (estimate; 0 = does not fit)",
    source=SRC,
    topic=T,
)
quantity(
    "offline_floor_usd_per_million_output_tokens",
    usd_per_million(ceiling),
    "USD",
    "Floor of that cost at the roofline ceiling (0 = does not fit)",
    source=SRC,
    topic=T,
)
# input tokens priced too (the workload's ratio r): the same GPU cost spread over output tokens
# and r x input tokens, so out x p_out + in x p_in = cost with p_in = r x p_out
priced_tokens_per_s = quantity(
    "offline_priced_tokens_per_s",
    Piecewise(
        (throughput * (1 + input_token_price_ratio * prefill_tokens / output_tokens), output_tokens > 0),
        (throughput, True),
    ),
    "tokens/s",
    "Output tokens per second plus input tokens per second weighted by the input price ratio",
    source=SRC,
    topic=T,
)
usd_out_input_priced = quantity(
    "offline_usd_per_million_output_tokens_input_priced",
    usd_per_million(priced_tokens_per_s),
    "USD",
    "Cost of a million output tokens when input tokens are priced too (estimate; equals "
    "the output-only cost when the workload prices no input; 0 = does not fit)",
    source=SRC,
    topic=T,
)
quantity(
    "offline_usd_per_million_input_tokens",
    input_token_price_ratio * usd_out_input_priced,
    "USD",
    "Cost of a million input tokens at the workload's input price ratio (estimate)",
    source=SRC,
    topic=T,
)
