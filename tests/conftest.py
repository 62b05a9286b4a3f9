"""Test set-up: tests/ importable for the oracle helpers; nothing written outside temporary
folders (no hypothesis example database in the work tree)."""
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))
settings.register_profile("ledgerbuild", database=None)
settings.load_profile("ledgerbuild")
