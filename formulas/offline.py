"""Offline serving: output tokens per second when every request is queued, and its cost.

What engines measure with all requests queued at once (TensorRT-LLM trtllm-bench, vLLM's
offline benchmark): in-flight batching keeps `offline_concurrency` requests running; each
forward step of a pipeline stage carries one decode token for each of its requests plus, with
chunked prefill, the prompt tokens of the requests that replace the finished ones
(prompt / output of them per decode token, in steady state). Concurrency is the least of the
engine's batch cap, the requests whose whole KV fits its pool (no eviction), and the requests
whose decode and prefill tokens fit its per-step token budget. A pipeline of P stages keeps P
micro-batches in flight, one per stage.

A stage step's routed-expert FLOPs run at expert_efficiency x mfu (grouped GEMMs on few tokens
per expert) and, under expert parallelism, wait for the busiest GPU (expert_imbalance); with
attention data parallelism the step also waits for the rank prefilling the most (moe_serving.py),
and the routed-expert bytes are the mean over pure-decode steps and steps carrying a chunk.
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
    expert_efficiency,
    expert_imbalance,
    expert_parallel,
    hbm_bandwidth_bytes_per_s,
    input_token_price_ratio,
    max_batch,
    max_num_tokens,
    mfu,
    num_experts_per_tok,
    num_hidden_layers,
    output_tokens,
    pipeline_parallel,
    seconds_per_hour,
    tokens_per_million,
)
from .kv_cache import kv_bytes_read_decode
from .latency import (
    link_time,
    step_time,
    weights_read_per_gpu,
)
from .memory import kv_capacity_requests, kv_share_per_gpu, replica_gpus, total_gpus
from .moe_serving import ADP, attention_dp_busiest_prompts, mixed_step_experts_unread
from .numerics import peak_flops_per_s, weight_dequant_factor
from .params import num_moe_layers, params_expert
from .serving import gpu_price
from .sources import LECTURE, NCCL, TRTLLM

T = "offline"
outputs = Max(output_tokens, 1)  # the prefill itself yields the first token
SRC = LECTURE + " §6.3 (extended: prefill charged); " + TRTLLM
routed_flops_per_token = quantity(
    "routed_expert_flops_per_token",
    2 * num_moe_layers * num_experts_per_tok * params_expert,
    "FLOP",
    "FLOPs of the routed experts a token passes through (2 per weight, k experts per MoE layer)",
    source=LECTURE + " §4 (2 FLOPs per weight); DeepSeek-V3 report §2.1.2 (top-k routing)",
    topic=T,
    when="moe",
)
quantity(
    "routed_expert_flops_per_token", 0, "FLOP", "Dense model: no routed experts", source=LECTURE, topic=T
)

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


def stage_step(prefix, micro, prompts, source):
    """Declare one pipeline stage's forward step under the time model in force, carrying one
    decode token for each of `micro` sequences and the prefill chunks of `prompts` prompts
    (chunks summing to that many whole prompts); returns (step, compute floor, memory floor)."""
    tokens = quantity(
        f"{prefix}_step_tokens",
        micro + prompts * prefill_tokens,
        "tokens",
        "Tokens per stage step: one decode token per sequence plus the prefill chunks mixed in "
        "(chunked prefill)",
        source=source,
        topic=T,
    )
    flops = quantity(
        f"{prefix}_step_flops",
        micro * flops_per_token + prompts * flops_prefill,
        "FLOP",
        "FLOPs of the step's decode tokens and prefill chunks (the whole model; a stage runs 1/P)",
        source=source,
        topic=T,
    )
    unread, prompts, spans = mixed_step_experts_unread(prefix, micro, prompts, source)
    busiest = attention_dp_busiest_prompts(prefix, prompts, spans)
    adp_wait = quantity(
        f"{prefix}_adp_wait_flops",
        (busiest - prompts) * (flops_prefill - prefill_tokens * routed_flops_per_token),
        "FLOP",
        "Prefill FLOPs (attention and every weight but the routed experts) the busiest attention "
        "data-parallel rank runs in a step beyond the mean rank's, while the others wait",
        source=ADP,
        topic=T,
    )
    weights_read = weights_read_per_gpu(unread)
    step_bytes = quantity(
        f"{prefix}_bytes_per_gpu",
        weights_read + micro * kv_bytes_read_decode * kv_share_per_gpu,
        "bytes",
        "HBM bytes one GPU reads in a stage step (weights, the micro-batch's KV)",
        source=source,
        topic=T,
    )
    compute_floor = quantity(
        f"{prefix}_compute_floor_s",
        flops / (replica_gpus * peak_flops_per_s),
        "s",
        "Stage step compute at peak FLOP/s",
        source=source,
        topic=T,
    )
    memory_floor = quantity(
        f"{prefix}_memory_floor_s",
        step_bytes / hbm_bandwidth_bytes_per_s,
        "s",
        "Stage step HBM reads at peak bandwidth",
        source=source,
        topic=T,
    )
    link = quantity(
        f"{prefix}_link_s",
        link_time(prefix, tokens, num_hidden_layers / pipeline_parallel),
        "s",
        "Stage step all-reduces and hand-off under the time model",
        source=NCCL,
        topic=T,
    )
    routed = routed_flops_per_token
    slowest = Piecewise((expert_imbalance, expert_parallel > 1), (1, True))  # EP: the busiest GPU
    compute = quantity(
        f"{prefix}_compute_s",
        (
            compute_floor
            + ((slowest / expert_efficiency - 1) * tokens * routed + adp_wait)
            / (replica_gpus * peak_flops_per_s)
        )
        / mfu,
        "s",
        "Stage step compute under the time model (at mfu; routed experts at expert_efficiency x mfu; "
        "the busiest attention data-parallel rank's prefill)",
        source=source,
        topic=T,
    )
    memory = quantity(
        f"{prefix}_memory_s",
        (memory_floor + (weight_dequant_factor - 1) * weights_read / hbm_bandwidth_bytes_per_s)
        / bandwidth_efficiency,
        "s",
        "Stage step HBM time under the time model (dequantisation included)",
        source=source,
        topic=T,
    )
    step = quantity(
        f"{prefix}_step_s",
        step_time(compute, memory, link, micro, num_hidden_layers / pipeline_parallel),
        "s",
        "Stage step time under the time model in force",
        source=source,
        topic=T,
    )
    return step, compute_floor, memory_floor


# in steady state each sequence is replaced after `outputs` steps: micro / outputs prompts a step
step, compute_floor, memory_floor = stage_step("offline", micro_batch, micro_batch / outputs, SRC)
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
