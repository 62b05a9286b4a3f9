"""Oracle: transformers as the referee for vision-language models (issue 12).

- params_vision and params_connector equal the vision tower and the connector of the
  transformers *ForConditionalGeneration built on the meta device (params_total is checked
  with every catalog model in test_oracle_transformers.py).
- The pixels the encoder sees and the tokens an image becomes equal what the models' own
  image processors (transformers' PIL backends) produce: Qwen2-VL's image_grid_thw over
  sizes that hit every branch of smart_resize (ties, below min_pixels, above max_pixels),
  LLaVA's 336 crop, Gemma 3's 896 resize, Llama 3.2's four 560 px tiles.
"""

import numpy as np
import pytest

from hf_oracle import causal_lm, count_vlm_parts
from ledgerbuild import catalog
from ledgerbuild.evaluate import evaluate
from ledgerbuild.vision import vision_models

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("model_id", vision_models())
def test_vision_and_connector_parameters_equal_transformers(model_id):
    model = causal_lm(catalog.models()[model_id].config, "meta")
    r = evaluate(model_id)
    assert (r.value("params_vision"), r.value("params_connector")) == count_vlm_parts(model)


QWEN_SIZES = [
    (1024, 1024),
    (14, 14),
    (42, 70),
    (700, 1300),
    (1, 1),
    (3000, 4000),
    (9000, 9000),
    (56, 56),
    (98, 154),
    (4062, 126),
]


@pytest.mark.parametrize("width, height", QWEN_SIZES)
def test_qwen2_vl_tokens_equal_the_image_processor(width, height):
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    pre = catalog.models()["qwen2-vl-7b"].preprocessor
    processor = Qwen2VLImageProcessorPil(min_pixels=pre["min_pixels"], max_pixels=pre["max_pixels"])
    image = np.zeros((height, width, 3), dtype=np.uint8)  # shape: (H, W, RGB)
    t, h, w = processor(images=[image], return_tensors="np", input_data_format="channels_last")[
        "image_grid_thw"
    ][0]
    r = evaluate("qwen2-vl-7b", {"image_width": str(width), "image_height": str(height)})
    assert (r.value("vision_patches"), r.value("image_tokens")) == (t * h * w, t * h * w // 4)


def _fixed_processor(model_id):
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil
    from transformers.models.gemma3.image_processing_pil_gemma3 import Gemma3ImageProcessorPil
    from transformers.models.mllama.image_processing_pil_mllama import MllamaImageProcessorPil

    return {
        "llava-1.5-7b": CLIPImageProcessorPil(
            size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}
        ),
        "gemma-3-4b-it": Gemma3ImageProcessorPil(size={"height": 896, "width": 896}),
        "llama-3.2-11b-vision": MllamaImageProcessorPil(
            size={"height": 560, "width": 560}, max_image_tiles=4
        ),
    }[model_id]


@pytest.mark.parametrize("model_id", ["llava-1.5-7b", "gemma-3-4b-it", "llama-3.2-11b-vision"])
@pytest.mark.parametrize("width, height", [(640, 480), (1920, 1080), (300, 2000)])
def test_fixed_size_encoders_see_what_their_processor_makes(model_id, width, height):
    pixels = _fixed_processor(model_id)(
        images=[np.zeros((height, width, 3), dtype=np.uint8)], return_tensors="np"
    )
    shape = pixels["pixel_values"].shape  # (..., [tiles,] 3, H, W)
    r = evaluate(model_id, {"image_width": str(width), "image_height": str(height)})
    assert (r.value("vision_input_height"), r.value("vision_input_width")) == shape[-2:]
    tiles = shape[-4] if len(shape) == 6 else 1
    assert r.value("vision_patches") == tiles * ((shape[-1] // 14) ** 2 + r.inputs["vision_class_token"])
