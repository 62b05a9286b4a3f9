"""Serving at a concurrency (formulas/load.py): limits and shape of TTFT, TPOT, throughput.

The limits are the issue's definitions: at concurrency 0 (offline, every request queued) the
figures are offline.py's; one request in flight is the lecture's lone request (§6.2: TTFT =
its prefill, TPOT = a decode step of batch 1). Measured figures are in test_serving_measured.py.
"""

import pytest

from ledgerbuild.evaluate import evaluate

H100_70B = {"gpu_count": "4", "weight_dtype": "fp8", "kv_dtype": "fp8", "prompt_tokens": "1000"}


def at(concurrency, model="llama-3-70b", **sets):
    return evaluate(model, {**H100_70B, **sets, "concurrency": str(concurrency)})


@pytest.mark.parametrize("sets", [{}, {"pipeline_parallel": "2"}, {"time_model": "roofline"}])
def test_concurrency_0_is_offline(sets):
    r = at(0, **sets)
    assert r.value("output_tokens_per_s") == r.value("offline_throughput_tokens_per_s")
    assert r.value("tpot_s") == r.value("pipeline_parallel") * r.value("offline_step_s")
    assert r.value("load_running") == r.value("offline_concurrency")


def test_one_request_is_the_lone_request():
    r = at(1, output_tokens="200")
    alone = r.value("harness_overhead_s") + r.value("request_overhead_s") + r.value("prefill_s")
    assert r.value("ttft_s") == pytest.approx(alone, rel=1e-12)
    assert r.value("tpot_s") == pytest.approx(r.value("decode_step_s"), rel=1e-12)  # batch_size 1
    assert r.value("output_tokens_per_s") == pytest.approx(
        200 / (r.value("ttft_s") + 199 * r.value("tpot_s"))
    )


def test_load_slows_each_user_and_raises_throughput_until_the_engine_is_full():
    runs = [at(c) for c in (1, 4, 16, 64, 256)]
    tpot = [r.value("tpot_s") for r in runs]
    ttft = [r.value("ttft_s") for r in runs]
    out = [r.value("output_tokens_per_s") for r in runs]
    assert tpot == sorted(tpot) and ttft == sorted(ttft) and out == sorted(out)
    full = runs[-1].value("offline_concurrency")
    beyond = at(4 * full)
    assert beyond.value("output_tokens_per_s") == pytest.approx(at(full).value("output_tokens_per_s"))
    assert beyond.value("load_queue_wait_s") > 0 and at(full).value("load_queue_wait_s") == 0


def test_floors_hold_under_the_calibrated_model():
    for c in (1, 8, 64, 512):
        r = at(c, pipeline_parallel="2")
        assert r.value("tpot_s") >= r.value("tpot_floor_s")
        assert r.value("ttft_s") >= r.value("ttft_floor_s")
        assert r.value("output_tokens_per_s") <= r.value("output_tokens_per_s_ceiling")


def test_long_prompts_span_chunks_of_the_token_budget():
    r = at(64, prompt_tokens="20000")
    budget = r.value("max_num_tokens")
    assert r.value("load_prefill_steps") == -(-20000 // (budget - r.value("load_micro_batch")))
    assert r.value("ttft_s") > at(64, prompt_tokens="2000").value("ttft_s")


def test_attention_data_parallel_splits_the_requests():
    one = evaluate("qwen3-30b-a3b", {"concurrency": "64", "gpu_count": "1"})
    four = evaluate("qwen3-30b-a3b", {"concurrency": "64", "gpu_count": "1", "expert_parallel": "4"})
    assert four.value("load_requests_per_replica") == 16 and one.value("load_requests_per_replica") == 64
    assert four.value("tpot_s") < one.value("tpot_s")
    assert four.value("output_tokens_per_s_per_gpu") == pytest.approx(
        four.value("output_tokens_per_s") / four.value("total_gpus")
    )


def test_the_wave_wait_needs_a_fixed_length_harness_and_company():
    """The wait for a wave's other prompts: none when the harness's lengths vary (arrivals spread
    out), none for a lone request, none offline; with fixed lengths it grows with the requests
    in flight (load.py's wave wait)."""
    fixed = {"harness_fixed_lengths": "1"}
    assert at(64).value("load_wave_wait_s") == 0  # default: lengths vary
    assert at(1, **fixed).value("load_wave_wait_s") == 0
    assert at(0, **fixed).value("load_wave_wait_s") == 0
    waits = [at(c, **fixed).value("load_wave_wait_s") for c in (2, 16, 64)]
    assert 0 < waits[0] < waits[1] < waits[2]
    assert at(64, **fixed).value("ttft_s") - at(64).value("ttft_s") == pytest.approx(waits[2], rel=1e-9)


def test_a_scheduler_polling_every_r_steps_delays_the_first_token_by_half_a_cycle():
    """SGLang's --scheduler-recv-interval R (sgl-project/sglang@70310f05
    python/sglang/srt/managers/scheduler_recv_skipper.py): while requests decode, the scheduler
    takes new requests once every R decode steps, so a request arriving at a random time waits
    (R - 1) / 2 decode steps more than under a poll every step; an idle scheduler (the lone
    request) and an offline run wait nothing; TPOT is unchanged."""
    every, thirty = at(64), at(64, scheduler_recv_interval="30")
    assert every.value("load_recv_wait_s") == 0
    assert thirty.value("tpot_s") == pytest.approx(every.value("tpot_s"), rel=1e-12)
    wait = thirty.value("ttft_s") - every.value("ttft_s")
    assert wait == pytest.approx(14.5 * thirty.value("tpot_s"), rel=1e-9)
    assert at(1, scheduler_recv_interval="30").value("load_recv_wait_s") == 0
    assert at(0, scheduler_recv_interval="30").value("load_recv_wait_s") == 0


def test_attention_dp_balance_holds_a_new_request_for_half_a_round():
    """TensorRT-LLM's ADP balance (NVIDIA/TensorRT-LLM@011cfc2c docs/source/blogs/tech_blog/
    blog10_ADP_Balance_Strategy.md, Context Synchronization): a rank with a new request waits up to
    timeout_iters iterations until every other rank has one. Requests come back at
    in_flight / outputs a step and are dealt one per replica, so a round of N replicas fills in
    (N - 1) x outputs / in_flight steps, capped by the timeout; a request arriving at a random
    time waits half of it. No balance, one replica or offline: no wait; TPOT unchanged."""

    def run(concurrency, **sets):
        moe = {"gpu_count": "1", "expert_parallel": "8", "output_tokens": "1024", **sets}
        return evaluate("qwen3-30b-a3b", {**moe, "concurrency": str(concurrency)})

    off, on = run(128), run(128, adp_balance_timeout_steps="60")
    assert off.value("load_adp_balance_wait_s") == 0
    assert on.value("tpot_s") == pytest.approx(off.value("tpot_s"), rel=1e-12)
    round_steps = 7 * 1024 / on.value("load_running_total")  # 56 steps < the 60-step timeout
    assert on.value("ttft_s") - off.value("ttft_s") == pytest.approx(
        round_steps / 2 * on.value("tpot_s"), rel=1e-9
    )
    slow = run(16, adp_balance_timeout_steps="60")  # a round would take 448 steps: the timeout
    assert slow.value("load_adp_balance_wait_s") == pytest.approx(30 * slow.value("tpot_s"), rel=1e-9)
    assert run(128, adp_balance_timeout_steps="60", expert_parallel="1").value("load_adp_balance_wait_s") == 0
    assert run(0, adp_balance_timeout_steps="60").value("load_adp_balance_wait_s") == 0


def test_an_moe_layer_pays_its_routing_kernels_on_top_of_a_dense_layers():
    """The per-layer kernel overhead (layer_overhead_s) is paid twice by an MoE layer: its router,
    top-k, token alignment, two grouped GEMMs and combine (vLLM fused_moe.py fused_experts) are as
    many kernels again as a dense layer's; a dense model pays it once per layer."""
    dense = evaluate("llama-3-8b", {"concurrency": "1", "time_model": "roofline", "layer_overhead_s": "1e-5"})
    base = evaluate("llama-3-8b", {"concurrency": "1", "time_model": "roofline"})
    assert dense.value("tpot_s") - base.value("tpot_s") == pytest.approx(32 * 1e-5, rel=1e-9)
    sets = {"concurrency": "1", "time_model": "roofline", "gpu_count": "1"}
    moe = evaluate("qwen3-30b-a3b", {**sets, "layer_overhead_s": "1e-5"})
    moe0 = evaluate("qwen3-30b-a3b", sets)
    assert moe.value("num_moe_layers") == moe.value("num_hidden_layers") == 48
    assert moe.value("tpot_s") - moe0.value("tpot_s") == pytest.approx(2 * 48 * 1e-5, rel=1e-9)
