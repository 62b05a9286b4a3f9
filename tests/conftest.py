"""Test set-up: tests/ importable for the oracle helpers; nothing written outside temporary
folders (no hypothesis example database in the work tree)."""
import sys
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

sys.path.insert(0, str(Path(__file__).parent))
set_hypothesis_home_dir(tempfile.mkdtemp(prefix="hypothesis-"))
settings.register_profile("ledgerbuild", database=None)
settings.load_profile("ledgerbuild")
