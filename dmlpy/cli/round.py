"""``dmlpy round``: a .npy file of any dtype ``dml.round`` takes, rounded chunk by chunk, written atomically."""

from __future__ import annotations

import argparse
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dmlpy.cli.common import (
    EXIT_OK,
    add_file_arguments,
    file_paths,
    pick_device,
    progress_choice,
    rounding_mode,
    say,
)
from dmlpy.cli.files import dtype_words, open_npy
from dmlpy.cli.output import CHUNK_BYTES, Chunk, convert_file, flat_chunks, plan_output
from dmlpy.dtypes import data_type_of
from dmlpy.ml_types import ml_dtype
from dmlpy.modes import AnyRoundingMode
from dmlpy.ops.ext_element_wise_round import SUPPORTED_TYPES

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device


@cache
def roundable() -> tuple[np.dtype[Any], ...]:
    """Every dtype dml.round takes: DirectML's float32 and float16, and the extension's float64, bfloat16 and
    integers, in a fixed order for messages (ml_dtypes imported once a file is rounded, not with the CLI)."""
    names = ("float32", "float16", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
    dtypes = [np.dtype(name) for name in names]
    dtypes.insert(3, ml_dtype("bfloat16"))
    return tuple(dtype for dtype in dtypes if data_type_of(dtype) in SUPPORTED_TYPES)


def round_file(
    source_path: Path,
    target_path: Path,
    mode: AnyRoundingMode,
    device: Device | None,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    progress: bool | None = None,
    force: bool = False,
    in_place: bool = False,
) -> tuple[int, np.dtype[Any]]:
    """Round ``source_path`` into ``target_path`` chunk by chunk; the target appears only when complete, with
    the input's dtype, byte order, shape and order. The data goes through in file order (C or Fortran, as the
    header says), so each chunk is a contiguous run of elements in both files. ``force`` replaces an existing
    target (a read-only one too), ``in_place`` a writable one. Returns the number of elements rounded and the dtype."""
    from dmlpy.arrays import round as dml_round

    def convert(chunk: npt.NDArray[Any], out: npt.NDArray[Any], where: Chunk) -> None:
        dml_round(chunk, mode=mode, out=out, device=device)

    takes = "round takes " + ", ".join(dtype_words(dtype) for dtype in roundable())
    with open_npy(source_path, roundable(), takes) as source:
        step = max(1, chunk_bytes // source.dtype.itemsize)
        chunks = flat_chunks(source.size, step)
        convert_file(
            source,
            target_path,
            source.dtype,
            chunks,
            step,
            convert,
            label="rounding",
            progress=progress,
            force=force,
            in_place=in_place,
        )
    return source.size, source.dtype


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_file_arguments(parser)
    parser.add_argument(
        "--mode",
        default="half_to_even",
        help="half_to_even (default), half_away_from_zero, toward_zero, a DML_ROUNDING_MODE name or number, or "
        "one of nGraph's nine (ROUND_NEAREST_UPWARD, ...; dmlpy extensions)",
    )


def run(args: argparse.Namespace) -> int:
    """Round a .npy file (every dtype and mode dml.round takes); refuse to overwrite the input unless
    --in-place, and any other existing file unless --force."""
    source, target = file_paths(args)
    mode = rounding_mode(args.mode)
    # Checked before a device is created; convert_file checks again as it writes.
    plan_output(target, force=args.force, in_place=args.in_place)
    device = pick_device(args.device)
    count, dtype = round_file(
        source,
        target,
        mode,
        device,
        chunk_bytes=args.chunk_bytes or CHUNK_BYTES,
        progress=progress_choice(args),
        force=args.force,
        in_place=args.in_place,
    )
    if not args.quiet:
        plural = "" if count == 1 else "s"
        say(
            f"rounded {count} {dtype_words(dtype)} element{plural} ({mode.c_name}) from {source} into {target}",
            stream=sys.stderr,
        )
    return EXIT_OK
