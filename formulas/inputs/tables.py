"""Inputs: catalog lookups of the GPU table (price, memory, links, peaks) and the engine table
(memory fraction, reserves, block size, caps).

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

from ledgerbuild.ledger import lookup_input, scenario_input

from ..sources import LECTURE, NCCL, VLLM
from .bounds import MAX_REQUESTS, MAX_TOKENS
from .constants import bytes_per_gib, bytes_per_mib, per_giga, per_tera, seconds_per_microsecond

gpu_list_price_usd_per_hour = lookup_input(
    "gpu_list_price_usd_per_hour",
    "USD/GPU-hour",
    "The GPU's on-demand list price (0 = none listed)",
    key="gpu",
    column="price_usd_per_gpu_hour",
    source="GPU table: each price with its provider page and date",
)
price_per_gpu_hour = scenario_input(
    "price_per_gpu_hour",
    "USD/GPU-hour",
    "The rental price you pay, for every GPU; 0 (default) "
    "= each GPU's list price from the GPU table (else default_price_per_gpu_hour)",
    default=0,
    lo=0,
    source=LECTURE + " §6.3",
)
gpu_memory_gb = lookup_input(
    "gpu_memory_gb", "GB", "Marketed GPU memory", key="gpu", column="memory_gb", source="GPU table"
)
gpu_memory_driver_bytes = lookup_input(
    "gpu_memory_driver_bytes",
    "bytes",
    "GPU memory the driver reports (nvidia-smi memory.total)",
    key="gpu",
    column="memory_mib",
    scale=bytes_per_mib,
    source="GPU table",
)
gpu_cuda_memory_bytes = lookup_input(
    "gpu_cuda_memory_bytes",
    "bytes",
    "Total memory CUDA reports (cudaMemGetInfo), what engines size the KV pool from (0: unknown)",
    key="gpu",
    column="cuda_memory_gib",
    scale=bytes_per_gib,
    source="GPU table (from engine start-up logs)",
)
interconnect_bytes_per_s = lookup_input(
    "interconnect_bytes_per_s",
    "B/s",
    "GPU-to-GPU link bandwidth, each way",
    key="gpu",
    column="interconnect_gb_per_s",
    scale=per_giga,
    source="GPU table",
)
interconnect_hop_latency_s = lookup_input(
    "interconnect_hop_latency_s",
    "s",
    "Latency of one step of a ring collective",
    key="gpu",
    column="interconnect_hop_latency_us",
    scale=seconds_per_microsecond,
    source=NCCL,
)
# the engine table
memory_utilization = lookup_input(
    "memory_utilization",
    "fraction",
    "Share of GPU memory (or of the memory left after weights) the engine takes",
    key="serving_engine",
    column="memory_fraction",
    source=VLLM + "; TensorRT-LLM docs",
    hi=1,
)
engine_fraction_of_free = lookup_input(
    "engine_fraction_of_free",
    "0/1",
    "1: the fraction applies to memory left after weights (TensorRT-LLM); 0: to total memory (vLLM)",
    key="serving_engine",
    column="fraction_of_free",
    source="engine table",
    hi=1,
)
engine_reserve_bytes = lookup_input(
    "engine_reserve_bytes",
    "bytes",
    "Runtime memory outside weights and KV (CUDA context, activations, graphs)",
    key="serving_engine",
    column="runtime_reserve_gib",
    scale=bytes_per_gib,
    source="engine table",
)
engine_reserve_before_fraction = lookup_input(
    "engine_reserve_before_fraction",
    "0/1",
    "1: the runtime reserve is taken before the memory fraction applies (SGLang); 0: after (vLLM)",
    key="serving_engine",
    column="reserve_before_fraction",
    source="engine table",
    hi=1,
)
engine_reserve_multi_gpu_bytes = lookup_input(
    "engine_reserve_multi_gpu_bytes",
    "bytes",
    "Runtime memory outside weights and KV with more than one tensor-parallel GPU (NCCL, "
    "all-reduce buffers; 0: engine_reserve_bytes)",
    key="serving_engine",
    column="runtime_reserve_multi_gpu_gib",
    scale=bytes_per_gib,
    source="engine table",
)
engine_activation_fixed_bytes = lookup_input(
    "engine_activation_fixed_bytes",
    "bytes",
    "Fixed part of the activation peak of the engine's profiling run",
    key="serving_engine",
    column="activation_fixed_gib",
    scale=bytes_per_gib,
    source="engine table",
)
engine_activation_logit_copies = lookup_input(
    "engine_activation_logit_copies",
    "copies",
    "Float32 logit tensors (max_batch x vocab) live at the peak of the engine's profiling run",
    key="serving_engine",
    column="activation_logit_copies",
    source="engine table",
)
kv_block_tokens = lookup_input(
    "kv_block_tokens",
    "tokens",
    "Tokens per KV block: the pool holds whole blocks",
    key="serving_engine",
    column="kv_block_tokens",
    source="engine table",
    lo=1,
    hi=2**20,
    integer=True,
)
max_batch = lookup_input(
    "max_batch",
    "requests",
    "Engine cap on concurrent requests",
    key="serving_engine",
    column="max_batch",
    source=VLLM + "; engine table",
    lo=1,
    hi=MAX_REQUESTS,
    integer=True,
)
max_num_tokens = lookup_input(
    "max_num_tokens",
    "tokens",
    "Engine cap on tokens per forward step (chunked prefill budget)",
    key="serving_engine",
    column="max_num_tokens",
    source="engine table",
    lo=1,
    hi=10 * MAX_TOKENS,
    integer=True,
)
chunked_prefill = lookup_input(
    "chunked_prefill",
    "0/1",
    "1: the engine splits a prompt into chunks that fit max_num_tokens beside the decode tokens; "
    "0: a prompt is prefilled in one step",
    key="serving_engine",
    column="chunked_prefill",
    source="engine table",
    hi=1,
)
sliding_window_kv = lookup_input(
    "sliding_window_kv",
    "0/1",
    "1 if the engine caps sliding-window layers at their window",
    key="serving_engine",
    column="sliding_window_kv",
    source="engine table",
    hi=1,
)
hbm_bandwidth_bytes_per_s = lookup_input(
    "hbm_bandwidth_bytes_per_s",
    "B/s",
    "Peak HBM bandwidth",
    key="gpu",
    column="hbm_bandwidth_tb_per_s",
    scale=per_tera,
    source="GPU table",
)
bf16_flops_per_s = lookup_input(
    "bf16_flops_per_s",
    "FLOP/s",
    "Dense BF16 tensor peak",
    key="gpu",
    column="bf16_dense_tflops",
    scale=per_tera,
    source="GPU table",
)
fp4_flops_per_s = lookup_input(
    "fp4_flops_per_s",
    "FLOP/s",
    "Dense FP4 tensor peak (0: none)",
    key="gpu",
    column="fp4_dense_tflops",
    scale=per_tera,
    source="GPU table",
)
fp8_flops_per_s = lookup_input(
    "fp8_flops_per_s",
    "FLOP/s",
    "Dense FP8 tensor peak (0: none)",
    key="gpu",
    column="fp8_dense_tflops",
    scale=per_tera,
    source="GPU table",
)
