"""Memory budget: weights, the engine's KV pool, KV capacity, concurrency, logits.

Lecture §6.1 (seeds/000): weights split evenly over GPUs (ideal tensor parallel; pipeline
stages split the layers), the engine takes a fraction of each GPU's memory, the rest after
weights holds KV. Engines differ in what the fraction applies to (engine table): vLLM takes
gpu_memory_utilization of total memory for weights, activations and KV; TensorRT-LLM gives
the KV cache kv_cache_free_gpu_mem_fraction of the memory left after weights and the runtime;
the lecture's budget is utilisation x memory - weights. Memory is what the driver reports
(nvidia-smi) unless memory_gb_unit_bytes reads the marketed GB (1e9: the lecture).
Shortcuts: the runtime reserve is one figure per engine; pipeline stages hold equal shares of
the weights (embedding and head not placed on their stages).
"""
from sympy import Max, Min, Piecewise, ceiling, floor

from ledgerbuild.ledger import quantity

from .inputs import (
                     engine_fraction_of_free,
                     engine_reserve_bytes,
                     gpu_count,
                     gpu_memory_driver_bytes,
                     gpu_memory_gb,
                     logits_dtype_bytes,
                     max_batch,
                     memory_gb_unit_bytes,
                     memory_utilization,
                     pipeline_parallel,
                     prompt_tokens,
                     vocab_size,
)
from .kv_cache import kv_bytes_per_request, kv_bytes_per_token, kv_shard_fraction
from .numerics import weight_bytes
from .sources import LECTURE, PIPELINE

T = "memory"
B = "bytes"
S61 = LECTURE + " §6.1"

total_gpus = quantity("total_gpus", gpu_count * pipeline_parallel, "GPUs",
                      "GPUs of the deployment: tensor-parallel size x pipeline stages",
                      source=PIPELINE, topic=T, integer=True)
weight_bytes_per_gpu = quantity("weight_bytes_per_gpu", weight_bytes / total_gpus, B,
                                "Weight bytes on each GPU", source=S61, topic=T)
gpu_memory_bytes = quantity("gpu_memory_bytes",
                            Piecewise((gpu_memory_gb * memory_gb_unit_bytes,
                                       memory_gb_unit_bytes > 0),
                                      (gpu_memory_driver_bytes, True)), B,
                            "Memory of one GPU: as the driver reports it, or the marketed GB x "
                            "memory_gb_unit_bytes", source=S61 + "; nvidia-smi", topic=T)
usable_bytes_per_gpu = quantity("usable_bytes_per_gpu", gpu_memory_bytes * memory_utilization, B,
                                "Memory fraction of one GPU the engine is given", source=S61,
                                topic=T)
quantity("gpus_for_weights", ceiling(weight_bytes / usable_bytes_per_gpu), "GPUs",
         "GPUs needed just to hold the weights", source=S61, topic=T, integer=True)
kv_budget_bytes_per_gpu = quantity(
    "kv_budget_bytes_per_gpu",
    Max(0, Piecewise((memory_utilization * (gpu_memory_bytes - weight_bytes_per_gpu
                                            - engine_reserve_bytes), engine_fraction_of_free > 0),
                     (usable_bytes_per_gpu - weight_bytes_per_gpu - engine_reserve_bytes, True))),
    B, "KV pool on each GPU as the engine sizes it (0 if weights do not fit)", source=S61
    + "; engine table", topic=T)
kv_share_per_gpu = quantity("kv_share_per_gpu", kv_shard_fraction / pipeline_parallel, "fraction",
                            "Share of a sequence's KV one GPU holds (its heads, its stage's layers)",
                            source=S61, topic=T)
kv_bytes_per_token_per_gpu = quantity("kv_bytes_per_token_per_gpu",
                                      kv_bytes_per_token * kv_share_per_gpu, B,
                                      "KV bytes per token on one GPU", source=S61, topic=T)
quantity("kv_capacity_tokens", floor(kv_budget_bytes_per_gpu / kv_bytes_per_token_per_gpu),
         "tokens", "Tokens of KV that fit (no window caps)", source=S61, topic=T, integer=True)
kv_capacity_requests = quantity("kv_capacity_requests",
         floor(kv_budget_bytes_per_gpu / (kv_bytes_per_request * kv_share_per_gpu)),
         "requests", "Requests of prompt + output tokens whose KV fits", source=S61, topic=T,
         integer=True)
max_concurrency = quantity(
    "max_concurrency",
    Min(max_batch, kv_capacity_requests),
    "requests", "Concurrent requests: min(batch cap, KV capacity / tokens per request)",
    source=LECTURE + " §6.3", topic=T, integer=True)
quantity("logits_bytes_prompt", prompt_tokens * vocab_size * logits_dtype_bytes, B,
         "Logits if every prompt position's log-probs are returned", source=S61, topic=T)
quantity("logits_bytes_decode_batch", max_batch * vocab_size * logits_dtype_bytes, B,
         "Logits of one decode step at the batch cap (last position only)", source=S61, topic=T)
