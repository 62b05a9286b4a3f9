"""Issue 32: `docs` takes what `show` and `xlsx` take — a folder of model YAML files, model
YAML files and HF config.json files whose ids are not catalog ids — and writes for each the
documents and figures it writes for the catalog model with the same fields."""

import json
import re

import yaml
from typer.testing import CliRunner

from ledgerbuild.cli import app

runner = CliRunner()


def _copy(model: str, new_id: str, folder):
    with open(f"models/{model}.yaml") as f:
        entry = yaml.safe_load(f)
    entry["id"] = new_id
    (folder / f"{new_id}.yaml").write_text(yaml.safe_dump(entry, sort_keys=False))
    return entry


def _curves(svg: str) -> list[str]:
    return re.findall(r'<polyline points="([^"]+)"', svg)


def _docs(*args) -> None:
    result = runner.invoke(app, ["docs", *args])
    assert result.exit_code == 0, result.output


def test_docs_of_a_folder_of_model_files_equal_the_catalog_models(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    _copy("llama-3-8b", "my-llama", folder)
    _copy("llama-3.2-11b-vision", "my-vision", folder)  # a VLM: the vision figure sweeps it too
    _docs("--models", str(folder), "--format", "md", "-o", str(tmp_path / "files"))
    _docs("--models", "llama-3-8b,llama-3.2-11b-vision", "--format", "md", "-o", str(tmp_path / "ids"))
    for mine, shipped in (("my-llama", "llama-3-8b"), ("my-vision", "llama-3.2-11b-vision")):
        for suffix in (".md", "-plots.svg"):
            got = (tmp_path / "files" / f"{mine}{suffix}").read_text().replace(mine, shipped)
            assert got == (tmp_path / "ids" / f"{shipped}{suffix}").read_text(), mine + suffix
    # the VLMs' figure: the same curves (its legend is as wide as the ids)
    files, ids = (_curves((tmp_path / d / "vision-plots.svg").read_text()) for d in ("files", "ids"))
    assert files == ids and len(files) >= 2
    # Meta-Llama-3-8B: 8,030,261,248 parameters (lecture §3.1; HF model card 8.03B)
    assert "8{,}030{,}261{,}248" in (tmp_path / "files" / "my-llama.md").read_text()


def test_docs_of_a_list_of_yaml_and_config_json(tmp_path):
    entry = _copy("qwen2.5-7b", "my-qwen", tmp_path)
    hf = tmp_path / "hf" / "my-qwen-hf"
    hf.mkdir(parents=True)
    (hf / "config.json").write_text(json.dumps(entry["config"]))
    models = f"{tmp_path / 'my-qwen.yaml'},{hf / 'config.json'}"
    _docs("--models", models, "-o", str(tmp_path / "out"))
    shown = {
        ref: json.loads(runner.invoke(app, ["show", ref, "--json"]).output)
        for ref in (str(tmp_path / "my-qwen.yaml"), str(hf / "config.json"))
    }
    for data in shown.values():
        stem = tmp_path / "out" / data["model"]
        for suffix in (".md", ".tex", "-plots.svg", "-plots.pdf"):
            assert (stem.parent / f"{stem.name}{suffix}").is_file(), suffix
    index = (tmp_path / "out" / "index.md").read_text()
    assert all(data["model"] in index for data in shown.values())
