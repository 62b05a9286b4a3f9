"""The source series' last figures (issue 33): effective ridge, communication bytes, expert
shapes, MTP targets, block-128 FP8, QK-norm bound, sorting cost, vision training activations.

Expected values come from the cited documents, a simulated ring all-reduce that counts the
bytes each rank sends, or transformers' own modules (marked `oracle`).
"""

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

runner = CliRunner()
ROOFLINE = {"time_model": "roofline"}


def value(model, name, **sets):
    return float(evaluate(model, {k: str(v) for k, v in sets.items()}).value(name))


def test_effective_ridge_is_the_datasheet_ridge_under_the_roofline():
    """seeds/002 'compute vs bandwidth': H100 989 TFLOP/s / 3.35 TB/s ~ 295 FLOP/byte; at the
    roofline (mfu 1, full bandwidth) the effective ridge is that ridge."""
    ridge = value("llama-3-8b", "ridge_effective_flop_per_byte", gpu="h100-sxm", **ROOFLINE)
    assert round(ridge) == 295


def test_effective_ridge_and_turning_batch_follow_the_mfu():
    """At half the peak FLOP/s the ridge halves, and so does the batch at which a decode
    step's weight reads reach it (16-bit weights: turning batch = ridge)."""
    sets = {"gpu": "h100-sxm", "time_model": "roofline", "mfu": 0.5}
    ridge = value("llama-3-8b", "ridge_effective_flop_per_byte", **sets)
    assert ridge == pytest.approx(989e12 * 0.5 / 3.35e12, rel=1e-3)
    assert value("llama-3-8b", "decode_turning_batch_effective", **sets) == pytest.approx(ridge)


def ring_allreduce_bytes_sent(n, elements, element_bytes):
    """Simulate a ring all-reduce (reduce-scatter then all-gather, n - 1 steps each) over n
    ranks and count the bytes rank 0 sends; the reduced result is checked too."""
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(elements) for _ in range(n)]
    expected = np.sum(data, axis=0)
    chunks = [np.array_split(d.copy(), n) for d in data]
    sent = 0
    for step in range(n - 1):  # reduce-scatter: rank r sends chunk (r - step) to r + 1
        outgoing = [(r, (r - step) % n, chunks[r][(r - step) % n].copy()) for r in range(n)]
        for r, c, payload in outgoing:
            chunks[(r + 1) % n][c] += payload
            sent += payload.size * element_bytes if r == 0 else 0
    for step in range(n - 1):  # all-gather: rank r sends its reduced chunk (r + 1 - step)
        outgoing = [(r, (r + 1 - step) % n, chunks[r][(r + 1 - step) % n].copy()) for r in range(n)]
        for r, c, payload in outgoing:
            chunks[(r + 1) % n][c] = payload
            sent += payload.size * element_bytes if r == 0 else 0
    for r in range(n):
        np.testing.assert_allclose(np.concatenate(chunks[r]), expected)
    return sent


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_allreduce_bytes_per_token_layer_equal_a_simulated_ring(tp):
    """Two all-reduces a layer (Megatron-LM §3) of one token's d-wide BF16 activation; the
    bytes one rank sends are counted on a simulated ring."""
    d = 4096  # llama-3-8b hidden_size (config.json)
    per_allreduce = ring_allreduce_bytes_sent(tp, d, 2)
    got = value("llama-3-8b", "allreduce_bytes_per_token_layer", gpu_count=tp)
    assert got == 2 * per_allreduce


def test_ep_all_to_all_over_tp_allreduce_deepseek_v3():
    """DeepSeek-V3 §3.3.2: dispatch FP8 + combine BF16 to 8 experts of d = 7,168, over the
    TP all-reduce bytes of the same token and layer on 8 GPUs (simulated ring)."""
    a2a = 8 * 7168 * (1 + 2)
    ring = 2 * ring_allreduce_bytes_sent(8, 7168, 2)
    got = value("deepseek-v3", "ep_all_to_all_over_tp_allreduce", gpu_count=8)
    assert got == pytest.approx(a2a / ring)
    assert value("deepseek-v3", "ep_all_to_all_over_tp_allreduce", gpu_count=1) == 0


def test_mtp_targets_deepseek_v3():
    """DeepSeek-V3 §2.2 and §4.2: one MTP module (D = 1), so each position predicts the next
    2 tokens; a row needs D = 1 token beyond next-token training."""
    assert value("deepseek-v3", "mtp_targets_per_position") == 2
    assert value("deepseek-v3", "mtp_extra_tokens_per_row") == 1
    assert value("deepseek-v3", "mtp_targets_per_position", num_nextn_predict_layers=3) == 4


def test_fp8_block_128_bits_and_outlier_share():
    """DeepSeek-V3 §3.3.2: E4M3 elements, one FP32 scale per 128 x 128 weight block (8 + 32 /
    16,384 bits) and per 1 x 128 tile along a row: one outlier sets the scale of 128 of the
    row's d = 7,168 elements. Per-tensor FP8: the whole row."""
    r = evaluate("deepseek-v3", {"weight_dtype": "fp8-b128"})
    assert float(r.value("weight_bits_per_param")) == 8 + 32 / (128 * 128)
    assert float(r.value("outlier_row_share")) == pytest.approx(128 / 7168)
    assert value("deepseek-v3", "outlier_row_share", weight_dtype="fp8") == 1
    assert value("deepseek-v3", "outlier_row_share", weight_dtype="mxfp4") == pytest.approx(32 / 7168)


def test_sort_comparisons_for_a_128k_vocabulary():
    """seeds/000 §7.4: sorting a 128K vocabulary takes about 2.2 million comparisons."""
    got = value("llama-3-8b", "sort_comparisons")  # V = 128,256 (config.json)
    assert round(got / 1e6, 1) == 2.2
    assert got == pytest.approx(128256 * math.log2(128256))
    assert value("llama-3-8b", "rejection_reads_per_round") == 128256


def test_vision_training_activations_korthikanti_on_clip_l336():
    """Korthikanti et al. 2022 eq. (1), s b h (34 + 5 a s / h) per layer, on llava-1.5-7b's
    CLIP ViT-L/14-336 (config.json: 24 layers, width 1,024, 16 heads; 336 / 14 = 24 per side,
    577 positions with CLS), one image per sequence, micro-batch 2."""
    s, h, a, layers, b = 577, 1024, 16, 24, 2
    got = value("llava-1.5-7b", "vision_training_activation_bytes", images_per_request=1, micro_batch=b)
    assert got == pytest.approx(layers * s * b * h * (34 + 5 * a * s / h))


def test_new_figures_show_in_json_only_where_they_apply():
    out = runner.invoke(app, ["show", "llama-3-8b", "--json"])
    assert out.exit_code == 0, out.output
    for name in ("ridge_effective_flop_per_byte", "allreduce_bytes_per_token_layer", "sort_comparisons"):
        assert f'"{name}"' in out.output
    for name in ("mtp_targets_per_position", "qk_norm_logit_bound", "expert_columns_per_gpu"):
        assert f'"{name}"' not in out.output  # dense, no MTP, no q/k norm


@pytest.mark.oracle
def test_qk_norm_logit_bound_against_transformers_rmsnorm():
    """Qwen3's q/k RMSNorm (transformers Qwen3RMSNorm, unit gains): the largest logit
    q.k / sqrt(d_h), reached for q = k, equals the ledger's bound; random pairs stay below."""
    import torch
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    d = 128  # qwen3-8b head_dim (config.json)
    norm = Qwen3RMSNorm(d, eps=0.0)
    x = torch.randn(4096, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        q, k = norm(x), norm(x.roll(1, 0))  # the module normalises in float32
    bound = value("qwen3-8b", "qk_norm_logit_bound")
    assert float((q * q).sum(-1).max() / math.sqrt(d)) == pytest.approx(bound, rel=1e-6)
    assert float((q * k).sum(-1).max() / math.sqrt(d)) < bound


@pytest.mark.oracle
def test_expert_columns_per_gpu_against_a_transformers_expert_sliced_by_tp():
    """A routed expert of Qwen3-MoE in transformers, its gate/up weights cut column-wise
    (output features) across TP ranks as a column-parallel linear: the ledger's width."""
    import torch
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    from ledgerbuild.catalog import load_model

    _, fields = load_model("qwen3-30b-a3b")
    cfg = Qwen3MoeConfig(
        hidden_size=64,
        moe_intermediate_size=fields["moe_intermediate_size"],
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        num_experts=4,
        num_experts_per_tok=2,
        vocab_size=32,
    )
    with torch.device("meta"):
        model = Qwen3MoeForCausalLM(cfg)
    experts = model.model.layers[0].mlp.experts
    weight = next(p for n, p in experts.named_parameters() if "gate" in n)
    width = weight.shape[-2] // 2 if weight.shape[-2] == 2 * cfg.moe_intermediate_size else weight.shape[-2]
    for tp in (2, 4, 8):
        shard = torch.chunk(torch.empty(width, device="meta"), tp)[0].shape[0]
        assert value("qwen3-30b-a3b", "expert_columns_per_gpu", gpu_count=tp) == shard


def test_emu3_image_codes_8x_downsampled():
    """Emu3 (arXiv:2409.18869) §2.1: the vision tokenizer compresses 8x per side, a 512 x 512
    image into 64 x 64 codes; the prompt adds one end-of-line token per row (64)."""
    sets = {"images_per_request": 1, "image_height": 512, "image_width": 512}
    assert value("emu3", "image_tokens", **sets) == 64 * 64 + 64
    assert value("emu3", "prefill_tokens", **sets) == value("emu3", "prompt_tokens") + 64 * 65


@pytest.mark.oracle
@pytest.mark.parametrize("size", [(512, 512), (720, 1280), (300, 200), (2000, 1500)])
def test_emu3_image_tokens_equal_transformers_processor(size):
    """transformers' Emu3Processor counts an image's placeholder tokens after its image
    processor's smart_resize (factor 8, 512^2..1024^2 pixels)."""
    from transformers import Emu3ImageProcessor, Emu3Processor

    processor = Emu3Processor.__new__(Emu3Processor)  # the count needs no tokenizer
    processor.image_processor, processor.downsample_ratio = Emu3ImageProcessor(), 8
    expected = processor._get_num_multimodal_tokens(image_sizes=[size]).num_image_tokens[0]
    sets = {"images_per_request": 1, "image_height": size[0], "image_width": size[1]}
    assert value("emu3", "image_tokens", **sets) == expected


@pytest.mark.oracle
def test_emu3_vq_parts_equal_transformers():
    """The VQ-VAE's encoder, decoder and whole tokenizer against transformers' Emu3VQVAE."""
    from hf_oracle import causal_lm
    from ledgerbuild import catalog

    vq = causal_lm(catalog.models()["emu3"].config, "meta").model.vqmodel
    r = evaluate("emu3")
    assert r.value("params_vq_encoder") == sum(p.numel() for p in vq.encoder.parameters())
    assert r.value("params_vq_decoder") == sum(p.numel() for p in vq.decoder.parameters())
    assert r.value("params_vq_tokenizer") == sum(p.numel() for p in vq.parameters())
