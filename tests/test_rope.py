"""RoPE and its scaling (issue 13): the seeds' figures, and transformers' ROPE_INIT_FUNCTIONS
as the referee of every inverse frequency for each rope type the ledger models."""

import math

import pytest
import sympy as sp
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.evaluate import evaluate

runner = CliRunner()


def test_shortest_wavelength_is_two_pi():
    """seeds/001 §RoPE: base 10,000, d = 128 (Llama-2-7B): pair 0 turns once every 2 pi tokens;
    the longest wavelength is 2 pi base^((d-2)/d)."""
    r = evaluate("llama-2-7b")
    assert float(r.value("rope_wavelength_min_tokens")) == pytest.approx(2 * math.pi, rel=1e-12)
    assert float(r.value("rope_wavelength_max_tokens")) == pytest.approx(
        2 * math.pi * 10000 ** (126 / 128), rel=1e-12
    )


def test_ntk_aware_base():
    """seeds/001 §RoPE: NTK-aware scaling is base -> base s^(d/(d-2)); s = 4, d = 128."""
    r = evaluate("llama-2-7b", {"rope_method": "ntk", "rope_factor": "4"})
    assert float(r.value("rope_ntk_base")) == pytest.approx(10000 * 4 ** (128 / 126), rel=1e-12)
    assert float(r.value("rope_wavelength_min_tokens")) == pytest.approx(2 * math.pi, rel=1e-12)


def test_pi_interpolates_every_wavelength():
    r = evaluate("llama-2-7b", {"rope_method": "pi", "rope_factor": "8"})
    assert float(r.value("rope_wavelength_min_tokens")) == pytest.approx(16 * math.pi, rel=1e-12)


def test_yarn_attention_temperature():
    """YaRN (Peng et al. 2023) eq. 22: sqrt(1/t) = 0.1 ln s + 1; gpt-oss scales by s = 32."""
    r = evaluate("gpt-oss-20b")
    assert float(r.value("yarn_attention_scale")) == pytest.approx(0.1 * math.log(32) + 1)


def test_bad_rope_input_is_one_line():
    result = runner.invoke(app, ["rope", "llama-3-8b", "--set", "rope_factor=0.5"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
    # a choice outside the enum is a usage error: the entry point prints it as one line
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "ledgerbuild.cli", "rope", "llama-3-8b", "--method", "nope"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert len((done.stdout + done.stderr).strip().splitlines()) == 1, done.stderr


def test_rope_command_bands():
    result = runner.invoke(app, ["rope", "llama-3.2-1b", "--json"])
    assert result.exit_code == 0, result.output
    import json

    report = json.loads(result.output)
    bands = {p["band"] for p in report["pairs"]}
    assert report["method"] == "llama3" and bands == {"kept", "interpolated", "blended"}


# (model, config override, times): NTK-aware with factor s is transformers' "dynamic" rule at
# factor 1 and s times the trained context: base x (s L / L)^(d/(d-2))
REFEREE = [
    ("llama-3.2-1b", {}, None),
    ("gpt-oss-20b", {}, None),
    ("deepseek-v3", {}, None),
    ("llama-2-7b", {"rope_scaling": {"rope_type": "linear", "factor": 4.0}}, None),
    ("llama-2-7b", {"rope_scaling": {"rope_type": "dynamic", "factor": 1.0}}, 4),
]


@pytest.mark.oracle
@pytest.mark.parametrize(
    "model, override, times", REFEREE, ids=["llama3", "yarn", "yarn-mscale", "linear", "ntk"]
)
def test_inverse_frequencies_equal_transformers(model, override, times, tmp_path):
    import json

    import yaml
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    from hf_oracle import hf_config
    from ledgerbuild import catalog
    from ledgerbuild.formulas.rope import inv_freq

    config = {**yaml.safe_load(catalog.model_paths()[model].read_text())["config"], **override}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    res = evaluate(str(path), {"rope_method": "ntk", "rope_factor": str(times)} if times else {})
    hf = hf_config(config)
    hf.standardize_rope_params()
    kind = hf.rope_parameters["rope_type"]
    seq = times * hf.max_position_embeddings if times else None
    want, scale = ROPE_INIT_FUNCTIONS[kind](hf, "cpu", seq_len=seq)
    values = {sp.Symbol(k): v for k, v in {**res.inputs, **res.values}.items()}
    i = sp.Symbol("i")
    got = inv_freq(i).xreplace(values)
    assert len(want) == int(res.inputs["rope_dim"]) // 2
    for k, w in enumerate(want.tolist()):
        assert float(got.subs(i, k)) == pytest.approx(w, rel=1e-5), k
    if kind == "yarn":
        assert float(res.value("yarn_cos_sin_scale")) == pytest.approx(scale, rel=1e-6)
