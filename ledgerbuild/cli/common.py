"""What every command shares: the Typer app, the console, the one-line error contract
(`guarded`: a LedgerError or a file error becomes one line on stderr and exit code 2) and the
options that read the same everywhere (--gpus, --set)."""

from __future__ import annotations

import signal
from typing import Any

import typer

from .. import __version__
from ..errors import LedgerError, one_line

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
    help="The arithmetic of transformer LLM inference: parameters, FLOPs, KV "
    "cache, memory, latency floors and cost, declared once in sympy.",
)
SET_HELP = (
    "Override any input (model field by its config.json name, or a scenario input) or "
    "quantity: NAME=VALUE. Repeatable."
)


class _Console:
    """rich's Console made on first use: `show --json` never imports rich (its import was a
    sixth of that run)."""

    _made: Any = None

    def __getattr__(self, name: str) -> Any:
        if _Console._made is None:
            from rich.console import Console

            _Console._made = Console()
        return getattr(_Console._made, name)


out: Any = _Console()


def print_error(message: str) -> None:
    """One line on stderr; the message is data (no markup, no control characters)."""
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True).print(
        Text("error: ", style="red") + Text(one_line(message)), highlight=False, soft_wrap=True
    )


def fail(message: str) -> None:
    print_error(message)
    raise typer.Exit(2)


def _version(value: bool) -> None:
    if value:
        out.print(f"ledgerbuild {__version__}", highlight=False)
        raise typer.Exit()


QUIET = {"on": False}  # --quiet: no progress or notes on stderr (errors still print)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars or notes on stderr."),
):
    """The arithmetic of transformer LLM inference: parameters, FLOPs, KV cache, memory,
    latency floors and cost, declared once in sympy."""
    QUIET["on"] = quiet


def progress_wanted() -> bool:
    """A progress bar on stderr: when it is a terminal and --quiet is not given."""
    import sys

    return sys.stderr.isatty() and not QUIET["on"]


GPUS_HELP = "GPU count (tensor parallel): N, or auto = the smallest of 1, 2, 4, 8 that fits [auto]"


def gpu_count_setting(gpus: str | None) -> str | None:
    """--gpus N | auto -> the gpu_count_setting input (0 = auto)."""
    if gpus is None:
        return None
    if gpus.strip().lower() == "auto":
        return "0"
    if not (gpus.strip().isascii() and gpus.strip().isdigit()) or int(gpus) < 1:
        raise LedgerError(f"--gpus: expected a GPU count (1, 2, ...) or auto, got {gpus!r}")
    return str(int(gpus))


def id_list(text: str, flag: str) -> list[str]:
    """A comma-separated option (--gpu a,b): its names, each once; an empty name (a,,b), a name
    given twice or no name at all is refused, never dropped or run twice."""
    names = [n.strip() for n in text.split(",")]
    if not any(names):
        raise LedgerError(f"{flag} {text[:40]!r}: no name given (comma-separated ids or paths)")
    for i, name in enumerate(names):
        if not name:
            raise LedgerError(f"{flag} {text[:40]!r}: an empty name (item {i + 1})")
        if name in names[:i]:
            raise LedgerError(f"{flag}: {name[:40]!r} named twice")
    return names


def _sets(set_: list[str] | None, **named) -> dict:
    from ..rules import parse_sets

    sets = parse_sets(set_)
    sets.update({k: str(v) for k, v in named.items() if v is not None})
    return sets


FOLDER_OUTPUTS = {"docs", "templates_export"}  # commands whose --output is a folder


def _check_output(command: str, kwargs: dict) -> None:
    """An --output checked before any work starts (a fit or a workbook can take seconds): not
    empty, not a folder, device, FIFO or symbolic link, not one of the command's input files."""
    from pathlib import Path

    from ..files import check_target

    output = kwargs.get("output")
    if not isinstance(output, Path):
        return
    if not str(output).strip() or str(output) == ".":
        raise LedgerError("--output: an empty path")
    if command in FOLDER_OUTPUTS:
        if output.is_symlink() or (output.exists() and not output.is_dir()):
            raise LedgerError(f"{output}: expected a folder (not a file or a symbolic link)")
        return
    check_target(output)
    for name, value in kwargs.items():
        paths = value if isinstance(value, list) else [value]  # a command's list of input files too
        for path in paths:
            if (
                name != "output"
                and isinstance(path, Path)
                and path.exists()
                and path.resolve() == output.resolve()
            ):
                raise LedgerError(f"{output}: is this run's input ({name}); write the output to another file")


def guarded(fn):
    """Run a command body, turning user errors into one line and exit code 2: a LedgerError,
    and any file error the checks before it did not foresee (a name too long, a path through
    a file, a full disk)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from ..files import install_handlers, interrupted

        try:
            install_handlers()  # SIGTERM / SIGHUP: one line, exit 143 / 129
            _check_output(fn.__name__, kwargs)
            return fn(*args, **kwargs)
        except KeyboardInterrupt:  # Ctrl-C: the same, exit 130
            interrupted(signal.SIGINT)
        except LedgerError as e:
            fail(str(e))
        except OSError as e:
            where = f"{e.filename}: " if e.filename else ""
            fail(f"{where}{e.strerror or e}")

    return wrapper


def ascii_int(text) -> int:
    """A count typed as an option: ASCII digits only (Python's int() would take '1_000' and
    Arabic-Indic or full-width digits)."""
    plain = str(text).strip()
    if not (plain.isascii() and plain.lstrip("+-").isdigit() and len(plain) <= 40):
        raise ValueError(f"expected a whole number in ASCII digits (e.g. 1024), got {str(text)[:40]!r}")
    return int(plain)


def ascii_float(text) -> float:
    """A number typed as an option: a plain ASCII decimal, finite (rules.decimal)."""
    from ..rules import decimal

    try:
        return decimal(str(text), "value")
    except LedgerError as e:
        raise ValueError(str(e).removeprefix("value: ")) from None


def ascii_numbers(typer_app: typer.Typer) -> None:
    """Every int and float option and argument of every command of `typer_app` parsed by
    ascii_int / ascii_float (one rule for every numeric option, the project's: ASCII digits,
    finite), set on each parameter's declaration where it names no parser of its own."""
    import inspect
    import typing

    for info in typer_app.registered_commands:
        if info.callback is None:
            continue
        hints = typing.get_type_hints(info.callback)
        for name, param in inspect.signature(info.callback).parameters.items():
            declared = param.default
            kind = hints.get(name)
            if isinstance(declared, typer.models.ParameterInfo) and declared.parser is None:
                if kind in (int, int | None):
                    declared.parser = ascii_int
                elif kind in (float, float | None):
                    declared.parser = ascii_float
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            ascii_numbers(group.typer_instance)
