"""Oracle: DeepSeek-R1, GLM-4.7, MiniMax-M2.5 and Qwen3-32B against transformers (issue 29).

- params_total of each published config.json (tests/configs/, sources in its README) and of the
  catalog entry equals, to the integer, transformers' *ForCausalLM built from that config.json
  on the meta device (DeepseekV3, Glm4Moe, MiniMaxM2, Qwen3 of the installed transformers).
- MTP: transformers builds no MTP layer (Glm4Moe's and DeepseekV3's docs: "does not include an
  MTP layer"; the checkpoint's layer num_hidden_layers is skipped on load). The ledger keeps
  the MTP modules apart as params_mtp: one more decoder block as transformers builds it (layer
  index >= first_k_dense_replace: a MoE block) plus enorm, hnorm, the head's norm (3 d) and
  eh_proj (2 d x d) of the checkpoint layout (DeepSeek-V3 README_WEIGHTS).
- The rotary width (partial RoPE of GLM-4.7 and MiniMax-M2.5) equals twice the number of
  inverse frequencies of transformers' rotary embedding for that config.
"""

import importlib
import json
import warnings
from pathlib import Path

import pytest
import torch
import transformers
from transformers import AutoConfig

from hf_oracle import causal_lm, count_params
from ledgerbuild import catalog
from ledgerbuild.evaluate import evaluate

pytestmark = pytest.mark.oracle

CONFIGS = Path(__file__).parent / "configs"
NEW = {  # catalog id -> (fixture, transformers decoder layer, rotary embedding)
    "deepseek-r1": ("deepseek-r1", "DeepseekV3DecoderLayer", "DeepseekV3RotaryEmbedding"),
    "glm-4.7": ("glm-4.7", "Glm4MoeDecoderLayer", "Glm4MoeRotaryEmbedding"),
    "minimax-m2.5": ("minimax-m2.5", "MiniMaxM2DecoderLayer", "MiniMaxM2RotaryEmbedding"),
    "qwen3-32b": ("qwen3-32b", "Qwen3DecoderLayer", "Qwen3RotaryEmbedding"),
}
_NOT_ARCHITECTURE = ("auto_map", "quantization_config", "architectures", "model_type")


def published(model_id: str) -> tuple[Path, dict]:
    path = CONFIGS / f"{NEW[model_id][0]}.config.json"
    return path, json.loads(path.read_text())


def modeling(hf, name: str):
    """A class of transformers' modeling module of this config's model_type."""
    return getattr(
        importlib.import_module(f"transformers.models.{hf.model_type}.modeling_{hf.model_type}"), name
    )


def hf_config_of(config: dict):
    """transformers' config from the published file as from_pretrained reads it (its remote
    code map and the FP8 checkpoint format left out: neither changes a shape)."""
    fields = {k: v for k, v in config.items() if k not in _NOT_ARCHITECTURE}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return AutoConfig.for_model(config["model_type"], **fields)


def meta_model(config: dict):
    cls = getattr(transformers, config["architectures"][0])
    with torch.device("meta"):
        return cls(hf_config_of(config))


@pytest.mark.parametrize("model_id", sorted(NEW))
def test_published_config_params_equal_transformers(model_id):
    path, config = published(model_id)
    expected = count_params(meta_model(config))
    assert evaluate(str(path)).value("params_total") == expected
    assert evaluate(model_id).value("params_total") == expected
    # the catalog entry's fields build the same transformers model (tests/hf_oracle.py's path)
    assert count_params(causal_lm(catalog.models()[model_id].config, "meta")) == expected


@pytest.mark.parametrize("model_id", ["deepseek-r1", "glm-4.7"])
def test_mtp_module_is_one_more_transformers_block_plus_its_projections(model_id):
    _, config = published(model_id)
    hf = hf_config_of(config)
    layer_cls = modeling(hf, NEW[model_id][1])
    with torch.device("meta"):
        block = layer_cls(hf, layer_idx=hf.num_hidden_layers)  # past first_k_dense_replace: MoE
    d = hf.hidden_size
    expected = hf.num_nextn_predict_layers * (count_params(block) + 3 * d + 2 * d * d)
    r = evaluate(model_id)
    assert r.value("params_mtp") == expected
    # transformers leaves the MTP layer out of the model: params_total has none of it
    assert r.value("params_total") == count_params(meta_model(config))


@pytest.mark.parametrize("model_id", sorted(NEW))
def test_rotary_width_equals_transformers_rotary_embedding(model_id):
    _, config = published(model_id)
    hf = hf_config_of(config)
    rotary = modeling(hf, NEW[model_id][2])(hf)
    assert evaluate(model_id).inputs["rope_dim"] == 2 * rotary.inv_freq.numel()


ROTARY_VARIANTS = [  # how else these families state the rotary width, against transformers
    ("glm-4.7", {"partial_rotary_factor": None}),  # absent: Glm4MoeConfig's default 0.5
    ("glm-4.7", {"partial_rotary_factor": 0.25}),
    ("minimax-m2.5", {"rotary_dim": 32}),
    # MiniMax-M2.7's layout: no rotary_dim, the share in rope_parameters
    (
        "minimax-m2.5",
        {
            "rotary_dim": None,
            "rope_theta": None,
            "rope_parameters": {"rope_type": "default", "rope_theta": 5000000, "partial_rotary_factor": 0.5},
        },
    ),
]


@pytest.mark.parametrize("case", ROTARY_VARIANTS, ids=lambda c: f"{c[0]}-{sorted(c[1])[0]}")
def test_rotary_width_variants_equal_transformers(case, tmp_path):
    model_id, changes = case
    _, config = published(model_id)
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    hf = hf_config_of(config)
    rotary = modeling(hf, NEW[model_id][2])(hf)
    assert evaluate(str(path)).inputs["rope_dim"] == 2 * rotary.inv_freq.numel()
