"""Rewrite the README's "Help, as the terminal shows it" blocks from the real `-h` output.

Each block is introduced by a line "`ledgerbuild ARGS -h`:" and is the help rich prints at 90
columns (the width the README's boxes are drawn at). `python scripts/readme_help.py` rewrites
them in place; `--check` exits 1 when one differs (tests/test_cli_probe.py runs the same check).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BLOCK = re.compile(r"^`ledgerbuild ((?:[\w-]+ )*)-h`:\n\n```text\n(.*?)```\n", re.M | re.S)
WIDTH = "90"


def real_help(args: list[str]) -> str:
    """The help as a 90-column terminal shows it (no colour), trailing spaces stripped."""
    from typer.testing import CliRunner

    from ledgerbuild.cli import app

    r = CliRunner().invoke(
        app, [*args, "-h"], env={"COLUMNS": WIDTH, "NO_COLOR": "1"}, prog_name="ledgerbuild"
    )
    if r.exit_code != 0:
        raise SystemExit(f"ledgerbuild {' '.join(args)} -h: exit {r.exit_code}")
    return "\n".join(line.rstrip() for line in r.output.strip("\n").splitlines()) + "\n"


def blocks(readme: str) -> list[tuple[list[str], str]]:
    """(arguments, the README's text) of each help block."""
    return [(m.group(1).split(), m.group(2)) for m in BLOCK.finditer(readme)]


def regenerate(readme: str) -> str:
    def one(m: re.Match) -> str:
        return f"`ledgerbuild {m.group(1)}-h`:\n\n```text\n{real_help(m.group(1).split())}```\n"

    return BLOCK.sub(one, readme)


def main() -> int:
    path = Path(__file__).resolve().parent.parent / "README.md"
    text = path.read_text(encoding="utf-8")
    new = regenerate(text)
    if "--check" in sys.argv:
        return 0 if new == text else 1
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
