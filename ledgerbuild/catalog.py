"""Catalogs: models, GPUs, precisions, workloads and time models, validated with pydantic.

Scope: load the YAML files shipped in the package (models/, hardware/, scenarios/), or a
user's model YAML / HF config.json / GPU YAML by path; resolve ids with close-match hints.
Every validation error is one line naming the file, the entry and the field.
Shortcuts: catalogs are read once per process (lru_cache); a shipped file validated once is
rebuilt from its snapshot (catalog_snapshot.py) until its text or this file changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, partial
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
    with_config,
)
from typing_extensions import NotRequired, TypedDict

from . import catalog_snapshot
from .errors import LedgerError, close_matches
from .families import count, ledger_fields
from .families_vision import vlm_family
from .files import read_input

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
    allreduce_efficiency: float = Field(gt=0, le=1, default=1)
    allreduce_latency_s: float = Field(ge=0, le=1, default=0)
    request_overhead_s: float = Field(ge=0, le=10, default=0)
    inflight_prompt_token_s: float = Field(ge=0, le=1e-3, default=0)
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
_ENTRY_CLASSES: list[type[_Strict]] = [ModelEntry, *TABLES.values()]
_CLASSES = {cls.__name__: cls for cls in _ENTRY_CLASSES}
# extra files whose rows join a table (the calibrated time model, written by `calibrate`)
_TABLE_EXTRAS = {"time_models": ["calibrated"]}
_PACKAGES = {
    "models": "ledgerbuild.catalog_models",
    "gpus": "ledgerbuild.catalog_hardware",
    "scenario": "ledgerbuild.catalog_scenarios",
}


@cache
def _loader():
    """The safe loader (libyaml's when present: 10x faster), refusing a key given twice in one
    mapping (YAML would keep the last); yaml is imported when a file is parsed."""
    import yaml

    class UniqueKeys(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    def mapping(loader, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:  # an unhashable key: construct_mapping says so
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice", key_node.start_mark
                )
        return loader.construct_mapping(node, deep=deep)

    UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return UniqueKeys


MAX_NESTING = 100  # YAML flow brackets ([ {) open at once; libyaml's parser can crash far deeper


def _check_nesting(path, text: str) -> None:
    """Refuse flow nesting deeper than MAX_NESTING before parsing (a 100,000-deep `[[[...]]]`
    overflows the C parser's stack: a segmentation fault, not an exception). Brackets inside
    quoted strings count too: a conservative bound."""
    import re

    depth = deepest = 0
    for c in re.findall(r"[\[\]{}]", text):
        depth = depth + 1 if c in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            raise LedgerError(f"{path}: nested more than {MAX_NESTING} levels deep")


def _read_yaml(path: Path, text: str | None = None) -> object:
    import yaml

    text = read_input(path) if text is None else text
    _check_nesting(path, text)
    try:
        return yaml.load(text, Loader=_loader())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise LedgerError(f"{path}{where}: malformed YAML ({getattr(e, 'problem', e)})") from None
    except RecursionError:
        raise LedgerError(f"{path}: nested too deeply") from None


def _validate(cls, data, path, entry=None):
    try:
        return cls.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(entry)"
        who = entry or (data.get("id") if isinstance(data, dict) else None) or "entry"
        raise LedgerError(f"{path}: {who}: field {field}: {err['msg']}") from None


def _files(kind: str) -> list[Path]:
    root = resources.files(_PACKAGES[kind])
    return sorted(Path(str(p)) for p in root.iterdir() if str(p).endswith(".yaml"))


def model_fields(entry: ModelEntry, path) -> dict:
    counts = None
    if entry.layer_types_counts is not None:
        c = entry.layer_types_counts
        counts = {
            "sliding": c.get("sliding_attention", 0),
            "chunked": c.get("chunked_attention", 0),
            "linear": c.get("linear_attention", 0),
        }
    try:
        return ledger_fields(entry.config, counts, entry.preprocessor)
    except LedgerError as e:
        raise LedgerError(f"{path}: {entry.id}: {e}") from None


def _shipped(table_name: str, path: Path, build: Callable[[object], dict]) -> dict:
    """{id: entry} of a shipped catalog file: build(its parsed YAML), or the snapshot of it."""
    text = read_input(path)
    return catalog_snapshot.validated(table_name, path, text, _CLASSES, lambda: build(_read_yaml(path, text)))


def _one_model(path: Path, data) -> dict:
    entry = _validate(ModelEntry, data, path)
    if entry.id != path.stem:
        raise LedgerError(f"{path}: {entry.id}: field id: must equal the file name {path.stem!r}")
    return {entry.id: entry}


@cache
def _model_file(path: Path) -> ModelEntry:
    (entry,) = _shipped("models", path, lambda data: _one_model(path, data)).values()
    entry._origin = f"models/{path.name}"
    return entry


@cache
def model_paths() -> dict[str, Path]:
    return {p.stem: p for p in _files("models")}


@cache
def models() -> dict[str, ModelEntry]:
    return {mid: _model_file(p) for mid, p in model_paths().items()}


@cache
def gpus() -> dict[str, GpuEntry]:
    out = {}
    for path in _files("gpus"):
        out.update(_shipped("gpus", path, partial(_one_gpu, path)))
    return out


def _one_gpu(path: Path, data) -> dict:
    entry = _validate(GpuEntry, data, path)
    return {entry.id: entry}


@cache
def table(name: str) -> dict:
    """A catalog table by name: gpus, dtypes, workloads, time_models."""
    if name == "gpus":
        return gpus()
    out = {}
    for stem in [name, *_TABLE_EXTRAS.get(name, [])]:
        path = next(p for p in _files("scenario") if p.stem == stem)
        out.update(_shipped(name, path, partial(table_rows, name, path=path)))
    return out


def table_rows(name: str, rows, path) -> dict:
    """Validated rows of a catalog table from a YAML list (or a {rows: [...]} mapping)."""
    if isinstance(rows, dict) and "rows" in rows:
        rows = rows["rows"]
    if not isinstance(rows, list):
        raise LedgerError(f"{path}: expected a list of entries")
    out: dict = {}
    for entry in (_validate(TABLES[name], r, path) for r in rows):
        if entry.id in out:  # the last would win silently
            raise LedgerError(f"{path}: {entry.id}: field id: duplicate id (each entry once)")
        out[entry.id] = entry
    return _with_scale_bits(out, path) if name == "dtypes" else out


def _with_scale_bits(rows: dict, path) -> dict:
    """Each block-scaled format's scale_bits: the bits of its scale and zero-point formats."""
    out = {}
    for dtype_id, entry in rows.items():
        bits = 0
        for field in ("scale_dtype", "zero_point_dtype"):
            ref = getattr(entry, field)
            if ref is None:
                continue
            if ref not in rows:
                raise LedgerError(
                    f"{path}: {dtype_id}: field {field}: unknown dtype {ref!r}{close_matches(ref, rows)}"
                )
            bits += rows[ref].bits
        out[dtype_id] = entry.model_copy(update={"scale_bits": bits})
    return out


def load_model(ref: str) -> tuple[ModelEntry, dict]:
    """A model by catalog id, model YAML path, or HF config.json path -> (entry, fields)."""
    if ref in model_paths():
        entry = _model_file(model_paths()[ref])
        return entry, model_fields(entry, f"models/{ref}.yaml")
    path = Path(ref)
    if not path.suffix:
        raise LedgerError(f"unknown model {ref!r}{close_matches(ref, model_paths(), 'models')}")
    if not path.exists():
        raise LedgerError(f"{path}: no such file")
    if path.suffix == ".json":
        return _load_hf_config(path)
    entry = _validate(ModelEntry, _read_yaml(path), path)
    entry._origin = str(path)
    return entry, model_fields(entry, path)


def _read_json(path: Path) -> object:
    text = read_input(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise LedgerError(f"{path} line {e.lineno}: malformed JSON ({e.msg})") from None
    except (RecursionError, ValueError) as e:  # nesting; a 5,000-digit integer
        raise LedgerError(f"{path}: not a config this tool reads ({str(e)[:80]})") from None


def _preprocessor(config_path: Path) -> dict | None:
    """A VLM's preprocessor_config.json beside its config.json (an HF model folder): the
    dynamic-resolution pixel bounds, as min_pixels / max_pixels or size.shortest_edge /
    size.longest_edge (the newer spelling); Kimi-K2.5's patch limits (media_proc_cfg)."""
    path = config_path.parent / "preprocessor_config.json"
    if not path.is_file():
        return None
    data = _read_json(path)
    if not isinstance(data, dict):
        raise LedgerError(f"{path}: expected a JSON object")
    size = data["size"] if isinstance(data.get("size"), dict) else {}
    media = data["media_proc_cfg"] if isinstance(data.get("media_proc_cfg"), dict) else {}  # Kimi-K2.5
    found = {
        "min_pixels": data.get("min_pixels", size.get("shortest_edge")),
        "max_pixels": data.get("max_pixels", size.get("longest_edge")),
        "max_patches": media.get("in_patch_limit", data.get("max_patches")),
        "max_patches_per_side": media.get("patch_limit_on_one_side"),
    }
    try:
        return {k: count(found, k, lo=1) for k, v in found.items() if v is not None} or None
    except LedgerError as e:
        raise LedgerError(f"{path}: {e}") from None


def _load_hf_config(path: Path) -> tuple[ModelEntry, dict]:
    config = _read_json(path)
    if not isinstance(config, dict):
        raise LedgerError(f"{path}: expected a JSON object")
    if "text_config" in config and vlm_family(config) is None:  # an unknown VLM: its language part
        config = config["text_config"]
        if not isinstance(config, dict):
            raise LedgerError(f"{path}: field text_config: expected a JSON object")
    name = str(config.get("_name_or_path") or path.parent.name or path.stem)
    name = name.encode("utf-8", "replace").decode("utf-8")[:200]  # no lone surrogates
    ident = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in name.lower()).strip("-.")
    sources = [str(path)]
    data: dict = {"id": ident or "model", "name": name, "config": config, "sources": sources}
    if vlm_family(config) is not None and (pre := _preprocessor(path)):
        data["preprocessor"] = pre
        sources.append(str(path.parent / "preprocessor_config.json"))
    entry = _validate(ModelEntry, data, path)
    entry._origin = str(path)
    return entry, model_fields(entry, path)


def row(table_name: str, key: str):
    rows = table(table_name)
    if key not in rows:
        raise LedgerError(f"unknown {table_name[:-1]} {key!r}{close_matches(key, rows, table_name)}")
    return rows[key]


def row_id(table_name: str, key: str, qualifier: str | None) -> str:
    """The row a lookup reads: `key@qualifier` where the table has it (a time model fitted
    per GPU), else `key`."""
    if qualifier is not None and f"{key}@{qualifier}" in table(table_name):
        return f"{key}@{qualifier}"
    return key


def load_time_model(ref: str) -> str:
    """A time-model id, or a time-model YAML path (from `calibrate`; its rows join the table
    for this process) -> its id."""
    if ref in table("time_models") or not Path(ref).suffix:
        row("time_models", ref)
        return ref
    path = Path(ref)
    if not path.is_file():
        raise LedgerError(f"{path}: no such file")
    rows = table_rows("time_models", _read_yaml(path), path)
    plain = [i for i in rows if "@" not in i]
    if len(plain) != 1:
        raise LedgerError(f"{path}: expected exactly one time model without '@GPU', found {len(plain)}")
    table("time_models").update(rows)
    return plain[0]


def load_gpu(ref: str) -> str:
    """A GPU id, or a GPU YAML path (added to the table for this process) -> its id."""
    if ref in gpus() or not Path(ref).suffix:
        row("gpus", ref)
        return ref
    path = Path(ref)
    entry = _validate(GpuEntry, _read_yaml(path), path)
    gpus()[entry.id] = entry
    return entry.id


def export_entry(entry: ModelEntry) -> str:
    """A catalog YAML file for a model entry (what `import-config` prints)."""
    data = entry.model_dump(exclude_none=True)
    head = (
        f"# {json.dumps(entry.name)}: catalog entry made by `ledgerbuild import-config`.\n"
        "# Add the published figures and their sources before committing it to models/.\n"
    )
    import yaml

    # ASCII out (allow_unicode off): a U+2028 or U+0085 in a name is escaped, not a line break
    return head + yaml.safe_dump(data, sort_keys=False, width=100)
