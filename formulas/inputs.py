"""Inputs: model fields, scenario settings, catalog lookups, architecture variants.

Model fields are named as in HF config.json where HF has a name; the few traits HF keeps in
code rather than config (QKV bias, q/k norms, sinks, norms per layer, expert biases) are
normalised per family by `ledgerbuild.families`. Scenario inputs carry the names the CLI's
`--set` and the workbook's defined names use. Shortcut: booleans are 0/1 numbers.
"""

import sympy as sp

from ledgerbuild.ledger import (
    constant,
    key_input,
    lookup_input,
    model_input,
    scenario_input,
)

from .sources import (
    DEEPSEEK_V3,
    DEEPSEEK_V3_MTP,
    HF,
    KORTHIKANTI,
    LECTURE,
    LEVIATHAN,
    LORA,
    NCCL,
    POWER,
    PREREQ,
    VLLM,
)

# --- unit conversions, named (no formula hides a number; the workbook lists them on Inputs) -
SI = "SI prefixes (BIPM SI Brochure, 9th ed., Table 7)"
IEC = "IEC 80000-13 binary prefixes"
seconds_per_hour = constant("seconds_per_hour", 3600, "s/h", "Seconds in an hour", source=SI, tex="3600")
tokens_per_million = constant(
    "tokens_per_million",
    10**6,
    "tokens",
    "Tokens in a million (prices are per million tokens)",
    source=SI,
    tex="10^{6}",
)
bits_per_byte = constant("bits_per_byte", 8, "bits/byte", "Bits in a byte", source=IEC, tex="8")
bytes_per_mib = constant("bytes_per_mib", 2**20, "bytes/MiB", "Bytes in a MiB", source=IEC, tex="2^{20}")
bytes_per_gib = constant("bytes_per_gib", 2**30, "bytes/GiB", "Bytes in a GiB", source=IEC, tex="2^{30}")
per_giga = constant("per_giga", 10**9, "1/G", "Units in a giga-unit (GB/s -> B/s)", source=SI, tex="10^{9}")
per_tera = constant(
    "per_tera",
    10**12,
    "1/T",
    "Units in a tera-unit (TFLOP/s -> FLOP/s, TB/s -> B/s)",
    source=SI,
    tex="10^{12}",
)
seconds_per_microsecond = constant(
    "seconds_per_microsecond",
    sp.Rational(1, 10**6),
    "s/us",
    "Seconds in a microsecond",
    source=SI,
    tex="10^{-6}",
)
underflow_exponent = constant(
    "underflow_exponent",
    700,
    "1",
    "x beyond which e^-x is taken as 0 "
    "(e^-700 = 1e-304, near a double's smallest normal 2.2e-308; "
    "LibreOffice errs rather than underflow to 0)",
    source="IEEE 754 binary64",
    tex="700",
)
yarn_mscale_coefficient = constant(
    "yarn_mscale_coefficient",
    sp.Rational(1, 10),
    "1",
    "YaRN's attention-temperature slope: sqrt(1/t) = 0.1 ln s + 1",
    source="Peng et al. 2023 (YaRN) eq. 22",
    tex="0.1",
)
ramp_epsilon = constant(
    "ramp_epsilon",
    sp.Rational(1, 1000),
    "pairs",
    "YaRN ramp width when its two ends meet (avoids 0/0)",
    source="transformers modeling_rope_utils linear_ramp_factor",
    tex="0.001",
)
ms_per_second = constant(
    "ms_per_second", 1000, "ms/s", "Milliseconds in a second (latencies shown in ms)", source=SI, tex="10^{3}"
)

# --- model fields (HF config.json) -------------------------------------------------------
hidden_size = model_input("hidden_size", "elements", "Width of the residual stream d", lo=1, tex=r"d")
num_hidden_layers = model_input(
    "num_hidden_layers", "layers", "Transformer blocks", lo=1, tex=r"n_{\mathrm{layers}}"
)
num_attention_heads = model_input("num_attention_heads", "heads", "Query heads n_h", lo=1, tex=r"n_h")
num_key_value_heads = model_input(
    "num_key_value_heads", "heads", "Key/value heads n_kv (MHA: = n_h, MQA: 1)", lo=1, tex=r"n_{kv}"
)
head_dim = model_input("head_dim", "elements", "Width of one attention head d_h", lo=1, tex=r"d_h")
intermediate_size = model_input(
    "intermediate_size", "elements", "Width of a dense MLP layer d_ff", lo=1, tex=r"d_{\mathrm{ff}}"
)
vocab_size = model_input("vocab_size", "tokens", "Vocabulary size V", lo=1, tex=r"V")
tie_word_embeddings = model_input(
    "tie_word_embeddings", "0/1", "1 if lm_head shares the embedding matrix", hi=1
)
# traits HF keeps in its modeling code (see ledgerbuild/families.py)
qkv_bias = model_input("qkv_bias", "0/1", "1 if Q, K, V projections carry a bias", source=HF, hi=1, default=0)
o_bias = model_input("o_bias", "0/1", "1 if the output projection carries a bias", source=HF, hi=1, default=0)
qk_norm = model_input(
    "qk_norm", "0/1", "1 if q and k get an RMSNorm of width d_h", source=HF, hi=1, default=0
)
qk_norm_all_heads = model_input(
    "qk_norm_all_heads",
    "0/1",
    "1 if the q/k norms span all heads (widths n_h d_h and n_kv d_h; MiniMax-M2), not one head",
    source=HF + " (MiniMaxM2Attention)",
    hi=1,
    default=0,
)
attention_sinks = model_input(
    "attention_sinks", "0/1", "1 if each head has a learned sink", source=HF, hi=1, default=0
)
norms_per_layer = model_input(
    "norms_per_layer",
    "norms",
    "RMSNorm vectors of width d per block (2; Gemma: 4)",
    source=HF,
    lo=1,
    default=2,
)
# per-layer attention patterns
num_sliding_layers = model_input(
    "num_sliding_layers", "layers", "Layers with sliding-window attention", default=0
)
sliding_window = model_input("sliding_window", "tokens", "Sliding window width", default=0)
num_chunked_layers = model_input(
    "num_chunked_layers", "layers", "Layers with chunked attention (Llama 4)", default=0
)
attention_chunk_size = model_input("attention_chunk_size", "tokens", "Attention chunk width", default=0)
# mixture of experts
n_routed_experts = model_input("n_routed_experts", "experts", "Routed experts per MoE layer", default=0)
num_experts_per_tok = model_input(
    "num_experts_per_tok", "experts", "Routed experts chosen per token (top-k)", default=0
)
n_shared_experts = model_input(
    "n_shared_experts", "experts", "Always-on shared experts per MoE layer", default=0
)
moe_intermediate_size = model_input("moe_intermediate_size", "elements", "Width of one expert MLP", default=0)
shared_expert_intermediate_size = model_input(
    "shared_expert_intermediate_size",
    "elements",
    "Width of one shared expert (moe_intermediate_size unless the config gives its own)",
    default=0,
)
first_k_dense_replace = model_input(
    "first_k_dense_replace", "layers", "Layers with a dense MLP instead of MoE", default=0
)
num_nextn_predict_layers = model_input(
    "num_nextn_predict_layers",
    "modules",
    "Multi-token-prediction modules shipped with the model",
    source="HF config.json; " + DEEPSEEK_V3_MTP,
    default=0,
    tex=r"n_{\mathrm{MTP}}",
)
router_bias = model_input("router_bias", "0/1", "1 if the router carries a bias", source=HF, hi=1, default=0)
expert_bias = model_input(
    "expert_bias", "0/1", "1 if expert projections carry biases", source=HF, hi=1, default=0
)
# multi-head latent attention
q_lora_rank = model_input("q_lora_rank", "elements", "MLA query latent width (0: none)", default=0)
kv_lora_rank = model_input("kv_lora_rank", "elements", "MLA KV latent width d_c", default=0)
qk_nope_head_dim = model_input("qk_nope_head_dim", "elements", "MLA per-head key width, no RoPE", default=0)
qk_rope_head_dim = model_input(
    "qk_rope_head_dim", "elements", "MLA decoupled RoPE key width (shared by all heads)", default=0
)
v_head_dim = model_input("v_head_dim", "elements", "MLA per-head value width", default=0)
# DeepSeek Sparse Attention (DSA): the lightning indexer and its top-k (formulas/sparse_attention.py)
DSA = "HF config.json (DeepSeek-V3.2 / GLM-5 DSA indexer)"
index_topk = model_input(
    "index_topk",
    "tokens",
    "DSA: tokens each query attends to, chosen by the indexer (0: dense)",
    source=DSA,
    default=0,
)
index_n_heads = model_input(
    "index_n_heads", "heads", "DSA: lightning-indexer heads H^I", source=DSA, default=0
)
index_head_dim = model_input(
    "index_head_dim", "elements", "DSA: width of one indexer query/key head d^I", source=DSA, default=0
)
num_indexer_layers = model_input(
    "num_indexer_layers",
    "layers",
    "DSA: layers running their own indexer (GLM's 'shared' layers reuse the previous one's top-k)",
    source=DSA + "; transformers GlmMoeDsaConfig.indexer_types",
    default=0,
)

# architecture variants (which form applies): ledgerbuild/variants.py

# RoPE (config.json rope_theta and rope_scaling; see ledgerbuild.families.rope_fields)
ROPE = "HF config.json rope_theta / rope_scaling"
rope_theta = model_input(
    "rope_theta", "1", "RoPE base", integer=False, lo=1e-9, source=ROPE, tex=r"\theta_{\mathrm{base}}"
)
rope_dim = model_input(
    "rope_dim",
    "elements",
    "Rotary width d_r (head_dim, or its partial-RoPE share; MLA: qk_rope_head_dim)",
    lo=2,
    source=ROPE,
    tex=r"d_r",
)
rope_type_code = model_input(
    "rope_type_code",
    "code",
    "The config's rope type: 0 default, 1 linear, 2 dynamic, 3 yarn, 4 llama3",
    lo=0,
    hi=4,
    source=ROPE,
)
rope_scaling_factor = model_input(
    "rope_scaling_factor",
    "ratio",
    "The config's rope scaling factor (1: none)",
    integer=False,
    lo=1e-9,
    source=ROPE,
)
rope_original_max_position = model_input(
    "rope_original_max_position", "tokens", "Trained context (original_max_position_embeddings)", source=ROPE
)
rope_low_freq_factor = model_input(
    "rope_low_freq_factor", "ratio", "llama3: low_freq_factor", integer=False, lo=1e-9, source=ROPE
)
rope_high_freq_factor = model_input(
    "rope_high_freq_factor", "ratio", "llama3: high_freq_factor", integer=False, lo=1e-9, source=ROPE
)
rope_beta_fast = model_input(
    "rope_beta_fast", "rotations", "YaRN: beta_fast", integer=False, lo=1e-9, source=ROPE
)
rope_beta_slow = model_input(
    "rope_beta_slow", "rotations", "YaRN: beta_slow", integer=False, lo=1e-9, source=ROPE
)
rope_mscale = model_input("rope_mscale", "1", "YaRN (DeepSeek): mscale (0: none)", integer=False, source=ROPE)
rope_mscale_all_dim = model_input(
    "rope_mscale_all_dim", "1", "YaRN (DeepSeek): mscale_all_dim (0: none)", integer=False, source=ROPE
)
rope_truncate = model_input(
    "rope_truncate", "0/1", "YaRN: truncate the correction range to whole dimensions", hi=1, source=ROPE
)

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
    integer=True,
    source=LECTURE + " §6.1",
)
pipeline_parallel = scenario_input(
    "pipeline_parallel",
    "stages",
    "Pipeline-parallel stages (each of gpu_count GPUs)",
    default=1,
    lo=1,
    integer=True,
    source="Megatron-LM pipeline parallelism (Narayanan et al. 2021)",
)
activation_dtype_bytes = scenario_input(
    "activation_dtype_bytes",
    "bytes",
    "Bytes per activation element sent between GPUs",
    default=2,
    lo=1,
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
    source=LECTURE + " §6.1 (FP32 logits)",
)
attention_scores_dtype_bytes = scenario_input(
    "attention_scores_dtype_bytes",
    "bytes",
    "Bytes per attention-score element an unfused kernel writes",
    default=2,
    lo=1,
    source="BF16 scores",
)
expert_parallel = scenario_input(
    "expert_parallel",
    "replicas",
    "Expert-parallel degree: data-parallel attention replicas of the gpu_count x pipeline "
    "group, with the routed experts split across all their GPUs (1: no expert parallelism)",
    default=1,
    lo=1,
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
    integer=True,
)
output_tokens = lookup_input(
    "output_tokens",
    "tokens",
    "Generated tokens per request",
    key="workload",
    column="output_tokens",
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
    source=LECTURE + " §6.3",
    tex="S",
)
batch_size = scenario_input(
    "batch_size",
    "requests",
    "Batch for the TPOT floor",
    default=1,
    lo=1,
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


def bits_per_element(element_bits, scale_bits, block_size):
    """Storage bits per element of a block-scaled format (OCP MX v1.0 §5)."""
    return element_bits + scale_bits / block_size


def format_lookups(part: str, key: str) -> tuple[sp.Symbol, sp.Symbol, sp.Symbol]:
    """(element bits, scale + zero-point bits per block, block size) of the format `key` names."""
    src = "dtype table (OCP MX v1.0; NVIDIA NVFP4; OFP8)"
    return (
        lookup_input(
            f"{part}_element_bits", "bits", f"Bits of one {part} element", key=key, column="bits", source=src
        ),
        lookup_input(
            f"{part}_scale_bits",
            "bits",
            f"Bits of the scale and zero point of one {part} block",
            key=key,
            column="scale_bits",
            source=src,
        ),
        lookup_input(
            f"{part}_block_size",
            "elements",
            f"{part.capitalize()} elements sharing one scale (1: none)",
            key=key,
            column="block_size",
            source=src,
        ),
    )


weight_format = format_lookups("weight", "weight_dtype")
weight_row_block_elements = lookup_input(
    "weight_row_block_elements",
    "elements",
    "Elements along one row that share a weight_dtype scale (0: block_size, or the whole row when unscaled)",
    key="weight_dtype",
    column="row_block_elements",
    source="dtype table (DeepSeek-V3 §3.3.2: 128 x 128 blocks; OCP MX v1.0: 32)",
)
embedding_format = format_lookups("embedding", "embedding_dtype")
lm_head_format = format_lookups("lm_head", "lm_head_dtype")
expert_format = format_lookups("expert", "expert_dtype")


def cache_format_lookups(part: str, key: str) -> tuple:
    """A cached tensor's format (KV, indexer keys): quantised per token, so a format whose
    weights share a scale per 2-D block (fp8-b128: 128 x 128) shares it per row tile
    (1 x 128, DeepSeek-V3 §3.3.2) here; other formats as format_lookups."""
    bits, scale_bits, block_size = format_lookups(part, key)
    row_block = lookup_input(
        f"{part}_row_block_elements",
        "elements",
        f"Elements of one {part} row tile sharing a scale (0: block_size)",
        key=key,
        column="row_block_elements",
        source="dtype table (DeepSeek-V3 §3.3.2: 1 x 128 tiles)",
    )
    return bits, scale_bits, sp.Piecewise((row_block, row_block > 0), (block_size, True))


kv_format = cache_format_lookups("kv", "kv_dtype")
key_input(
    "indexer_kv_dtype",
    "Precision of the DSA indexer's cached keys (DeepSeek's reference: FP8 with an FP32 scale per 128)",
    table="dtypes",
    default="fp8-b128",
    source="deepseek-ai/DeepSeek-V3.2-Exp inference/model.py (Indexer k_cache, k_scale_cache)",
)
indexer_kv_format = cache_format_lookups("indexer_kv", "indexer_kv_dtype")
key_input(
    "rope_method",
    "RoPE scaling to apply (model: the config's own rope_scaling)",
    table="rope_methods",
    default="model",
    source="seeds/001 §RoPE (PI, NTK-aware, YaRN)",
)
rope_method_code = lookup_input(
    "rope_method_code",
    "code",
    "The chosen method's code (-1: the model's own)",
    key="rope_method",
    column="code",
    source="rope method table",
    lo=-1,
)
rope_factor = scenario_input(
    "rope_factor",
    "ratio",
    "RoPE scaling factor s (0: the model's own factor)",
    default=0,
    lo=0,
    source="seeds/001 §RoPE",
)
key_input(
    "moe_dispatch_dtype",
    "Format of the activations sent to the experts (all-to-all dispatch)",
    table="dtypes",
    default="fp8",
    source=DEEPSEEK_V3 + " §3.3.2 (FP8 dispatch)",
)
key_input(
    "moe_combine_dtype",
    "Format of the expert outputs sent back (all-to-all combine)",
    table="dtypes",
    default="bf16",
    source=DEEPSEEK_V3 + " §3.3.2 (BF16 combine)",
)
moe_dispatch_bits = lookup_input(
    "moe_dispatch_bits",
    "bits",
    "Bits of one dispatched activation element",
    key="moe_dispatch_dtype",
    column="bits",
    source="dtype table",
)
moe_combine_bits = lookup_input(
    "moe_combine_bits",
    "bits",
    "Bits of one combined activation element",
    key="moe_combine_dtype",
    column="bits",
    source="dtype table",
)
weight_math_bits = lookup_input(
    "weight_math_bits",
    "bits",
    "Tensor-core input width the weight format runs at (4, 8, 16)",
    key="weight_dtype",
    column="math_bits",
    source="dtype table",
)
weight_dequant_overhead_bits = lookup_input(
    "weight_dequant_overhead_bits",
    "bits",
    "Weight-only formats: dequantising a weight costs the time of reading this many more bits",
    key="weight_dtype",
    column="dequant_overhead_bits",
    source=PREREQ + " (4-bit: 2-3x, not 4x)",
)
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


def _time_model_input(name, unit, description):
    return lookup_input(
        name,
        unit,
        description,
        key="time_model",
        column=name,
        qualifier="gpu",
        source="time-model table (row time_model@gpu if fitted)",
        hi=1 if unit in ("fraction", "0/1") else None,
    )


mfu = _time_model_input("mfu", "fraction", "Share of peak FLOP/s reached")
bandwidth_efficiency = _time_model_input(
    "bandwidth_efficiency", "fraction", "Share of peak HBM bandwidth reached"
)
overlap = _time_model_input(
    "overlap", "0/1", "1: compute, memory and link time overlap (max); 0: they add (sum)"
)
step_overhead_s = _time_model_input("step_overhead_s", "s", "Fixed time per forward step")
sequence_overhead_s = _time_model_input(
    "sequence_overhead_s", "s", "Time per sequence per step (sampling, scheduling)"
)
allreduce_efficiency = _time_model_input(
    "allreduce_efficiency", "fraction", "Share of link bandwidth an all-reduce reaches"
)
allreduce_latency_s = _time_model_input(
    "allreduce_latency_s", "s", "Fixed latency of one all-reduce (kernel launch, sync)"
)
expert_efficiency = _time_model_input(
    "expert_efficiency",
    "fraction",
    "Share of mfu the routed experts' grouped GEMMs reach (few tokens per expert; under expert "
    "parallelism the most loaded GPU sets the pace)",
)
expert_imbalance = _time_model_input(
    "expert_imbalance",
    "ratio",
    "Under expert parallelism: the most loaded GPU's routed-expert tokens over the mean (uneven "
    "expert load); every MoE layer waits for it (1: even)",
)
request_overhead_s = _time_model_input(
    "request_overhead_s",
    "s",
    "Fixed time a served request spends outside forward steps before its first token "
    "(HTTP, tokenization, scheduling, streaming), as a benchmark client measures TTFT",
)

inflight_prompt_token_s = _time_model_input(
    "inflight_prompt_token_s",
    "s/token",
    "Wait of a new request before its first token per prompt token of the other requests in "
    "flight (fitted, empirical: NIM's TTFT grows so with concurrency; no engine step or queue "
    "accounts for it)",
)


# --- training and fine-tuning ------------------------------------------------------------
def _recipe_input(column, description):
    return lookup_input(
        f"recipe_{column}",
        "bytes/param",
        description,
        key="training_recipe",
        column=column,
        source="training-recipe table",
    )


recipe_working_weight_bytes = _recipe_input("working_weight_bytes", "Working weights the matmuls read")
recipe_gradient_bytes = _recipe_input("gradient_bytes", "Gradients")
recipe_master_weight_bytes = _recipe_input("master_weight_bytes", "Master weights")
recipe_optimizer_state_bytes = _recipe_input("optimizer_state_bytes", "Optimizer state (Adam: two moments)")
activation_recompute = scenario_input(
    "activation_recompute",
    "0/1",
    "1: full activation recomputation (keep each layer's input, redo the forward in the backward)",
    default=0,
    lo=0,
    hi=1,
    integer=True,
    source=KORTHIKANTI,
)
train_seq_tokens = scenario_input(
    "train_seq_tokens",
    "tokens",
    "Training sequence length s",
    default=4096,
    lo=1,
    integer=True,
    source=KORTHIKANTI,
    tex="s",
)
micro_batch = scenario_input(
    "micro_batch",
    "sequences",
    "Sequences per micro-batch b",
    default=1,
    lo=1,
    integer=True,
    source=KORTHIKANTI,
    tex="b",
)
lora_rank = scenario_input(
    "lora_rank", "rank", "LoRA rank r (0: no adapters)", default=16, lo=0, integer=True, source=LORA, tex="r"
)
lora_attention = scenario_input(
    "lora_attention",
    "0/1",
    "1: adapters on q, k, v, o (every attention projection)",
    default=1,
    lo=0,
    hi=1,
    integer=True,
    source=LORA,
)
lora_mlp = scenario_input(
    "lora_mlp",
    "0/1",
    "1: adapters on gate, up, down (dense MLPs and shared experts)",
    default=1,
    lo=0,
    hi=1,
    integer=True,
    source=LORA,
)

# --- ownership: buying a GPU instead of renting it (formulas/ownership.py) ------------------
# Every default sourced and dated (read 2026-12-01); each is a scenario setting anyone changes.
EIA = "US EIA Electric Power Monthly, Table 5.6.B (average price to ultimate customers, industrial, 2024)"
UPTIME = "Uptime Institute Global Data Center Survey 2024 (average annual PUE 1.56 at the largest site)"
hours_per_year = constant(
    "hours_per_year", 8760, "h/year", "Hours in a (365-day) year", source=SI, tex="8760"
)
months_per_year = constant("months_per_year", 12, "months/year", "Months in a year", source=SI, tex="12")
watts_per_kw = constant("watts_per_kw", 1000, "W/kW", "Watts in a kilowatt", source=SI, tex="10^{3}")
gpu_board_power_w = lookup_input(
    "gpu_board_power_w",
    "W",
    "Board power of one GPU (TDP / TBP as the datasheet states it)",
    key="gpu",
    column="tdp_w",
    source="GPU table: each board power with its datasheet",
)
gpu_purchase_usd = scenario_input(
    "gpu_purchase_usd",
    "USD/GPU",
    "Purchase price of one GPU with its share of the server (0 = rent at the GPU-hour price)",
    default=0,
    lo=0,
    source="your quote; 0 keeps the rental price",
)
depreciation_years = scenario_input(
    "depreciation_years",
    "years",
    "Years over which the purchase is recovered",
    default=5,
    lo=1,
    hi=30,
    source="Amazon.com 10-K for 2024, Note 1 (servers' useful life shortened from six to five years, "
    "1 January 2025)",
)
residual_value_fraction = scenario_input(
    "residual_value_fraction",
    "fraction",
    "Resale value at the end of depreciation_years, as a share of the purchase price",
    default=0,
    lo=0,
    hi=1,
    source="straight-line depreciation to zero (the book-value convention of the 10-K above)",
)
cost_of_capital = scenario_input(
    "cost_of_capital",
    "1/year",
    "Annual cost of the money tied up in the purchase (discount rate r)",
    default=sp.Rational(8, 100),
    lo=0,
    hi=1,
    source="Damodaran Online, 'Cost of Capital by Sector (US)', January 2025: computer services "
    "and semiconductor groups near 8-10 %/year",
)
power_usd_per_kwh = scenario_input(
    "power_usd_per_kwh",
    "USD/kWh",
    "Price of a kWh of electricity at the facility meter",
    default=sp.Rational(81, 1000),
    lo=0,
    hi=10,
    source=EIA + ": US industrial average about 8.1 US cents/kWh",
)
pue = scenario_input(
    "pue",
    "1",
    "Power usage effectiveness: facility power / IT power",
    default=sp.Rational(156, 100),
    lo=1,
    hi=5,
    source=UPTIME,
)
hosting_usd_per_gpu_month = scenario_input(
    "hosting_usd_per_gpu_month",
    "USD/GPU-month",
    "Space, cooling capacity and operations per GPU and month, electricity excluded",
    default=235,
    lo=0,
    source="CBRE North America Data Center Trends H2 2024 (average asking colocation rent about "
    "184 USD/kW/month, 250-500 kW) x 1.275 kW per GPU (NVIDIA DGX H100 datasheet: 10.2 kW max for 8 GPUs)",
)
idle_power_fraction = scenario_input(
    "idle_power_fraction",
    "fraction",
    "Power an idle, powered-on GPU draws, as a share of its board power",
    default=sp.Rational(15, 100),
    lo=0,
    hi=1,
    source="measured idle 62 W of 400 W on A100-80GB (chuyishang/inference-energy "
    "results_paste.md, commit 6e617d2; nvidia-smi); 80 W of 700 W on H200 (serialalice.pt GPU energy "
    "benchmark, 2026)",
)

busy_power_fraction = scenario_input(
    "busy_power_fraction",
    "fraction",
    "Power a GPU draws while it steps without pause (serving at its operating point), "
    "as a share of its board power",
    default=sp.Rational(85, 100),
    lo=0,
    hi=1,
    source=POWER,
)

# --- the plan: traffic and latency targets (formulas/plan.py) ------------------------------
MLPERF = (
    "MLCommons inference loadgen/mlperf.conf: llama2-70b.Server.ttft_latency = 2000 ms, "
    "tpot_latency = 200 ms (MLPerf bounds the p99; the ledger's TTFT and TPOT are medians)"
)
hours_per_day = constant("hours_per_day", 24, "h/day", "Hours in a day", source=SI, tex="24")
requests_per_day = scenario_input(
    "requests_per_day",
    "requests/day",
    "Requests the service answers in a day (mean traffic)",
    default=1000000,
    lo=1,
    source="illustrative (issue 28's planning question); set your own",
)
peak_to_mean_ratio = scenario_input(
    "peak_to_mean_ratio",
    "1",
    "Request rate in the busiest hour over the day's mean rate (the plan is sized for the peak)",
    default=2,
    lo=1,
    source="illustrative: measure yours (the peak hour's requests x 24 / the day's requests)",
)
ttft_target_s = scenario_input(
    "ttft_target_s",
    "s",
    "Largest median time to first token users accept (0 = no target)",
    default=2,
    lo=0,
    source=MLPERF,
)
tpot_target_s = scenario_input(
    "tpot_target_s",
    "s",
    "Largest median time per output token users accept (0 = no target)",
    default=sp.Rational(2, 10),
    lo=0,
    source=MLPERF,
)
