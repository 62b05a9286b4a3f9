"""Properties (hypothesis): monotonicity, capacity, linearity in batch, import-config round
trips, every catalog entry renders everywhere (random shapes against transformers:
test_oracle_properties.py)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledgerbuild import catalog
from ledgerbuild.catalog import export_entry, load_model
from ledgerbuild.evaluate import evaluate
from ledgerbuild.families import ledger_fields
from ledgerbuild.writers.terminal import show_json

SIZE_FIELDS = [
    "hidden_size",
    "num_hidden_layers",
    "intermediate_size",
    "vocab_size",
    "head_dim",
    "moe_intermediate_size",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "v_head_dim",
]
GROWING = ["params_total", "flops_per_token", "flops_prefill", "weight_bytes"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(catalog.models())), st.sampled_from(SIZE_FIELDS), st.integers(1, 64))
def test_counts_grow_with_every_size_field(model_id, field, step):
    base = evaluate(model_id)
    used = {s.name for q in base.quantities for s in q.expr.free_symbols}
    if field not in used or (
        field == "intermediate_size" and not base.inputs["first_k_dense_replace"] and "moe" in base.tags
    ):
        return  # a field this model's variant does not read (MLA: head_dim; all-MoE: d_ff)
    bigger = evaluate(model_id, {field: str(int(base.inputs[field]) + step)})
    for q in GROWING:
        assert bigger.value(q) > base.value(q), (q, field)
    assert bigger.value("kv_bytes_per_token") >= base.value("kv_bytes_per_token")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(catalog.models())),
    st.integers(1, 8),
    st.integers(1, 512),
    st.integers(1, 200_000),
    st.sampled_from(sorted(catalog.gpus())),
)
def test_concurrency_never_exceeds_capacity(model_id, gpus, cap, prompt, gpu):
    r = evaluate(
        model_id, {"gpu_count": str(gpus), "max_batch": str(cap), "prompt_tokens": str(prompt), "gpu": gpu}
    )
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
