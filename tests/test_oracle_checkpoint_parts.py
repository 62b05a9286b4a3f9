"""Weight bytes of NVIDIA's DeepSeek-R1 NVFP4 checkpoint against transformers' meta-device model.

The expected bytes are counted tensor by tensor on transformers' DeepseekV3ForCausalLM (built on
the meta device from the catalog's config.json), each tensor in the format the checkpoint stores
it, by this rule (NVIDIA/TensorRT-Model-Optimizer @ 5a4242fa, examples/deepseek/ptq.py and
quantize_to_nvfp4.py; model card of nvidia/DeepSeek-R1-0528-FP4-v2):
- the decoder's MLP and expert weights (dense MLP, shared and routed experts) and the attention
  output projection (o_proj: the -v2 checkpoints quantise wo): NVFP4, 4 bits plus one FP8 (8-bit)
  scale per 16 elements, 4.5 bits;
- the other attention weights (q_a, q_b, kv_a_with_mqa, kv_b): excluded from quantisation and
  written as the BF16 tensor dequantised from DeepSeek's FP8 checkpoint (its *_scale_inv dropped),
  2 bytes;
- the embedding and lm_head: BF16, 2 bytes (excluded: "*lm_head*"; the embedding is no Linear);
- everything else (norms, the router's gate and bias): BF16, 2 bytes (not a quantised Linear).
Tolerance: the ledger stores the router and norms in weight_dtype (its stated shortcut,
formulas/numerics.py), 0.1 GB in 386 GB; reading the MLA projections at NVFP4 instead of BF16
would be 6.1 GB (1.6 %) off, so 1e-3 tells them apart.
"""

import pytest

from hf_oracle import causal_lm
from ledgerbuild import catalog
from ledgerbuild import measurements as ms
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle

NVFP4_BYTES = (4 + 8 / 16) / 8
MLP = (".mlp.experts.", ".mlp.shared_experts.", ".mlp.gate_proj.", ".mlp.up_proj.", ".mlp.down_proj.")


def checkpoint_bytes(model) -> float:
    total = 0.0
    for name, p in model.named_parameters():
        quantised = name.startswith("model.layers.") and (
            any(part in name for part in MLP) or name.endswith(".self_attn.o_proj.weight")
        )
        total += p.numel() * (NVFP4_BYTES if quantised else 2)
    return total


@pytest.fixture(scope="module")
def expected():
    return checkpoint_bytes(causal_lm(catalog.models()["deepseek-r1"].config, "meta"))


def test_weight_bytes_of_the_inferencex_fp4_rows_equal_the_checkpoint(expected):
    """Every evaluated InferenceX FP4 row reads the checkpoint's parts from aliases.yaml."""
    _, rows = ms.load(ms.shipped_path("inferencex_dsr1_latency.yaml"))
    fp4 = [r for r in rows if not r.reason and r.weight_dtype == "nvfp4"]
    assert fp4 and len({tuple(sorted(r.parts.items())) for r in fp4}) == 1
    ours = evaluate(fp4[0].model, fp4[0].scenario("vllm")).value("weight_bytes")
    assert ours == pytest.approx(expected, rel=1e-3)


def test_mla_at_nvfp4_would_be_off(expected):
    """The same count without the checkpoint's BF16 MLA projections misses it by more than the
    tolerance: the test can fail."""
    nvfp4 = {"weight_dtype": "nvfp4", "embedding_dtype": "bf16", "lm_head_dtype": "bf16"}
    ours = evaluate("deepseek-r1", nvfp4).value("weight_bytes")
    assert abs(ours / expected - 1) > 1e-2
