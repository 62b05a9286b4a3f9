"""The shipped catalogs' snapshot (ledgerbuild/catalog_snapshot.py).

- Every shipped file's entries rebuilt from the snapshot equal the validated ones, field for
  field and by type (the referee is pydantic's own validation of the same text).
- A file whose text changed is validated again: a bad value is refused as before.
- The snapshot is written at the end of the run that validated, and the next run reads the
  catalogs without importing yaml.
"""

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from ledgerbuild import catalog, catalog_snapshot
from ledgerbuild.errors import LedgerError


def _shipped_files():
    yield from (("models", p, partial(catalog._one_model, p)) for p in catalog._files("models"))
    yield from (("gpus", p, partial(catalog._one_gpu, p)) for p in catalog._files("gpus"))
    for name in catalog.TABLES:
        for stem in [name, *catalog._TABLE_EXTRAS.get(name, [])]:
            path = next((p for p in catalog._files("scenario") if p.stem == stem), None)
            if path is not None:
                yield name, path, partial(catalog.table_rows, name, path=path)


def _parse_and_build(build, path):
    return build(catalog._read_yaml(path))


@pytest.fixture
def empty_snapshot(tmp_path, monkeypatch):
    monkeypatch.setenv("LEDGERBUILD_CACHE", str(tmp_path))
    monkeypatch.setattr(catalog_snapshot, "_snapshot", None)
    monkeypatch.setattr(catalog_snapshot, "_dirty_in", -1)  # nothing saved at this test's exit


def test_rebuilt_entries_equal_the_validated_ones(empty_snapshot):
    checked = 0
    for table, path, build in _shipped_files():
        text = path.read_text(encoding="utf-8")
        validated = catalog_snapshot.validated(
            table, path, text, catalog._CLASSES, partial(_parse_and_build, build, path)
        )
        rebuilt = catalog_snapshot.validated(
            table, path, text, catalog._CLASSES, lambda: pytest.fail("parsed twice")
        )
        assert list(rebuilt) == list(validated), path
        for entry_id, entry in validated.items():
            again = rebuilt[entry_id]
            assert type(again) is type(entry) and again == entry, (path, entry_id)
            assert again.model_dump() == entry.model_dump(), (path, entry_id)
            checked += 1
    assert checked > 60  # 33 models, 16 GPUs, the scenario tables' rows


def test_a_changed_file_is_validated_again(empty_snapshot, tmp_path):
    path = next(p for p in catalog._files("gpus") if p.stem == "h100-sxm")
    text = path.read_text(encoding="utf-8")
    good = catalog_snapshot.validated(
        "gpus", path, text, catalog._CLASSES, lambda: catalog._one_gpu(path, catalog._read_yaml(path, text))
    )
    bad_text = text.replace("memory_gb: 80", "memory_gb: -80")
    assert bad_text != text
    with pytest.raises(LedgerError, match="memory_gb"):
        catalog_snapshot.validated(
            "gpus",
            path,
            bad_text,
            catalog._CLASSES,
            lambda: catalog._one_gpu(path, catalog._read_yaml(path, bad_text)),
        )
    assert list(good) == ["h100-sxm"]


def test_the_next_run_reads_the_snapshot_without_yaml(tmp_path):
    (tmp_path / "tmp").mkdir()  # every cache folder of files.cache_dirs() in tmp_path: none has a snapshot
    env = {
        **os.environ,
        "LEDGERBUILD_CACHE": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path / "tmp"),
    }
    probe = (
        "import sys, runpy; sys.argv = ['ledgerbuild', 'show', 'llama-3-8b', '--json']\n"
        "try:\n    runpy.run_module('ledgerbuild.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write(f'\\nyaml imported: {\"yaml\" in sys.modules}')\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert runs[0].stderr.endswith("yaml imported: True"), runs[0].stderr[-300:]
    assert runs[1].stderr.endswith("yaml imported: False"), runs[1].stderr[-300:]
    assert runs[0].stdout == runs[1].stdout and '"params_total"' in runs[1].stdout
    assert len(list(Path(tmp_path).glob("catalog_*.marshal"))) == 1
