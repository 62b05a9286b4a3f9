"""Vision-language models (issue 12): published figures, what images add to a request, and
one-line errors for bad image sizes. The transformers referees are in test_oracle_vision.py."""

import json

import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild import catalog
from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

runner = CliRunner()
VLMS = ["qwen2-vl-7b", "llava-1.5-7b", "llama-3.2-11b-vision", "gemma-3-4b-it"]


def test_qwen2_vl_1024_square_is_1369_tokens():
    """Qwen2-VL README / issue 12: 28 x 28 pixels a token; 1024 rounds to 1036 = 37 x 28, so a
    1024 x 1024 image is 37^2 = 1,369 tokens (74^2 = 5,476 patches of 14 px merged 2 x 2)."""
    r = evaluate("qwen2-vl-7b", {"image_width": "1024", "image_height": "1024"})
    assert (r.value("vision_input_height"), r.value("vision_patches"), r.value("image_tokens")) == (
        1036,
        5476,
        1369,
    )


def test_llava_1_5_is_576_tokens_at_336():
    """LLaVA-1.5 (arXiv:2310.03744) §3: CLIP ViT-L/14 at 336 px, 24 x 24 = 576 visual tokens,
    whatever the image size (the processor resizes and crops to 336)."""
    for size in ("336", "2000"):
        r = evaluate("llava-1.5-7b", {"image_width": size, "image_height": size})
        assert r.value("image_tokens") == 576


def test_gemma_3_is_256_tokens_per_image():
    """Gemma 3 technical report §2.1: images are 896 x 896, encoded into 256 soft tokens."""
    assert evaluate("gemma-3-4b-it").value("image_tokens") == 256


def test_llama_3_2_vision_tiles():
    """Llama 3.2 Vision config: 560 px tiles of 14 px patches plus CLS = 1,601 positions, 4
    tiles (max_num_tiles): 6,404 cross-attention keys; the prompt holds one <|image|> token."""
    r = evaluate("llama-3.2-11b-vision")
    assert (r.value("image_tokens"), r.value("image_prompt_tokens")) == (4 * ((560 // 14) ** 2 + 1), 1)


@pytest.mark.parametrize(
    "model_id, published, digits",
    [("qwen2-vl-7b", 8.29e9, 2), ("llava-1.5-7b", 7.06e9, 2), ("gemma-3-4b-it", 4.3e9, 1)],
)
def test_total_parameters_round_to_the_published_figure(model_id, published, digits):
    """HF model pages: Qwen2-VL-7B-Instruct 8.29B, llava-1.5-7b-hf 7.06B, gemma-3-4b-it 4.3B."""
    assert round(int(evaluate(model_id).value("params_total")) / 1e9, digits) == round(
        published / 1e9, digits
    )


def test_llama_3_2_vision_total_is_near_the_model_card():
    """The Llama 3.2 Vision model card says 10.6B; the transformers model (our referee, to
    the integer) has 10.67B: within 1% of the card, which truncates rather than rounds."""
    assert abs(int(evaluate("llama-3.2-11b-vision").value("params_total")) / 10.6e9 - 1) < 0.01


def test_published_vision_encoder_sizes():
    """Qwen2-VL paper Table 1: a 675M ViT (with its merger); Gemma 3 report Table 1: 417M.
    Within 1M of each (the paper truncates 675.8M, the report rounds 416.9M)."""
    qwen = evaluate("qwen2-vl-7b")
    assert abs(int(qwen.value("params_vision") + qwen.value("params_connector")) - 675e6) < 1e6
    assert abs(int(evaluate("gemma-3-4b-it").value("params_vision")) - 417e6) < 1e6


def test_image_kv_over_encoder_output_is_2_l_nkv_dh_over_d():
    """Qwen2-VL-7B config: 28 layers, 4 KV heads of 128 at BF16 against d_model 3,584 at BF16:
    2 x 28 x 4 x 128 / 3,584 = 8."""
    assert evaluate("qwen2-vl-7b").value("image_kv_over_encoder_output") == 2 * 28 * 4 * 128 // 3584


def test_cross_attention_holds_image_kv_in_its_layers_only():
    """Llama 3.2 Vision: 8 of 40 layers cross-attend; an image's 6,404 keys and values sit in
    those 8 (8 KV heads of 128, BF16), not in the 32 self-attention layers."""
    r = evaluate("llama-3.2-11b-vision")
    per_layer = 6404 * 2 * 8 * 128 * 2
    assert r.value("image_kv_bytes") == 8 * per_layer
    assert r.value("cross_attention_kv_saving_bytes") == (32 - 8) * per_layer
    assert r.value("kv_bytes_per_token") == 32 * 2 * 8 * 128 * 2


@pytest.mark.parametrize("model_id", VLMS)
def test_images_join_the_request(model_id):
    """Two images add their prompt tokens to the prefill, their encoder FLOPs to it, and
    their KV to the request (Qwen2-VL has no window, so exactly twice image_kv_bytes)."""
    none, two = (evaluate(model_id, {"images_per_request": n}) for n in ("0", "2"))
    assert two.value("prefill_tokens") - none.value("prefill_tokens") == 2 * two.value("image_prompt_tokens")
    assert two.value("flops_prefill") - none.value("flops_prefill") > 2 * two.value("vision_flops_per_image")
    assert two.value("ttft_s") > none.value("ttft_s")
    grown = two.value("kv_bytes_per_request") - none.value("kv_bytes_per_request")
    if model_id in ("qwen2-vl-7b", "llava-1.5-7b", "llama-3.2-11b-vision"):
        self_attention = 2 * (two.value("image_prompt_tokens") * two.value("kv_bytes_per_token"))
        cross = 2 * two.value("image_kv_bytes") if "vision_cross" in two.tags else 0
        assert grown == self_attention + cross
    assert grown > 0


def test_video_is_frame_groups_of_two():
    """Qwen2-VL §2.1: two frames a temporal patch; 10 s at 2 fps = 20 frames = 10 groups."""
    r = evaluate("qwen2-vl-7b", {"video_seconds": "10", "video_fps": "2"})
    assert r.value("video_frame_groups") == 10
    assert r.value("vision_prompt_tokens_per_request") == 10 * r.value("image_tokens")


def test_text_models_have_no_vision_quantities():
    r = evaluate("llama-3-8b")
    assert "text" in r.tags and not any(q.name.startswith(("image_", "vision_")) for q in r.quantities)


def test_vlm_config_json_reads_like_the_catalog_entry(tmp_path):
    """A VLM's HF config.json (here the catalog's own fields) gives the same model."""
    entry = catalog.models()["llava-1.5-7b"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(entry.config))
    assert evaluate(str(path)).value("params_total") == evaluate("llava-1.5-7b").value("params_total")


def test_image_command_prints_tokens_kv_and_price():
    result = runner.invoke(app, ["image", "qwen2-vl-7b", "--size", "1024x1024", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["per_image"]["image_tokens"] == {"value": 1369, "unit": "tokens"}
    assert report["time_model"].startswith("calibrated")
    assert report["per_image"]["usd_per_image"]["value"] > 0


@pytest.mark.parametrize(
    "args, field",
    [
        (["image", "qwen2-vl-7b", "--size", "0x512"], "--size"),
        (["image", "qwen2-vl-7b", "--size", "big"], "--size"),
        (["image", "qwen2-vl-7b", "--set", "image_height=1.5"], "image_height"),
        (["image", "qwen2-vl-7b", "--set", "image_width=-3"], "image_width"),
        (["show", "qwen2-vl-7b", "--set", "image_width=0"], "image_width"),
        (["show", "llava-1.5-7b", "--set", "images_per_request=0.5"], "images_per_request"),
        (["image", "llama-3-8b"], "vision encoder"),
    ],
)
def test_bad_image_input_is_one_line(args, field):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert field in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_bad_vision_config_names_the_field(tmp_path):
    data = yaml.safe_load((catalog.model_paths()["qwen2-vl-7b"]).read_text())
    data["config"]["vision_config"]["depth"] = "32"
    path = tmp_path / "vlm.yaml"
    path.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["show", str(path)])
    assert result.exit_code == 2 and "depth" in result.output and len(result.output.strip().splitlines()) == 1


def test_qwen2_audio_is_25_tokens_a_second():
    """Qwen2-Audio (arXiv:2407.10759) §2: the Whisper encoder's 1,500 positions per 30 s
    (50 a second), pooled 2:1: 25 audio tokens a second, 750 for 30 s; model page: 8.4B."""
    r = evaluate("qwen2-audio-7b", {"audio_seconds": "30"})
    assert (r.value("audio_encoder_frames_per_second"), r.value("audio_tokens_per_second")) == (50, 25)
    assert (r.value("audio_tokens"), r.value("prefill_tokens")) == (750, 1000 + 750)
    assert round(int(r.value("params_total")) / 1e8) == 84
    assert r.value("audio_kv_bytes_per_second") == 25 * r.value("kv_bytes_per_token")


def test_a_config_json_reads_its_preprocessor_config_beside_it(tmp_path):
    """An HF model folder: Qwen2-VL's own preprocessor_config.json (max_pixels 12,845,056)
    gives the published 1,369 tokens; without it the processor class's default bound
    (28 x 28 x 1,280 pixels) shrinks the image to 35 x 35 = 1,225 tokens."""
    (tmp_path / "config.json").write_text(json.dumps(catalog.models()["qwen2-vl-7b"].config))
    assert evaluate(str(tmp_path / "config.json")).value("image_tokens") == 1225
    (tmp_path / "preprocessor_config.json").write_text(
        json.dumps({"min_pixels": 3136, "max_pixels": 12845056})
    )
    assert evaluate(str(tmp_path / "config.json")).value("image_tokens") == 1369
    (tmp_path / "preprocessor_config.json").write_text(json.dumps({"size": {"longest_edge": "big"}}))
    result = runner.invoke(app, ["show", str(tmp_path / "config.json")])
    assert (
        result.exit_code == 2
        and "preprocessor_config.json" in result.output
        and "max_pixels" in result.output
    )
