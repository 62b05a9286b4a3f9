"""Rewrite the README's help screens from the Typer app (`python scripts/readme_help.py`).

Each block in README.md introduced by a line "`ledgerbuild ... -h`:" and followed by a ```text
fence is replaced with what that command prints at 90 columns; tests/test_cli.py checks the
README against the same output, so the two cannot drift.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^`(ledgerbuild[^`]* -h)`:\n\n```text\n(.*?)```\n", re.S | re.M)


def help_screen(command: str) -> str:
    env = {**os.environ, "COLUMNS": "90", "TERM": "dumb", "NO_COLOR": "1"}
    exe = Path(sys.executable).parent / "ledgerbuild"  # the installed script: its usage line
    args = [str(exe) if exe.exists() else shutil.which("ledgerbuild") or "ledgerbuild", *command.split()[1:]]
    run = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    return run.stdout.rstrip("\n") + "\n"


def blocks(text: str) -> list[tuple[str, str]]:
    """(command, the screen the README shows) for every help block."""
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(text)]


def rewrite(text: str) -> str:
    return BLOCK.sub(lambda m: f"`{m.group(1)}`:\n\n```text\n{help_screen(m.group(1))}```\n", text)


if __name__ == "__main__":
    README.write_text(rewrite(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"rewrote {len(blocks(README.read_text(encoding='utf-8')))} help screens in {README}")
