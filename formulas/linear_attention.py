"""Hybrid linear attention: layers that keep a fixed recurrent state instead of a KV cache.

Qwen3-Next puts a Gated DeltaNet layer in three of every four blocks (layer_types
"linear_attention"; full attention every full_attention_interval-th). Such a layer projects
each token to q, k (linear_num_key_heads x linear_key_head_dim), v and an output gate z
(linear_num_value_heads x linear_value_head_dim), convolves q, k, v causally over the last
linear_conv_kernel_dim tokens, and folds k v^T into a d_k x d_v state per value head: its
memory per sequence is fixed, whatever the context (Yang et al. 2024, Gated Delta Networks,
arXiv:2412.06464; transformers modeling_qwen3_next.py). The full-attention layers also gate
their output (W_q produces the query and a per-head gate). Shortcuts: the state update's own
FLOPs (about 4 n_v d_k d_v a token a layer) are not counted; the state is stored in the KV
dtype, and transformers keeps the whole kernel window (K, not K - 1 tokens) of the
convolution.
"""

from ledgerbuild.ledger import model_input, quantity

from .inputs import hidden_size as d

T = "long_context"
GDN = "Gated Delta Networks (arXiv:2412.06464); HF transformers modeling_qwen3_next.py"
C = "HF config.json (Qwen3-Next linear attention)"

num_linear_attention_layers = model_input(
    "num_linear_attention_layers",
    "layers",
    "Layers with linear attention (a fixed state)",
    source=C,
    default=0,
)
n_kh = model_input("linear_num_key_heads", "heads", "Linear attention: key heads", source=C, default=0)
n_vh = model_input("linear_num_value_heads", "heads", "Linear attention: value heads", source=C, default=0)
d_k = model_input("linear_key_head_dim", "elements", "Linear attention: key head width", source=C, default=0)
d_vh = model_input(
    "linear_value_head_dim", "elements", "Linear attention: value head width", source=C, default=0
)
kernel = model_input(
    "linear_conv_kernel_dim", "tokens", "Linear attention: causal convolution width", source=C, default=0
)
attn_output_gate = model_input(
    "attn_output_gate", "0/1", "1 if W_q also produces a per-head output gate", source=GDN, hi=1, default=0
)
shared_expert_gate = model_input(
    "shared_expert_gate",
    "0/1",
    "1 if the shared expert's output is gated (a d x 1 weight)",
    source=GDN,
    hi=1,
    default=0,
)


linear_conv_dim = quantity(
    "linear_conv_dim",
    2 * n_kh * d_k + n_vh * d_vh,
    "channels",
    "Channels the causal convolution runs over (q, k and v)",
    source=GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
matmul_linear_attn_layer = quantity(
    "matmul_linear_attn_layer",
    d * (2 * n_kh * d_k + 2 * n_vh * d_vh) + d * 2 * n_vh + n_vh * d_vh * d,
    "params",
    "Linear-attention weights in matmuls per layer: q, k, v, z; the b, a gates; the output",
    source=GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
params_linear_attn_layer = quantity(
    "params_linear_attn_layer",
    matmul_linear_attn_layer + linear_conv_dim * kernel + 2 * n_vh + d_vh,
    "params",
    "Linear-attention parameters per layer: matmuls, convolution, dt bias and A per value "
    "head, the gated norm",
    source=GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
linear_attention_state_elements_per_layer = quantity(
    "linear_attention_state_elements_per_layer",
    n_vh * d_k * d_vh + linear_conv_dim * kernel,
    "elements",
    "Fixed state per sequence per linear layer: a d_k x d_v matrix per value head and the convolution window",
    source=GDN,
    topic=T,
    integer=True,
    when="hybrid",
)
