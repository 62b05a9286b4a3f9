"""Citation strings shared by the formula modules (one place per source document)."""

LECTURE = "Lecture P2 'The Arithmetic of Transformer Inference' (seeds/000)"
SHAPES = "'Dimension changes and core formulas of LLM inference' (seeds/001)"
PREREQ = "Chapter 2 'Prerequisites' (seeds/002)"
HF = "HF transformers modeling code (parameter layout)"
VLLM = "vLLM defaults (gpu_memory_utilization=0.9, max_num_seqs=256)"
DEEPSEEK_V2 = "DeepSeek-V2 (arXiv:2405.04434) §2.1 MLA"
DEEPSEEK_V3 = "DeepSeek-V3 technical report (arXiv:2412.19437)"
KERNEL_BUBBLES = (
    "Spector, Juravsky et al., 'Look Ma, No Bubbles! Designing a Low-Latency Megakernel for "
    "Llama-1B', Hazy Research blog, 2025-05-27 (hazyresearch.stanford.edu/blog/2025-05-27-no-bubbles): "
    "~100 kernels per Llama-1B forward (16 layers); each kernel's set-up and teardown loads no "
    "weights, ~1.3 us launch per kernel on H100 even under CUDA graphs; vLLM and SGLang reach at "
    "most 50% of HBM bandwidth at batch 1"
)
NCCL = "NCCL ring all-reduce cost model (src/graph/tuning.cc: 2(n-1) steps, per-hop latency)"
TRTLLM = "TensorRT-LLM perf-overview v0.17 (measurements/trtllm_perf_v0.17.yaml)"
PIPELINE = "Narayanan et al. 2021, Efficient large-scale training on GPU clusters (pipeline parallelism)"
KORTHIKANTI = (
    "Korthikanti et al. 2022, Reducing activation recomputation in large transformer "
    "models (arXiv:2205.05198) §4"
)
LORA = "Hu et al. 2021, LoRA (arXiv:2106.09685): W + BA, A: r x d_in, B: d_out x r"
MX = "OCP Microscaling Formats (MX) v1.0; NVIDIA NVFP4 (2025); OCP OFP8 rev 1.0"
LEVIATHAN = (
    "Leviathan, Kalman, Matias 2023, Fast Inference from Transformers via Speculative "
    "Decoding (arXiv:2211.17192) eq. 1, Thm 3.8"
)
CHEN = (
    "Chen et al. 2023, Accelerating Large Language Model Decoding with Speculative Sampling "
    "(arXiv:2302.01318)"
)
DEEPSEEK_V3_MTP = (
    "DeepSeek-V3 (arXiv:2412.19437) §2.2 MTP; README_WEIGHTS.md (MTP: 11.5B unique, 1.5B active)"
)
FLASH_ATTENTION = "FlashAttention (Dao et al. 2022, arXiv:2205.14135)"

POWER = (
    "board power x measured draw fractions (A100-80GB 0.73-0.91 serving 3-8B models: "
    "chuyishang/inference-energy results_paste.md @6e617d2; H100 SXM 0.97 and H200 0.74-0.85 at batch 128: "
    "serialalice.pt GPU energy benchmark, 2026)"
)
VLLM_BENCH = (
    "vLLM benchmarks/benchmark_serving.py (--max-concurrency clients, no rate limit; TTFT; "
    "TPOT = (latency - TTFT) / (output tokens - 1))"
)
SGLANG_BENCH = "SGLang server arguments (--chunked-prefill-size) and bench_serving"
ORCA = (
    "Yu et al. 2022, Orca: A Distributed Serving System for Transformer-Based Generative Models "
    "(OSDI '22) §3: iteration-level scheduling, a request joins and leaves the batch at a step"
)
