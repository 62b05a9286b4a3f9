"""The run's guardian: what a run that is killed (`kill -9`) leaves is removed from outside it.

A SIGKILL runs no handler, so the process it kills cannot remove its own temporary files,
staging or scratch folders. The first time a run makes one (files.py: atomic_save's temporary
file, staging_folder, ScratchFolder; all through `make_path`) it starts a guardian: this file
run as a script by a fresh interpreter (posix_spawn: no copy of the run's memory, nothing of
its state), holding on its stdin the read end of a pipe whose write end only the run holds
(and the workers it forks afterwards, which inherit it). Each path is sent down the pipe before
it is made ("+path") and once it is renamed into place or removed ("-path"). When the run ends,
however it ends, the kernel closes its descriptors; once the last holder of the write end is
gone (the run and its workers: none is writing into a folder any more) the guardian reads
end-of-file, removes the paths still registered, and exits. It removes only the paths its own
run sent, each named with that run's pid and a random part, never another concurrent run's.

Shortcuts: started lazily, so a read-only command starts none (the spawn costs the run well
under a millisecond; the guardian's own start, ~10 ms of CPU, runs beside it); SIGINT, SIGTERM,
SIGHUP and SIGQUIT are blocked in it from its start (a terminal's Ctrl-C reaches the whole
group; the run's own handler cleans up, then the guardian finds nothing left); a SIGKILL of
the whole group kills it too, and where posix_spawn is missing (Windows) there is none: the
next run's removal of a dead run's leftovers (files.py) is the fallback.
"""

from __future__ import annotations

import os
import signal
import stat
import sys

_FD: int | None = None  # write end of the pipe to the guardian (this process's or its parent's)
_TRIED = False
_PID = 0  # the guardian's pid (0: none started by this process)


def started() -> bool:
    """A guardian is watching this process (its own, or its parent's for a forked worker)."""
    return _FD is not None


def pid() -> int:
    """The guardian this process started (0: none)."""
    return _PID


def start() -> bool:
    """Start the guardian if none is running yet; False where it cannot be (no posix_spawn, no
    interpreter path, no process left)."""
    global _FD, _TRIED, _PID
    if _FD is not None or _TRIED:
        return _FD is not None
    _TRIED = True
    if not (hasattr(os, "posix_spawn") and sys.executable and os.path.isfile(__file__)):
        return False
    read, write = os.pipe()  # both close-on-exec: the guardian gets the read end as its stdin only
    try:
        child = os.posix_spawn(
            sys.executable,
            [sys.executable, "-I", "-S", __file__],  # this file as a script: the stdlib only
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, read, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
            setsigmask=_IGNORED,  # blocked from its first instruction: a group's Ctrl-C passes it by
        )
    except OSError:
        os.close(write)
        return False
    finally:
        os.close(read)
    _FD, _PID = write, child
    return True


_IGNORED = [getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n)]


def _guard() -> None:
    """The guardian's life (this file run as a script, the pipe on stdin): collect the
    registered paths until end-of-file, remove what is left, exit."""
    for sig in _IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    os.closerange(3, 1 << 16)  # a descriptor the run inherited from its own parent, if any
    os.chdir("/")
    for path in reversed(_collect(0)):  # the latest first: files before the folders they are in
        _remove(path)


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
        path = os.path.join(folder, f"{prefix}{os.urandom(4).hex()}{suffix}")
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


if __name__ == "__main__":
    _guard()
