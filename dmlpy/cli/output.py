"""Writing an output file safely: a temporary beside it, renamed over it only when complete.

The temporary is created with ``mkstemp`` (O_CREAT|O_EXCL, a random name) and written only through the
descriptor that call returns, so a symlink or file planted in the output's directory is never opened.
Replacing keeps what the user expects of writing: the existing file's mode (and owner, where allowed), a
symlink left in place with its target replaced, and no replacing of FIFOs or devices. SIGTERM, SIGHUP and
the other signals that would kill the process unannounced raise ``Terminated`` meanwhile, so the temporary
is removed on every signal that can be caught.
"""

from __future__ import annotations

import io
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from dmlpy.cli.common import CliError, Terminated
from dmlpy.cli.files import file_kind

# The signals whose default action ends the process without running Python's cleanup; SIGINT already raises
# KeyboardInterrupt. Looked up by name: not every platform has all of them.
_FATAL_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXCPU")
    if hasattr(signal, name)
)


@dataclass(frozen=True)
class OutputPlan:
    """Where the output goes: ``path`` is the file replaced (a symlink's target), ``existing`` its status."""

    path: Path
    existing: os.stat_result | None


def plan_output(target: Path) -> OutputPlan:
    """The file that writing ``target`` replaces; CliError for a target that cannot be replaced by a file."""
    # A symlink named by the user is written through, as `>` does: its target is replaced, the link stays.
    real = Path(os.path.realpath(target)) if os.path.islink(target) else target
    try:
        existing: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        existing = None
    except OSError as error:  # a symlink loop (ELOOP), a path through a file (ENOTDIR), permission
        raise CliError(f"{target}: cannot write: {error.strerror or error}") from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise CliError(f"{target} is a directory; give the output file's name")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        # Renaming over a FIFO or device would replace the node itself (as root: /dev/null) with a file.
        raise CliError(f"{target}: is {file_kind(existing.st_mode)}, not a regular file; refusing to replace it")
    if not real.parent.is_dir():
        raise CliError(f"{real.parent}: no such directory for the output")
    if not os.access(real.parent, os.W_OK):
        raise CliError(f"{real.parent}: not writable, so {real.name} cannot be written there")
    return OutputPlan(real, existing)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def signals_raise() -> Iterator[None]:
    """Within the block, the fatal signals raise Terminated (so ``except``/``finally`` cleanup runs); restored
    afterwards. Signals set to be ignored (``nohup``) or handled by the caller are left alone."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = {}
    for signum in _FATAL_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            previous[signum] = signal.signal(signum, _raise_terminated)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _new_file_mode() -> int:
    # mkstemp creates 0600; a new output gets what open() would give it: 0666 less the umask, which can only be
    # read by setting it (and setting it back at once).
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _block_signals() -> set[int | signal.Signals]:
    if not hasattr(signal, "pthread_sigmask"):
        return set()
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *_FATAL_SIGNALS})


def _restore_signals(blocked: set[int | signal.Signals]) -> None:
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


@contextmanager
def replacing(plan: OutputPlan) -> Iterator[io.BufferedWriter]:
    """A new temporary file beside ``plan.path``, renamed over it when the block completes, removed otherwise."""
    # Signals are held from creating the temporary until the `try` that removes it is entered: a signal
    # between the two would leave it behind. One that arrives meanwhile is raised inside the `try`.
    blocked = _block_signals()
    try:
        fd, name = tempfile.mkstemp(prefix=f".{plan.path.name}.", suffix=".tmp", dir=plan.path.parent)
    except BaseException:
        _restore_signals(blocked)
        raise
    try:
        _restore_signals(blocked)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            if plan.existing is not None:
                # Owner first: fchown clears set-user-ID bits. Only root may give a file away; others keep theirs.
                with suppress(OSError, AttributeError):  # AttributeError: no fchown (Windows)
                    os.fchown(fd, plan.existing.st_uid, plan.existing.st_gid)
                os.chmod(fd, stat.S_IMODE(plan.existing.st_mode))
            else:
                os.chmod(fd, _new_file_mode())
            os.fsync(fd)  # the data on disk before the name: a crash leaves the old file or the new, never a hole
        os.replace(name, plan.path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(name)
        raise
