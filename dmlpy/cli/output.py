"""Writing an output file safely: a temporary beside it, renamed over it only when complete; and writing a
.npy output converted from a .npy input chunk by chunk (``convert_file``), as ``round``, ``quantize`` and
``dequantize`` do.

The temporary is created with ``mkstemp`` (O_CREAT|O_EXCL, a random name) and written only through the
descriptor that call returns, so a symlink or file planted in the output's directory is never opened.
An existing file is replaced only with ``--force`` (or ``--in-place``, which names the input to be replaced),
and then as the user expects of writing: the existing file's mode (and owner, where allowed) kept, a symlink
left in place with its target replaced, no replacing of FIFOs or devices, and no replacing of a file whose
permission bits forbid the user to write it (the shell's ``>`` refuses it) unless ``--force`` is given.
SIGTERM, SIGHUP and the other signals that would kill the process unannounced raise ``Terminated`` meanwhile,
so the temporary is removed on every signal that can be caught.
"""

from __future__ import annotations

import io
import math
import os
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.cli.common import CliError, Terminated, say
from dmlpy.cli.files import NpyFile
from dmlpy.messages import file_kind

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


def write_protected(existing: os.stat_result) -> bool:
    """Whether the permission bits of an existing file forbid this user to write it: the owner's bits for its
    owner, the group's for a member of its group, the others' otherwise, as the kernel picks them. The bits, not
    os.access: as root os.access allows everything, and renaming over a file needs no permission on the file."""
    if not hasattr(os, "geteuid"):  # Windows: one read-only attribute, shown as the owner's write bit
        return not existing.st_mode & stat.S_IWUSR
    if existing.st_uid == os.geteuid():
        return not existing.st_mode & stat.S_IWUSR
    if existing.st_gid == os.getegid() or existing.st_gid in os.getgroups():
        return not existing.st_mode & stat.S_IWGRP
    return not existing.st_mode & stat.S_IWOTH


def plan_output(target: Path, *, force: bool = False, in_place: bool = False) -> OutputPlan:
    """The file that writing ``target`` replaces; CliError for a target that cannot be replaced by a file, for
    an existing file unless ``force`` (--force) or ``in_place`` (--in-place: the user named it to be replaced),
    and for a file its permissions make read-only to this user unless ``force``."""
    if str(target) == "-":
        # "-" reads standard input where dmlpy takes a descriptor; as an output it would make a file named "-".
        raise CliError(
            "- is not an output here: dmlpy writes results and pictures to named files (standard "
            "output carries the report); give a file name"
        )
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
    if existing is not None and not force and write_protected(existing):
        raise CliError(
            f"{target}: is read-only (mode {stat.S_IMODE(existing.st_mode):04o}); refusing to replace it: make it "
            "writable, or give --force to replace it anyway"
        )
    if existing is not None and not (force or in_place):
        raise CliError(f"{target}: exists; refusing to replace it: give --force (or -f) to replace it")
    if not real.parent.is_dir():
        raise CliError(f"{real.parent}: no such directory for the output")
    if not os.access(real.parent, os.W_OK):
        raise CliError(f"{real.parent}: not writable, so {real.name} cannot be written there")
    return OutputPlan(real, existing)


_held_signals: list[int] | None = None
"""While a list (from creating the temporary until the ``try`` that removes it is entered), the handlers record
signals here instead of raising. Blocking them is not enough: a signal the kernel hands to another thread (an
OpenCL runtime starts threads, which the main thread's mask does not cover) still runs the Python handler in the
main thread, at whatever line it is on."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    if _held_signals is not None:
        _held_signals.append(signum)
        return
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


SignalHold = tuple[set[int | signal.Signals], Any]


def _hold_signals() -> SignalHold:
    """Block SIGINT and the fatal signals and make their handlers record instead of raise (see _held_signals)."""
    global _held_signals
    _held_signals = []
    interrupt = None
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        interrupt = signal.signal(signal.SIGINT, _raise_terminated)
    blocked: set[int | signal.Signals] = set()
    if hasattr(signal, "pthread_sigmask"):
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *_FATAL_SIGNALS})
    return blocked, interrupt


def _release_signals(hold: SignalHold) -> None:
    """Undo _hold_signals, then raise what arrived meanwhile: KeyboardInterrupt for SIGINT, else Terminated."""
    global _held_signals
    blocked, interrupt = hold
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # runs the handlers of pending signals: they record
    if interrupt is not None:
        signal.signal(signal.SIGINT, interrupt)
    pending, _held_signals = _held_signals, None
    if pending:
        raise KeyboardInterrupt if pending[0] == signal.SIGINT else Terminated(pending[0])


@contextmanager
def replacing(plan: OutputPlan) -> Iterator[io.BufferedWriter]:
    """A new temporary file beside ``plan.path``, renamed over it when the block completes, removed otherwise."""
    # Signals are held from creating the temporary until the `try` that removes it is entered: a signal
    # between the two would leave it behind. One that arrives meanwhile is raised inside the `try`.
    hold = _hold_signals()
    try:
        fd, name = tempfile.mkstemp(prefix=f".{plan.path.name}.", suffix=".tmp", dir=plan.path.parent)
    except BaseException:
        _release_signals(hold)
        raise
    try:
        _release_signals(hold)
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


# ------------------------------------------------------------------------------------ .npy outputs, chunk by chunk

PROGRESS_THRESHOLD_BYTES = 64 * 2**20
CHUNK_BYTES = 16 * 2**20


def _bytes(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:,.0f} {unit}" if unit == "B" else f"{count:,.1f} {unit}"
        count /= 1024
    return f"{count:,.1f} GiB"


class Progress:
    """A one-line progress bar on stderr, redrawn in place (each drawing ends in a carriage return, so the next
    one overwrites it); silent when disabled."""

    def __init__(self, total: int, enabled: bool, label: str = "rounding") -> None:
        self.total, self.enabled, self.label = total, enabled, label
        self.started = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        fraction = done / self.total if self.total else 1.0
        filled = int(fraction * 30)
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        bar = "#" * filled + "." * (30 - filled)
        say(
            f"{self.label} [{bar}] {fraction:6.1%} {_bytes(done)}/{_bytes(self.total)} {_bytes(rate)}/s",
            stream=sys.stderr,
            end="\r",
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            say(stream=sys.stderr)  # below the bar, which stays
            sys.stderr.flush()


def write_npy_header(handle: io.BufferedWriter, dtype: np.dtype[Any], shape: tuple[int, ...], fortran: bool) -> None:
    """A .npy header, in the oldest format that holds it, as np.save picks (bfloat16 is written ``<V2``, as
    np.save writes it)."""
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": fortran, "shape": shape}
    try:
        np.lib.format.write_array_header_1_0(handle, header)
    except ValueError:
        np.lib.format.write_array_header_2_0(handle, header)


@dataclass(frozen=True)
class Chunk:
    """A run of ``count`` consecutive elements in file order, seen as an array of ``shape``; for a per-axis
    conversion, ``shape`` is 3-D (outer, axis, inner) and ``along`` is the slice of the axis it holds."""

    count: int
    shape: tuple[int, ...]
    along: slice | None


def flat_chunks(size: int, step: int) -> Iterator[Chunk]:
    """Runs of at most ``step`` elements: for conversions that treat every element alike."""
    for start in range(0, size, step):
        count = min(size, start + step) - start
        yield Chunk(count, (count,), None)


def axis_chunks(shape: tuple[int, ...], fortran: bool, axis: int, step: int) -> Iterator[Chunk]:
    """Runs of at most ``step`` elements (at least one) in file order, each seen as (outer, axis, inner) with
    the part of ``axis`` it holds, so that a per-axis scale can be sliced for it: whole outer blocks where they
    fit, else part of the axis within one block, else part of one row of the axis."""
    # In file order the array is (outer, axis, inner): C order runs its last dimension fastest, Fortran its first.
    ordered, position = (shape[::-1], len(shape) - 1 - axis) if fortran else (shape, axis)
    outer, length, inner = math.prod(ordered[:position]), ordered[position], math.prod(ordered[position + 1 :])
    if outer * length * inner == 0:
        return
    if length * inner <= step:
        blocks = step // (length * inner)
        for start in range(0, outer, blocks):
            count = min(blocks, outer - start)
            yield Chunk(count * length * inner, (count, length, inner), slice(0, length))
    elif inner <= step:
        rows = step // inner
        for _ in range(outer):
            for start in range(0, length, rows):
                count = min(rows, length - start)
                yield Chunk(count * inner, (1, count, inner), slice(start, start + count))
    else:
        for _ in range(outer):
            for index in range(length):
                for start in range(0, inner, step):
                    count = min(step, inner - start)
                    yield Chunk(count, (1, 1, count), slice(index, index + 1))


Convert = Callable[[npt.NDArray[Any], npt.NDArray[Any], Chunk], None]
"""Computes one chunk: (input, output, chunk); both arrays in native byte order, of ``chunk.shape``. The
output may be the input's memory (same dtype): convert in place then."""


def convert_file(
    source: NpyFile,
    target: Path,
    output_dtype: np.dtype[Any],
    chunks: Iterable[Chunk],
    largest: int,
    convert: Convert,
    *,
    label: str,
    progress: bool | None = None,
    force: bool = False,
    in_place: bool = False,
) -> None:
    """Write ``target`` (atomically: it appears only when complete) as ``source`` converted chunk by chunk:
    the header (``output_dtype``, the source's shape and order), then each chunk of ``chunks`` (in file order,
    at most ``largest`` elements) read, converted by ``convert`` and written. Only chunk-sized buffers are
    allocated, whatever the file's size. ``output_dtype`` equal to the source's (byte order included) converts
    in place in one buffer; a non-native dtype is byte-swapped around ``convert``. ``force`` replaces an existing
    ``target``, a read-only one too, and ``in_place`` a writable one (plan_output)."""
    plan = plan_output(target, force=force, in_place=in_place)
    show = progress if progress is not None else source.nbytes > PROGRESS_THRESHOLD_BYTES
    bar = Progress(source.nbytes, show, label)
    in_size, out_size = source.dtype.itemsize, output_dtype.itemsize
    capacity = min(largest, source.size)
    raw_in = np.empty(capacity * in_size, dtype=np.uint8)
    raw_out = raw_in if output_dtype == source.dtype else np.empty(capacity * out_size, dtype=np.uint8)
    stored_in, stored_out = raw_in.view(source.dtype), raw_out.view(output_dtype)
    native_in, native_out = source.dtype.newbyteorder("="), output_dtype.newbyteorder("=")
    work_in = stored_in if source.dtype == native_in else np.empty(capacity, native_in)
    if raw_out is raw_in:
        work_out = work_in
    else:
        work_out = stored_out if output_dtype == native_out else np.empty(capacity, native_out)
    done = 0
    try:
        with signals_raise(), replacing(plan) as handle:
            write_npy_header(handle, output_dtype, source.shape, source.fortran_order)
            for chunk in chunks:
                count = chunk.count
                source.read_into(raw_in.data[: count * in_size])
                if work_in is not stored_in:
                    work_in[:count] = stored_in[:count]
                convert(work_in[:count].reshape(chunk.shape), work_out[:count].reshape(chunk.shape), chunk)
                if work_out is not stored_out:
                    stored_out[:count] = work_out[:count]
                handle.write(raw_out.data[: count * out_size])
                done += count
                bar.update(done * in_size)
    finally:
        bar.close()
