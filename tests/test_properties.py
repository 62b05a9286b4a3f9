"""Properties (hypothesis): random shapes against transformers, monotonicity, capacity,
linearity in batch, import-config round trips, every catalog entry renders everywhere."""
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_oracle import causal_lm, count_params
from ledgerbuild import catalog
from ledgerbuild.catalog import ModelEntry, export_entry, load_model
from ledgerbuild.evaluate import Evaluator, evaluate
from ledgerbuild.families import ledger_fields
from ledgerbuild.writers.terminal import show_json

FAST = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def llama_configs(draw, mha=None):
    n_kv = draw(st.integers(1, 4))
    group = 1 if mha else draw(st.integers(1, 4))
    width = n_kv * group * draw(st.integers(1, 12))  # transformers: heads divide hidden_size
    return dict(model_type="llama", architectures=["LlamaForCausalLM"],
                hidden_size=width, num_hidden_layers=draw(st.integers(1, 4)),
                num_attention_heads=n_kv * group, num_key_value_heads=n_kv,
                head_dim=2 * draw(st.integers(1, 16)), intermediate_size=draw(st.integers(4, 128)),
                vocab_size=draw(st.integers(8, 500)),
                tie_word_embeddings=draw(st.booleans()), attention_bias=draw(st.booleans()))


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


SIZE_FIELDS = ["hidden_size", "num_hidden_layers", "intermediate_size", "vocab_size", "head_dim",
               "moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim"]
GROWING = ["params_total", "flops_per_token", "flops_prefill", "weight_bytes"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(catalog.models())), st.sampled_from(SIZE_FIELDS),
       st.integers(1, 64))
def test_counts_grow_with_every_size_field(model_id, field, step):
    base = evaluate(model_id)
    used = {s.name for q in base.quantities for s in q.expr.free_symbols}
    if field not in used or (field == "intermediate_size" and not base.inputs["first_k_dense_replace"]
                             and "moe" in base.tags):
        return  # a field this model's variant does not read (MLA: head_dim; all-MoE: d_ff)
    bigger = evaluate(model_id, {field: str(int(base.inputs[field]) + step)})
    for q in GROWING:
        assert bigger.value(q) > base.value(q), (q, field)
    assert bigger.value("kv_bytes_per_token") >= base.value("kv_bytes_per_token")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(catalog.models())), st.integers(1, 8), st.integers(1, 512),
       st.integers(1, 200_000), st.sampled_from(sorted(catalog.gpus())))
def test_concurrency_never_exceeds_capacity(model_id, gpus, cap, prompt, gpu):
    r = evaluate(model_id, {"gpu_count": str(gpus), "max_batch": str(cap),
                            "prompt_tokens": str(prompt), "gpu": gpu})
    n = r.value("max_concurrency")
    assert 0 <= n <= cap and n <= r.value("kv_capacity_requests")
    held = n * r.value("kv_bytes_per_request") * r.value("kv_shard_fraction")
    assert held <= r.value("kv_budget_bytes_per_gpu")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(catalog.models())), st.integers(1, 1000))
def test_decode_compute_is_linear_in_batch(model_id, batch):
    one = evaluate(model_id).value("decode_compute_s")
    many = evaluate(model_id, {"batch_size": str(batch)}).value("decode_compute_s")
    assert many == batch * one


@pytest.mark.parametrize("model_id", sorted(catalog.models()))
def test_import_config_round_trips(model_id, tmp_path):
    entry = catalog.models()[model_id]
    config = tmp_path / "config.json"
    config.write_text(json.dumps(entry.config))
    imported, fields = load_model(str(config))
    exported = tmp_path / "m.yaml"
    exported.write_text(export_entry(imported))
    again, again_fields = load_model(str(exported))
    assert again_fields == fields
    expected = ledger_fields(entry.config)
    assert fields == expected


@pytest.mark.parametrize("model_id", sorted(catalog.models()))
def test_every_catalog_model_renders_as_json(model_id):
    data = json.loads(show_json(evaluate(model_id)))
    assert data["model"] == model_id and "params_total" in data["quantities"]
