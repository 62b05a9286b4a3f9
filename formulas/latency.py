"""Latency floors and estimates: TTFT, TPOT, the time model, communication, decode share.

Lecture §6.2 (seeds/000): TTFT >= prefill FLOPs / aggregate peak; TPOT >= bytes read per step
/ aggregate bandwidth. The time model is named, never implicit: a step takes
overlap x max(compute, memory, link) + (1 - overlap) x (compute + memory + link) + a fixed
overhead + an overhead per sequence + an overhead per layer (its kernels' launch, ramp-up and
teardown, when no weight is loaded: Hazy Research 2025; an MoE layer pays it twice, its router,
top-k, token alignment, two grouped GEMMs and combine being as many kernels again as a dense
layer's: vllm-project/vllm@13cb3e44 fused_moe.py fused_experts), with compute = FLOPs / (GPUs x
mfu x peak), memory = bytes per GPU / (bandwidth_efficiency x bandwidth) and link =
tensor-parallel all-reduces (two per layer: after attention and after the MLP; ring: 2(n-1)/n x
message / link bandwidth + 2(n-1) hop latencies, NCCL's model), the MoE token exchange over
attention data-parallel replicas (all-gather in, reduce-scatter out: moe.py) plus pipeline
hand-offs. The time-model table holds the presets (roofline: 1, 1, 1, 0, 0) and the calibrated
fits. A request crosses the pipeline stages one after another, so its latency pays every stage.
An MoE decode step at batch B leaves E (1 - k/E)^B experts per layer unread under uniform
routing (batch 1: reads exactly k; 0 once B k / E > 700 (1 - k / E), where it is below e^-700).
"""

from sympy import Max, Piecewise

from ledgerbuild.ledger import quantity

from .flops import flops_per_token, flops_prefill, flops_prefill_2n, prefill_tokens
from .inputs import (
    activation_dtype_bytes,
    allreduce_efficiency,
    allreduce_latency_s,
    bandwidth_efficiency,
    batch_size,
    count_embedding_read,
    expert_parallel,
    hbm_bandwidth_bytes_per_s,
    hidden_size,
    interconnect_bytes_per_s,
    interconnect_hop_latency_s,
    layer_overhead_s,
    mfu,
    moe_intermediate_size,
    n_routed_experts,
    num_experts_per_tok,
    num_hidden_layers,
    output_tokens,
    overlap,
    pipeline_parallel,
    sequence_overhead_s,
    step_overhead_s,
    underflow_exponent,
)
from .kv_cache import kv_bytes_prompt, kv_bytes_read_decode
from .memory import (
    gpu_count,
    kv_share_per_gpu,
    replica_gpus,
    total_gpus,
    weight_bytes,
    weight_bytes_per_gpu,
)
from .moe import ADP_EXCHANGE, adp_exchange_bytes, all_to_all_bytes, routed_expert_bytes
from .numerics import embedding_bytes, expert_dtype_bytes, peak_flops_per_s, weight_dequant_factor
from .params import num_moe_layers, params_expert
from .sources import DEEPSEEK_V3, LECTURE, NCCL, PIPELINE, PREREQ, SHAPES

T = "latency"
S62 = LECTURE + " §6.2"


def step_time(compute_s, memory_s, link_s, sequences, layers):
    """One forward step through `layers` transformer layers under the time model in force."""
    return (
        overlap * Max(compute_s, memory_s, link_s)
        + (1 - overlap) * (compute_s + memory_s + link_s)
        + step_overhead_s
        + sequences * sequence_overhead_s
        # an MoE layer's kernels twice over: router, top-k, alignment, two grouped GEMMs, combine
        # (vllm-project/vllm@13cb3e44 vllm/model_executor/layers/fused_moe/fused_moe.py fused_experts)
        + layers * (1 + num_moe_layers / num_hidden_layers) * layer_overhead_s
    )


def compute_time(flops, gpus=gpu_count):
    return flops / (gpus * mfu * peak_flops_per_s)


def memory_time(bytes_per_gpu):
    return bytes_per_gpu / (bandwidth_efficiency * hbm_bandwidth_bytes_per_s)


allreduce_bytes_per_token_layer = quantity(
    "allreduce_bytes_per_token_layer",
    2 * 2 * (gpu_count - 1) / gpu_count * hidden_size * activation_dtype_bytes,
    "bytes",
    "Bytes one GPU sends per token per layer in the tensor-parallel all-reduces: two ring "
    "all-reduces (after attention, after the MLP), each 2 (n - 1) / n x d x activation bytes",
    source=NCCL + "; Megatron-LM (Shoeybi et al. 2019, arXiv:1909.08053) §3: two all-reduces per layer",
    topic=T,
)


def link_time(prefix, tokens, layers):
    """Two ring all-reduces per layer over the tensor-parallel group, the token exchange of every
    MoE layer under expert parallelism (all-gather and reduce-scatter over the attention replicas,
    declared as `<prefix>_expert_exchange_s`), and the hand-offs between pipeline stages, for a
    step of `tokens` tokens (per replica) through `layers` layers."""
    message = tokens * hidden_size * activation_dtype_bytes
    ring_latency = 2 * (gpu_count - 1) * interconnect_hop_latency_s + allreduce_latency_s
    allreduces = Piecewise(
        (0, gpu_count <= 1),
        (
            layers
            * tokens
            * allreduce_bytes_per_token_layer
            / (allreduce_efficiency * interconnect_bytes_per_s)
            + 2 * layers * ring_latency,
            True,
        ),
    )
    # expert parallelism over attention data-parallel replicas: every MoE layer all-gathers the
    # other EP - 1 replicas' tokens and reduce-scatters their expert outputs back (moe.py)
    all_to_all = (expert_parallel - 1) * tokens * adp_exchange_bytes / (
        allreduce_efficiency * interconnect_bytes_per_s
    ) + 2 * (expert_parallel - 1) * interconnect_hop_latency_s
    moe_layers = num_moe_layers * layers / num_hidden_layers
    expert_exchange = quantity(
        f"{prefix}_expert_exchange_s",
        Piecewise((0, expert_parallel <= 1), (moe_layers * all_to_all, True)),
        "s",
        "Token-exchange time of the step's MoE layers under expert parallelism over attention "
        "data-parallel replicas: the all-gather of the other EP - 1 replicas' tokens and the "
        "reduce-scatter of their outputs (EP - 1) x tokens x attention_dp_exchange_bytes_per_token_layer "
        "at the link's rate, plus 2 (EP - 1) hops (0 without EP)",
        source=ADP_EXCHANGE + "; " + NCCL,
        topic=T,
    )
    handoffs = (
        (pipeline_parallel - 1)
        / pipeline_parallel
        * layers
        / num_hidden_layers
        * (message / interconnect_bytes_per_s + interconnect_hop_latency_s)
    )
    return allreduces + expert_exchange + handoffs


quantity(
    "ep_all_to_all_over_tp_allreduce",
    Piecewise((0, gpu_count <= 1), (all_to_all_bytes / allreduce_bytes_per_token_layer, True)),
    "ratio",
    "An MoE layer's dispatch + combine bytes per token under expert parallelism "
    "(all_to_all_bytes_per_token_layer) over the bytes one GPU sends per token per layer in "
    "the tensor-parallel all-reduces (0 without tensor parallelism)",
    source=DEEPSEEK_V3 + " §3.3.2; " + NCCL,
    topic="moe",
    when="moe",
)
quantity(
    "expert_columns_per_gpu",
    moe_intermediate_size / gpu_count,
    "columns",
    "Width of one routed expert's up and gate projections on one GPU when every expert is "
    "sliced across the tensor-parallel GPUs (no expert parallelism)",
    source=SHAPES + " (MoE); Megatron-LM (arXiv:1909.08053) §3: column-parallel MLP input",
    topic="moe",
    when="moe",
)
moe_route_share = quantity(
    "moe_route_share",
    num_experts_per_tok / n_routed_experts,
    "1",
    "Share of the routed experts one token uses, k / E",
    source="DeepSeek-V3 report §2.1.2 (top-k routing)",
    topic=T,
    when="moe",
)


def experts_untouched_bytes(batch):
    """Routed-expert bytes a decode step of `batch` tokens does not read (uniform routing)."""
    share = moe_route_share
    # exp(-b s / (1 - s)) <= (1 - s)^b: while b s <= 700 (1 - s) the power stays above e^-700
    # (no underflow: LibreOffice gives an error, not 0, for 0.75^3000); past it, call it 0
    untouched = Piecewise(
        (0, batch * share > underflow_exponent * (1 - share)),
        (n_routed_experts * (1 - share) ** batch, True),
    )
    return num_moe_layers * untouched * params_expert * expert_dtype_bytes


embedding_unread_bytes = quantity(
    "embedding_unread_bytes",
    (1 - count_embedding_read) * embedding_bytes,
    "bytes",
    "Embedding bytes a decode step skips (a lookup reads B rows)",
    source=SHAPES,
    topic=T,
)


def experts_unread(name, tokens, step, source):
    """Declare the routed-expert bytes a step of `tokens` tokens a replica (every EP replica's
    tokens reach the expert pool) does not read; 0 for a dense model."""
    unread = quantity(
        name,
        experts_untouched_bytes(tokens * expert_parallel),
        "bytes",
        f"Routed-expert bytes not read by {step} (the tokens of every EP replica)",
        source=source,
        topic=T,
        when="moe",
    )
    quantity(name, 0, "bytes", "Dense model: every weight is read", source=source, topic=T, when="dense")
    return unread


def weights_read_per_gpu(unread):
    """Weight bytes one GPU reads in a step: its share of the replicated part (less the
    embedding rows not looked up) and of the routed experts read."""
    replicated = weight_bytes - routed_expert_bytes - embedding_unread_bytes
    return replicated / replica_gpus + (routed_expert_bytes - unread) / total_gpus


def decode_step(prefix, batch, source, sequences=None):
    """Declare the bytes, compute, memory, link and step time of a decode step of `batch`
    tokens as one request sees it (through every pipeline stage). `sequences` (default: one per
    token) read their KV once each: a speculative verification step runs gamma + 1 tokens of
    each sequence against one read of its cache."""
    sequences = batch if sequences is None else sequences
    unread = experts_unread(f"{prefix}_experts_unread_bytes", batch, "this decode step", S62)
    weights_read = weights_read_per_gpu(unread)
    kv_read = sequences * kv_bytes_read_decode * kv_share_per_gpu
    step_bytes = quantity(
        f"{prefix}_bytes_per_gpu",
        weights_read + kv_read,
        "bytes",
        "HBM bytes one GPU reads in this decode step",
        source=source,
        topic=T,
    )
    c = quantity(
        f"{prefix}_compute_s",
        compute_time(batch * flops_per_token),
        "s",
        "Compute time of this decode step",
        source=source,
        topic=T,
    )
    m = quantity(
        f"{prefix}_memory_s",
        memory_time(pipeline_parallel * (weights_read * weight_dequant_factor + kv_read)),
        "s",
        "Memory time of this decode step (every pipeline stage in turn; weights x weight_dequant_factor)",
        source=source,
        topic=T,
    )
    x = quantity(
        f"{prefix}_link_s",
        link_time(prefix, batch, num_hidden_layers),
        "s",
        "All-reduce and pipeline hand-off time of this decode step",
        source=NCCL + "; " + PIPELINE,
        topic=T,
    )
    return step_bytes, step_time(c, m, x, sequences, num_hidden_layers)


prefill_compute_floor_s = quantity(
    "prefill_compute_floor_s",
    flops_prefill / (gpu_count * peak_flops_per_s),
    "s",
    "Prefill FLOPs / aggregate peak (the compute floor of TTFT)",
    source=S62,
    topic=T,
)
prefill_compute_s = quantity(
    "prefill_compute_s",
    prefill_compute_floor_s / mfu,
    "s",
    "Prefill FLOPs / (aggregate peak x mfu)",
    source=S62,
    topic=T,
)
prefill_memory_floor_s = quantity(
    "prefill_memory_floor_s",
    pipeline_parallel
    * (weight_bytes_per_gpu + kv_bytes_prompt * kv_share_per_gpu)
    / hbm_bandwidth_bytes_per_s,
    "s",
    "Weights read once plus the prompt's KV written, at peak bandwidth (the memory floor of TTFT)",
    source=S62,
    topic=T,
)
prefill_memory_s = quantity(
    "prefill_memory_s",
    memory_time(
        pipeline_parallel
        * (weight_bytes_per_gpu * weight_dequant_factor + kv_bytes_prompt * kv_share_per_gpu)
    ),
    "s",
    "Weights read once plus the prompt's KV written",
    source=S62,
    topic=T,
)
prefill_link_s = quantity(
    "prefill_link_s",
    link_time("prefill", prefill_tokens, num_hidden_layers),
    "s",
    "All-reduce and pipeline hand-off time of the prefill",
    source=NCCL,
    topic=T,
)
prefill_s = quantity(
    "prefill_s",
    step_time(prefill_compute_s, prefill_memory_s, prefill_link_s, 1, num_hidden_layers),
    "s",
    "One prompt's prefill alone under the time model in force (the TTFT of a lone request; "
    "ttft_s is the TTFT at a concurrency)",
    source=S62,
    topic=T,
)
decode_bytes_per_gpu, decode_expr = decode_step("decode", batch_size, S62)
decode_step_s = quantity(
    "decode_step_s",
    decode_expr,
    "s",
    "Decode step at batch_size with no prefill mixed in (the TPOT of batch_size requests "
    "decoding together; tpot_s is the TPOT at a concurrency)",
    source=S62,
    topic=T,
)
quantity(
    "decode_tokens_per_s_per_user",
    1 / decode_step_s,
    "tokens/s",
    "Decode speed one user sees at batch_size",
    source=S62,
    topic=T,
)
request_latency_s = quantity(
    "request_latency_s",
    prefill_s + output_tokens * decode_step_s,
    "s",
    "End-to-end time of one request at batch_size (prefill alone, then decode)",
    source=S62,
    topic=T,
)
quantity(
    "decode_share",
    output_tokens * decode_step_s / request_latency_s,
    "fraction",
    "Share of a request's time spent in decode",
    source=S62 + " demo 4",
    topic=T,
)
tpot_weights_only_s = quantity(
    "tpot_weights_only_s",
    weight_bytes / gpu_count / hbm_bandwidth_bytes_per_s,
    "s",
    "Decode floor from reading the weights once at peak bandwidth",
    source=SHAPES + "; " + PREREQ + " (6.9 ms)",
    topic=T,
)
quantity(
    "decode_weights_only_s",
    output_tokens * tpot_weights_only_s,
    "s",
    "All decode steps at the weights-only floor",
    source=PREREQ + " (3.5 s)",
    topic=T,
)
quantity(
    "prefill_2n_s",
    flops_prefill_2n / (gpu_count * peak_flops_per_s),
    "s",
    "Rule-of-thumb prefill time at 100% of peak",
    source=PREREQ + " (0.37 s)",
    topic=T,
)
