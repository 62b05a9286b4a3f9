"""Decode-step physics the TPOT rows need: what a quantized checkpoint stores, the per-layer kernel overhead.

Expected values: the parts an FP8 / NVFP4 checkpoint keeps in BF16 come from NVIDIA ModelOpt's
quantization config (NVIDIA/TensorRT-Model-Optimizer @ 103b1bb1, modelopt/torch/quantization/config.py:
`*lm_head*` disabled, only the decoder's Linear layers quantized) and NVIDIA's FP8 model cards ("Only
the weights and activations of the linear operators within transformers blocks are quantized"); the
byte count is counted on transformers' own Llama 3 8B built on the meta device (Linear layers of the
decoder blocks at 1 byte, every other parameter at 2 bytes). The per-layer kernel overhead's bound
comes from Hazy Research's measurement (2025-05-27: ~100 kernels per Llama-1B forward of 16 layers,
1.3 us launch each on H100 under CUDA graphs); the measured TPOT is NIM's published figure
(measurements/nim_gpustack_dense_latency.yaml: Llama 3.1 8B FP8 on one H100).
"""

import numpy as np
import pytest

from ledgerbuild import calibration, catalog, measurements
from ledgerbuild.evaluate import evaluate, to_plain

NIM = "nim_gpustack_dense_latency.yaml"


@pytest.fixture(scope="module")
def nim_rows():
    _, rows = measurements.load(measurements.shipped_path(NIM))
    return [m for m in rows if not m.reason]


def test_quantized_checkpoints_keep_embedding_and_lm_head_in_bf16(nim_rows):
    fp8 = [m for m in nim_rows if m.weight_dtype == "fp8"]
    assert fp8, "the NIM rows run FP8 checkpoints"
    for m in fp8:
        sets = m.scenario("tensorrt-llm")
        assert sets["embedding_dtype"] == "bf16" and sets["lm_head_dtype"] == "bf16", m.row
    bf16 = [m for m in nim_rows if m.weight_dtype == "bf16"]
    assert bf16 and all("lm_head_dtype" not in m.scenario("vllm") for m in bf16)


def test_fp8_weight_bytes_equal_transformers_linear_layers_at_one_byte():
    torch = pytest.importorskip("torch")
    from hf_oracle import causal_lm

    model = causal_lm(catalog.models()["llama-3-8b"].config, "meta")
    linear = sum(
        p.numel()
        for layer in model.model.layers
        for mod in layer.modules()
        if isinstance(mod, torch.nn.Linear)
        for p in mod.parameters()
    )
    rest = sum(p.numel() for p in model.parameters()) - linear
    expected = linear * 1 + rest * 2  # FP8 E4M3 Linear weights, BF16 embedding / lm_head / norms
    sets = {"weight_dtype": "fp8", "embedding_dtype": "bf16", "lm_head_dtype": "bf16"}
    got = to_plain(evaluate("llama-3-8b", sets).value("weight_bytes"))
    # shortcut of the ledger: the RMSNorm weights (266,240 of 8.03e9) follow weight_dtype
    assert got == pytest.approx(expected, rel=1e-4)
    all_fp8 = to_plain(evaluate("llama-3-8b", {"weight_dtype": "fp8"}).value("weight_bytes"))
    assert got - all_fp8 == pytest.approx(2 * 128256 * 4096)  # embedding + lm_head: 1 more byte each


def test_layer_overhead_adds_once_per_layer_per_step():
    """A time model with only a per-layer overhead: the decode step of Llama 3 8B (32 layers,
    config.json num_hidden_layers) and of Llama 3 70B (80 layers) grows by layers x overhead."""
    base = {"gpu_count": "1", "weight_dtype": "fp8", "time_model": "additive"}
    for model, layers in (("llama-3-8b", 32), ("llama-3-70b", 80)):
        sets = {**base, "gpu_count": "2"} if layers == 80 else base
        without = to_plain(evaluate(model, sets).value("decode_step_s"))
        with_ = to_plain(evaluate(model, {**sets, "layer_overhead_s": "0.00002"}).value("decode_step_s"))
        assert with_ - without == pytest.approx(layers * 20e-6, rel=1e-9)


def test_shipped_layer_overhead_is_within_its_physical_bound():
    lo, hi, _ = calibration.BOUNDS["layer_overhead_s"]
    assert (lo, hi) == (0.0, 3e-5)  # ~6 kernels a layer at <= 5 us of launch, ramp-up and teardown each
    rows = [r for i, r in catalog.table("time_models").items() if i.split("@")[0] == "calibrated"]
    assert rows and all(0 <= r.layer_overhead_s <= hi for r in rows)
    assert any(r.layer_overhead_s > 0 for r in rows)


def test_nim_8b_single_gpu_tpot_at_low_concurrency(nim_rows):
    """NIM's Llama 3.1 8B FP8 on one H100 at concurrency 1-5 (published ITL 4.6-5.0 ms): the
    calibrated TPOT within 10 % (it was 15 % under before the BF16 lm_head and per-layer term)."""
    rows = [m for m in nim_rows if m.model == "llama-3-8b" and m.tp == 1 and m.concurrency <= 5]
    assert rows
    prepared = calibration.prepare(rows, "tensorrt-llm", "calibrated")
    ratio = calibration.predict(prepared)["tpot_ms"] / prepared.measured["tpot_ms"]
    assert np.isfinite(ratio).all() and np.median(np.abs(ratio - 1)) <= 0.10
    floor = calibration.bounds(prepared)["tpot_ms"]
    assert (prepared.measured["tpot_ms"] >= floor).all()  # no measured row beats the floor
