"""Test set-up: tests/ importable for the oracle helpers; nothing written outside temporary
folders (no hypothesis example database in the work tree, no generated ledger in ~/.cache)."""

import os
import sys
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

sys.path.insert(0, str(Path(__file__).parent))
set_hypothesis_home_dir(tempfile.mkdtemp(prefix="hypothesis-"))
# the numeric path's generated ledger (ledgerbuild/numeric.py) goes to a temporary cache too
os.environ["LEDGERBUILD_CACHE"] = tempfile.mkdtemp(prefix="ledgerbuild-cache-")
settings.register_profile("ledgerbuild", database=None)
settings.load_profile("ledgerbuild")

# The fast tier (-m "not oracle and not libreoffice and not tex") runs without torch: the
# oracle modules import it at the top, so they are not collected where it is missing.
try:
    import torch  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_oracle_*.py"]
