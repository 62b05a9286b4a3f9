"""MoE serving and long context (issue 13): published figures, conservation properties of
expert parallelism, and one-line errors for bad input."""

import pytest
import sympy as sp
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

runner = CliRunner()
DSV3 = {"gpu": "h200-sxm", "weight_dtype": "fp8", "gpu_count": "8"}


def test_deepseek_v3_expert_intensity_is_e_over_k():
    """DeepSeek-V3 report §2.1.2: 256 routed experts, 8 activated per token -> E / k = 32."""
    assert evaluate("deepseek-v3").value("moe_intensity_ratio") == 256 / sp.Integer(8)


def test_deepseek_v3_all_to_all_bytes_per_token_and_layer():
    """DeepSeek-V3 report §3.3.2: dispatch in FP8 (1 byte), combine in BF16 (2 bytes); hidden
    size 7,168 (config.json), 8 experts a token: 7,168 x 8 x (1 + 2) bytes."""
    assert evaluate("deepseek-v3").value("all_to_all_bytes_per_token_layer") == 7168 * 8 * (1 + 2)


@pytest.mark.parametrize("ep", [1, 2, 4, 8])
def test_expert_parallelism_splits_only_the_routed_experts(ep):
    """Every GPU holds the replicated part / replica GPUs and its share of the routed experts:
    summed over the deployment, the replicated part EP times and the routed experts once."""
    r = evaluate("deepseek-v3", {**DSV3, "expert_parallel": str(ep)})
    replicated = r.value("weight_bytes") - r.value("routed_expert_bytes")
    per_replica = replicated * ep + r.value("routed_expert_bytes")
    assert r.value("weight_bytes_per_gpu") * r.value("total_gpus") == per_replica
    assert r.value("total_gpus") == 8 * ep


def test_smallest_expert_parallel_degree_fits_and_one_less_does_not():
    """DeepSeek-V3 in BF16 on 4 H100s a replica: the replicated part / 4 GPUs plus the routed
    experts / (4 x EP) fit at the minimum degree and not one below it."""
    r = evaluate("deepseek-v3", {"gpu": "h100-sxm", "gpu_count": "4"})
    ep = int(r.value("expert_parallel_min_fit"))  # expert_parallel_min: the next divisor of 256
    routed, replica = r.value("routed_expert_bytes"), r.value("replica_gpus")
    replicated = (r.value("weight_bytes") - routed) / replica

    def fits(n):
        return replicated + routed / (replica * n) <= r.value("usable_bytes_per_gpu")

    assert ep > 1 and fits(ep) and not fits(ep - 1)
    ok = evaluate("deepseek-v3", {"gpu": "h100-sxm", "gpu_count": "4", "expert_parallel": "8"})
    assert ep <= 8 and ok.value("weight_bytes_per_gpu") <= ok.value("usable_bytes_per_gpu")


def test_expert_parallelism_adds_all_to_all_time_and_replicas():
    one = evaluate("deepseek-v3", DSV3)
    four = evaluate("deepseek-v3", {**DSV3, "expert_parallel": "4"})
    assert four.value("prefill_link_s") > one.value("prefill_link_s")
    assert four.value("weight_bytes_per_gpu") < one.value("weight_bytes_per_gpu")


def test_expert_parallel_must_divide_the_experts_one_line():
    result = runner.invoke(app, ["show", "deepseek-v3", "--set", "expert_parallel=3"])
    assert result.exit_code == 2
    assert "expert_parallel" in result.output and len(result.output.strip().splitlines()) == 1
    ok = runner.invoke(app, ["show", "deepseek-v3", "--set", "expert_parallel=4", "--json"])
    assert ok.exit_code == 0, ok.output


def test_attention_scores_an_unfused_kernel_writes():
    """seeds/001 (Flash Attention): standard attention writes the S x S score matrix to HBM,
    per head; Llama-3-8B has 32 query heads (config.json): 32 x 8192^2 x 2 bytes per layer."""
    r = evaluate("llama-3-8b", {"prompt_tokens": "8192"})
    assert r.value("attention_scores_bytes_per_layer") == 32 * 8192**2 * 2


def test_kv_reads_overtake_weight_reads_at_the_crossover():
    """Lecture P2 §3.1 and §5.1: Llama-3-8B has 8,030,261,248 parameters (16.06 GB in BF16)
    and 131,072 KV bytes per token: one sequence's KV equals the weights at ~122.5K tokens."""
    r = evaluate("llama-3-8b", {"batch_size": "1"})
    assert r.value("kv_crossover_context_tokens") == sp.Rational(8_030_261_248 * 2, 131_072)


def test_qwen3_next_keeps_kv_in_a_quarter_of_its_layers():
    """Qwen3-Next-80B-A3B config: 48 layers, full attention every 4th (12), 2 KV heads of 256
    at BF16: 12 x 2 x 2 x 256 x 2 = 24,576 bytes a token; the 36 Gated DeltaNet layers hold a
    fixed state of 32 heads x 128 x 128 plus a 4-token window of 2 x 16 x 128 + 32 x 128
    channels each, whatever the context. Model card: 80B total."""
    short, long = (evaluate("qwen3-next-80b-a3b", {"prompt_tokens": n}) for n in ("1000", "100000"))
    assert short.value("num_full_layers") == 12
    assert short.value("kv_bytes_per_token") == 12 * 2 * 2 * 256 * 2
    state = 36 * (32 * 128 * 128 + (2 * 16 * 128 + 32 * 128) * 4) * 2
    assert short.value("linear_attention_state_bytes") == long.value("linear_attention_state_bytes") == state
    grown = long.value("kv_bytes_per_request") - short.value("kv_bytes_per_request")
    assert grown == 99000 * short.value("kv_bytes_per_token")
    assert round(int(short.value("params_total")) / 1e9) == 80


@pytest.mark.parametrize("field, value", [("mlp_only_layers", [0, 4]), ("decoder_sparse_step", 2)])
def test_dense_layers_among_moe_layers_are_refused(tmp_path, field, value):
    """Qwen3-MoE / Qwen3-Next configs can make some layers dense; the ledger does not model
    that, so it says so in one line rather than count every layer as MoE."""
    import yaml

    from ledgerbuild import catalog

    data = yaml.safe_load(catalog.model_paths()["qwen3-next-80b-a3b"].read_text())
    data["config"][field] = value
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["show", str(path)])
    assert result.exit_code == 2 and field in result.output
    assert len(result.output.strip().splitlines()) == 1
