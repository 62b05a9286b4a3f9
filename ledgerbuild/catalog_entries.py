"""Catalog entries: the pydantic schema of each model file and of each table's rows (GPUs,
precisions, workloads, time models, engines, training recipes, RoPE methods).

Scope: field types, bounds and cross-field checks; a unit in every key
(`hbm_bandwidth_tb_per_s`). Loading, resolving ids and the error lines are catalog.py's.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
    with_config,
)
from typing_extensions import NotRequired, TypedDict

ID = r"^[a-z0-9][a-z0-9._-]*$"
QUALIFIED_ID = r"^[a-z0-9][a-z0-9._-]*(@[a-z0-9][a-z0-9._-]*)?$"  # time model, or time model@gpu


class _Strict(BaseModel):
    """Strict types: no strings or booleans for numbers, no NaN or infinity, no unknown keys."""

    # defer_build: a class's validator is built when it first validates (the shipped catalogs
    # come validated from catalog_snapshot.py, so most runs build none)
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False, defer_build=True)


class ModelEntry(_Strict):
    """A model: its config.json fields, published figures and sources; `origin` is the file
    it was read from (for error messages)."""

    id: str = Field(pattern=ID)
    name: str
    hf_repo: str | None = None
    config: dict
    layer_types_counts: dict[str, int] | None = None
    preprocessor: dict | None = None  # a VLM's preprocessor_config.json fields (min/max pixels)
    published: dict = Field(default_factory=dict)
    sources: list[str] = Field(default_factory=list)
    _origin: str = PrivateAttr(default="")

    @property
    def where(self) -> str:
        """'models/x.yaml: x' (the file and the entry), or 'model x'."""
        return f"{self._origin}: {self.id}" if self._origin else f"model {self.id}"


NO_PUBLIC_PRICE = "no public price"  # the GPU table's flag for a GPU without a dated public price
PRICE_COLUMNS = ("price_provider", "price_rate_type", "price_date", "price_url", "other_prices")


@with_config(ConfigDict(extra="forbid", strict=True, allow_inf_nan=False))
class GpuPrice(TypedDict):
    """One public price of a GPU-hour: who sells it, how, the day the page was read, where.
    (A TypedDict, not a model: the catalog snapshot rebuilds it equal as plain data.)"""

    provider: Annotated[str, Field(min_length=1, max_length=100)]
    rate_type: Literal["on-demand", "serverless", "reserved", "spot"]
    usd_per_gpu_hour: Annotated[float, Field(gt=0, le=1e6)]
    date: Annotated[str, Field(pattern=r"^20[0-9]{2}-[01][0-9]-[0-3][0-9]$")]
    url: Annotated[str, Field(pattern=r"^https?://[^ ]+$", max_length=500)]
    note: NotRequired[Annotated[str, Field(max_length=1000)]]


class GpuEntry(_Strict):
    """A GPU; upper bounds are sanity limits a thousand times beyond today's parts. `prices`
    lists its public prices, the first being the list price the formulas read (filled into
    `price_usd_per_gpu_hour`; 0 and the flag "no public price" when there is none)."""

    id: str = Field(pattern=ID)
    name: str = Field(max_length=200)
    memory_gb: float = Field(gt=0, le=1e6)
    memory_mib: int = Field(gt=0, le=10**9)
    interconnect: str = Field(max_length=200)
    interconnect_gb_per_s: float = Field(gt=0, le=1e7)
    interconnect_hop_latency_us: float = Field(ge=0, le=1e6)
    hbm_bandwidth_tb_per_s: float = Field(gt=0, le=1e4)
    bf16_dense_tflops: float = Field(gt=0, le=1e7)
    fp8_dense_tflops: float = Field(ge=0, le=1e7)
    fp4_dense_tflops: float = Field(ge=0, le=1e7)
    int8_dense_tops: float = Field(ge=0, default=0, le=1e7)
    tdp_w: float = Field(gt=0, le=1e6)
    price_usd_per_gpu_hour: float = Field(ge=0, default=0, le=1e6)  # = prices[0]; 0 = none
    prices: list[GpuPrice] = Field(default_factory=list, max_length=20)
    cuda_memory_gib: float = Field(ge=0, default=0, le=1e6)  # cudaMemGetInfo total; 0 = memory_mib
    notes: str = ""
    sources: dict[str, str]

    @field_validator(
        "memory_gb",
        "interconnect_gb_per_s",
        "interconnect_hop_latency_us",
        "hbm_bandwidth_tb_per_s",
        "bf16_dense_tflops",
        "fp8_dense_tflops",
        "fp4_dense_tflops",
        "int8_dense_tops",
        "tdp_w",
        "cuda_memory_gib",
    )
    @classmethod
    def not_vanishing(cls, value: float) -> float:
        """0 (where it means none) or at least 1e-6 of the unit: a subnormal 1e-320 overflows
        every division by it."""
        if 0 < value < 1e-6:
            raise ValueError("must be 0 or at least 1e-6 (a figure this small is no GPU's)")
        return value

    @model_validator(mode="before")
    @classmethod
    def list_price_from_prices(cls, data):
        """price_usd_per_gpu_hour is the first price's figure (a file may state it: it must agree)."""
        prices = data.get("prices") if isinstance(data, dict) else None
        if not isinstance(prices, list) or "price_usd_per_gpu_hour" in data:
            return data
        first = prices[0].get("usd_per_gpu_hour") if prices and isinstance(prices[0], dict) else 0
        number = isinstance(first, (int, float)) and not isinstance(first, bool) and first > 0
        return {**data, "price_usd_per_gpu_hour": first if number else 0}  # else prices says why

    @model_validator(mode="after")
    def every_figure_has_a_source(self):
        figures = {
            "memory_gb",
            "memory_mib",
            "interconnect_gb_per_s",
            "interconnect_hop_latency_us",
            "hbm_bandwidth_tb_per_s",
            "bf16_dense_tflops",
            "fp8_dense_tflops",
            "fp4_dense_tflops",
            "tdp_w",
        }
        if self.cuda_memory_gib:
            figures.add("cuda_memory_gib")
        missing = sorted(figures - set(self.sources))
        if missing:
            raise ValueError(f"sources has no entry for {', '.join(missing)}")
        listed = self.prices[0]["usd_per_gpu_hour"] if self.prices else 0
        if self.price_usd_per_gpu_hour != listed:
            raise ValueError(
                f"price_usd_per_gpu_hour {self.price_usd_per_gpu_hour:g} is not the first entry of prices "
                f"({listed:g}): give each price in prices, with provider, rate_type, date and url"
            )
        return self

    def _price(self, key: str) -> str:
        return str(self.prices[0].get(key, "")) if self.prices else ""

    @property
    def price_provider(self) -> str:
        return self._price("provider") or NO_PUBLIC_PRICE

    @property
    def price_rate_type(self) -> str:
        return self._price("rate_type")

    @property
    def price_date(self) -> str:
        return self._price("date")

    @property
    def price_url(self) -> str:
        return self._price("url")

    @property
    def other_prices(self) -> str:
        """The prices after the list price, one per provider (blank when there is one)."""
        rows = (
            (p["provider"], p["rate_type"], p["usd_per_gpu_hour"], p["date"], p["url"])
            for p in self.prices[1:]
        )
        return "; ".join(
            f"{who} {how} {usd:g} USD/GPU-hour ({day}, {url})" for who, how, usd, day, url in rows
        )


class DtypeEntry(_Strict):
    """A number format: the element format and, if block-scaled, its block and scale formats."""

    id: str = Field(pattern=ID)
    description: str
    kind: Literal["float", "int", "scale"]
    bits: int = Field(ge=1, le=64)
    sign_bits: int = Field(ge=0, le=1)
    exponent_bits: int = Field(ge=0)
    mantissa_bits: int = Field(ge=0)
    bias: int
    max: float = Field(gt=0)
    min_normal: float = Field(gt=0)
    unit_roundoff: float = Field(gt=0, le=1)
    has_inf: int = Field(ge=0, le=1)
    has_nan: int = Field(ge=0, le=1)
    block_size: int = Field(ge=1, default=1)
    # elements along one row that share a scale (a 128 x 128 weight block: 128); 0: the
    # block is one row's run of block_size elements, or the whole row when block_size is 1
    row_block_elements: int = Field(ge=0, default=0)
    scale_dtype: str | None = None
    zero_point_dtype: str | None = None
    scale_bits: int = Field(ge=0, default=0)  # filled from scale_dtype + zero_point_dtype
    math_bits: Literal[4, 8, 16]
    dequant_overhead_bits: float = Field(ge=0, default=0)
    source: str

    @model_validator(mode="after")
    def fields_add_up(self):
        if self.sign_bits + self.exponent_bits + self.mantissa_bits != self.bits:
            raise ValueError(f"sign_bits + exponent_bits + mantissa_bits must equal bits ({self.bits})")
        if self.block_size > 1 and self.scale_dtype is None:
            raise ValueError("a block_size above 1 needs a scale_dtype")
        if self.row_block_elements > self.block_size:
            raise ValueError(f"row_block_elements must not exceed block_size ({self.block_size})")
        return self


class WorkloadEntry(_Strict):
    id: str = Field(pattern=ID)
    prompt_tokens: int = Field(gt=0)
    output_tokens: int = Field(gt=0)
    input_token_price_ratio: float = Field(ge=0, default=0)  # 0: only output tokens priced
    description: str
    source: str = ""


class TimeModelEntry(_Strict):
    id: str = Field(pattern=QUALIFIED_ID)
    mfu: float = Field(gt=0, le=1)
    bandwidth_efficiency: float = Field(gt=0, le=1)
    overlap: int = Field(ge=0, le=1)
    step_overhead_s: float = Field(ge=0, le=1)
    sequence_overhead_s: float = Field(ge=0, le=1, default=0)
    layer_overhead_s: float = Field(ge=0, le=1, default=0)
    allreduce_efficiency: float = Field(gt=0, le=1, default=1)
    allreduce_latency_s: float = Field(ge=0, le=1, default=0)
    request_overhead_s: float = Field(ge=0, le=10, default=0)
    wave_prompt_token_s: float = Field(ge=0, le=1e-3, default=0)
    expert_efficiency: float = Field(gt=0, le=1, default=1)
    expert_imbalance: float = Field(ge=1, le=10, default=1)
    description: str
    source: str


class EngineEntry(_Strict):
    id: str = Field(pattern=ID)
    memory_fraction: float = Field(gt=0, le=1)
    fraction_of_free: int = Field(ge=0, le=1)
    runtime_reserve_gib: float = Field(ge=0)
    max_batch: int = Field(gt=0)
    max_num_tokens: int = Field(gt=0)
    sliding_window_kv: int = Field(ge=0, le=1)
    chunked_prefill: int = Field(ge=0, le=1, default=1)  # 1: prompts split to fit max_num_tokens
    limits_source: str = ""  # where max_batch, max_num_tokens and chunked_prefill come from
    description: str
    source: str
    # the KV-pool rule (formulas/kv_pool.py); defaults: vLLM's shape with nothing reserved
    version: str = ""
    reserve_before_fraction: int = Field(ge=0, le=1, default=0)
    runtime_reserve_multi_gpu_gib: float = Field(ge=0, default=0)  # 0: runtime_reserve_gib
    activation_fixed_gib: float = Field(ge=0, default=0)
    activation_logit_copies: float = Field(ge=0, default=0)
    kv_block_tokens: int = Field(ge=1, default=1)
    kv_pool_source: str = ""
    # the layouts the plan searches for an MoE model (ledgerbuild/planning.py): the largest
    # tensor-parallel size of one attention data-parallel replica (0: no DP attention)
    attention_dp_max_tp: int = Field(ge=0, default=0)
    layouts_source: str = ""


class RopeMethodEntry(_Strict):
    id: str = Field(pattern=ID)
    code: int = Field(ge=-1, le=4)
    description: str
    source: str


class TrainingRecipeEntry(_Strict):
    id: str = Field(pattern=ID)
    working_weight_bytes: float = Field(ge=0)
    gradient_bytes: float = Field(ge=0)
    master_weight_bytes: float = Field(ge=0)
    optimizer_state_bytes: float = Field(ge=0)
    description: str
    source: str


TABLES: dict[str, type[_Strict]] = {
    "gpus": GpuEntry,
    "dtypes": DtypeEntry,
    "workloads": WorkloadEntry,
    "time_models": TimeModelEntry,
    "engines": EngineEntry,
    "training_recipes": TrainingRecipeEntry,
    "rope_methods": RopeMethodEntry,
}
