"""Speculative decoding and MTP (issue 11): the ledger's formulas against published figures and
an independent Monte Carlo; the exact simulation's claims (distribution kept, acceptance,
greedy text, processors on both sides), each with a check that fails on a broken sampler."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate
from ledgerbuild.sim import speculative as spec

runner = CliRunner()
ISSUE = {"spec_acceptance": "0.8", "spec_draft_tokens": "4", "spec_draft_cost": "0.1"}


def values(model, **sets):
    return {k: float(v) for k, v in evaluate(model, {**ISSUE, **sets}).values.items()}


def test_expected_tokens_and_speedups_match_the_papers():
    """Leviathan et al. 2023 eq. 1 and Thm 3.8 at alpha 0.8, gamma 4, c 0.1: E = 3.3616,
    2.40x memory-bound; compute-bound E / (gamma + 1 + gamma c)."""
    v = values("llama-3-8b")
    assert v["spec_expected_tokens"] == pytest.approx(3.3616, abs=1e-12)
    assert round(v["spec_speedup_memory_bound"], 2) == 2.40
    assert v["spec_speedup_compute_bound"] == pytest.approx(3.3616 / 5.4, rel=1e-12)


def test_expected_tokens_equal_an_iid_monte_carlo():
    """An independent engine: 10^6 rounds of i.i.d. acceptances (first failure ends a round,
    the target adds one token)."""
    rng = np.random.default_rng(0)
    accepted = rng.random((1_000_000, 4)) < 0.8
    tokens = np.where(accepted.all(axis=1), 4, accepted.argmin(axis=1)) + 1
    assert tokens.mean() == pytest.approx(values("llama-3-8b")["spec_expected_tokens"], abs=0.005)


def test_speedup_at_batch_meets_both_limits_under_the_roofline():
    """Batch 1 on one GPU is memory-bound: verifying 5 tokens costs one step, so the speedup is
    the memory-bound formula exactly; a large batch of short contexts is compute-bound."""
    floor = {"time_model": "roofline", "gpu_count": "1"}
    one = values("llama-3-8b", batch_size="1", **floor)
    assert one["spec_speedup_at_batch"] == pytest.approx(one["spec_speedup_memory_bound"], rel=1e-12)
    big = values(
        "llama-3-8b", batch_size="4096", context_tokens="1", prompt_tokens="1", output_tokens="1", **floor
    )
    assert big["decode_compute_s"] > big["decode_memory_s"]
    assert big["spec_speedup_at_batch"] == pytest.approx(big["spec_speedup_compute_bound"], rel=1e-9)
    assert big["spec_speedup_at_batch"] < 1 < one["spec_speedup_at_batch"]


def test_turning_batches_stack_with_the_precision():
    """seeds/001: the H100's ridge is ~295 FLOP/byte, so BF16 decode turns compute-bound near
    batch 295 and speculation with gamma = 4 at 295 / 5; INT4 weights (4.25 bits) turn sooner."""
    bf16 = values("llama-3-8b")
    assert round(bf16["ridge_point_flops_per_byte"]) == 295
    assert bf16["decode_turning_batch"] == pytest.approx(bf16["ridge_point_flops_per_byte"])
    assert bf16["spec_turning_batch"] == pytest.approx(bf16["ridge_point_flops_per_byte"] / 5)
    int4 = values("llama-3-8b", weight_dtype="int4-g128")
    assert int4["spec_turning_batch"] == pytest.approx(bf16["spec_turning_batch"] * 4.25 / 16)


def test_mtp_parameters_match_deepseek_v3_readme_weights():
    """README_WEIGHTS.md: the MTP module has 11.5B unique parameters (its transformer block)
    and 1.5B active including the 0.9B output head; eh_proj (2d x d) and the norms are not in
    those figures; the main model stays 671B."""
    v = values("deepseek-v3")
    assert round(v["params_mtp_block"] / 1e9, 1) == 11.5
    d = 7168
    assert v["params_mtp"] == v["params_mtp_block"] + 2 * d * d + 3 * d
    assert round((v["params_mtp_active"] - 2 * d * d - 3 * d) / 1e9, 1) == 1.5
    assert round(v["params_total"] / 1e9) == 671
    assert v["spec_mtp_draft_cost"] == pytest.approx(v["params_mtp_active"] / v["params_active"])
    assert values("llama-3-8b")["params_mtp"] == 0


@pytest.mark.parametrize(
    "name, value, needle",
    [
        ("spec_acceptance", "1", "must be < 1"),
        ("spec_acceptance", "-0.1", "must be >= 0"),
        ("spec_draft_tokens", "0", "must be >= 1"),
        ("spec_draft_tokens", "1.5", "whole number"),
        ("spec_draft_cost", "-0.1", "must be >= 0"),
    ],
)
def test_bad_speculation_input_is_one_line(name, value, needle):
    result = runner.invoke(app, ["show", "llama-3-8b", "--set", f"{name}={value}", "--json"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and needle in lines[0]


def test_show_json_contract():
    args = ["show", "llama-3-8b", *sum((["--set", f"{k}={v}"] for k, v in ISSUE.items()), []), "--json"]
    q = json.loads(runner.invoke(app, args).output)["quantities"]
    for name in (
        "spec_expected_tokens",
        "spec_speedup_memory_bound",
        "spec_speedup_compute_bound",
        "spec_turning_batch",
        "spec_speedup_at_batch",
        "spec_tpot_s",
        "spec_tokens_per_s_per_user",
    ):
        assert name in q


# --- the simulation --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pair32():
    draft, target = spec.models(32)
    return draft, target, spec.Tables(draft, spec.PROMPT, 1), spec.Tables(target, spec.PROMPT, 1)


@pytest.mark.parametrize("gamma", [1, 3])
def test_emitted_distribution_equals_target_by_enumeration(pair32, gamma):
    _, _, d, t = pair32
    exact = spec.exact_first_tokens(d, t, gamma, 2)
    assert np.abs(exact - spec.target_joint(t, 2)).max() < 1e-15
    assert abs(exact.sum() - 1) < 1e-12


@pytest.fixture(scope="module")
def tables8():
    draft, target = spec.models(8)
    return spec.Tables(draft, spec.PROMPT, 4), spec.Tables(target, spec.PROMPT, 4)


def test_chi_squared_passes_the_sampler_and_fails_broken_ones(tables8):
    """10^5 continuations of 3 tokens (512 cells). Fixed seed; the correct sampler's p-value
    must exceed 1e-3 and each broken residual's must fall below 1e-6 (they reach chi2 > 10^4)."""
    d, t = tables8
    run = spec.sample_continuations(d, t, 2, 3, 100_000, np.random.default_rng(0))
    assert spec.chi_squared(run, t)[2] > 1e-3
    for broken in ("target", "draft"):
        bad = spec.sample_continuations(d, t, 2, 3, 100_000, np.random.default_rng(0), broken)
        assert spec.chi_squared(bad, t)[2] < 1e-6, broken
    # acceptance per judged draft token equals the mean of sum min(p, q) (4 sigma)
    assert abs(run.accepted - run.expected_accepted) < 4 * np.sqrt(run.proposed / 4)


@pytest.mark.parametrize("gamma", [1, 2, 4])
def test_greedy_speculation_reproduces_greedy_decoding(pair32, gamma):
    draft, target, _, _ = pair32
    out, passes = spec.greedy_speculative(draft, target, spec.PROMPT, gamma, 40)
    assert out == target.greedy(list(spec.PROMPT), 40)[0]
    assert passes <= 40


def test_processors_must_be_applied_to_both_sides(pair32):
    """Lecture §7.7: with temperature and top-p on both sides the output is what the user asked
    for; on the draft only it is the unprocessed target's."""
    draft, target, _, _ = pair32
    rows = {r["check"].rsplit(" on ", 1)[1]: r for r in spec.processors_rows(draft, target)}
    tv = {k: float(r["speculative"].rsplit(" ", 1)[1]) for k, r in rows.items()}
    assert tv["both"] < 1e-12 and tv["target only"] < 1e-12 and tv["draft only"] > 0.1


def test_sampling_module_exports_the_promised_api():
    from ledgerbuild.sim import sampling

    for name in ("filter_probs", "sample_rejection", "expected_rejection_rounds", "beam_search"):
        assert callable(getattr(sampling, name)) and name in sampling.__all__


def test_draft_model_gives_the_draft_cost_and_must_share_the_vocabulary():
    """--set spec_draft_model=ID: c = the draft's active parameters over the target's."""
    shown = json.loads(
        runner.invoke(app, ["show", "llama-3-70b", "--set", "spec_draft_model=llama-3.2-1b", "--json"]).output
    )
    small, big = (float(evaluate(m).values["params_active"]) for m in ("llama-3.2-1b", "llama-3-70b"))
    assert shown["scenario"]["spec_draft_model"] == "llama-3.2-1b"
    assert shown["scenario"]["spec_draft_cost"] == pytest.approx(small / big, rel=1e-12)
    bad = runner.invoke(app, ["show", "llama-3-70b", "--set", "spec_draft_model=qwen2.5-0.5b"])
    assert bad.exit_code == 2 and "vocabulary 151936 differs" in bad.output


def test_mtp_as_a_draft_reproduces_deepseeks_reported_speedup():
    """DeepSeek-V3 report §5.4.3: the second token's acceptance is 85-90 % and MTP speculation
    gives 1.8x the tokens per second. Memory-bound, gamma = 1: (1 + alpha) / (1 + c)."""
    low, high = (
        values("deepseek-v3", spec_acceptance=a)["spec_mtp_speedup_memory_bound"] for a in ("0.85", "0.90")
    )
    assert round(low, 1) <= 1.8 <= round(high, 1)
    assert low == pytest.approx(1.85 / (1 + values("deepseek-v3")["spec_mtp_draft_cost"]))
