"""The command line: parse, make one library call, map LedgerError to one line and exit 2.

Thin by design: every number comes from `ledgerbuild.evaluate`, every file from a writer. The
commands live in ledger_commands, output_commands and sim_commands, each registering on the
one app of `common` (no module imports this package back).
"""

from __future__ import annotations

import gc
import os
import signal
import sys

from ..files import install_handlers

# SIGTERM and SIGHUP handled from the first import on (a signal during the ~0.5 s of imports
# below ended the run with no line and -15); SIGINT from main() on (a library caller keeps its own)
install_handlers()

# A short run: the cyclic collector runs rarely from the first import on (it cost ~20 % of a
# workbook build at its defaults, and its passes over the imports' objects ~5 ms of `show`),
# and pydantic does not look for plugins among the installed distributions (~5 ms; a
# PYDANTIC_DISABLE_PLUGINS the user set is kept).
gc.set_threshold(200_000, 50, 1000)
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer  # noqa: E402

from . import ledger_commands, output_commands, plan_commands, sim_commands  # noqa: E402, F401  (register)
from .common import app, ascii_numbers, print_error  # noqa: E402

ascii_numbers(app)  # every numeric option: ASCII digits, finite (Typer's int() takes '1_000')

try:  # typer >= 0.26 vendors click; its exceptions are not click's
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]

__all__ = ["app", "main"]


def main() -> None:
    """Entry point: usage errors as one line with exit 2, Ctrl-C exits at once with 130.
    The cyclic collector does not run at exit (a tenth of a second): what a run leaves is
    freed with the process."""
    before = install_handlers(interrupt=True)  # SIGINT, SIGTERM, SIGHUP: one line, 130 / 143 / 129
    try:
        code = app(standalone_mode=False)
    except click_errors.NoArgsIsHelpError:  # the help is printed already
        sys.exit(2)
    except click_errors.UsageError as e:
        where = f"{e.ctx.command_path}: " if e.ctx else ""
        print_error(where + e.format_message() + " (try -h)")
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    finally:  # an in-process caller (a test) gets its own Ctrl-C back
        signal.signal(signal.SIGINT, before)
    gc.freeze()  # nothing left for the collector at interpreter exit
    sys.exit(code if isinstance(code, int) else 0)
