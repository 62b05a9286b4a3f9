"""The engine's KV pool: how vLLM, SGLang and TensorRT-LLM size it at start-up.

Each engine profiles its memory once and gives the KV cache what is left (engine table,
scenarios/engines.yaml, each rule cited there to the engine's source):

- vLLM (V1, gpu_worker.determine_available_memory): gpu_memory_utilization x total memory,
  less the weights, the activation peak of its profiling run and the non-torch memory
  (NCCL and all-reduce buffers); CUDA graphs are captured afterwards, outside the budget.
- SGLang (model_runner.profile_max_num_token): the memory free after weights load, less
  (1 - mem_fraction_static) x the memory free at start-up, i.e. mem_fraction_static x (total -
  runtime) - weights; activations and CUDA graphs live in the part held back.
- TensorRT-LLM (PyTorch backend, KvCacheCreator._cal_max_tokens): free_gpu_memory_fraction of
  the memory free after weights, runtime and a profiling forward.
- The lecture (§6.1): utilisation x memory - weights.

The memory is what CUDA reports (GPU table cuda_memory_gib) where known, else what the
driver reports; the lecture's budget reads the marketed GB. The pool holds whole blocks.
Shortcuts: the activation peak is a fixed part plus the sampler's float32 logits over the
batch cap (what dominates vLLM's logged peaks; the forward's own activations and MoE routing
buffers are not modelled); the runtime reserve is one figure for one GPU and one for several.
"""

from sympy import Max, Piecewise, floor

from ledgerbuild.ledger import quantity

from .inputs import (
    engine_activation_fixed_bytes,
    engine_activation_logit_copies,
    engine_fraction_of_free,
    engine_reserve_before_fraction,
    engine_reserve_bytes,
    engine_reserve_multi_gpu_bytes,
    gpu_cuda_memory_bytes,
    gpu_memory_driver_bytes,
    gpu_memory_gb,
    kv_block_tokens,
    logits_dtype_bytes,
    max_batch,
    memory_gb_unit_bytes,
    memory_utilization,
    vocab_size,
)
from .sources import LECTURE

T = "kv_pool"
B = "bytes"
S61 = LECTURE + " §6.1"
TABLE = "engine table (scenarios/engines.yaml: kv_pool_source)"

gpu_memory_bytes = quantity(
    "gpu_memory_bytes",
    Piecewise(
        (gpu_memory_gb * memory_gb_unit_bytes, memory_gb_unit_bytes > 0), (gpu_memory_driver_bytes, True)
    ),
    B,
    "Memory of one GPU: as the driver reports it, or the marketed GB x memory_gb_unit_bytes",
    source=S61 + "; nvidia-smi",
    topic="memory",
)
engine_memory_bytes = quantity(
    "engine_memory_bytes",
    Piecewise(
        (gpu_cuda_memory_bytes, (gpu_cuda_memory_bytes > 0) & (memory_gb_unit_bytes <= 0)),
        (gpu_memory_bytes, True),
    ),
    B,
    "Memory of one GPU as the engine sees it (cudaMemGetInfo total where the GPU table has it)",
    source="torch.cuda.mem_get_info; GPU table",
    topic=T,
)
engine_activation_bytes = quantity(
    "engine_activation_bytes",
    engine_activation_fixed_bytes
    + engine_activation_logit_copies * max_batch * vocab_size * logits_dtype_bytes,
    B,
    "Activation peak of the engine's profiling run: a fixed part plus the sampler's logits "
    "(max_batch requests x vocabulary, float32)",
    source=TABLE + "; vLLM gpu_model_runner.profile_run / _dummy_sampler_run",
    topic=T,
)


engine_reserve_multi_gpu = quantity(
    "engine_reserve_multi_gpu",
    Piecewise(
        (engine_reserve_multi_gpu_bytes, engine_reserve_multi_gpu_bytes > 0), (engine_reserve_bytes, True)
    ),
    B,
    "Runtime memory outside weights, activations and KV on each of several tensor-parallel GPUs",
    source=TABLE,
    topic=T,
)


def engine_reserve(gpus):
    """Runtime memory outside weights, activations and KV on one of `gpus` tensor-parallel GPUs."""
    if isinstance(gpus, int):
        return engine_reserve_multi_gpu if gpus > 1 else engine_reserve_bytes
    return Piecewise((engine_reserve_multi_gpu, gpus > 1), (engine_reserve_bytes, True))


def kv_budget(used, reserve):
    """KV pool bytes on a GPU whose weights and profiling activations take `used` bytes beside
    `reserve` bytes of runtime, by the engine's rule (0 if nothing is left)."""
    memory = engine_memory_bytes
    return Max(
        0,
        Piecewise(
            (memory_utilization * (memory - reserve - used), engine_fraction_of_free > 0),
            (memory_utilization * (memory - reserve) - used, engine_reserve_before_fraction > 0),
            (memory_utilization * memory - used - reserve, True),
        ),
    )


def whole_blocks(budget_bytes, bytes_per_token):
    """Tokens of whole KV blocks (kv_block_tokens each) that fit in `budget_bytes`."""
    return floor(budget_bytes / (bytes_per_token * kv_block_tokens)) * kv_block_tokens
