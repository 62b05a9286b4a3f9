"""Inputs: the time model's factors (one row per time model, fitted per GPU when calibrated).

Declared in this order (the workbook's Inputs sheet follows it); inputs/__init__.py imports
the parts in order.
"""

from ledgerbuild.ledger import lookup_input


def _time_model_input(name, unit, description):
    return lookup_input(
        name,
        unit,
        description,
        key="time_model",
        column=name,
        qualifier="gpu",
        source="time-model table (row time_model@gpu if fitted)",
        hi=1 if unit in ("fraction", "0/1") else None,
    )


mfu = _time_model_input("mfu", "fraction", "Share of peak FLOP/s reached")
bandwidth_efficiency = _time_model_input(
    "bandwidth_efficiency", "fraction", "Share of peak HBM bandwidth reached"
)
overlap = _time_model_input(
    "overlap", "0/1", "1: compute, memory and link time overlap (max); 0: they add (sum)"
)
step_overhead_s = _time_model_input("step_overhead_s", "s", "Fixed time per forward step")
sequence_overhead_s = _time_model_input(
    "sequence_overhead_s", "s", "Time per sequence per step (sampling, scheduling)"
)
layer_overhead_s = _time_model_input(
    "layer_overhead_s",
    "s",
    "Fixed time per transformer layer per forward step: the launch, ramp-up and teardown of the "
    "layer's kernels (norm, QKV, attention, output, MLP), during which no weight is loaded",
)
allreduce_efficiency = _time_model_input(
    "allreduce_efficiency", "fraction", "Share of link bandwidth an all-reduce reaches"
)
allreduce_latency_s = _time_model_input(
    "allreduce_latency_s", "s", "Fixed latency of one all-reduce (kernel launch, sync)"
)
expert_efficiency = _time_model_input(
    "expert_efficiency",
    "fraction",
    "Share of mfu the routed experts' grouped GEMMs reach (few tokens per expert; under expert "
    "parallelism the most loaded GPU sets the pace)",
)
expert_imbalance = _time_model_input(
    "expert_imbalance",
    "ratio",
    "Under expert parallelism: the most loaded GPU's routed-expert tokens over the mean (uneven "
    "expert load); every MoE layer waits for it (1: even)",
)
request_overhead_s = _time_model_input(
    "request_overhead_s",
    "s",
    "Fixed time a served request spends outside forward steps before its first token "
    "(HTTP, tokenization, scheduling, streaming), as a benchmark client measures TTFT",
)

wave_prompt_token_s = _time_model_input(
    "wave_prompt_token_s",
    "s/token",
    "Wait of a new request per prompt token of the other requests in flight when a fixed-length "
    "harness (harness_fixed_lengths = 1) sends them in waves: the server's host work on the "
    "prompts arriving with it (tokenization, request handling), the same for any GPU (fitted to "
    "fixed-length TTFT rows: NIM's Llama 3.1 8B and 3.3 70B on H100 wait alike per token, not "
    "per FLOP)",
)
