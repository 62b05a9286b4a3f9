"""Inputs: number formats as the dtype table states them (bits per element, scale bits, block
size per part), the RoPE scaling method and the MoE all-to-all formats.

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

import sympy as sp

from ledgerbuild.ledger import key_input, lookup_input, scenario_input

from ..sources import DEEPSEEK_V3, PREREQ


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
attention_format = format_lookups("attention", "attention_dtype")
attention_output_format = format_lookups("attention_output", "attention_output_dtype")


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
    hi=10**5,
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
