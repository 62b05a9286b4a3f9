"""Inputs: training and fine-tuning: the recipe's bytes per parameter, recomputation, sequence,
micro-batch and LoRA settings.

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

from ledgerbuild.ledger import lookup_input, scenario_input

from ..sources import KORTHIKANTI, LORA
from .bounds import MAX_REQUESTS, MAX_TOKENS


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
    hi=MAX_TOKENS,
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
    hi=MAX_REQUESTS,
    integer=True,
    source=KORTHIKANTI,
    tex="b",
)
lora_rank = scenario_input(
    "lora_rank",
    "rank",
    "LoRA rank r (0: no adapters)",
    default=16,
    lo=0,
    hi=10**6,
    integer=True,
    source=LORA,
    tex="r",
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
