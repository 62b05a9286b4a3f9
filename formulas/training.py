"""Training and fine-tuning: state bytes per recipe, FLOPs per token, activations, LoRA.

Full training keeps, per parameter, the working weights, gradients, master weights and
optimizer state of the recipe (ZeRO §3.1: mixed precision Adam = 2 + 2 + 12 = 16 bytes).
A trained token costs 6N FLOPs (forward 2N, backward 4N; N = parameters in matmuls per
token), about 8N with full activation recomputation (the layers' forward once more; the
head is not recomputed). Activations per layer
follow Korthikanti et al. 2022 §4: s b h (34 + 5 a s / h) bytes with 16-bit activations and
no recomputation, 2 s b h with full recomputation (each layer keeps its input). LoRA (Hu et
al. 2021) adds A (r x d_in) and B (d_out x r) to each adapted matrix: r (d_in + d_out)
trained parameters; the frozen base stays in its format (QLoRA: pick a 4-bit weight_dtype).
Shortcuts: attention FLOPs, logits and optimizer temporaries are not counted; one replica,
no sharding (divide by the data-parallel degree for ZeRO-3); LoRA's MLP targets are the dense
MLPs and shared experts (routed experts stay frozen, as PEFT's defaults leave them).
"""

from sympy import Eq, Piecewise

from ledgerbuild.ledger import quantity

from .inputs import (
    activation_recompute,
    first_k_dense_replace,
    head_dim,
    intermediate_size,
    kv_lora_rank,
    lora_attention,
    lora_mlp,
    micro_batch,
    n_shared_experts,
    q_lora_rank,
    qk_nope_head_dim,
    qk_rope_head_dim,
    recipe_gradient_bytes,
    recipe_master_weight_bytes,
    recipe_optimizer_state_bytes,
    recipe_working_weight_bytes,
    shared_expert_intermediate_size,
    v_head_dim,
)
from .inputs import hidden_size as d
from .inputs import lora_rank as r
from .inputs import num_attention_heads as nh
from .inputs import num_hidden_layers as L
from .inputs import num_key_value_heads as nkv
from .inputs import train_seq_tokens as s
from .linear_attention import num_linear_attention_layers
from .numerics import weight_bytes
from .params import num_moe_layers, params_lm_head_matmul, params_matmul, params_total, qk_head_dim
from .sources import KORTHIKANTI, LORA
from .vision import L_v, d_v, n_hv, vision_inputs_per_request
from .vision import vision_patches as n_p

T = "training"
B = "bytes"
ZERO = "Rajbhandari et al. 2020, ZeRO §3.1; training-recipe table"

training_bytes_per_param = quantity(
    "training_bytes_per_param",
    recipe_working_weight_bytes
    + recipe_gradient_bytes
    + recipe_master_weight_bytes
    + recipe_optimizer_state_bytes,
    "bytes/param",
    "Bytes kept per trained parameter: weights, gradients, master weights, optimizer",
    source=ZERO,
    topic=T,
)
training_state_bytes = quantity(
    "training_state_bytes",
    params_total * training_bytes_per_param,
    B,
    "Weights, gradients, master weights and optimizer state of full training (one replica)",
    source=ZERO,
    topic=T,
)
quantity(
    "training_flops_per_token",
    6 * params_matmul + activation_recompute * 2 * (params_matmul - params_lm_head_matmul),
    "FLOP",
    "FLOPs per trained token: 6N, plus the layers' forward again with activation "
    "recomputation (about 8N), N = matmul parameters per token",
    source="Kaplan et al. 2020 §2.1 (C = 6N); " + KORTHIKANTI,
    topic=T,
    integer=True,
)
activation_bytes_per_layer = quantity(
    "activation_bytes_per_layer",
    Piecewise(
        (2 * s * micro_batch * d, activation_recompute > 0),
        (s * micro_batch * d * (34 + 5 * nh * s / d), True),
    ),
    B,
    "Activation bytes one layer keeps for the backward pass (16-bit activations)",
    source=KORTHIKANTI + " eq. (1) and 'full activation recomputation'",
    topic=T,
)
quantity(
    "vision_training_activation_bytes",
    micro_batch
    * vision_inputs_per_request
    * L_v
    * Piecewise(
        (2 * n_p * d_v, activation_recompute > 0),
        (n_p * d_v * (34 + 5 * n_hv * n_p / d_v), True),
    ),
    B,
    "Activation bytes the vision encoder keeps for the backward pass when it is trained: "
    "the same per-layer count as the language model's, over its L_v blocks, n_p patches and "
    "d_v width, for the micro-batch's images",
    source=KORTHIKANTI + " eq. (1), applied to the ViT blocks (Dosovitskiy et al. 2021)",
    topic=T,
    when="vision",
)
activation_bytes = quantity(
    "activation_bytes",
    L * activation_bytes_per_layer,
    B,
    "Activation bytes of all layers for one micro-batch",
    source=KORTHIKANTI,
    topic=T,
)
quantity(
    "training_memory_bytes",
    training_state_bytes + activation_bytes,
    B,
    "Full training memory of one replica: state plus activations",
    source=ZERO,
    topic=T,
)

# --- LoRA ----------------------------------------------------------------------------------
quantity(
    "lora_params_attention_layer",
    lora_attention * r * ((d + 2 * nh * head_dim) + 2 * (d + nkv * head_dim) + (nh * head_dim + d)),
    "params",
    "LoRA parameters on q (with its output gate), k, v, o of one layer",
    source=LORA,
    topic=T,
    when="attn_gate",
)
lora_attn = quantity(
    "lora_params_attention_layer",
    lora_attention * r * ((d + nh * head_dim) + 2 * (d + nkv * head_dim) + (nh * head_dim + d)),
    "params",
    "LoRA parameters on q, k, v, o of one layer",
    source=LORA,
    topic=T,
    when="gqa",
)
quantity(
    "lora_params_attention_layer",
    lora_attention
    * r
    * (
        Piecewise((d + nh * qk_head_dim, Eq(q_lora_rank, 0)), (d + 2 * q_lora_rank + nh * qk_head_dim, True))
        + d
        + kv_lora_rank
        + qk_rope_head_dim
        + kv_lora_rank
        + nh * (qk_nope_head_dim + v_head_dim)
        + nh * v_head_dim
        + d
    ),
    "params",
    "LoRA parameters on every MLA projection of one layer (q or q_a/q_b, kv_a, kv_b, o)",
    source=LORA,
    topic=T,
    when="mla",
)
lora_mlp_params = quantity(
    "lora_params_mlp",
    lora_mlp * L * 3 * r * (d + intermediate_size),
    "params",
    "LoRA parameters on gate, up, down of every dense MLP",
    source=LORA,
    topic=T,
    when="dense",
)
quantity(
    "lora_params_mlp",
    lora_mlp
    * 3
    * r
    * (
        first_k_dense_replace * (d + intermediate_size)
        + num_moe_layers * n_shared_experts * (d + shared_expert_intermediate_size)
    ),
    "params",
    "LoRA parameters on dense-first MLPs and shared experts (routed experts frozen)",
    source=LORA,
    topic=T,
    when="moe",
)
quantity(
    "lora_params",
    (L - num_linear_attention_layers) * lora_attn + lora_mlp_params,
    "params",
    "Trained LoRA parameters: r (d_in + d_out) per adapted matrix (linear-attention layers "
    "have no q, k, v, o to adapt)",
    source=LORA,
    topic=T,
    integer=True,
    when="hybrid",
)
lora_params = quantity(
    "lora_params",
    L * lora_attn + lora_mlp_params,
    "params",
    "Trained LoRA parameters: r (d_in + d_out) per adapted matrix",
    source=LORA,
    topic=T,
    integer=True,
)
quantity(
    "lora_memory_bytes",
    weight_bytes + training_bytes_per_param * lora_params,
    B,
    "LoRA / QLoRA memory: the frozen base in its format plus the recipe's bytes per "
    "trained parameter (activations apart)",
    source=LORA + "; Dettmers et al. 2023 (QLoRA)",
    topic=T,
)
