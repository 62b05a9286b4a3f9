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
