"""Memory budget: weights, the engine's KV pool, KV capacity, concurrency, logits.

Lecture §6.1 (seeds/000): weights split evenly over GPUs (ideal tensor parallel; pipeline
stages split the layers), the engine takes a fraction of each GPU's memory, the rest after
weights holds KV. How each engine sizes its pool (vLLM, SGLang, TensorRT-LLM, the lecture) is
formulas/kv_pool.py; kv_pool_tokens (the pool in whole blocks, what the engine logs at
start-up) is the one figure every concurrency limit here and in offline.py follows from.
Memory is what the driver reports (nvidia-smi) unless memory_gb_unit_bytes reads the marketed
GB (1e9: the lecture).
The tensor-parallel size is gpu_count_setting, or (0, the default: auto) the smallest of
1, 2, 4, 8 on which the weights and one request's KV fit, so each model is costed at the GPUs
it needs. Shortcuts: pipeline stages hold equal shares of the weights (embedding and head not
placed on their stages); auto stays within one 8-GPU node (a model that does not fit on 8
shows 0 requests).
"""

import sympy as sp
from sympy import Max, Min, Mod, Piecewise, ceiling, floor, log

from ledgerbuild.ledger import quantity

from .inputs import (
    expert_parallel,
    gpu_count_setting,
    logits_dtype_bytes,
    max_batch,
    memory_utilization,
    n_routed_experts,
    num_key_value_heads,
    pipeline_parallel,
    prompt_tokens,
    vocab_size,
)
from .kv_cache import kv_bytes_per_request, kv_bytes_per_token
from .kv_pool import engine_activation_bytes, engine_reserve, gpu_memory_bytes, kv_budget, whole_blocks
from .moe import routed_expert_bytes
from .numerics import weight_bytes
from .sources import DEEPSEEK_V3, LECTURE, PIPELINE

T = "memory"
B = "bytes"
S61 = LECTURE + " §6.1"
TP_SIZES = (1, 2, 4, 8)  # tensor-parallel sizes tried by auto: powers of two within one node

usable_bytes_per_gpu = quantity(
    "usable_bytes_per_gpu",
    gpu_memory_bytes * memory_utilization,
    B,
    "Memory fraction of one GPU the engine is given",
    source=S61,
    topic=T,
)
quantity(
    "gpus_for_weights",
    ceiling(weight_bytes / usable_bytes_per_gpu),
    "GPUs",
    "GPUs needed just to hold the weights",
    source=S61,
    topic=T,
    integer=True,
)


def kv_shard(gpus):
    """Share of a sequence's KV one of `gpus` tensor-parallel GPUs holds (GQA: its heads,
    replicated when there are fewer KV heads than GPUs)."""
    return ceiling(num_key_value_heads / gpus) / num_key_value_heads


def weights_on(gpus):
    """Weight bytes on one of `gpus` tensor-parallel GPUs of a stage: the replicated part
    sharded over them, the routed experts split over every EP replica too."""
    replica = gpus * pipeline_parallel
    return (weight_bytes - routed_expert_bytes) / replica + routed_expert_bytes / (replica * expert_parallel)


WEIGHTS_ON = {
    n: quantity(
        f"weight_bytes_on_{n}_gpus",
        weights_on(n),
        B,
        f"Weight bytes on each GPU if {n} tensor-parallel GPU(s) held the model",
        source=S61,
        topic=T,
    )
    for n in TP_SIZES[:-1]
}


NON_KV_ON = {
    n: quantity(
        f"non_kv_bytes_on_{n}_gpus",
        WEIGHTS_ON[n] + engine_activation_bytes,
        B,
        f"Weights and profiling activations on each GPU if {n} tensor-parallel GPU(s) held the model",
        source="engine table (formulas/kv_pool.py)",
        topic="kv_pool",
    )
    for n in WEIGHTS_ON
}
BUDGET_ON = {
    n: quantity(
        f"kv_budget_bytes_on_{n}_gpus",
        kv_budget(NON_KV_ON[n], engine_reserve(n)),
        B,
        f"KV pool on each GPU if {n} tensor-parallel GPU(s) held the model",
        source="engine table (formulas/kv_pool.py)",
        topic="kv_pool",
    )
    for n in WEIGHTS_ON
}


def spare_bytes(gpus, shard):
    """KV pool left on one GPU after one request's KV, on `gpus` tensor-parallel GPUs."""
    return BUDGET_ON[gpus] - kv_bytes_per_request * shard / pipeline_parallel


def auto_gpu_count(shard_of, when):
    spares = {
        n: quantity(
            f"spare_bytes_on_{n}_gpus",
            spare_bytes(n, shard_of(n)),
            B,
            f"KV pool left per GPU after one request on {n} GPU(s) (< 0: does not fit)",
            source=S61,
            topic=T,
            when=when,
        )
        for n in TP_SIZES[:-1]
    }
    choice = Piecewise(*[(n, spares[n] >= 0) for n in TP_SIZES[:-1]], (TP_SIZES[-1], True))
    return Piecewise((gpu_count_setting, gpu_count_setting > 0), (choice, True))


for when, shard_of in (("gqa", kv_shard), ("mla", lambda n: 1)):
    gpu_count = quantity(
        "gpu_count",
        auto_gpu_count(shard_of, when),
        "GPUs",
        "Tensor-parallel GPUs: gpu_count_setting, or (auto) the smallest of 1, "
        "2, 4, 8 whose weights and one request's KV fit (else 8)",
        source=S61,
        topic=T,
        when=when,
        integer=True,
    )
kv_shard_fraction = quantity(
    "kv_shard_fraction",
    kv_shard(gpu_count),
    "fraction",
    "Share of the KV one GPU holds (heads replicated when n_kv < GPUs)",
    source=S61,
    topic=T,
    when="gqa",
)
quantity(
    "kv_shard_fraction",
    1,
    "fraction",
    "Share of the KV one GPU holds: the MLA latent is not split by heads",
    source=LECTURE + " §5.3, §6.1",
    topic=T,
    when="mla",
)
replica_gpus = quantity(
    "replica_gpus",
    gpu_count * pipeline_parallel,
    "GPUs",
    "GPUs of one model replica: tensor-parallel size x pipeline stages",
    source=PIPELINE,
    topic=T,
    integer=True,
)
total_gpus = quantity(
    "total_gpus",
    replica_gpus * expert_parallel,
    "GPUs",
    "GPUs of the deployment: one replica's GPUs x expert-parallel replicas",
    source=PIPELINE + "; " + DEEPSEEK_V3 + " §3.4",
    topic=T,
    integer=True,
)
weight_bytes_per_gpu = quantity(
    "weight_bytes_per_gpu",
    weights_on(gpu_count),
    B,
    "Weight bytes on each GPU (routed experts split over the expert-parallel replicas)",
    source=S61 + "; " + DEEPSEEK_V3 + " §3.4",
    topic=T,
)
replicated_bytes_per_gpu = (weight_bytes - routed_expert_bytes) / replica_gpus
fit_degree = quantity(
    "expert_parallel_min_fit",
    Piecewise(
        (0, replicated_bytes_per_gpu >= usable_bytes_per_gpu),
        (
            Max(
                1,
                ceiling(
                    routed_expert_bytes / replica_gpus / (usable_bytes_per_gpu - replicated_bytes_per_gpu)
                ),
            ),
            True,
        ),
    ),
    "replicas",
    "Smallest expert-parallel degree whose weights fit on the GPUs, divisor of the experts or "
    "not (0: the replicated part alone does not fit)",
    source=DEEPSEEK_V3 + " §3.4",
    topic=T,
    when="moe",
    integer=True,
)


# the smallest power of two at or above the fitting degree d: 2^floor(log2(2d - 1)) (2d - 1 is
# odd, so its log2 is never within rounding of a whole number: no guard constant needed)
power_of_two = quantity(
    "expert_parallel_power_of_two",
    2 ** floor(log(2 * Max(fit_degree, 1) - 1) / log(2)),
    "replicas",
    "Smallest power of two at or above expert_parallel_min_fit",
    source=DEEPSEEK_V3 + " §3.4",
    topic=T,
    when="moe",
    integer=True,
)
quantity(
    "expert_parallel_min",
    Piecewise(
        (0, sp.Eq(fit_degree, 0) | (fit_degree > n_routed_experts)),
        (power_of_two, sp.Eq(Mod(n_routed_experts, power_of_two), 0)),
        (n_routed_experts, True),
    ),
    "replicas",
    "Smallest power-of-two expert-parallel degree that fits and divides n_routed_experts (else "
    "n_routed_experts itself): a degree the ledger accepts (0: none fits)",
    source=DEEPSEEK_V3 + " §3.4",
    topic=T,
    when="moe",
    integer=True,
)
engine_reserve_bytes_per_gpu = quantity(
    "engine_reserve_bytes_per_gpu",
    engine_reserve(gpu_count),
    B,
    "Runtime memory outside weights, activations and KV on each GPU (one GPU or several)",
    source="engine table (formulas/kv_pool.py)",
    topic="kv_pool",
)
non_kv_bytes_per_gpu = quantity(
    "non_kv_bytes_per_gpu",
    weight_bytes_per_gpu + engine_activation_bytes,
    B,
    "Weights and the engine's profiling activations on each GPU",
    source="engine table (formulas/kv_pool.py)",
    topic="kv_pool",
)
kv_budget_bytes_per_gpu = quantity(
    "kv_budget_bytes_per_gpu",
    kv_budget(non_kv_bytes_per_gpu, engine_reserve_bytes_per_gpu),
    B,
    "KV pool on each GPU as the engine sizes it, before block rounding (vLLM's 'Available KV "
    "cache memory'; 0 if weights do not fit)",
    source=S61 + "; engine table (formulas/kv_pool.py)",
    topic=T,
)
kv_share_per_gpu = quantity(
    "kv_share_per_gpu",
    kv_shard_fraction / pipeline_parallel,
    "fraction",
    "Share of a sequence's KV one GPU holds (its heads, its stage's layers)",
    source=S61,
    topic=T,
)
kv_bytes_per_token_per_gpu = quantity(
    "kv_bytes_per_token_per_gpu",
    kv_bytes_per_token * kv_share_per_gpu,
    B,
    "KV bytes per token on one GPU",
    source=S61,
    topic=T,
)
kv_pool_tokens = quantity(
    "kv_pool_tokens",
    whole_blocks(kv_budget_bytes_per_gpu, kv_bytes_per_token_per_gpu),
    "tokens",
    "Tokens the engine's KV pool holds, in whole blocks (vLLM 'GPU KV cache size', SGLang "
    "max_total_num_tokens, TensorRT-LLM max tokens in paged KV cache)",
    source="engine table (formulas/kv_pool.py); measurements/kv_pool_logs.yaml",
    topic="kv_pool",
    integer=True,
)
kv_pool_bytes_per_gpu = quantity(
    "kv_pool_bytes_per_gpu",
    kv_pool_tokens * kv_bytes_per_token_per_gpu,
    B,
    "KV bytes the engine allocates on each GPU (its pool's whole blocks)",
    source="engine table (formulas/kv_pool.py)",
    topic="kv_pool",
)
quantity(
    "kv_capacity_tokens",
    kv_pool_tokens,
    "tokens",
    "Tokens of KV that fit (no window caps): the engine's pool",
    source=S61,
    topic=T,
    integer=True,
)
kv_capacity_requests = quantity(
    "kv_capacity_requests",
    floor(kv_pool_bytes_per_gpu / (kv_bytes_per_request * kv_share_per_gpu)),
    "requests",
    "Requests of prompt + output tokens whose KV fits in the engine's pool",
    source=S61,
    topic=T,
    integer=True,
)
max_concurrency = quantity(
    "max_concurrency",
    Min(max_batch, kv_capacity_requests),
    "requests",
    "Concurrent requests: min(batch cap, KV capacity / tokens per request)",
    source=LECTURE + " §6.3",
    topic=T,
    integer=True,
)
quantity(
    "logits_bytes_prompt",
    prompt_tokens * vocab_size * logits_dtype_bytes,
    B,
    "Logits if every prompt position's log-probs are returned",
    source=S61,
    topic=T,
)
quantity(
    "logits_bytes_decode_batch",
    max_batch * vocab_size * logits_dtype_bytes,
    B,
    "Logits of one decode step at the batch cap (last position only)",
    source=S61,
    topic=T,
)
