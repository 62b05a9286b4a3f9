"""Inputs: scenario settings: the catalog keys (GPU, formats, workload, engine, time model), the
parallelism and precision settings, the workload's token counts and speculative decoding.

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

import sympy as sp

from ledgerbuild.ledger import key_input, lookup_input, scenario_input

from ..sources import DEEPSEEK_V3, LECTURE, LEVIATHAN
from .bounds import MAX_GPUS, MAX_REQUESTS, MAX_TOKENS

# --- scenario ----------------------------------------------------------------------------
key_input(
    "gpu", "GPU model (row of the GPU table)", table="gpus", default="h100-sxm", source=LECTURE + " §6 (H100)"
)
key_input(
    "weight_dtype",
    "Precision the weights are stored in",
    table="dtypes",
    default="bf16",
    source=LECTURE + " §6",
)
key_input("kv_dtype", "Precision of the KV cache", table="dtypes", default="bf16", source=LECTURE + " §5.1")
WEIGHT = sp.Symbol("weight_dtype")  # a key whose default follows weight_dtype
key_input(
    "embedding_dtype",
    "Precision of the token embedding (default: weight_dtype)",
    table="dtypes",
    default=WEIGHT,
    source="per-part precision (e.g. INT4 with BF16 embedding)",
)
key_input(
    "lm_head_dtype",
    "Precision of lm_head (default: weight_dtype)",
    table="dtypes",
    default=WEIGHT,
    source="per-part precision",
)
key_input(
    "expert_dtype",
    "Precision of the routed experts of MoE layers (default: weight_dtype)",
    table="dtypes",
    default=WEIGHT,
    source="gpt-oss model card (MXFP4 experts, BF16 rest)",
)
key_input(
    "attention_dtype",
    "Precision of the attention's q and k/v projections, MLA's low-rank ones too (default: weight_dtype)",
    table="dtypes",
    default=WEIGHT,
    source="per-part precision (NVIDIA's DeepSeek-R1 NVFP4 checkpoints keep MLA in BF16)",
)
key_input(
    "attention_output_dtype",
    "Precision of the attention's output projection W_o (default: weight_dtype)",
    table="dtypes",
    default=WEIGHT,
    source="per-part precision (nvidia/DeepSeek-R1-0528-FP4-v2 quantises wo)",
)
key_input(
    "training_recipe",
    "Bytes kept per trained parameter (weights, gradients, master, optimizer)",
    table="training_recipes",
    default="mixed-adamw",
    source="ZeRO §3.1; DeepSeek-V3 §3.3.3",
)
key_input(
    "workload",
    "Workload (prompt and output tokens)",
    table="workloads",
    default="chat",
    source=LECTURE + " §6.3",
)
key_input(
    "time_model",
    "How compute, memory and link time combine (calibrated: fitted per GPU "
    "to measured throughput; roofline: the floor)",
    table="time_models",
    default="calibrated",
    source=LECTURE + " §6.2; measurements/",
)
key_input(
    "serving_engine",
    "Serving engine: how the KV pool is sized, batch and token caps",
    table="engines",
    default="vllm",
    source="engine table (scenarios/engines.yaml)",
)

gpu_count_setting = scenario_input(
    "gpu_count_setting",
    "GPUs",
    "Tensor-parallel GPUs: 0 (default) = auto, the smallest of 1, 2, "
    "4, 8 on which the weights and one request's KV fit",
    default=0,
    lo=0,
    hi=MAX_GPUS,
    integer=True,
    source=LECTURE + " §6.1",
)
pipeline_parallel = scenario_input(
    "pipeline_parallel",
    "stages",
    "Pipeline-parallel stages (each of gpu_count GPUs)",
    default=1,
    lo=1,
    hi=1024,
    integer=True,
    source="Megatron-LM pipeline parallelism (Narayanan et al. 2021)",
)
activation_dtype_bytes = scenario_input(
    "activation_dtype_bytes",
    "bytes",
    "Bytes per activation element sent between GPUs",
    default=2,
    lo=1,
    hi=16,
    source="BF16 activations",
)
default_price_per_gpu_hour = scenario_input(
    "default_price_per_gpu_hour",
    "USD/GPU-hour",
    "Rental price for a GPU without a list price in the GPU table",
    default=3,
    lo=0,
    source=LECTURE + " §6.3 (3 USD per GPU-hour)",
)
memory_gb_unit_bytes = scenario_input(
    "memory_gb_unit_bytes",
    "bytes/GB",
    "0 (default): GPU memory as the driver reports it (memory_mib); otherwise bytes in one "
    "marketed GB: 1e9 (the lecture's decimal reading) or 2^30",
    default=0,
    lo=0,
    integer=True,
    source=LECTURE + " §6.1 (8 x 80 GB x 0.9 = 576 GB); nvidia-smi",
)
logits_dtype_bytes = scenario_input(
    "logits_dtype_bytes",
    "bytes",
    "Bytes per stored logit",
    default=4,
    lo=1,
    hi=16,
    source=LECTURE + " §6.1 (FP32 logits)",
)
attention_scores_dtype_bytes = scenario_input(
    "attention_scores_dtype_bytes",
    "bytes",
    "Bytes per attention-score element an unfused kernel writes",
    default=2,
    lo=1,
    hi=16,
    source="BF16 scores",
)
expert_parallel = scenario_input(
    "expert_parallel",
    "replicas",
    "Expert-parallel degree: data-parallel attention replicas of the gpu_count x pipeline "
    "group, with the routed experts split across all their GPUs (1: no expert parallelism)",
    default=1,
    lo=1,
    hi=4096,
    integer=True,
    source=DEEPSEEK_V3 + " §3.4 (EP32 prefill, EP320 decode)",
)
concurrency = scenario_input(
    "concurrency",
    "requests",
    "Requests in flight, as a benchmark client keeps them (maximum concurrency, no rate limit); "
    "0 (default) = offline, every request queued at once",
    default=0,
    lo=0,
    hi=MAX_REQUESTS,
    integer=True,
    source="vLLM benchmarks/benchmark_serving.py --max-concurrency; SGLang bench_serving; "
    "TensorRT-LLM trtllm-bench --concurrency",
)
harness_overhead_s = scenario_input(
    "harness_overhead_s",
    "s",
    "Fixed time the benchmark client and the server's front end add to every TTFT outside the "
    "engine's steps (HTTP, tokenization, streaming), as the measurement source states it "
    "(measurement files: `ttft_overhead_ms` of the row's source); 0 = none stated",
    default=0,
    lo=0,
    source="measurement file header, sources.<key>.ttft_overhead_ms (with its basis)",
)
harness_fixed_lengths = scenario_input(
    "harness_fixed_lengths",
    "0/1",
    "1: the benchmark client sends every request with the same prompt and output length "
    "(fixed ISL/OSL, ignore EOS), so at a concurrency requests run in waves; 0: lengths vary "
    "per request (random range, a dataset such as ShareGPT, live traffic) and arrivals spread "
    "out. As the measurement source states it (`request_lengths` of the row's source)",
    default=0,
    lo=0,
    hi=1,
    integer=True,
    source="measurement file header, sources.<key>.request_lengths (with its basis)",
)
scheduler_recv_interval = scenario_input(
    "scheduler_recv_interval",
    "steps",
    "Decode steps between the engine scheduler's polls for new requests while it decodes "
    "(SGLang --scheduler-recv-interval; 1 = every step, the default of SGLang and the only "
    "behaviour of the other engines); an idle scheduler polls at once. As the run's launch "
    "command sets it (measurement rows: column `scheduler_recv_interval`)",
    default=1,
    lo=1,
    hi=2**20,
    integer=True,
    source="sgl-project/sglang@70310f051068e3ea8dbaaecd4e408919cd431417 "
    "python/sglang/srt/managers/scheduler_recv_skipper.py SchedulerRecvSkipper (counter += 1 per "
    "decode step, per idle loop, +1000 after any other forward mode; recv when counter >= "
    "scheduler_recv_interval; off when the interval is <= 1)",
)
adp_balance_timeout_steps = scenario_input(
    "adp_balance_timeout_steps",
    "steps",
    "Attention data-parallel balance (TensorRT-LLM attention_dp_config enable_balance with "
    "timeout_iters): a rank holding a new request waits, up to this many decode steps, until "
    "every attention replica holds one, so that all prefill in the same step; 0 (default, "
    "enable_balance false) = no wait. As the run's launch configuration sets it (measurement "
    "rows: column `adp_balance_timeout_iters`)",
    default=0,
    lo=0,
    hi=2**20,
    integer=True,
    source="NVIDIA/TensorRT-LLM@011cfc2cc18a24a95603f91dc53f8fc60bc80189 "
    "docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md (Context Synchronization: "
    "waits up to timeout_iters iterations until all other ranks have context tasks; increased TTFT)",
)
count_embedding_read = scenario_input(
    "count_embedding_read",
    "0/1",
    "1: a decode step reads the whole embedding table (lecture §6); 0: only lm_head (seeds/001)",
    default=1,
    lo=0,
    hi=1,
    integer=True,
    source=LECTURE + " §6.3; seeds/001",
)

# lookups into the catalog tables
prompt_tokens = lookup_input(
    "prompt_tokens",
    "tokens",
    "Prompt length L_p",
    key="workload",
    column="prompt_tokens",
    source=LECTURE + " §6.3",
    tex=r"L_p",
    lo=1,
    hi=MAX_TOKENS,
    integer=True,
)
output_tokens = lookup_input(
    "output_tokens",
    "tokens",
    "Generated tokens per request",
    key="workload",
    column="output_tokens",
    hi=MAX_TOKENS,
    source=LECTURE + " §6.3",
    integer=True,
)
input_token_price_ratio = lookup_input(
    "input_token_price_ratio",
    "ratio",
    "Price of an input token relative to an output token "
    "(0: only output tokens are priced, as the lecture does)",
    key="workload",
    column="input_token_price_ratio",
    source="workload table (chat-api-priced: OpenAI API pricing)",
)
context_tokens = scenario_input(
    "context_tokens",
    "tokens",
    "Context a decode step attends to (default: the mean context)",
    default=prompt_tokens + output_tokens / 2,
    lo=1,
    hi=MAX_TOKENS,
    source=LECTURE + " §6.3",
    tex="S",
)
batch_size = scenario_input(
    "batch_size",
    "requests",
    "Batch for the TPOT floor",
    default=1,
    lo=1,
    hi=MAX_REQUESTS,
    integer=True,
    source=LECTURE + " §6.2",
    tex=r"B",
)
spec_acceptance = scenario_input(
    "spec_acceptance",
    "fraction",
    "Speculative decoding: probability that the target accepts one draft token (alpha, i.i.d. per token)",
    default=sp.Rational(4, 5),
    lo=0,
    hi=1,
    hi_open=True,
    source=LEVIATHAN,
    tex=r"\alpha",
)
spec_draft_tokens = scenario_input(
    "spec_draft_tokens",
    "tokens",
    "Speculative decoding: draft tokens proposed per round (gamma; at most 64, beyond any engine's)",
    default=4,
    lo=1,
    hi=64,
    integer=True,
    source=LEVIATHAN,
    tex=r"\gamma",
)
spec_draft_cost = scenario_input(
    "spec_draft_cost",
    "fraction",
    "Speculative decoding: one draft step's time over one target decode step's (c)",
    default=sp.Rational(1, 10),
    lo=0,
    source=LEVIATHAN,
    tex=r"c",
)
