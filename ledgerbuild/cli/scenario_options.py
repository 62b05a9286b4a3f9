"""The scenario options, one grammar for every command that evaluates a scenario (issue 31).

`--gpu`, `--gpus`, `--workload`, `--set`, `--time-model` and `--engine` mean the same in `show`,
`derive`, `docs`, `xlsx`, `plan` and `frontier`: each is a scenario input (`gpu`,
`gpu_count_setting`, `workload`, `time_model`, `serving_engine`) and `--set NAME=VALUE` sets any
input by name, an option winning over a `--set` of the same input. `plan` and `frontier` search
the GPU count unless `--gpus` fixes it (planning keeps a given gpu_count_setting); `derive` and
`frontier` draw one GPU, so their `--gpu` takes one id. Shortcut: `validate` and `calibrate`
evaluate each measured row in that row's own scenario (its GPU, count, engine), so they take
none of these but `--time-model` (validate) and `--engine` (calibrate, for rows naming none).
"""

from __future__ import annotations

from enum import Enum

import typer

from .common import GPUS_HELP, SET_HELP, _sets, gpu_count_setting


class Engine(str, Enum):
    """--engine: the rows of scenarios/engines.yaml (a test holds the two equal)."""

    vllm = "vllm"
    tensorrt_llm = "tensorrt-llm"
    nim = "nim"
    lecture = "lecture"
    sglang = "sglang"


SCENARIO_COMMANDS = ("show", "derive", "docs", "xlsx", "plan", "frontier")
GPU_LIST_HELP = "GPU id or GPU YAML path [h100-sxm]; several (a,b): "


def gpu_option(default=None, help: str = GPU_LIST_HELP + "each model on each GPU"):
    return typer.Option(default, "--gpu", help=help)


def gpus_option():
    return typer.Option(None, "--gpus", help=GPUS_HELP)


def workload_option():
    return typer.Option(None, "--workload", help="Workload id [chat] (ledgerbuild list workloads)")


def set_option():
    return typer.Option(None, "--set", help=SET_HELP)


def time_model_option():
    return typer.Option(
        None, "--time-model", help="Time model id or YAML file [calibrated; roofline for the floor]"
    )


def engine_option():
    choices = " | ".join(e.value for e in Engine)
    return typer.Option(None, "--engine", metavar="ENGINE", help=f"Serving engine: {choices} [vllm]")


def scenario_sets(
    set_: list[str] | None,
    *,
    gpu: str | None = None,
    gpus: str | None = None,
    workload: str | None = None,
    time_model: str | None = None,
    engine: Engine | str | None = None,
    **more,
) -> dict:
    """The --set pairs with the named options over them (an option given wins)."""
    return _sets(
        set_,
        gpu=gpu,
        gpu_count_setting=gpu_count_setting(gpus),
        workload=workload,
        time_model=time_model,
        serving_engine=Engine(engine).value if engine is not None else None,
        **more,
    )
