"""Serving at a concurrency: median TTFT, TPOT and output tokens per second under load.

A benchmark client keeps `concurrency` requests in flight (maximum concurrency, no rate limit:
vLLM benchmark_serving --max-concurrency, SGLang bench_serving, trtllm-bench --concurrency);
each finished request is replaced at once by the next. The requests spread evenly over the
deployment's `expert_parallel` attention data-parallel replicas. A replica runs the least of
its requests and what the engine holds (`offline_concurrency`: batch cap, KV pool, token
budget); the rest wait in its queue. Each pipeline stage steps a micro-batch: one decode token
per sequence plus, in steady state, the prefill chunks of the requests that replace finished
ones (offline.py's stage step, declared again at this micro-batch).

- TPOT: a request's next token comes after every stage has stepped its micro-batch (P stage
  steps); the prefill mixed into those steps is the other requests' ((n - 1) / n of the
  steady-state share: its own prefill is in its TTFT).
- TTFT: the harness's stated fixed time (`harness_overhead_s`: a measurement source's
  `ttft_overhead_ms`, not fitted), its own prefill (latency.py's `prefill_s`, the prompt alone)
  plus the wait for its chunks of the step's token budget behind the other requests' decode
  tokens: with chunked prefill ceil(prompt / (max_num_tokens - decode tokens)) steps, without
  one step; plus, under a harness that states fixed lengths, the wave wait: requests admitted in
  one step finish in one step and come back together, so a new request waits for the host's
  work on the prompts of the others arriving with it, `wave_prompt_token_s` (fitted) per prompt
  token of the other running requests (NIM's 8B and 70B on H100 wait alike per token, not per
  FLOP: host work, not the GPU's prefill, which a share of the others' prefill compute over-
  predicted 2-10x for the 70B); lengths drawn at random spread the arrivals and the wave out;
  an engine that polls for new requests only every `scheduler_recv_interval` decode steps
  (SGLang's --scheduler-recv-interval) makes a request arriving while the others decode wait
  half a polling cycle (SGLang scheduler_recv_skipper.py: one count per decode step);
  under TensorRT-LLM's attention data-parallel balance (`adp_balance_timeout_steps`: its
  timeout_iters) a rank holds a new request until every replica has one or the timeout passes,
  half a round on average (requests arrive at in_flight / outputs a step, one per replica);
  past what the engine holds, the queue: closed loop (Little's law), (waiting / running) x the
  service time of a request.
- Output tokens/s: closed loop, running x output tokens / (in-flight TTFT + (output - 1) x
  TPOT) per replica, as benchmarks count it.
At concurrency 0 (offline: every request queued) throughput and TPOT are offline.py's; TTFT is
that of a request admitted to the full batch (the queue of an offline run is not a latency).
Floors (`*_floor_s`, `output_tokens_per_s_ceiling`): the same steps at the roofline, decode
without prefill mixed in and prefill alone; no engine beats them.
Shortcuts: steady state, every request of the workload's lengths (median = mean); other
requests' prefill chunks spread evenly over the steps; fewer requests than stages run
micro-batches of one with the other stages idle (the bubble).
"""

from sympy import Max, Min, Piecewise, ceiling

from ledgerbuild.ledger import quantity

from .flops import prefill_tokens
from .inputs import (
    adp_balance_timeout_steps,
    chunked_prefill,
    concurrency,
    expert_parallel,
    harness_fixed_lengths,
    harness_overhead_s,
    max_num_tokens,
    output_tokens,
    pipeline_parallel,
    request_overhead_s,
    scheduler_recv_interval,
    wave_prompt_token_s,
)
from .latency import prefill_compute_floor_s, prefill_memory_floor_s, prefill_s
from .memory import total_gpus
from .offline import ceiling as offline_ceiling
from .offline import micro_batch as offline_micro_batch
from .offline import offline_concurrency, stage_step
from .offline import step as offline_step_s
from .offline import throughput as offline_throughput
from .sources import LECTURE, ORCA, SGLANG_BENCH, TRTLLM, VLLM_BENCH

T = "load"
SRC = LECTURE + " §6.2-6.3 (extended to a concurrency); " + VLLM_BENCH
P = pipeline_parallel
outputs = Max(output_tokens, 1)  # the prefill itself yields the first token
offline = concurrency <= 0

requests = quantity(
    "load_requests_per_replica",
    ceiling(concurrency / expert_parallel),
    "requests",
    "Requests the clients keep in flight on the busiest attention data-parallel replica (whole "
    "requests spread evenly: below one per replica, one each on `concurrency` replicas while the "
    "others step idle with them, the EP group's step ending with its busiest rank)",
    source=SRC + "; vLLM docs serving/data_parallel_deployment.md (docs.vllm.ai, read 2026-12-01: for MoE "
    "models ranks without requests run dummy forward passes, the expert layers synchronise every step)",
    topic=T,
)
running = quantity(
    "load_running",
    Piecewise((offline_concurrency, offline), (Min(requests, offline_concurrency), True)),
    "requests",
    "Requests a replica runs at once: its share of the concurrency, at most what the engine "
    "holds (offline: offline_concurrency)",
    source=SRC + "; " + TRTLLM,
    topic=T,
)
in_flight = quantity(
    "load_running_total",
    Min(concurrency, expert_parallel * running),
    "requests",
    "Requests the deployment runs at once: the clients' concurrency, at most every replica's "
    "running requests (the busiest replica's count times the replicas overstates it when the "
    "requests do not divide evenly)",
    source=SRC,
    topic=T,
)
micro = quantity(
    "load_micro_batch",
    Piecewise((offline_micro_batch, offline), (Max(running / P, Min(running, 1)), True)),
    "requests",
    "Sequences one pipeline stage steps at a time (at least one while any runs)",
    source=SRC,
    topic=T,
)
quantity(
    "load_pipeline_bubble",
    Max(0, 1 - running / P),
    "fraction",
    "Share of the time a stage idles for want of micro-batches (fewer requests than stages)",
    source="Narayanan et al. 2021 (pipeline bubble)",
    topic=T,
)
# the other requests' prompts a stage step prefills: each of the micro-batch's sequences is
# replaced after `outputs` steps; a request's own prefill is in its TTFT, not its TPOT
others = Piecewise((0, running <= 1), ((running - 1) / running, True))
step, _, _ = stage_step("load", micro, micro * others / outputs, SRC)
_, decode_compute_floor, decode_memory_floor = stage_step("load_decode", micro, 0, SRC)

tpot = quantity(
    "tpot_s",
    Piecewise((P * offline_step_s, offline), (P * step, True)),
    "s",
    "Median time per output token at the concurrency: P stage steps of the micro-batch with the "
    "other requests' prefill chunks mixed in (offline: offline.py's step)",
    source=SRC,
    topic=T,
)
chunk_tokens = quantity(
    "load_prefill_chunk_tokens",
    Piecewise((Max(max_num_tokens - micro, 1), chunked_prefill > 0), (prefill_tokens, True)),
    "tokens",
    "Prompt tokens one step takes for a new request: the token budget left by the decode tokens "
    "(chunked prefill), or the whole prompt",
    source=SRC + "; " + SGLANG_BENCH,
    topic=T,
)
chunks = quantity(
    "load_prefill_steps",
    ceiling(prefill_tokens / chunk_tokens),
    "steps",
    "Steps a new request's prefill spans",
    source=SRC,
    topic=T,
    integer=True,
)
wave_wait = quantity(
    "load_wave_wait_s",
    Piecewise(
        (0, offline),
        (harness_fixed_lengths * wave_prompt_token_s * Max(running - 1, 0) * prefill_tokens, True),
    ),
    "s",
    "Wait of a new request for the host's work on the prompts of the others arriving in its "
    "wave: a fixed-length harness's requests finish and return together (wave_prompt_token_s "
    "per prompt token of the other running requests; 0 when lengths vary, and offline)",
    source=SRC + "; " + ORCA,
    topic=T,
)
recv_wait = quantity(
    "load_recv_wait_s",
    Piecewise((0, offline | (running <= 1)), ((scheduler_recv_interval - 1) / 2 * P * step, True)),
    "s",
    "Wait of a new request for the scheduler's next poll: while the others decode, the scheduler "
    "takes new requests every scheduler_recv_interval decode steps, and a request arriving at a "
    "random time waits half a cycle, (interval - 1) / 2 steps more than under a poll every step "
    "(0 alone or offline: an idle scheduler polls at once)",
    source="sgl-project/sglang@70310f051068e3ea8dbaaecd4e408919cd431417 "
    "python/sglang/srt/managers/scheduler_recv_skipper.py; " + SRC,
    topic=T,
)
# a round of arrivals, one per replica: requests are replaced at in_flight / outputs a step
round_steps = (expert_parallel - 1) * outputs / Max(in_flight, 1)
adp_balance_wait = quantity(
    "load_adp_balance_wait_s",
    Piecewise(
        (0, offline | (expert_parallel <= 1) | (adp_balance_timeout_steps <= 0) | (in_flight < 1)),
        (Min(adp_balance_timeout_steps, round_steps) / 2 * P * step, True),
    ),
    "s",
    "Wait of a new request for the attention data-parallel balance: its rank holds it until every "
    "replica has a new request or adp_balance_timeout_steps decode steps pass; requests are "
    "replaced at in_flight / outputs a step and dealt one per replica, so a round fills after "
    "(replicas - 1) x outputs / in_flight steps, and a request arriving at a random time in the "
    "round waits half of it (0 without the balance, on one replica, or offline)",
    source="NVIDIA/TensorRT-LLM@011cfc2cc18a24a95603f91dc53f8fc60bc80189 "
    "docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md (ADP Balance Strategy: Context "
    "Synchronization, timeout_iters); " + SRC,
    topic=T,
)
in_flight_ttft = quantity(
    "load_ttft_in_flight_s",
    harness_overhead_s
    + request_overhead_s
    + prefill_s
    + Piecewise((0, running <= 1), (chunks * P * step, True))
    + wave_wait
    + recv_wait
    + adp_balance_wait,
    "s",
    "TTFT once admitted: the harness's stated overhead, the engine's fixed overhead "
    "(request_overhead_s), the prompt's prefill plus, for each of its chunks, a step of the other "
    "requests' decode tokens, the wave wait (load_wave_wait_s), the wait for the scheduler's "
    "poll (load_recv_wait_s) and for the attention data-parallel balance (load_adp_balance_wait_s)",
    source=SRC,
    topic=T,
)
service = quantity(
    "load_request_service_s",
    in_flight_ttft + (outputs - 1) * tpot,
    "s",
    "Time a running request holds its slot: TTFT once admitted and the remaining decode steps",
    source=SRC,
    topic=T,
)
queue = quantity(
    "load_queue_wait_s",
    Piecewise((0, offline | (running <= 0)), (Max(requests - running, 0) / running * service, True)),
    "s",
    "Wait in the engine's queue when the clients keep more requests than it holds (closed loop, "
    "Little's law)",
    source="Little's law (Little 1961); " + SRC,
    topic=T,
)
ttft = quantity(
    "ttft_s",
    queue + in_flight_ttft,
    "s",
    "Median time to first token at the concurrency: queue wait, the prompt's prefill and the "
    "wait for its chunks behind the other requests' decode tokens",
    source=SRC,
    topic=T,
)
throughput = quantity(
    "output_tokens_per_s",
    Piecewise(
        (offline_throughput, offline),
        (in_flight * outputs / service, running > 0),
        (0, True),
    ),
    "tokens/s",
    "Output tokens per second of the deployment at the concurrency (closed loop; offline: "
    "offline_throughput_tokens_per_s; 0 = does not fit)",
    source=SRC,
    topic=T,
)
quantity(
    "output_tokens_per_s_per_gpu",
    throughput / total_gpus,
    "tokens/s",
    "Output tokens per second per GPU of the deployment at the concurrency",
    source=SRC,
    topic=T,
)
quantity(
    "tokens_per_s_per_user",
    Piecewise((1 / tpot, tpot > 0), (0, True)),
    "tokens/s",
    "Decode speed one user sees at the concurrency (1 / TPOT)",
    source=SRC,
    topic=T,
)
tpot_floor = quantity(
    "tpot_floor_s",
    P * Max(decode_compute_floor, decode_memory_floor),
    "s",
    "Roofline floor of TPOT at the concurrency: the micro-batch's decode alone at peak FLOP/s "
    "and bandwidth, every stage in turn",
    source=SRC,
    topic=T,
)
quantity(
    "ttft_floor_s",
    Max(prefill_compute_floor_s, prefill_memory_floor_s),
    "s",
    "Roofline floor of TTFT: the prompt's prefill alone at peak",
    source=SRC,
    topic=T,
)
quantity(
    "output_tokens_per_s_ceiling",
    Piecewise((offline_ceiling, offline), (in_flight / tpot_floor, running > 0), (0, True)),
    "tokens/s",
    "Roofline ceiling of output tokens/s at the concurrency (decode at its floor, prefill free)",
    source=SRC,
    topic=T,
)
