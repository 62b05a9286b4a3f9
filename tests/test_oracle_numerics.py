"""Numerics against independent engines: torch's casts (round_to bit for bit), PEFT's LoRA
layers (lora_params on meta-device transformers models), torch's flop counter over a training
step (training_flops_per_token)."""

import json

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from hf_oracle import TINY_LLAMA, causal_lm
from ledgerbuild import catalog
from ledgerbuild.evaluate import evaluate
from ledgerbuild.sim.numerics import round_to

pytestmark = pytest.mark.oracle

TORCH = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp8": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def random_float32(n=100_000, seed=0):
    """Magnitudes from subnormal to beyond each format's max, both signs, plus exact ties."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-9, 6, n)
    x[:1000] = (np.arange(1000) + 0.5) / 64  # halfway cases: round to nearest even
    return x.astype(np.float32)


@pytest.mark.parametrize("dtype_id", sorted(TORCH))
def test_round_to_equals_torch_cast_bit_for_bit(dtype_id):
    x = random_float32()
    ours = round_to(x, dtype_id)
    theirs = torch.from_numpy(x).to(TORCH[dtype_id]).to(torch.float64).numpy()
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours[~nan].view(np.int64), theirs[~nan].view(np.int64))


DENSE_GQA = sorted(
    m
    for m, e in catalog.models().items()
    if not e.config.get("kv_lora_rank") and evaluate(m).tags >= {"dense", "gqa"}
)
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@pytest.mark.parametrize("model_id", DENSE_GQA)
def test_lora_params_equal_peft(model_id):
    from peft import LoraConfig, get_peft_model

    model = causal_lm(catalog.models()[model_id].config, "meta")
    names = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
    if not set(TARGETS) <= names:
        pytest.skip(
            f"fused projections ({sorted(names & {'qkv_proj', 'gate_up_proj'})}): "
            "the ledger counts separate q, k, v, gate, up"
        )
    # a VLM: LoRA on its language model (the usual recipe; the ledger's lora_params is the
    # language model's; Emu3 calls it text_model), not on the vision tower's same-named projections
    targets = (
        rf".*(language_model|text_model)\..*\.({'|'.join(TARGETS)})$"
        if "multimodal" in evaluate(model_id).tags
        else TARGETS
    )
    peft_model = get_peft_model(model, LoraConfig(r=16, target_modules=targets))
    trainable = sum(p.numel() for p in peft_model.parameters() if p.requires_grad)
    assert evaluate(model_id, {"lora_rank": "16"}).value("lora_params") == trainable


TINY = TINY_LLAMA
SEQ = 12


@pytest.mark.parametrize("recompute", [0, 1])
def test_training_flops_equal_flop_counter(recompute, tmp_path):
    """A forward and backward over SEQ tokens with every position's logits: the matmuls
    (aten.mm / addmm) count 6N per token, plus the layers' forward again when checkpointed."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY))
    torch.manual_seed(0)
    model = causal_lm(TINY, "cpu", attn="eager").train()
    if recompute:
        # reentrant checkpointing recomputes the whole layer (Megatron full recomputation);
        # the non-reentrant kind stops early and skips the last matmul of each layer
        model.gradient_checkpointing_enable({"use_reentrant": True})
    ids = torch.randint(0, 90, (1, SEQ))
    counter = FlopCounterMode(display=False)
    with counter:
        model(ids, labels=ids).loss.backward()
    ops = {str(op): n for op, n in counter.get_flop_counts()["Global"].items()}
    linear = ops.get("aten.mm", 0) + ops.get("aten.addmm", 0)
    ledger = evaluate(str(path), {"activation_recompute": str(recompute)})
    assert ledger.value("training_flops_per_token") * SEQ == linear
