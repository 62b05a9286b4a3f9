"""MoE serving steps (formulas/moe_serving.py): expert reads of mixed steps, attention-DP waits.

Expected values come from the sources the module cites, not from its code:
- TensorRT-LLM's ADP balance blog (docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md,
  baseline round-robin): N ranks admitting one context each over N iterations run every one of
  those iterations at time(ctx), so each rank's step waits for one whole prompt's prefill;
- the published InferenceX DeepSeek-R1 row (measurements/inferencex_dsr1_latency.yaml row 41:
  H200 x 8, SGLang, 8192/1024 at concurrency 4, median TPOT 10.98 ms), whose decode steps carry a
  prefill chunk only rarely (3 prompts per 1,024 steps);
- the lecture's lone request (§6.2): with no other request's prefill a step reads what a decode
  step of its batch reads.
"""

import pytest

from ledgerbuild import catalog
from ledgerbuild import measurements as measured
from ledgerbuild.evaluate import evaluate

MOE = {"gpu": "b200", "gpu_count": "1", "weight_dtype": "fp8", "kv_dtype": "fp8"}


def test_ranks_admitting_contexts_in_turn_wait_for_one_whole_prompt_each_step():
    # 8 attention-DP ranks, 100 sequences each, 800 output tokens: 1/8 prompt per rank per step,
    # so (the blog's baseline) one of the 8 ranks prefills a whole prompt in every step
    shape = {**MOE, "max_batch": "100", "output_tokens": "800", "prompt_tokens": "1000"}
    r = evaluate("deepseek-v3", {**shape, "expert_parallel": "8"})
    assert r.value("offline_micro_batch") == 100
    assert r.value("offline_prompts_per_step") == pytest.approx(1 / 8)
    assert r.value("offline_adp_busiest_prompts") == pytest.approx(1)
    alone = evaluate("deepseek-v3", shape)
    assert alone.value("offline_adp_busiest_prompts") == alone.value("offline_prompts_per_step")
    assert alone.value("offline_adp_wait_flops") == 0


def test_rare_long_prefills_do_not_make_every_decode_step_read_every_expert():
    _, rows = measured.load(measured.shipped_path("inferencex_dsr1_latency.yaml"))
    row = next(m for m in rows if m.row == 41)
    assert (row.gpu, row.engine, row.isl, row.osl, row.concurrency) == ("h200-sxm", "sglang", 8192, 1024, 4)
    r = evaluate(row.model, row.scenario("tensorrt-llm"))
    assert r.value("load_prefill_step_share") < 0.01
    assert r.value("tpot_s") * 1000 == pytest.approx(row.metrics["tpot_ms"], rel=0.2)


def test_a_step_without_prefill_reads_what_a_decode_step_of_its_batch_reads():
    r = evaluate("deepseek-v3", {**MOE, "gpu_count": "8", "concurrency": "1", "prompt_tokens": "1000"})
    assert r.value("load_prefill_step_share") == 0
    assert r.value("load_experts_unread_bytes") == pytest.approx(r.value("decode_experts_unread_bytes"))


def test_dense_models_read_every_weight():
    assert catalog.load_model("llama-3-8b")
    r = evaluate("llama-3-8b", {"gpu": "h100-sxm", "concurrency": "4"})
    assert r.value("load_experts_unread_bytes") == 0
    assert r.value("load_adp_wait_flops") == 0


def test_attention_dp_exchange_is_one_hidden_state_in_and_out_per_token_whatever_k():
    # TensorRT-LLM CutlassFusedMoE (fused_moe_cutlass.py @000a01de): with attention DP the hidden
    # states are all-gathered (quantized: FP8) and the outputs reduce-scattered (BF16), once per
    # token, not once per routed expert; DeepSeek-V3 report §3.3.2: FP8 dispatch, BF16 combine
    r = evaluate("deepseek-v3")
    assert r.value("attention_dp_exchange_bytes_per_token_layer") == 7168 * (1 + 2)


def test_every_rank_receives_the_other_ranks_tokens_so_the_exchange_grows_with_ep_minus_one():
    # an all-gather over EP ranks brings each rank the other EP - 1 ranks' tokens (and the
    # reduce-scatter sends them back): at a fixed batch per rank, EP 8 moves 7x the bytes of EP 2
    # (hop latencies set to 0 to compare bytes alone)
    shape = {**MOE, "max_batch": "64", "output_tokens": "1000", "prompt_tokens": "100"}
    shape |= {"interconnect_hop_latency_s": "0"}
    two = evaluate("qwen3-30b-a3b", {**shape, "expert_parallel": "2"})
    eight = evaluate("qwen3-30b-a3b", {**shape, "expert_parallel": "8"})
    assert two.value("offline_step_tokens") == eight.value("offline_step_tokens")
    ratio = eight.value("offline_expert_exchange_s") / two.value("offline_expert_exchange_s")
    assert float(ratio) == pytest.approx(7)
