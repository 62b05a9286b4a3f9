"""Output files written atomically: a temporary file beside the target, renamed into place.

A failed or interrupted run leaves the previous file (or none), never a half-written one.
Scratch folders (ScratchFolder: a big workbook's rendered rows) go the same way. The
file gets the mode a plain `open()` would give it (0666 less the umask: 0644 under 022), not
the temporary's 0600. Temporary files are removed on an exception, on SIGTERM and SIGHUP (and SIGINT
in the command line's process): the handler ends the run's forked workers, removes its files
and exits 128 + the signal at once. A `kill -9` runs no cleanup: its workers die with it
(die_with_parent), and every temporary file, staging and scratch folder (`.<name>.<pid>.<random>.tmp`,
folders named with the pid) is registered with the run's guardian (guardian.py), a process outside
it that removes them once the run is gone. Where there is no guardian (no fork; the group killed
whole) the next run removes what a dead process left, never a live run's.
A set of files (docs) is written into a staging folder and swapped in whole (move_into).
A write is refused onto a file this run read, a device, FIFO or socket, or a symbolic link.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import signal
import stat
import sys
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path

from . import guardian
from .errors import LedgerError

_PENDING: set[str] = set()  # temporary files of writes in progress
_SCRATCH: set[str] = set()  # scratch folders of this process (a workbook's rendered rows)
_SCRATCH_OWNER = os.getpid()
_HANDLED = False
_SCRATCH_PREFIX = "ledgerbuild-scratch-"


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _on_signal(signum, frame) -> None:
    """SIGTERM / SIGHUP: remove this run's temporaries and scratch folders, end its workers,
    say so in one line and exit 128 + the signal (143, 129); a forked worker exits silently."""
    mine = f".{os.getpid()}."  # a forked worker inherits its parent's set: it removes only its own
    for tmp in list(_PENDING):
        if mine in Path(tmp).name:
            Path(tmp).unlink(missing_ok=True)
    if os.getpid() != _SCRATCH_OWNER:
        os._exit(128 + signum)
    interrupted(signum)


def interrupted(signum: int) -> None:
    """End the run after a signal: workers ended first (they write into the scratch folders),
    then the scratch folders removed; one line on stderr; exit 128 + signum."""
    _end_children()
    for tmp in list(_PENDING):
        Path(tmp).unlink(missing_ok=True)
    for folder in list(_SCRATCH):
        shutil.rmtree(folder, ignore_errors=True)
    name = signal.Signals(signum).name
    try:
        os.write(2, f"error: interrupted ({name}); earlier outputs are left as they were\n".encode())
    except OSError:
        pass
    os._exit(128 + signum)


def quiet_worker(parent: int | None = None) -> None:
    """Pool initializer: a worker leaves Ctrl-C to its parent (which ends it), dies silently
    on a closed pipe instead of printing BrokenPipeError, and dies with its parent (`parent`:
    the pid that made the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if parent is not None:
        die_with_parent(parent)


PR_SET_PDEATHSIG = 1  # linux/prctl.h: the signal a process gets when its parent thread ends


def die_with_parent(parent: int) -> None:
    """A forked worker's start: SIGKILLed by the kernel the moment its parent ends, however it
    ends (a `kill -9` of the run runs no cleanup, so the parent cannot end its workers; Linux
    prctl(2) PR_SET_PDEATHSIG); a parent already gone ends the worker at once."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the caller's own watch is the fallback
            pass
    if os.getppid() != parent:
        os._exit(1)


def _end_children() -> None:
    """Kill this process's multiprocessing children (the workbook's forked workers) and wait
    for them, so none is writing into a folder being removed."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    children = multiprocessing.active_children()
    for child in children:
        child.kill()
    for child in children:
        child.join(timeout=2)


def install_handlers(interrupt: bool = False):
    """SIGTERM and SIGHUP (and with `interrupt`, SIGINT: the command line's own process, not a
    library caller's) end the run at once through `interrupted`: a KeyboardInterrupt would
    first run every `finally` on the way up, a pool's join among them (seconds). Returns the
    SIGINT handler it replaced (or the one in place)."""
    _install_handlers()
    before = signal.getsignal(signal.SIGINT)
    if interrupt and before is signal.default_int_handler:
        try:
            signal.signal(signal.SIGINT, _on_signal)
        except ValueError:  # not the main thread
            pass
    return before


def _install_handlers() -> None:
    global _HANDLED
    if _HANDLED:
        return
    _HANDLED = True
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) in (signal.SIG_DFL, None):
            try:
                signal.signal(sig, _on_signal)
            except ValueError:  # not the main thread: leave the default
                pass


def _stem(path: Path) -> str:
    """The file name in its temporary files' names: the name, or for a name over 200 bytes its
    first 64 characters and a digest (a legal 255-byte name leaves no room for '.<pid>.tmp')."""
    name = path.name
    if len(name.encode()) <= 200:
        return name
    return name[:64] + "~" + hashlib.sha256(name.encode()).hexdigest()[:16]


def _remove_stale(path: Path) -> None:
    """Temporary files a killed run left beside `path`: `.<name>.<pid>.<random>.tmp` whose
    process is gone (a live run's temporary file, this process's or another's, is left alone)."""
    stem = _stem(path)
    for stale in path.parent.glob(f".{glob.escape(stem)}.*.tmp"):
        pid = stale.name[len(stem) + 2 :].split(".", 1)[0]
        # no pid: a temporary of a version before pids were in the name
        if str(stale) not in _PENDING and (not pid.isdigit() or not _alive(int(pid))):
            stale.unlink(missing_ok=True)


_INPUTS: set[str] = set()  # files this run has read (resolved): never written over in the same run


def check_target(path: Path) -> Path:
    """The file a write of `path` replaces: refused when it is an input of this run, a device,
    FIFO or socket, or a symbolic link (a link's target could be anywhere: /etc/passwd)."""
    path = Path(path)
    try:
        info = path.lstat()
    except FileNotFoundError:  # a missing folder: the write makes it
        info = None
    except NotADirectoryError:  # /dev/null/x: refused before the work, not after it
        raise LedgerError(f"{path}: cannot create the output folder (a part of its path is a file)") from None
    except OSError as e:
        raise LedgerError(f"{path}: cannot write ({e.strerror})") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise LedgerError(f"{path}: is a symbolic link; name the file itself (links are not written through)")
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise LedgerError(f"{path}: is a folder, expected a file name")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise LedgerError(f"{path}: not a regular file (a device, pipe or socket is not written over)")
    if str(path.resolve()) in _INPUTS:
        raise LedgerError(f"{path}: is an input of this run; write the output to another file")
    return path


def atomic_save(path: Path, save: Callable[[str], object]) -> None:
    """Call save(temporary path), then rename the result onto `path` (checked: check_target).
    The temporary name carries the process id, so concurrent runs never remove each other's."""
    path = check_target(Path(path))
    _install_handlers()
    _remove_stale(path)
    tmp = guardian.make_path(str(path.parent), f".{_stem(path)}.{os.getpid()}.", ".tmp")
    _PENDING.add(tmp)
    try:
        save(tmp)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        _PENDING.discard(tmp)
        guardian.release(tmp)


def staging_folder(out: Path) -> Path:
    """A folder beside `out` to write a whole set of files into before they replace out's
    (removed on a signal, like a scratch folder)."""
    _install_handlers()
    for stale in out.parent.glob(f".{glob.escape(out.name)}.*.staging"):
        pid = stale.name[len(out.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    name = guardian.make_path(str(out.parent), f".{out.name}.{os.getpid()}.", ".staging", directory=True)
    _SCRATCH.add(name)
    return Path(name)


def move_into(staging: Path, out: Path) -> None:
    """`staging`'s files put in `out` whole or not at all: out's other files hard-linked into
    staging, then the two folders swapped in one rename (Linux renameat2 RENAME_EXCHANGE) and
    the old one removed; where that cannot be done (another system, a subfolder or a link in
    out), every file renamed onto its name in out (renames only: milliseconds, but a kill -9
    in between would leave a mix). A first run's out does not exist until this rename."""
    if not out.exists():
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # make_path made it 0700
        os.rename(staging, out)
        _SCRATCH.discard(str(staging))
        guardian.release(str(staging))
        return
    if not _swap_in(staging, out):
        for item in sorted(staging.iterdir()):
            check_target(out / item.name)
            os.replace(item, out / item.name)
    shutil.rmtree(staging, ignore_errors=True)  # after a swap: the previous set
    _SCRATCH.discard(str(staging))
    guardian.release(str(staging))


RENAME_EXCHANGE = 2  # linux/fs.h: renameat2 swaps the two names atomically
AT_FDCWD = -100


def _swap_in(staging: Path, out: Path) -> bool:
    """Swap the folders staging and out, out's files that staging lacks linked in first."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    old = list(out.iterdir())
    if renameat2 is None or not all(stat.S_ISREG(p.lstat().st_mode) for p in old):
        return False
    try:
        for item in old:
            if not (staging / item.name).exists():
                os.link(item, staging / item.name)
        os.chmod(staging, stat.S_IMODE(out.stat().st_mode))  # make_path made it 0700
    except OSError:
        return False
    done = renameat2(AT_FDCWD, os.fsencode(staging), AT_FDCWD, os.fsencode(out), RENAME_EXCHANGE)
    return done == 0


class ScratchFolder:
    """A temporary folder for intermediate files (named with the process id), removed by
    cleanup(), at exit, and on SIGTERM and SIGHUP (after the process's forked workers, which
    write into it, are ended); folders a killed run left (its process gone) are removed when
    the next one is made."""

    def __init__(self) -> None:
        _install_handlers()
        _remove_stale_scratch()
        prefix = f"{_SCRATCH_PREFIX}{os.getpid()}-"
        self.name = guardian.make_path(tempfile.gettempdir(), prefix, "", directory=True)
        _SCRATCH.add(self.name)
        self._finalizer = weakref.finalize(self, _remove_scratch, self.name, os.getpid())

    def cleanup(self) -> None:
        self._finalizer()


def _remove_scratch(folder: str, owner: int) -> None:
    if os.getpid() == owner:  # a forked worker exiting leaves its parent's folder alone
        shutil.rmtree(folder, ignore_errors=True)
        _SCRATCH.discard(folder)
        guardian.release(folder)


def _remove_stale_scratch() -> None:
    for folder in Path(tempfile.gettempdir()).glob(f"{_SCRATCH_PREFIX}*"):
        pid = folder.name[len(_SCRATCH_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def cache_dirs() -> list[Path]:
    """Where generated files are kept, first choice first: $LEDGERBUILD_CACHE, the user's cache
    folder, a per-user folder in the temporary directory."""
    explicit = os.environ.get("LEDGERBUILD_CACHE")
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    dirs = [Path(explicit)] if explicit else []
    return [*dirs, Path(home) / "ledgerbuild", Path(tempfile.gettempdir()) / f"ledgerbuild-{os.getuid()}"]


def write_output(path: Path, save: Callable[[str], object]) -> None:
    """atomic_save with the folder made and OS errors as one line."""
    if not str(path).strip():
        raise LedgerError("output: an empty file name")
    path = Path(path)
    check_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_save(path, save)
    except OSError as e:
        raise LedgerError(f"{path}: cannot write ({e.strerror})") from None


MAX_INPUT_BYTES = 64 * 2**20  # a model, GPU, config, template or corpus file larger is refused


def read_input(path: Path, limit: int = MAX_INPUT_BYTES) -> str:
    """A user's input file as UTF-8 text, bounded: a missing file, a folder, a FIFO or device
    (which could block forever or never end), a file over `limit` bytes and invalid UTF-8 are
    each one line."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError as e:
        raise LedgerError(f"{path}: cannot read ({e.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise LedgerError(f"{path}: is a folder, expected a file")
    if not stat.S_ISREG(info.st_mode):
        raise LedgerError(f"{path}: not a regular file (a pipe or device is not read)")
    if info.st_size > limit:
        raise LedgerError(f"{path}: {info.st_size:,} bytes, more than the {limit:,} read")
    _INPUTS.add(str(path.resolve()))
    try:
        data = path.read_bytes()
    except OSError as e:
        raise LedgerError(f"{path}: cannot read ({e.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LedgerError(f"{path}: invalid UTF-8 at byte {e.start}; save the file as UTF-8") from None


def write_text(path: Path, text: str) -> None:
    write_output(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
