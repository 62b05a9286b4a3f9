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

from pydantic import ValidationError

from . import catalog_snapshot
from .catalog_entries import (  # noqa: F401  (re-exported: catalog.GpuEntry, catalog.NO_PUBLIC_PRICE, ...)
    ID,
    NO_PUBLIC_PRICE,
    PRICE_COLUMNS,
    QUALIFIED_ID,
    TABLES,
    DtypeEntry,
    EngineEntry,
    GpuEntry,
    GpuPrice,
    ModelEntry,
    RopeMethodEntry,
    TimeModelEntry,
    TrainingRecipeEntry,
    WorkloadEntry,
    _Strict,
)
from .config_values import count
from .errors import LedgerError, close_matches
from .families import ledger_fields
from .families_vision import vlm_family
from .files import read_input

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
