"""The layouts the plan and the frontier search (planning.layouts, engines.yaml attention_dp_max_tp)
and the busiest attention data-parallel replica at a concurrency (formulas/load.py).

Expected layouts come from the engines' documentation as cited in scenarios/engines.yaml
`layouts_source` (TensorRT-LLM enable_attention_dp: one GPU per attention rank, attention DP size
= tensor_parallel_size; SGLang --tp N --dp D --enable-dp-attention and vLLM --data-parallel-size
with TP attention: N / D GPUs per attention replica) and from the InferenceX rows that run
DeepSeek-R1 with dp_attention (measurements/inferencex_dsr1_latency.yaml, read here as YAML).
The load checks are whole-request counting: c requests over D replicas leave ceil(c / D) on the
busiest one, and the EP group steps at its pace.
"""

from pathlib import Path

import pytest
import yaml

from ledgerbuild import catalog
from ledgerbuild.evaluate import evaluate, to_plain
from ledgerbuild.planning import frontier_points, layouts

MEASUREMENTS = Path(__file__).resolve().parent.parent / "measurements"


def _dp(found):
    return {(int(s["gpu_count_setting"]), int(s["expert_parallel"])) for s in found if "expert_parallel" in s}


def test_tensorrt_llm_runs_attention_dp_on_one_gpu_per_rank():
    assert catalog.row("engines", "tensorrt-llm").attention_dp_max_tp == 1
    found = layouts({}, 256, catalog.row("engines", "tensorrt-llm").attention_dp_max_tp)
    assert _dp(found) == {(1, 2), (1, 4), (1, 8)}
    tensor_parallel = [s for s in found if "expert_parallel" not in s]
    assert tensor_parallel == [{"gpu_count_setting": str(n)} for n in (1, 2, 4, 8)]


def test_sglang_and_vllm_combine_tp_attention_with_dp():
    for engine in ("sglang", "vllm"):
        found = layouts({}, 256, catalog.row("engines", engine).attention_dp_max_tp)
        assert _dp(found) == {(1, 2), (1, 4), (2, 2), (1, 8), (2, 4), (4, 2)}, engine


def test_dense_models_engines_without_dp_and_set_layouts_search_tensor_parallel_only():
    assert _dp(layouts({}, 0, 4)) == set()  # dense
    assert _dp(layouts({}, 256, catalog.row("engines", "nim").attention_dp_max_tp)) == set()
    assert layouts({"gpu_count_setting": "8"}, 256, 4) == [{}]
    assert _dp(layouts({"expert_parallel": "8"}, 256, 4)) == set()
    assert (1, 8) not in _dp(layouts({}, 60, 4))  # 8 does not divide 60 routed experts


def test_the_measured_dp_attention_layout_is_searched():
    """InferenceX runs DeepSeek-R1 FP8 on 8 x B200 with TensorRT-LLM at tp 8, ep 8, dp_attention
    (rows of measurements/inferencex_dsr1_latency.yaml): the frontier offers that layout."""
    rows = yaml.safe_load((MEASUREMENTS / "inferencex_dsr1_latency.yaml").read_text())["rows"]
    dp = [r for r in rows if r["gpu"] == "B200" and r["engine"] == "trt" and r["dp_attention"] is True]
    assert {(r["tp"], r["ep"]) for r in dp if r["precision"] == "fp8"} == {(8, 8)}
    sets = {"weight_dtype": "fp8", "kv_dtype": "fp8", "serving_engine": "tensorrt-llm"}
    points = frontier_points("deepseek-r1", "b200", sets)["points"]
    assert {p["gpu_count"] for p in points if p["layout"] == "TP1xDP8-EP8"} == {8}


@pytest.mark.parametrize(("fewer", "more"), [(1, 8), (9, 16)])
def test_the_busiest_dp_replica_holds_whole_requests(fewer, more):
    """On 8 attention replicas, 1 and 8 requests leave one on the busiest replica, 9 and 16 two:
    the same step, so the same TPOT, and output tokens/s in proportion to the requests."""
    base = {"gpu": "b200", "weight_dtype": "fp8", "kv_dtype": "fp8", "gpu_count_setting": "1",
            "expert_parallel": "8"}  # fmt: skip
    a, b = (evaluate("deepseek-r1", {**base, "concurrency": str(c)}) for c in (fewer, more))
    assert to_plain(a.value("tpot_s")) == pytest.approx(to_plain(b.value("tpot_s")), rel=1e-12)
    ratio = to_plain(a.value("output_tokens_per_s")) / to_plain(b.value("output_tokens_per_s"))
    assert ratio == pytest.approx(fewer / more, rel=1e-12)
