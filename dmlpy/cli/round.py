"""``dmlpy round``: a float32/float16 .npy file through ELEMENT_WISE_ROUND, chunk by chunk, written atomically."""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dmlpy.cli.common import EXIT_OK, CliError
from dmlpy.cli.files import NpyFile, open_npy
from dmlpy.cli.output import plan_output, replacing, signals_raise
from dmlpy.errors import DmlError
from dmlpy.modes import AnyRoundingMode, resolve_mode

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device

PROGRESS_THRESHOLD_BYTES = 64 * 2**20
CHUNK_BYTES = 16 * 2**20


def _bytes(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:,.0f} {unit}" if unit == "B" else f"{count:,.1f} {unit}"
        count /= 1024
    return f"{count:,.1f} GiB"


class Progress:
    """A one-line progress bar on stderr, redrawn in place; silent when disabled."""

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
        sys.stderr.write(f"\r{self.label} [{bar}] {fraction:6.1%} {_bytes(done)}/{_bytes(self.total)} {_bytes(rate)}/s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _pick_device(index: int | None) -> Device | None:
    if index is None:
        return None
    from dmlpy.runtime.device import create_device
    from dmlpy.runtime.platforms import device_by_index

    try:
        entry = device_by_index(index)
    except DmlError as error:
        raise CliError(f"--device {index}: {error}") from None
    # Extensions on: the command takes every mode dml.round takes (nGraph's too).
    return create_device(cl_device=entry.cl_device, extensions=True)


def _parse_mode(text: str) -> AnyRoundingMode:
    try:
        return resolve_mode(text)
    except DmlError as error:
        raise CliError(f"--mode: {error}") from None


def _chunks(total: int, step: int) -> Iterator[tuple[int, int]]:
    for start in range(0, total, step):
        yield start, min(total, start + step)


def _write_header(handle: io.BufferedWriter, source: NpyFile) -> None:
    header = {
        "descr": np.lib.format.dtype_to_descr(source.dtype),
        "fortran_order": source.fortran_order,
        "shape": source.shape,
    }
    try:  # the oldest format that holds the header, as np.save picks
        np.lib.format.write_array_header_1_0(handle, header)
    except ValueError:
        np.lib.format.write_array_header_2_0(handle, header)


def round_file(
    source_path: Path,
    target_path: Path,
    mode: AnyRoundingMode,
    device: Device | None,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    progress: bool | None = None,
) -> int:
    """Round ``source_path`` into ``target_path`` chunk by chunk; the target appears only when complete.

    The data goes through in file order (C or Fortran, as the header says), so each chunk is a contiguous run
    of elements on disk in both files. Returns the number of elements rounded.
    """
    from dmlpy.runtime import round as dml_round

    with open_npy(source_path) as source:
        plan = plan_output(target_path)
        show = progress if progress is not None else source.nbytes > PROGRESS_THRESHOLD_BYTES
        bar = Progress(source.nbytes, show)
        itemsize = source.dtype.itemsize
        step = max(1, chunk_bytes // itemsize)
        raw = np.empty(min(step, source.size) * itemsize, dtype=np.uint8)
        stored = raw.view(source.dtype)  # the file's byte order
        native = source.dtype.newbyteorder("=")
        work = stored if source.dtype == native else np.empty(stored.shape, dtype=native)
        try:
            with signals_raise(), replacing(plan) as handle:
                _write_header(handle, source)
                for start, stop in _chunks(source.size, step):
                    count = stop - start
                    source.read_into(raw.data[: count * itemsize])
                    chunk = work[:count]
                    if work is not stored:
                        chunk[...] = stored[:count]
                    dml_round(chunk, mode, out=chunk, device=device)
                    if work is not stored:
                        stored[:count] = chunk
                    handle.write(raw.data[: count * itemsize])
                    bar.update(stop * itemsize)
        finally:
            bar.close()
    return source.size


def _same_file(first: Path, second: Path) -> bool:
    """Whether two names are one file (links and hard links included); never raises, even for a symlink loop."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # either is missing or unreachable: not the same existing file
        return False


def _device_index(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--device takes a number from `dmlpy devices`, not {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN.npy")
    parser.add_argument("output", metavar="OUT.npy", nargs="?", help="may be left out with --in-place")
    parser.add_argument(
        "--mode",
        default="half_to_even",
        help="half_to_even (default), half_away_from_zero, toward_zero, or a DML_ROUNDING_MODE name or number",
    )
    parser.add_argument("--device", type=_device_index, metavar="N", help="device number from `dmlpy devices`")
    parser.add_argument("--in-place", action="store_true", help="allow OUT to be IN (replaced atomically)")
    parser.add_argument("--progress", action="store_true", help="always show the progress bar (default: > 64 MiB)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    parser.add_argument("--chunk-bytes", type=int, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Round a .npy file with ELEMENT_WISE_ROUND; refuse to overwrite the input unless --in-place."""
    source = Path(args.input)
    target = Path(args.output) if args.output is not None else None
    if target is None:
        if not args.in_place:
            raise CliError("give OUT.npy, or --in-place to replace IN.npy")
        target = source
    mode = _parse_mode(args.mode)
    if _same_file(source, target) and not args.in_place:
        raise CliError(f"{target} is the input file; refusing to overwrite it without --in-place")
    plan_output(target)  # checked before a device is created; round_file checks again as it writes
    if args.chunk_bytes is not None and args.chunk_bytes < 1:
        raise CliError("--chunk-bytes must be at least 1")
    device = _pick_device(args.device)
    progress = True if args.progress else (False if args.quiet else None)
    count = round_file(source, target, mode, device, chunk_bytes=args.chunk_bytes or CHUNK_BYTES, progress=progress)
    if not args.quiet:
        plural = "" if count == 1 else "s"
        print(f"rounded {count} element{plural} ({mode.c_name}) from {source} into {target}", file=sys.stderr)
    return EXIT_OK
