"""Issue 30: no silently wrong number. Each input below was accepted and gave a wrong figure
(or an ignored setting echoed as if it took effect); each is now refused in one line with exit
2, or takes effect. Expected figures come from the cited source, not from the ledger."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild import catalog
from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate
from one_line import refused

runner = CliRunner()


def model_file(tmp_path, model: str, **changes) -> str:
    """A copy of a catalog model's YAML with config fields changed (None: written as null)."""
    data = yaml.safe_load(catalog.model_paths()[model].read_text())
    data["config"].update(changes)
    path = tmp_path / f"{model}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_gpu_memory_gb_is_refused_where_not_read_and_takes_effect_where_read():
    """h100-sxm sizes memory from memory_mib (nvidia-smi), so gpu_memory_gb was echoed but
    gpu_memory_bytes stayed 81,559 MiB = 85,520,809,984 bytes."""
    refused(["show", "llama-3-8b", "--set", "gpu_memory_gb=40"], "gpu_memory_gb", "not read")
    r = evaluate("llama-3-8b", {"gpu_memory_gb": "40", "memory_gb_unit_bytes": "1000000000"})
    assert r.value("gpu_memory_bytes") == 40 * 10**9


def test_zero_experts_does_not_make_mixtral_dense(tmp_path):
    """MixtralConfig's router is Linear(hidden, num_local_experts): 0 experts is no model."""
    refused(["show", model_file(tmp_path, "mixtral-8x7b", num_local_experts=0)], "num_local_experts")


def test_null_vision_config_is_not_a_text_model(tmp_path):
    """LlavaConfig(vision_config=None) means the default CLIP tower, not no tower: refused
    rather than a llava without its vision encoder."""
    refused(["show", model_file(tmp_path, "llava-1.5-7b", vision_config=None)], "vision_config")


def test_unknown_rope_type_and_factor_zero_are_refused(tmp_path):
    path = model_file(tmp_path, "llama-3-8b", rope_scaling={"rope_type": "foo", "factor": 2.0})
    refused(["rope", path], "rope_type", "foo")
    refused(["rope", "llama-3-8b", "--factor", "0"], "--factor")


def test_concurrency_cap_is_a_whole_number():
    refused(["show", "llama-3-8b", "--set", "max_batch=2.5"], "max_batch", "whole")
    refused(["show", "llama-3-8b", "--set", "max_num_tokens=0.5"], "max_num_tokens")


@pytest.mark.parametrize("digits", ["٣٣٦x٣٣٦", "３３６x３３６"])  # Arabic-Indic, full-width
def test_non_ascii_digits_refused_in_image_size(digits):
    refused(["image", "llava-1.5-7b", "--size", digits], "--size")


def test_non_ascii_digits_refused_in_numerics_round():
    refused(["numerics", "round", "١٫٥,2"], "values")
    refused(["numerics", "round", "1,2", "--block-size", "1000000000"], "--block-size")


def measurement_file(tmp_path, **row) -> str:
    base = {
        "model": "llama-3-8b",
        "gpu": "h100-sxm",
        "precision": "bf16",
        "tp": 1,
        "pp": 1,
        "isl": 128,
        "osl": 128,
        "tokens_per_s": 1000,
    }
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump({"rows": [{**base, **row}]}, allow_unicode=True))
    return str(path)


@pytest.mark.parametrize("field, value", [("tokens_per_s", "١٠٠٠"), ("isl", "١٢٨"), ("tp", "１")])
def test_non_ascii_digits_refused_in_measurement_files(tmp_path, field, value):
    from ledgerbuild.errors import LedgerError
    from ledgerbuild.measurements import load

    with pytest.raises(LedgerError, match=field):
        load(measurement_file(tmp_path, **{field: value}))


def test_kv_dtype_beside_a_precision_alias_takes_effect(tmp_path):
    from ledgerbuild.measurements import aliases, load

    assert aliases()["precisions"]["BF16"] == ["bf16", "bf16"]  # measurements/aliases
    _, (row,) = load(measurement_file(tmp_path, precision="BF16", kv_dtype="fp8"))
    assert (row.weight_dtype, row.kv_dtype) == ("bf16", "fp8")


def test_duplicate_time_model_ids_are_refused(tmp_path):
    shipped = next(p for p in catalog._files("scenario") if p.stem == "time_models")
    rows = yaml.safe_load(shipped.read_text())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    path = tmp_path / "tm.yaml"
    path.write_text(yaml.safe_dump([rows[0], rows[0]]))
    refused(["show", "llama-3-8b", "--time-model", str(path)], "duplicate")


def test_sample_filter_temperature_nan_refused():
    refused(["sample", "filter", "--temperature", "nan"], "temperature")


def test_import_config_checks_kv_heads_and_escapes_the_name(tmp_path):
    config = yaml.safe_load(catalog.model_paths()["llama-3-8b"].read_text())["config"]
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({**config, "num_key_value_heads": 7}))
    refused(["import-config", str(bad)], "num_key_value_heads")
    evil = tmp_path / "evil.config.json"
    evil.write_text(json.dumps({**config, "_name_or_path": "x\nhf_repo: evil/repo\u2028id: y"}))
    result = runner.invoke(app, ["import-config", str(evil)])
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    assert "hf_repo" not in data and data["name"] == "x\nhf_repo: evil/repo\u2028id: y"


def test_expert_parallel_min_divides_the_experts():
    """DeepSeek-V3 (256 routed experts, config.json) in BF16 on 4 H100s a replica: the degree
    that fits is a divisor of 256 (issue 30: 11 was given, which the ledger refuses)."""
    r = evaluate("deepseek-v3", {"gpu": "h100-sxm", "gpu_count": "4"})
    ep, fit = int(r.value("expert_parallel_min")), int(r.value("expert_parallel_min_fit"))
    assert 256 % ep == 0 and ep >= fit
    assert not any(256 % d == 0 for d in range(fit, ep))
    evaluate("deepseek-v3", {"gpu": "h100-sxm", "gpu_count": "4", "expert_parallel": str(ep)})


def test_yarn_attention_temperature_golden():
    """YaRN (Peng et al. 2023, arXiv:2309.00071) eq. 22: sqrt(1/t) = 0.1 ln s + 1. DeepSeek-V3
    (config.json rope_scaling: yarn, factor 40, mscale 1.0, mscale_all_dim 1.0) applies it at
    the softmax: deepseek-ai/DeepSeek-V3 inference/model.py MLA.__init__ `mscale = 0.1 *
    args.mscale * math.log(args.rope_factor) + 1.0; self.softmax_scale *= mscale ** 2`
    (transformers DeepseekV3Attention: scaling *= mscale * mscale from mscale_all_dim), while its
    cos/sin factor mscale / mscale_all_dim is 1. Llama 3 scaling (transformers
    _compute_llama3_parameters returns attention_factor 1.0) has no temperature."""
    dsv3 = evaluate("deepseek-v3")
    assert float(dsv3.value("yarn_attention_scale")) == pytest.approx(0.1 * math.log(40) + 1, rel=1e-12)
    assert float(dsv3.value("yarn_attention_scale")) == pytest.approx(1.3689, abs=1e-4)
    assert float(dsv3.value("yarn_cos_sin_scale")) == 1
    assert float(evaluate("llama-3.2-1b").value("yarn_attention_scale")) == 1
    assert float(evaluate("gpt-oss-20b").value("yarn_attention_scale")) == pytest.approx(
        0.1 * math.log(32) + 1
    )
