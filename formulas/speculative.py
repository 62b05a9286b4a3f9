"""Speculative decoding and multi-token prediction: what a draft buys, at batch 1 and at batch B.

Lecture §6.2 (seeds/000): a user's decode speed is capped by one weight read per token; the
third way past the cap is to emit more tokens per read (speculative decoding). A draft proposes
gamma tokens, the target verifies them in one step of gamma + 1 rows per sequence and keeps the
accepted prefix plus one token of its own (Leviathan et al. 2023; Chen et al. 2023). With an
i.i.d. acceptance probability alpha a round emits E = (1 - alpha^(gamma+1)) / (1 - alpha) tokens
(Leviathan eq. 1). Memory-bound (batch 1) a verification step costs one target step: speedup
E / (gamma c + 1) (Thm 3.8); compute-bound it costs gamma + 1 steps: E / (gamma + 1 + gamma c).
Between the two the time model in force decides: the verification is a decode step of
B (gamma + 1) tokens reading B sequences' KV (latency.decode_step), a draft step costs c target
steps at batch B.

MTP (DeepSeek-V3 §2.2): each module is two RMSNorms (enorm, hnorm) on the embedding of the
next token and on the last hidden state, a 2d -> d projection (eh_proj), one full transformer
block and its head's final norm; the embedding and lm_head are the main model's (not counted
again). As a draft it proposes gamma = 1 token at the cost of its active parameters (with the
lm_head matmul it runs) over the model's.

Shortcuts: acceptance is one number per token (real acceptance varies by position and text;
`ledgerbuild sample speculative` measures it); the turning batch counts weight bytes only
(KV reads keep attention memory-bound, so the real turning point is later); the draft's time
is c x the target's step time at the same batch, whatever the draft's own shape.
"""

from sympy import Piecewise

from ledgerbuild.ledger import quantity

from .inputs import (
    batch_size,
    bits_per_byte,
    hidden_size,
    n_routed_experts,
    norms_per_layer,
    num_experts_per_tok,
    num_nextn_predict_layers,
    spec_acceptance,
    spec_draft_cost,
    spec_draft_tokens,
    vocab_size,
)
from .latency import decode_step, decode_step_s
from .numerics import weight_bits_per_param
from .params import (
    params_active,
    params_attn_layer,
    params_dense_mlp_layer,
    params_expert,
    params_router,
    params_shared_experts,
)
from .roofline import ridge_point
from .sources import CHEN, DEEPSEEK_V3_MTP, LECTURE, LEVIATHAN

T = "speculative"
X = "x"  # a speedup factor
alpha, gamma, c = spec_acceptance, spec_draft_tokens, spec_draft_cost
d = hidden_size

expected = quantity(
    "spec_expected_tokens",
    (1 - alpha ** (gamma + 1)) / (1 - alpha),
    "tokens",
    "Tokens one verification round emits: accepted drafts plus the target's own",
    source=LEVIATHAN + " eq. 1; " + CHEN,
    topic=T,
)
quantity(
    "spec_speedup_memory_bound",
    expected / (gamma * c + 1),
    X,
    "Speedup when a verification step costs one target step (weights read once)",
    source=LEVIATHAN + " Thm 3.8",
    topic=T,
)
quantity(
    "spec_speedup_compute_bound",
    expected / ((gamma + 1) + gamma * c),
    X,
    "Speedup when a verification step costs gamma + 1 target steps (compute-bound)",
    source=LEVIATHAN + " §3.4",
    topic=T,
)
decode_turning = quantity(
    "decode_turning_batch",
    ridge_point * weight_bits_per_param / (2 * bits_per_byte),
    "requests",
    "Batch at which a decode step's weight reads reach the "
    "ridge: 2 B FLOP per (bits/8) bytes per parameter = ridge",
    source=LECTURE + " §6.2; seeds/002 (roofline)",
    topic=T,
)
quantity(
    "spec_turning_batch",
    decode_turning / (gamma + 1),
    "requests",
    "Batch at which verifying gamma + 1 rows per request reaches the ridge (ridge / "
    "(gamma + 1) in 16-bit weights)",
    source=LEVIATHAN + " §3.4; " + LECTURE + " §6.2",
    topic=T,
)
_, verify_s = decode_step("spec_verify", batch_size * (gamma + 1), LEVIATHAN, sequences=batch_size)
verify_step_s = quantity(
    "spec_verify_step_s",
    verify_s,
    "s",
    "Target step verifying gamma + 1 tokens of each of batch_size requests (time model in force)",
    source=LEVIATHAN,
    topic=T,
)
round_s = quantity(
    "spec_round_s",
    verify_step_s + gamma * c * decode_step_s,
    "s",
    "One round: gamma draft steps (c target steps each) and the verification",
    source=LEVIATHAN + " Thm 3.8",
    topic=T,
)
spec_tpot = quantity(
    "spec_tpot_s",
    round_s / expected,
    "s",
    "Time per output token with speculation at batch_size",
    source=LEVIATHAN,
    topic=T,
)
quantity(
    "spec_speedup_at_batch",
    decode_step_s / spec_tpot,
    X,
    "decode_step_s / spec_tpot_s: what speculation buys at batch_size under the time model in force",
    source=LEVIATHAN + "; " + LECTURE + " §6.2",
    topic=T,
)
quantity(
    "spec_tokens_per_s_per_user",
    1 / spec_tpot,
    "tokens/s",
    "Decode speed one user sees with speculation",
    source=LECTURE + " §6.2",
    topic=T,
)

# --- multi-token prediction (DeepSeek-V3) -------------------------------------------------
MTP_EXTRA = 3 * d + 2 * d * d  # enorm, hnorm, the head's norm; eh_proj (2d -> d)
for when, block, block_active in (
    (
        "moe",
        params_attn_layer
        + params_router
        + n_routed_experts * params_expert
        + params_shared_experts
        + norms_per_layer * d,
        params_attn_layer
        + params_router
        + num_experts_per_tok * params_expert
        + params_shared_experts
        + norms_per_layer * d,
    ),
    (
        "dense",
        params_attn_layer + params_dense_mlp_layer + norms_per_layer * d,
        params_attn_layer + params_dense_mlp_layer + norms_per_layer * d,
    ),
):
    quantity(
        "params_mtp_block",
        num_nextn_predict_layers * block,
        "params",
        "The MTP modules' transformer blocks (README_WEIGHTS: 11.5B unique)",
        source=DEEPSEEK_V3_MTP,
        topic=T,
        when=when,
        integer=True,
    )
    mtp = quantity(
        "params_mtp",
        num_nextn_predict_layers * (block + MTP_EXTRA),
        "params",
        "MTP modules: norms, eh_proj and a full block each (embedding and lm_head shared, not counted again)",
        source=DEEPSEEK_V3_MTP,
        topic=T,
        when=when,
        integer=True,
    )
    mtp_active = quantity(
        "params_mtp_active",
        num_nextn_predict_layers * (block_active + MTP_EXTRA + vocab_size * d),
        "params",
        "Parameters one MTP draft token uses, with the shared lm_head it runs (README_WEIGHTS: 1.5B)",
        source=DEEPSEEK_V3_MTP,
        topic=T,
        when=when,
        integer=True,
    )
mtp_cost = quantity(
    "spec_mtp_draft_cost",
    Piecewise((mtp_active / params_active, num_nextn_predict_layers > 0), (0, True)),
    "fraction",
    "c of the MTP module as a draft (gamma = 1): its active parameters over the model's",
    source=DEEPSEEK_V3_MTP,
    topic=T,
)
quantity(
    "spec_mtp_speedup_memory_bound",
    (1 + alpha) / (1 + mtp_cost),
    X,
    "MTP as a draft (gamma = 1) when decode is memory-bound: E(gamma = 1) / (c + 1)",
    source=DEEPSEEK_V3_MTP + "; DeepSeek-V3 §5.4.3 (85-90% acceptance, 1.8x TPS)",
    topic=T,
)
