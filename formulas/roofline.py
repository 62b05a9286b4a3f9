"""Roofline: ridge point per GPU and precision; intensity of prefill and decode steps.

seeds/001 and seeds/002: ridge = peak FLOP/s / bandwidth (H100 ~295, A100 ~153 FLOP/byte);
a step is compute-bound when its FLOPs per HBM byte exceed the ridge. Shortcut: activations
are assumed fused (not counted as HBM traffic), as in seeds/001.
"""

from ledgerbuild.ledger import quantity

from .flops import flops_per_token, flops_prefill
from .inputs import (
    bandwidth_efficiency,
    batch_size,
    bits_per_byte,
    hbm_bandwidth_bytes_per_s,
    mfu,
    n_routed_experts,
    num_experts_per_tok,
)
from .kv_cache import kv_bytes_prompt
from .latency import decode_bytes_per_gpu
from .memory import replica_gpus, weight_bytes
from .numerics import expert_bits_per_param, peak_flops_per_s
from .sources import DEEPSEEK_V3, PREREQ, SHAPES

T = "roofline"
INTENSITY = "FLOP/byte"

ridge_point = quantity(
    "ridge_point_flops_per_byte",
    peak_flops_per_s / hbm_bandwidth_bytes_per_s,
    INTENSITY,
    "Arithmetic intensity above which a step is compute-bound",
    source=PREREQ + "; " + SHAPES,
    topic=T,
)
ridge_effective = quantity(
    "ridge_effective_flop_per_byte",
    mfu * peak_flops_per_s / (bandwidth_efficiency * hbm_bandwidth_bytes_per_s),
    INTENSITY,
    "Ridge point at the time model's efficiencies: achieved FLOP/s (mfu x peak) over achieved "
    "bandwidth (bandwidth_efficiency x bandwidth); equals the datasheet ridge under the roofline",
    source=PREREQ + "; " + SHAPES + " (the ridge at the MFU a kernel reaches)",
    topic=T,
)
quantity(
    "prefill_intensity",
    flops_prefill / (weight_bytes + kv_bytes_prompt),
    INTENSITY,
    "Prefill FLOPs per byte of weights read and KV written",
    source=SHAPES,
    topic=T,
)
quantity(
    "decode_intensity",
    batch_size * flops_per_token / (decode_bytes_per_gpu * replica_gpus),
    INTENSITY,
    "Decode-step FLOPs per HBM byte at batch_size",
    source=SHAPES + " (1.05 at batch 1)",
    topic=T,
)
quantity(
    "moe_tokens_to_ridge",
    ridge_point * expert_bits_per_param / (2 * bits_per_byte) * n_routed_experts / num_experts_per_tok,
    "tokens",
    "Tokens in flight (all EP replicas) at which one routed expert's GEMM reaches the ridge: a "
    "dense layer's turning batch (2 FLOP per (bits/8) bytes per parameter = ridge) times E / k",
    source=SHAPES + "; " + DEEPSEEK_V3 + " §2.1.2",
    topic=T,
    when="moe",
)
