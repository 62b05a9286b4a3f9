"""The bad-input rule the hardening tests share: one line naming what is wrong, exit code 2,
through the command line's own entry point (main: usage errors, an option's number refused
by its parser, are one line there as they are for a user)."""

import contextlib
import io
import sys

from ledgerbuild.cli import main


def invoke(args: list[str]) -> tuple[int, str]:
    """main() in process on `args`: (exit code, stdout and stderr together)."""
    output, argv = io.StringIO(), sys.argv
    sys.argv = ["ledgerbuild", *args]
    try:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0
    finally:
        sys.argv = argv
    return code, output.getvalue()


def refused(args: list[str], *words: str) -> str:
    """Run the CLI on `args`: exit 2, one line of output holding every word; that line."""
    code, output = invoke(args)
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]
