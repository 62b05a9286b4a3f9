"""Memory budget: weights, usable memory, KV capacity, concurrency, logits.

Lecture §6.1 (seeds/000): weights split evenly over GPUs (ideal tensor parallel), the engine
uses memory_utilization of each GPU (vLLM: 0.9), the rest after weights holds KV.
Shortcut: activations, CUDA graphs and fragmentation live inside the (1 - utilisation)
margin; marketed GB are read as memory_gb_unit_bytes (decimal by default, as the lecture).
"""
from sympy import Max, Min, ceiling, floor

from ledgerbuild.ledger import quantity

from .inputs import (gpu_count, gpu_memory_gb, logits_dtype_bytes, max_batch,
                     memory_gb_unit_bytes, memory_utilization, prompt_tokens, vocab_size,
                     weight_dtype_bytes)
from .kv_cache import kv_bytes_per_request, kv_bytes_per_token, kv_shard_fraction
from .params import params_total
from .sources import LECTURE

T = "memory"
B = "bytes"
S61 = LECTURE + " §6.1"

weight_bytes = quantity("weight_bytes", params_total * weight_dtype_bytes, B,
                        "Bytes of all weights", source=S61, topic=T)
weight_bytes_per_gpu = quantity("weight_bytes_per_gpu", weight_bytes / gpu_count, B,
                                "Weight bytes on each GPU", source=S61, topic=T)
gpu_memory_bytes = quantity("gpu_memory_bytes", gpu_memory_gb * memory_gb_unit_bytes, B,
                            "Memory of one GPU in bytes", source=S61, topic=T)
usable_bytes_per_gpu = quantity("usable_bytes_per_gpu", gpu_memory_bytes * memory_utilization, B,
                                "Memory the engine may use on one GPU", source=S61, topic=T)
quantity("gpus_for_weights", ceiling(weight_bytes / usable_bytes_per_gpu), "GPUs",
         "GPUs needed just to hold the weights", source=S61, topic=T, integer=True)
kv_budget_bytes_per_gpu = quantity("kv_budget_bytes_per_gpu",
                                   Max(0, usable_bytes_per_gpu - weight_bytes_per_gpu), B,
                                   "Memory left for KV on each GPU (0 if weights do not fit)",
                                   source=S61, topic=T)
kv_bytes_per_token_per_gpu = quantity("kv_bytes_per_token_per_gpu",
                                      kv_bytes_per_token * kv_shard_fraction, B,
                                      "KV bytes per token on one GPU", source=S61, topic=T)
quantity("kv_capacity_tokens", floor(kv_budget_bytes_per_gpu / kv_bytes_per_token_per_gpu),
         "tokens", "Tokens of KV that fit (no window caps)", source=S61, topic=T, integer=True)
kv_capacity_requests = quantity("kv_capacity_requests",
         floor(kv_budget_bytes_per_gpu / (kv_bytes_per_request * kv_shard_fraction)),
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
