"""Numerics: bits per element of each part's format, weight bytes by part, the math rate.

A format's bits per element is built from the format (dtype table): the element's bits plus
its block's scale (and zero-point) bits shared over the block (OCP MX v1.0: MXFP4 = 4 + 8/32
= 4.25; NVIDIA NVFP4 = 4 + 8/16 = 4.5; INT4 g128 with FP16 scale and zero = 4 + 32/128).
Parts may differ (per-part precision): the embedding, lm_head, the routed experts, the
attention's q/kv projections and its output projection have their own formats, the rest
follows weight_dtype (gpt-oss: MXFP4 experts, BF16 elsewhere; NVIDIA's DeepSeek-R1 NVFP4
checkpoints: MLA's projections in BF16).
Weight-only formats dequantise each weight before a 16-bit matmul; that costs as much time
as reading dequant_overhead_bits more bits per weight (seeds/002: 4-bit gives 2-3x, not 4x).
Shortcuts: NVFP4's one FP32 scale per tensor and per-channel INT8 scales are not counted;
attention biases and norms stay in weight_dtype; cross-attention layers count as attention;
partial blocks are not rounded up; the tensor-core rate and dequantisation follow
weight_dtype for every part.
"""

from sympy import And, Min, Piecewise, sqrt

from ledgerbuild.ledger import quantity

from .inputs import (
    attention_format,
    attention_output_format,
    bf16_flops_per_s,
    bits_per_byte,
    bits_per_element,
    embedding_format,
    expert_format,
    fp4_flops_per_s,
    fp8_flops_per_s,
    head_dim,
    hidden_size,
    kv_format,
    lm_head_format,
    n_routed_experts,
    num_hidden_layers,
    weight_dequant_overhead_bits,
    weight_format,
    weight_math_bits,
    weight_row_block_elements,
)
from .linear_attention import num_linear_attention_layers
from .params import num_moe_layers, params_embedding, params_expert, params_lm_head, params_total
from .params_attention import params_kv_proj, params_o_proj, params_q_proj
from .sources import DEEPSEEK_V3, MX, PREREQ

T = "numerics"
BITS = "bits"


weight_bits_per_param = quantity(
    "weight_bits_per_param",
    bits_per_element(*weight_format),
    BITS,
    "Bits per weight of weight_dtype, its block scales included",
    source=MX,
    topic=T,
)
embedding_bits_per_param = quantity(
    "embedding_bits_per_param",
    bits_per_element(*embedding_format),
    BITS,
    "Bits per embedding weight (embedding_dtype)",
    source=MX,
    topic=T,
)
lm_head_bits_per_param = quantity(
    "lm_head_bits_per_param",
    bits_per_element(*lm_head_format),
    BITS,
    "Bits per lm_head weight (lm_head_dtype)",
    source=MX,
    topic=T,
)
expert_bits_per_param = quantity(
    "expert_bits_per_param",
    bits_per_element(*expert_format),
    BITS,
    "Bits per routed-expert weight (expert_dtype)",
    source=MX,
    topic=T,
)
attention_bits_per_param = quantity(
    "attention_bits_per_param",
    bits_per_element(*attention_format),
    BITS,
    "Bits per q and k/v projection weight (attention_dtype)",
    source=MX,
    topic=T,
)
attention_output_bits_per_param = quantity(
    "attention_output_bits_per_param",
    bits_per_element(*attention_output_format),
    BITS,
    "Bits per attention output-projection weight (attention_output_dtype)",
    source=MX,
    topic=T,
)
kv_bits_per_element = quantity(
    "kv_bits_per_element",
    bits_per_element(*kv_format),
    BITS,
    "Bits per cached K or V element (kv_dtype), scales included",
    source=MX,
    topic=T,
)
weight_dtype_bytes = quantity(
    "weight_dtype_bytes",
    weight_bits_per_param / bits_per_byte,
    "bytes",
    "Bytes per weight of weight_dtype",
    source=PREREQ,
    topic=T,
)
expert_dtype_bytes = quantity(
    "expert_dtype_bytes",
    expert_bits_per_param / bits_per_byte,
    "bytes",
    "Bytes per routed-expert weight",
    source=PREREQ,
    topic=T,
)
kv_dtype_bytes = quantity(
    "kv_dtype_bytes",
    kv_bits_per_element / bits_per_byte,
    "bytes",
    "Bytes per KV element",
    source=PREREQ,
    topic=T,
)
params_routed_experts = quantity(
    "params_routed_experts",
    num_moe_layers * n_routed_experts * params_expert,
    "params",
    "Parameters of all routed experts (stored in expert_dtype)",
    source=MX,
    topic=T,
    when="moe",
    integer=True,
)
quantity(
    "params_routed_experts",
    0,
    "params",
    "Dense model: no routed experts",
    source=MX,
    topic=T,
    when="dense",
    integer=True,
)
ATTENTION_LAYERS = num_hidden_layers - num_linear_attention_layers  # as params_language counts them
params_attention_projections = quantity(
    "params_attention_projections",
    ATTENTION_LAYERS * (params_q_proj + params_kv_proj),
    "params",
    "Parameters of the attention's q and k/v projections over the full-attention layers "
    "(stored in attention_dtype)",
    source=PREREQ,
    topic=T,
    integer=True,
)
params_attention_output = quantity(
    "params_attention_output",
    ATTENTION_LAYERS * params_o_proj,
    "params",
    "Parameters of the attention output projections W_o (stored in attention_output_dtype)",
    source=PREREQ,
    topic=T,
    integer=True,
)
embedding_bytes = quantity(
    "embedding_bytes",
    params_embedding * embedding_bits_per_param / bits_per_byte,
    "bytes",
    "Bytes of the embedding table",
    source=MX,
    topic=T,
)
params_at_weight_dtype = quantity(
    "params_at_weight_dtype",
    params_total
    - params_embedding
    - params_lm_head
    - params_routed_experts
    - params_attention_projections
    - params_attention_output,
    "params",
    "Parameters stored at the weight format: all but the embedding, lm_head, routed experts and "
    "attention projections, each of which has a format of its own",
    source=PREREQ,
    topic=T,
)
attention_weight_bytes = quantity(
    "attention_weight_bytes",
    params_attention_projections * attention_bits_per_param / bits_per_byte
    + params_attention_output * attention_output_bits_per_param / bits_per_byte,
    "bytes",
    "Bytes of the attention projections (q, k/v; W_o) in their checkpoint's formats",
    source=MX + "; " + PREREQ,
    topic=T,
)
weight_bytes = quantity(
    "weight_bytes",
    params_at_weight_dtype * weight_dtype_bytes
    + embedding_bytes
    + attention_weight_bytes
    + params_lm_head * lm_head_bits_per_param / bits_per_byte
    + params_routed_experts * expert_dtype_bytes,
    "bytes",
    "Bytes of all weights, each part in its format",
    source=MX + "; " + PREREQ,
    topic=T,
)
weight_dequant_factor = quantity(
    "weight_dequant_factor",
    1 + weight_dequant_overhead_bits / weight_bits_per_param,
    "ratio",
    "Time to read and dequantise a weight over the time to read it (1: the format is used as stored)",
    source=PREREQ + " (4-bit: 2-3x faster, not 4x)",
    topic=T,
)
peak_flops_per_s = quantity(
    "peak_flops_per_s",
    Piecewise(
        (fp4_flops_per_s, And(weight_math_bits <= 4, fp4_flops_per_s > 0)),
        (fp8_flops_per_s, And(weight_math_bits <= 8, fp8_flops_per_s > 0)),
        (bf16_flops_per_s, True),
    ),
    "FLOP/s",
    "Dense tensor peak the weight format runs at: FP4 or FP8 where the GPU has them, "
    "else BF16 (weight-only formats: BF16)",
    source="GPU table; dtype table math_bits",
    topic=T,
)

# --- outliers and logit bounds ---------------------------------------------------------------
row_block = Piecewise(
    (weight_row_block_elements, weight_row_block_elements > 0),
    (weight_format[2], weight_format[2] > 1),
    (hidden_size, True),
)
quantity(
    "outlier_row_share",
    Min(row_block, hidden_size) / hidden_size,
    "fraction",
    "Share of a row of d elements whose scale one outlier sets: its block's width along the "
    "row over d (1: one scale for the whole row or tensor)",
    source=DEEPSEEK_V3 + " §3.3.2 (fine-grained quantization isolates outliers per 1 x 128 tile); " + MX,
    topic=T,
)
quantity(
    "qk_norm_logit_bound",
    sqrt(head_dim),
    "1",
    "Largest attention logit q.k / sqrt(d_h) when q and k are RMS-normed at unit gains: "
    "|q| = |k| = sqrt(d_h), so q.k <= d_h (sqrt(d_h) x g_q x g_k with gains)",
    source="Henry et al. 2020, Query-Key Normalization for Transformers (arXiv:2010.04245); "
    "Dehghani et al. 2023, ViT-22B (arXiv:2302.05442) §2 QK normalization; Cauchy-Schwarz",
    topic=T,
    when="qk_norm",
)
