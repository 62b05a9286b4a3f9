"""Hypothesis-generated Llama shapes: params_total equals transformers' model on the meta device
(GQA, and MHA when n_kv = n_h)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_oracle import causal_lm, count_params
from ledgerbuild.catalog import ModelEntry
from ledgerbuild.evaluate import Evaluator
from ledgerbuild.families import ledger_fields

pytestmark = pytest.mark.oracle

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def llama_configs(draw, mha=None):
    n_kv = draw(st.integers(1, 4))
    group = 1 if mha else draw(st.integers(1, 4))
    width = n_kv * group * draw(st.integers(1, 12))  # transformers: heads divide hidden_size
    return dict(
        model_type="llama",
        architectures=["LlamaForCausalLM"],
        hidden_size=width,
        num_hidden_layers=draw(st.integers(1, 4)),
        num_attention_heads=n_kv * group,
        num_key_value_heads=n_kv,
        head_dim=2 * draw(st.integers(1, 16)),
        intermediate_size=draw(st.integers(4, 128)),
        vocab_size=draw(st.integers(8, 500)),
        tie_word_embeddings=draw(st.booleans()),
        attention_bias=draw(st.booleans()),
    )


def _entry(config):
    return ModelEntry(id="prop", name="prop", config=config)


@FAST
@given(llama_configs())
def test_random_gqa_shapes_equal_transformers(config):
    ours = Evaluator().evaluate_entry(_entry(config), ledger_fields(config))
    assert ours.value("params_total") == count_params(causal_lm(config, "meta"))


@FAST
@given(llama_configs(mha=True))
def test_gqa_with_as_many_kv_heads_as_heads_is_mha(config):
    """n_kv = n_h is MHA: transformers' MHA model (no num_key_value_heads given) agrees."""
    mha = {k: v for k, v in config.items() if k != "num_key_value_heads"}
    ours = Evaluator().evaluate_entry(_entry(config), ledger_fields(config))
    assert ours.value("params_total") == count_params(causal_lm(mha, "meta"))
    assert ours.value("kv_elems_per_token_layer") == 2 * config["num_attention_heads"] * config["head_dim"]
