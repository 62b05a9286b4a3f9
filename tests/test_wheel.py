"""The built wheel carries the catalogs: install it into a fresh venv and run the main job."""

import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # builds a wheel and a venv: with the referees, not in the fast tier
def test_wheel_in_fresh_venv_runs_main_job(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)], check=True
    )
    wheel = next(wheels.glob("ledgerbuild-*.whl"))
    env_dir = tmp_path / "venv"
    # the running environment supplies the dependencies (no network needed): the base
    # interpreter's site-packages (system_site_packages) and, when the suite itself runs in a
    # virtual environment, that environment's, through a .pth file (its lines are appended to
    # sys.path after the fresh venv's own site-packages, and .pth files inside those folders are
    # not run, so an editable install there stays inactive); the package itself comes only from
    # the wheel, and the CLI runs outside the source tree.
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    py = env_dir / "bin" / "python"
    fresh_site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    running = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")] + site.getsitepackages()
    (fresh_site / "running-environment.pth").write_text("\n".join(dict.fromkeys(running)) + "\n")
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)], check=True
    )
    where = subprocess.run(
        [
            str(py),
            "-c",
            "import ledgerbuild, ledgerbuild.catalog as c; "
            "print(ledgerbuild.__file__); print(len(c.models()), len(c.gpus()))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    catalog_sizes = [str(len(list(Path(d).glob("*.yaml")))) for d in ("models", "hardware")]
    assert str(env_dir) in where[0] and where[1:] == catalog_sizes
    out = subprocess.run(
        [str(env_dir / "bin" / "ledgerbuild"), "xlsx", "--models", "all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "build" / "ledger.xlsx").stat().st_size > 100_000
