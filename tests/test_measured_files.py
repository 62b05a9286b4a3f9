"""The shipped latency-at-concurrency measurement files (measurements/*_latency.yaml) are well formed.

Structure only: each file parses as YAML, has `sources`, `fields` and `rows`; every row carries the
format's fields, names a source the header defines and a unique id. Expected counts and cells come from
the published sources the header cites (NVIDIA NIM's performance page, GPUStack's performance lab), not
from code. No prediction is checked here (tests/test_serving_measured.py and the validate tests do that).
"""

import re
from pathlib import Path

import pytest
import yaml

from ledgerbuild import catalog, measurements

MEASUREMENTS = Path(__file__).resolve().parent.parent / "measurements"
LATENCY_FILES = sorted(MEASUREMENTS.glob("*_latency.yaml"))
# the latency format's row fields (shared with the InferenceX file's format)
ROW_FIELDS = (
    "id", "source", "record", "date", "model", "gpu", "gpu_count", "engine", "engine_version",
    "precision", "tp", "pp", "ep", "dp_attention", "isl", "osl", "concurrency",
)  # fmt: skip
THROUGHPUT = ("throughput_output_tokens_per_s", "throughput_output_tokens_per_s_per_gpu")
LATENCY = (
    "ttft_ms_median",
    "ttft_ms",
    "ttft_ms_mean",
    "tpot_ms_median",
    "itl_ms_median",
    "itl_ms",
    "tpot_ms_mean",
)
DENSE = MEASUREMENTS / "nim_gpustack_dense_latency.yaml"
DLI = MEASUREMENTS / "nim_dli_llama3_latency.yaml"
L70 = "Llama-3.3-70b-instruct"


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_the_dense_latency_file_is_shipped():
    assert DENSE in LATENCY_FILES


@pytest.mark.parametrize("path", LATENCY_FILES, ids=lambda p: p.name)
def test_latency_file_structure(path):
    data = load(path)
    assert set(data) >= {"sources", "fields", "rows"}, path.name
    rows = data["rows"]
    assert rows and all(isinstance(r, dict) for r in rows)
    ids = [r.get("id") for r in rows]
    assert len(set(ids)) == len(ids), "duplicate row ids"
    for r in rows:
        missing = [f for f in ROW_FIELDS if f not in r]
        assert not missing, (r.get("id"), missing)
        assert r["source"] in data["sources"], r["id"]
        assert any(r.get(f) is not None for f in THROUGHPUT), r["id"]
        assert any(r.get(f) is not None for f in LATENCY), r["id"]
        assert isinstance(r["concurrency"], int) and r["concurrency"] >= 1, r["id"]
        for f in (*THROUGHPUT, *LATENCY):
            assert r.get(f) is None or r[f] > 0, (r["id"], f)
    documented = set(re.findall(r"\w+", " ".join(f"{k} {v}" for k, v in data["fields"].items())))
    undocumented = {k for r in rows for k in r} - documented - {"notes"}
    assert not undocumented, undocumented


@pytest.mark.parametrize("path", [DENSE, DLI], ids=lambda p: p.name)
def test_dense_rows_name_catalog_models_and_gpus(path):
    aliases = measurements.aliases()
    for r in load(path)["rows"]:
        assert aliases["models"].get(r["model"], r["model"]) in catalog.model_paths(), r["id"]
        assert aliases["gpus"].get(r["gpu"], r["gpu"]) in catalog.gpus(), r["id"]
        assert r["precision"] in catalog.table("dtypes"), r["id"]


def test_dli_rows_as_published():
    """wbing520/ai-performance-engineering@0e25b2e2 code/ch10_inference/inference_gpu_cluster_sizing/
    dataset/nim.csv: 787 data lines, 12 deployments (Llama 3 8B at TP1/TP2 and 70B at TP4/TP8 on
    A100-SXM4-80GB in FP16/BF16 and on H100_80GB_HBM3 in FP16 and FP8) over six input/output
    lengths; line 2 is 8B on 2 A100 FP16, 200/1000 tokens, concurrency 5: TTFT avg 40169521.65 ns,
    inter-token latency avg 8720022.191875208 ns, 571.2048768030431 output tokens/s."""
    rows = load(DLI)["rows"]
    assert len(rows) == 787
    layouts = {(r["model"], r["gpu"], r["tp"], r["precision"]) for r in rows}
    assert len(layouts) == 12 and {r["tp"] for r in rows} == {1, 2, 4, 8}
    assert {(r["isl"], r["osl"]) for r in rows} == {
        (200, 200), (200, 1000), (200, 2000), (2000, 200), (2000, 2000), (7000, 1000)
    }  # fmt: skip
    assert all(r["isl_stddev"] == 0 and r["max_tokens"] == r["osl"] for r in rows)  # fixed lengths
    first = rows[0]
    assert first["record"].endswith("nim.csv line 2")
    assert (first["model"], first["gpu"], first["tp"], first["precision"]) == (
        "meta-llama3-8b-instruct", "A100-SXM4-80GB", 2, "fp16"
    )  # fmt: skip
    assert (first["isl"], first["osl"], first["concurrency"]) == (200, 1000, 5)
    assert first["ttft_ms_mean"] == pytest.approx(40.16952165, rel=1e-15)
    assert first["tpot_ms_mean"] == pytest.approx(8.720022191875208, rel=1e-15)
    assert first["throughput_output_tokens_per_s"] == 571.2048768030431


def test_dense_rows_as_published():
    rows = {r["id"]: r for r in load(DENSE)["rows"]}
    nim = [r for r in rows.values() if r["source"] == "S1"]
    gps = [r for r in rows.values() if r["source"] == "S2"]
    # NIM page: Llama 3.3 70B five ISL/OSL tables (8 + 7 + 8 + 8 + 8 lines), Llama 3.1 8B five tables of 8
    assert len(nim) == 79 and len(gps) == 14
    assert sum(r["model"] == L70 for r in nim) == 39
    # NIM page: Llama-3.3-70b-instruct / 1.8.0 / 2 x H100 80G / fp8 TP2 / 5000 in, 500 out
    table = {r["concurrency"]: r for r in nim if (r["model"], r["isl"], r["osl"]) == (L70, 5000, 500)}
    first, last = table[1], table[250]
    assert (first["ttft_ms"], first["itl_ms"]) == (406.77, 18.58)
    assert first["throughput_output_tokens_per_s"] == 51.67
    assert (first["gpu_count"], first["tp"], first["precision"]) == (2, 2, "fp8")
    assert (last["ttft_ms"], last["itl_ms"]) == (88605.32, 93.2)
    # GPUStack qwen3-8b/h100-latency.md, SGLang baseline block at max concurrency 4
    baseline = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B"
    sgl = next(r for r in gps if r["engine_flags"] == baseline)
    assert (sgl["ttft_ms_median"], sgl["tpot_ms_median"], sgl["itl_ms_median"]) == (27.25, 7.14, 7.04)
    assert sgl["throughput_output_tokens_per_s"] == 525.59 and sgl["concurrency"] == 4
    assert {r["engine"] for r in gps} == {"vllm", "sglang", "tensorrt-llm"}
    assert all(r["total_input_tokens"] == 23260 and r["total_output_tokens"] == 22061 for r in gps)


def test_the_held_out_dli_file_evaluates_but_is_not_fitted():
    """The DLI file ships held out (ledgerbuild/measurements.py SHIPPED leaves it out): its rows
    resolve to catalog ids, the second of each configuration's two concurrency-5 runs (72 lines of
    nim.csv) is refused as a repeat, and every other row evaluates."""
    assert DLI.name not in measurements.SHIPPED
    _, rows = measurements.load(DLI)
    refused = [m for m in rows if m.reason]
    assert len(rows) == 787 and len(refused) == 72
    assert all(m.reason.startswith("duplicate of row") and m.concurrency == 5 for m in refused)
    kept = [m for m in rows if not m.reason]
    assert {m.model for m in kept} == {"llama-3-8b", "llama-3-70b"}
    assert {m.gpu for m in kept} == {"a100-80gb-sxm", "h100-sxm"} and {m.engine for m in kept} == {"nim"}


def test_nim_fp8_rows_keep_an_fp8_kv_cache_and_others_the_checkpoint_default():
    # NIM's H100 FP8 profiles are TensorRT-LLM engines from NVIDIA ModelOpt FP8 checkpoints, whose
    # hf_quant_config.json sets kv_cache_quant_algo FP8 (aliases.yaml engine_precisions); the
    # InferenceX FP8 rows keep the engines' 'auto' KV dtype, BF16 (aliases.yaml precisions fp8).
    _, dense = measurements.load(DENSE)
    nim = [m for m in dense if m.engine == "nim"]
    assert len(nim) == 79 and {(m.weight_dtype, m.kv_dtype) for m in nim} == {("fp8", "fp8")}
    _, dsr1 = measurements.load(MEASUREMENTS / "inferencex_dsr1_latency.yaml")
    assert {m.kv_dtype for m in dsr1 if m.weight_dtype == "fp8"} == {"bf16"}
