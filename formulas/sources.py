"""Citation strings shared by the formula modules (one place per source document)."""

LECTURE = "Lecture P2 'The Arithmetic of Transformer Inference' (seeds/000)"
SHAPES = "'Dimension changes and core formulas of LLM inference' (seeds/001)"
PREREQ = "Chapter 2 'Prerequisites' (seeds/002)"
HF = "HF transformers modeling code (parameter layout)"
VLLM = "vLLM defaults (gpu_memory_utilization=0.9, max_num_seqs=256)"
DEEPSEEK_V2 = "DeepSeek-V2 (arXiv:2405.04434) §2.1 MLA"
