"""Oracle: transformers 5.23.0 as the referee for Kimi-K2.5 and Qwen3.5-397B-A17B (issue 29).

- params_total of `show path/config.json` equals the *ForConditionalGeneration transformers
  builds on the meta device from the published config.json itself (tests/fixtures), through
  transformers' own config classes (Kimi_K25Config, Qwen3_5MoeConfig), not the catalog;
  the vision tower and projector separately (params_vision, params_connector).
- The pixels the encoder sees and the tokens an image becomes equal the image processors'
  own counts: Kimi_K25ImageProcessor.get_number_of_image_patches (navit_resize: inside the
  limits, shrunk by the patch budget, shrunk by the per-side budget) and
  Qwen2VLImageProcessor(patch_size=16) with the Qwen3.5 family's pixel bounds for Qwen3.5.
- A tiny Qwen3.5 text model (Qwen3_5MoeForCausalLM on CPU): parameters, the full-attention KV
  tensors and the linear-attention state after a prefill.
"""

import json
import warnings
from pathlib import Path

import pytest
import torch
import transformers

from hf_oracle import TINY_DIMS, count_params, count_vlm_parts
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle
FIXTURES = Path(__file__).parent / "fixtures"
PUBLISHED = {
    "kimi-k2.5": (transformers.Kimi_K25Config, transformers.Kimi_K25ForConditionalGeneration),
    "qwen3.5-397b-a17b": (transformers.Qwen3_5MoeConfig, transformers.Qwen3_5MoeForConditionalGeneration),
}


@pytest.mark.parametrize("model_id", sorted(PUBLISHED))
def test_published_config_counts_equal_transformers_meta_model(model_id):
    path = FIXTURES / model_id / "config.json"
    config = json.loads(path.read_text())
    config_class, model_class = PUBLISHED[model_id]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = config_class(
            **{k: v for k, v in config.items() if k not in ("architectures", "model_type", "auto_map")}
        )
        with torch.device("meta"):
            model = model_class(hf)
    r = evaluate(str(path))
    assert r.value("params_total") == count_params(model)
    assert (r.value("params_vision"), r.value("params_connector")) == count_vlm_parts(model)


KIMI_SIZES = [
    (1024, 1024),
    (990, 1000),
    (14, 14),
    (1, 1),
    (3000, 4000),
    (9000, 9000),
    (20000, 300),
    (500, 7200),
]


def _navit_resize():
    """transformers' own navit_resize, read from its installed source: the module imports
    torchvision (not installed here), the function needs only math."""
    import ast
    import math
    from importlib.util import find_spec

    spec = find_spec("transformers.models.kimi_k25")
    source = Path(spec.origin).with_name("image_processing_kimi_k25.py").read_text()
    (node,) = [n for n in ast.parse(source).body if getattr(n, "name", "") == "navit_resize"]
    scope = {"math": math}
    exec(compile(ast.Module([node], []), "image_processing_kimi_k25.py", "exec"), scope)
    return scope["navit_resize"]


@pytest.mark.parametrize("width, height", KIMI_SIZES)
def test_kimi_tokens_equal_the_image_processor(width, height):
    """Kimi_K25ImageProcessor.get_number_of_image_patches: navit_resize with the class
    defaults (patch 14, merge 2, max_patches 16384, size.max_height 512), then the padded grid."""
    _, (pad_h, pad_w) = _navit_resize()(height, width, 14, 2, 16384, 512)
    patches = (pad_h // 14) * (pad_w // 14)
    r = evaluate("kimi-k2.5", {"image_width": str(width), "image_height": str(height)})
    assert (r.value("vision_patches"), r.value("image_tokens")) == (patches, patches // 4)


QWEN_SIZES = [(1024, 1024), (14, 14), (700, 1300), (3000, 4000), (4062, 126), (9000, 9000), (250, 260)]
QWEN_PIXELS = {"shortest_edge": 65536, "longest_edge": 16777216}  # the catalog's preprocessor block


@pytest.mark.parametrize("width, height", QWEN_SIZES)
def test_qwen3_5_tokens_equal_the_image_processor(width, height):
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    processor = Qwen2VLImageProcessorPil(patch_size=16, size=QWEN_PIXELS)
    patches = processor.get_number_of_image_patches(height, width)
    r = evaluate("qwen3.5-397b-a17b", {"image_width": str(width), "image_height": str(height)})
    assert (r.value("vision_patches"), r.value("image_tokens")) == (patches, patches // 4)


TINY = dict(
    model_type="qwen3_5_moe_text",
    architectures=["Qwen3_5MoeForCausalLM"],
    num_hidden_layers=4,
    layer_types=["linear_attention", "full_attention", "linear_attention", "linear_attention"],
    num_experts=4,
    num_experts_per_tok=2,
    moe_intermediate_size=32,
    shared_expert_intermediate_size=48,
    linear_num_value_heads=4,
    linear_num_key_heads=2,
    linear_key_head_dim=8,
    linear_value_head_dim=16,
    linear_conv_kernel_dim=4,
    mtp_num_hidden_layers=1,
    rope_parameters={"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25},
    **{k: v for k, v in TINY_DIMS.items() if k != "intermediate_size"},
)


@pytest.mark.parametrize("tokens", [5, 17])
def test_tiny_qwen3_5_parameters_and_cache_equal_transformers(tmp_path, tokens):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY))
    r = evaluate(str(path), {"prompt_tokens": str(tokens)})
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = transformers.Qwen3_5MoeTextConfig(
            **{k: v for k, v in TINY.items() if k not in ("architectures", "model_type")}
        )
        model = transformers.Qwen3_5MoeForCausalLM(hf).eval()
        with torch.no_grad():
            cache = model(torch.randint(0, 101, (1, tokens)), use_cache=True).past_key_values
    assert r.value("params_total") == count_params(model)
    assert r.inputs["rope_dim"] == 2 * model.model.rotary_emb.inv_freq.numel()  # 16 x 0.25
    kv = state = 0
    for layer in cache.layers:
        if hasattr(layer, "recurrent_states"):  # (1, conv_dim, K) and (1, n_v, d_k, d_v)
            state += sum(t.numel() for t in (*layer.conv_states.values(), *layer.recurrent_states.values()))
        else:  # (1, n_kv, tokens, d_h) each
            kv += layer.keys.numel() + layer.values.numel()
    element = r.value("kv_dtype_bytes")
    assert kv == tokens * r.value("kv_bytes_per_token") / element
    assert state == r.value("linear_attention_state_bytes") / element


def test_kimi_patch_limits_from_a_preprocessor_config_beside_the_config(tmp_path):
    """`show folder/config.json` reads media_proc_cfg of the preprocessor_config.json beside it:
    with 4,096 patches and 100 a side, a 3000 x 4000 image is shrunk as navit_resize shrinks it."""
    (tmp_path / "config.json").write_text((FIXTURES / "kimi-k2.5" / "config.json").read_text())
    media = {"in_patch_limit": 4096, "patch_limit_on_one_side": 100, "patch_size": 14, "merge_kernel_size": 2}
    (tmp_path / "preprocessor_config.json").write_text(json.dumps({"media_proc_cfg": media}))
    for width, height in [(3000, 4000), (5000, 300)]:
        _, (pad_h, pad_w) = _navit_resize()(height, width, 14, 2, 4096, 100)
        r = evaluate(str(tmp_path / "config.json"), {"image_width": str(width), "image_height": str(height)})
        assert r.value("vision_patches") == (pad_h // 14) * (pad_w // 14)
