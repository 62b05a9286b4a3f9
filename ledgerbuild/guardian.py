"""The run's guardian: what a run that is killed (`kill -9`) leaves is removed from outside it.

A SIGKILL runs no handler, so the process it kills cannot remove its own temporary files,
staging or scratch folders. The first time a run makes one (files.py: atomic_save's temporary
file, staging_folder, ScratchFolder; all through `make_path`) it forks a guardian: a small
process holding the read end of a pipe whose write end only the run holds (and the workers it
forks afterwards, which inherit it). Each path is sent down the pipe before it is made
("+path") and once it is renamed into place or removed ("-path"). When the run ends, however
it ends, the kernel closes its descriptors; once the last holder of the write end is gone (the
run and its workers: none is writing into a folder any more) the guardian reads end-of-file,
removes the paths still registered, and exits. It removes only the paths its own run sent,
each named with that run's pid and a random part, never another concurrent run's.

Shortcuts: started lazily, so a read-only command never forks it (a fork: about a millisecond
plus the page tables, measured in the README); it ignores SIGINT, SIGTERM, SIGHUP and SIGQUIT
(a terminal's Ctrl-C reaches the whole group; the run's own handler cleans up and then the
guardian finds nothing left); a SIGKILL of the whole group kills it too, and where fork is
missing or fails there is none: the next run's removal of a dead run's leftovers (files.py)
is the fallback.
"""

from __future__ import annotations

import os
import secrets
import signal
import stat
import warnings

_FD: int | None = None  # write end of the pipe to the guardian (this process's or its parent's)
_TRIED = False
_PID = 0  # the guardian's pid (0: none forked by this process)


def started() -> bool:
    """A guardian is watching this process (its own, or its parent's for a forked worker)."""
    return _FD is not None


def pid() -> int:
    """The guardian this process forked (0: none)."""
    return _PID


def start() -> bool:
    """Fork the guardian if none is running yet; False where it cannot be (no fork, EAGAIN)."""
    global _FD, _TRIED, _PID
    if _FD is not None or _TRIED or not hasattr(os, "fork"):
        return _FD is not None
    _TRIED = True
    read, write = os.pipe()  # both close-on-exec: a program the run executes does not hold it
    try:
        with warnings.catch_warnings():  # 3.12+: fork in a process with (BLAS) threads
            warnings.simplefilter("ignore", DeprecationWarning)
            child = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return False
    if child == 0:
        _guard(read)  # never returns
    os.close(read)
    _FD, _PID = write, child
    return True


def _guard(read: int) -> None:
    """The guardian's life: collect the registered paths until end-of-file, remove what is
    left, exit (os._exit: none of the run's exit handlers, finalizers or buffers)."""
    try:
        for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the run's stdout and stderr pipes: a reader waits for their end
            os.dup2(null, fd)
        os.closerange(3, read)  # the write end among them, and every other descriptor of the run
        os.closerange(read + 1, 1 << 16)
        os.chdir("/")
        paths = _collect(read)
        for path in reversed(paths):  # the latest first: files before the folders they are in
            _remove(path)
    finally:
        os._exit(0)


def _collect(read: int) -> list[bytes]:
    paths: dict[bytes, None] = {}
    pending = b""
    while chunk := os.read(read, 65536):
        *messages, pending = (pending + chunk).split(b"\0")
        for message in messages:
            if message[:1] == b"+":
                paths[message[1:]] = None
            else:
                paths.pop(message[1:], None)
    return list(paths)


def _remove(path: bytes) -> None:
    """A file unlinked, a folder removed with what it holds (its links not followed)."""
    import shutil

    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def _send(op: bytes, path: str) -> None:
    global _FD
    if _FD is None:
        return
    data = op + os.fsencode(os.path.abspath(path)) + b"\0"
    try:
        while data:
            data = data[os.write(_FD, data) :]
    except OSError:  # the guardian is gone (killed with the group): the next run's cleanup remains
        _FD = None


def register(path: str) -> None:
    """`path` (about to be made) removed by the guardian if the run ends with it still there."""
    start()
    _send(b"+", path)


def release(path: str) -> None:
    """`path` renamed into place or removed: the guardian forgets it."""
    _send(b"-", path)


def make_path(folder: str, prefix: str, suffix: str, directory: bool = False) -> str:
    """A new file (mode 0600) or folder (0700) `folder/<prefix><random><suffix>`, registered with
    the guardian before it exists, so no moment of the run leaves it unregistered. The prefix
    carries this process's pid: no other live process makes that name, so a name found taken
    is a dead run's leftover (tried again with another random part)."""
    for _ in range(100):
        path = os.path.join(folder, f"{prefix}{secrets.token_hex(4)}{suffix}")
        register(path)
        try:
            if directory:
                os.mkdir(path, 0o700)
            else:
                os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
            return path
        except FileExistsError:
            release(path)
        except BaseException:
            release(path)
            raise
    raise FileExistsError(f"{folder}: no free name {prefix}*{suffix}")
