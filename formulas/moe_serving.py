"""MoE weight reads of a serving step that mixes prefill chunks into decode steps.

A stage step carries `micro` decode tokens and, in steady state, `prompts` prompts' worth of
prefill (the requests replacing finished ones). Engines do not spread a prompt thinly over
every step: the scheduler gives the running requests' decode tokens their slot first and a
waiting prompt the rest of the step's token budget (vLLM V1 vllm/v1/core/sched/scheduler.py
Scheduler.schedule, token_budget = max_num_batched_tokens; SGLang
python/sglang/srt/managers/schedule_policy.py PrefillAdder, chunked_prefill_size; TensorRT-LLM
without chunked prefill schedules a context request whole). So a share `s` of the steps carries
a chunk (prompts x chunks per prompt, at most 1) and the other steps are pure decode.

FLOPs, KV reads and link bytes are linear in the step's tokens, so their mean over the steps is
their value at the mean tokens (offline.py, load.py). The routed experts a step reads are not:
at B tokens a step reads E (1 - (1 - k/E)^B) of E experts per layer (uniform routing,
latency.py), concave in B, so the mean over steps of the bytes read is below the bytes at the
mean tokens (Jensen). A step of 4 decode tokens reads about 4 k experts; the rare step with an
8,192-token chunk reads them all; the average step is close to the first, not to a step of the
mean 28 tokens. This module declares the mean over steps.
Shortcut: a step carrying a chunk carries prompts x prompt / s prefill tokens (chunks of equal
size); uniform routing.
"""

from sympy import Max, Min, Piecewise, ceiling, floor

from ledgerbuild.ledger import quantity

from .flops import prefill_tokens
from .inputs import chunked_prefill, expert_parallel, max_num_tokens
from .latency import experts_untouched_bytes
from .sources import DEEPSEEK_V3

T = "moe_serving"
ADP = (
    "NVIDIA/TensorRT-LLM@011cfc2cc18a24a95603f91dc53f8fc60bc80189 docs/source/blogs/tech_blog/"
    "blog10_ADP_Balance_Strategy.md ('the execution time for the Attention module in any given "
    "iteration is bounded by the rank with the highest workload'; baseline round-robin: contexts "
    "processed sequentially across ranks, per-iteration time dominated by time(ctx)); SGLang "
    "python/sglang/srt/managers/prefill_delayer.py (a prefill on one DP rank idles the others)"
)
SCHEDULERS = (
    "vLLM V1 (v0.11) vllm/v1/core/sched/scheduler.py Scheduler.schedule (running requests first, "
    "then waiting prompts within token_budget = max_num_batched_tokens); SGLang (v0.5) "
    "python/sglang/srt/managers/schedule_policy.py PrefillAdder (chunked_prefill_size); "
    "TensorRT-LLM (v1.0) tensorrt_llm/_torch/pyexecutor/scheduler.py (context requests whole "
    "unless enable_chunked_prefill)"
)


def mixed_step_experts_unread(prefix, micro, prompts, source):
    """Declare the share of a stage's steps that carry a prefill chunk (`<prefix>_prefill_step_share`)
    and the routed-expert bytes a step does not read, averaged over pure-decode steps and steps
    with a chunk (`<prefix>_experts_unread_bytes`; 0 for a dense model)."""
    prompts = quantity(
        f"{prefix}_prompts_per_step",
        prompts,
        "prompts",
        "Prompts prefilled per stage step in steady state (mean over the steps)",
        source=source,
        topic=T,
    )
    chunk = Piecewise((Max(max_num_tokens - micro, 1), chunked_prefill > 0), (prefill_tokens, True))
    spans = quantity(
        f"{prefix}_prefill_chunks_per_prompt",
        ceiling(prefill_tokens / chunk),
        "steps",
        "Steps one prompt's prefill chunks span: the prompt over the token budget the decode tokens "
        "leave (chunked prefill), else 1 (the prompt whole)",
        source=SCHEDULERS,
        topic=T,
        integer=True,
    )
    share = quantity(
        f"{prefix}_prefill_step_share",
        Min(1, prompts * spans),
        "fraction",
        "Share of the stage steps that carry a prefill chunk: prompts per step x the steps one "
        "prompt's chunks span (at most 1)",
        source=SCHEDULERS,
        topic=T,
    )
    decode_only = quantity(
        f"{prefix}_unread_in_decode_steps_bytes",
        experts_untouched_bytes(floor(micro) * expert_parallel),
        "bytes",
        "Routed-expert bytes a pure-decode stage step does not read (its decode tokens of every EP replica)",
        source=source,
        topic=T,
        when="moe",
    )
    with_chunk_tokens = quantity(
        f"{prefix}_chunk_step_tokens",
        micro + Piecewise((prompts * prefill_tokens, prompts * spans >= 1), (prefill_tokens / spans, True)),
        "tokens",
        "Tokens of a step that carries prefill: its decode tokens and prompts x prompt / share "
        "prefill tokens (one chunk, prompt / chunks per prompt, while the share is below 1)",
        source=SCHEDULERS,
        topic=T,
    )
    routed = quantity(
        f"{prefix}_chunk_routed",
        floor(with_chunk_tokens) * expert_parallel,
        "tokens",
        "Tokens a prefill-carrying step routes to the expert pool: its whole tokens on every EP "
        "replica (named apart so the expert formula below stays one line wide)",
        source=SCHEDULERS,
        topic=T,
        when="moe",
    )
    with_chunk = quantity(
        f"{prefix}_unread_in_chunk_steps_bytes",
        experts_untouched_bytes(routed),
        "bytes",
        "Routed-expert bytes a stage step carrying a prefill chunk does not read",
        source=source,
        topic=T,
        when="moe",
    )
    unread = quantity(
        f"{prefix}_experts_unread_bytes",
        Piecewise((decode_only, share <= 0), ((1 - share) * decode_only + share * with_chunk, True)),
        "bytes",
        "Routed-expert bytes a stage step does not read, averaged over its pure-decode steps and "
        "those carrying a prefill chunk (the tokens of every EP replica reach the expert pool)",
        source=source + "; " + DEEPSEEK_V3 + " §2.1.2 (top-k routing); " + SCHEDULERS,
        topic=T,
        when="moe",
    )
    quantity(
        f"{prefix}_experts_unread_bytes",
        0,
        "bytes",
        "Dense model: every weight is read",
        source=source,
        topic=T,
        when="dense",
    )
    return unread, prompts, spans


def attention_dp_busiest_prompts(prefix, prompts, spans):
    """Declare the prefill (in prompts) the busiest attention data-parallel rank carries in a
    step (`<prefix>_adp_busiest_prompts`): the step of the EP group ends with its slowest rank."""
    return quantity(
        f"{prefix}_adp_busiest_prompts",
        Piecewise(
            (prompts, expert_parallel <= 1),
            (Max(prompts, Min(1 / spans, expert_parallel * prompts)), True),
        ),
        "prompts",
        "Prefill the busiest of the expert_parallel attention data-parallel ranks carries in a "
        "step, in prompts: each rank admits its own requests, so while fewer than one prompt a "
        "step arrives per rank the ranks prefill in turn and a share min(1, ranks x prompts x "
        "chunks) of the steps waits for one rank's chunk; the mean (prompts) without attention DP",
        source=ADP,
        topic=T,
    )
