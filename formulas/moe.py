"""MoE serving: why experts want many tokens in flight, and what expert parallelism moves.

Each routed expert's GEMM sees only T k / E of the T tokens of a step, so its arithmetic
intensity is E / k times below a dense layer's (DeepSeek-V3: 256 / 8 = 32). Expert
parallelism (EP) splits the routed experts across the GPUs of EP data-parallel attention
replicas; every MoE layer then sends each token's hidden state to its k experts and back
(all-to-all dispatch and combine), k d (dispatch + combine) bytes per token per layer
(DeepSeek-V3: 8 x 7,168 x (1 FP8 + 2 BF16) bytes). memory.py splits the routed-expert bytes
over the EP replicas, latency.py charges the token exchange on the interconnect. Under attention
data parallelism the engines' default exchange is not a routed all-to-all but an all-gather of
every rank's hidden states before the experts and a reduce-scatter of the expert outputs after
(TensorRT-LLM CutlassFusedMoE: "[fp4_allgather] + FusedMoe Op + reducescatter, with AttentionDP
on"): a rank receives the other EP - 1 ranks' tokens once each, d (dispatch + combine) bytes per
token, whatever k (`attention_dp_exchange_bytes_per_token_layer`).
Shortcut: uniform routing (every expert receives T k / E rows); attention is replicated, not
sharded, across EP replicas.
"""

from ledgerbuild.ledger import quantity

from .inputs import (
    batch_size,
    bits_per_byte,
    expert_parallel,
    hidden_size,
    moe_combine_bits,
    moe_dispatch_bits,
    n_routed_experts,
    num_experts_per_tok,
)
from .numerics import expert_dtype_bytes, params_routed_experts
from .sources import DEEPSEEK_V3

T = "moe"

quantity(
    "moe_intensity_ratio",
    n_routed_experts / num_experts_per_tok,
    "ratio",
    "E / k: how many times below a dense layer's the arithmetic intensity of one expert's "
    "GEMM is, at the same tokens per step",
    source=DEEPSEEK_V3 + " §2.1.2 (256 routed experts, 8 active)",
    topic=T,
    when="moe",
)
routed_expert_bytes = quantity(
    "routed_expert_bytes",
    params_routed_experts * expert_dtype_bytes,
    "bytes",
    "Bytes of the routed experts (what expert parallelism splits; shared experts, attention "
    "and dense layers are replicated)",
    source=DEEPSEEK_V3 + " §3.4",
    topic=T,
)
all_to_all_bytes = quantity(
    "all_to_all_bytes_per_token_layer",
    num_experts_per_tok * hidden_size * (moe_dispatch_bits + moe_combine_bits) / bits_per_byte,
    "bytes",
    "All-to-all bytes of one token through one MoE layer: dispatch to its k experts and "
    "combine back, k x d x (dispatch + combine bytes)",
    source=DEEPSEEK_V3 + " §3.3.2 (FP8 dispatch, BF16 combine)",
    topic=T,
)
ADP_EXCHANGE = (
    "NVIDIA/TensorRT-LLM@000a01de66f0eab4ab05640711f0253f50f5209c "
    "tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py (CutlassFusedMoE: with attention DP "
    "the quantized hidden states of every rank are all-gathered, allgather(x, ..., sizes="
    "all_rank_num_tokens), before the fused MoE op, and its output reduce-scattered after; MoE "
    "max tokens x DP size); sgl-project/sglang@2aa2e2d0ffda0a44ed9a022fdd9d5d042f365eee "
    "python/sglang/srt/layers/dp_attention.py (dp_gather_partial: every DP rank's tokens "
    "gathered before the MoE; each rank copies its own rows back after)"
)
adp_exchange_bytes = quantity(
    "attention_dp_exchange_bytes_per_token_layer",
    hidden_size * (moe_dispatch_bits + moe_combine_bits) / bits_per_byte,
    "bytes",
    "Bytes one token of another attention data-parallel rank costs a rank in one MoE layer: its "
    "hidden state all-gathered in (dispatch format) and its expert output reduce-scattered back "
    "(combine format), d x (dispatch + combine bytes), whatever k",
    source=ADP_EXCHANGE + "; " + DEEPSEEK_V3 + " §3.3.2 (FP8 dispatch, BF16 combine)",
    topic=T,
)
quantity(
    "expert_rows_per_step",
    batch_size * expert_parallel * num_experts_per_tok / n_routed_experts,
    "rows",
    "Rows one routed expert's GEMM sees in a decode step: batch_size tokens of every EP "
    "replica, k of E experts each (uniform routing)",
    source=DEEPSEEK_V3 + " §2.1.2",
    topic=T,
    when="moe",
)
