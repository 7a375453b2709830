"""``dmlpy quantize`` and ``dmlpy dequantize``: a .npy file through ``dml.quantize_linear`` /
``dml.dequantize_linear`` chunk by chunk, with the same file handling as ``dmlpy round`` (chunked reads, a
progress bar, an atomic output, no overwriting of the input without --in-place, which these refuse: they
change the dtype).

``--scale`` and ``--zero-point`` take a number, comma-separated numbers (one per entry of ``--axis``, ONNX's
per-axis form) or a .npy file of a scalar or 1-D array, each value held by its type as the one-liners hold it
(``dmlpy.arrays.parameters.held_values``) or refused. Several values for a 1-D IN with no ``--axis`` are read as
``dml.quantize_linear`` reads them (``dmlpy.arrays.blocked``): one per element, or per block of IN's size / their
count. A per-axis or per-block conversion reads the file in chunks that each hold whole blocks of the axis where
they fit and otherwise a slice of it, with the matching slice of the scales: chunking never changes the result.
The summary of ``quantize`` counts the elements that saturated, and both print the one-liners' ScaleWarning,
once, for a scale that is not a finite positive number.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.cli.common import (
    EXIT_OK,
    CliError,
    add_file_arguments,
    file_paths,
    pick_device,
    printed_warnings,
    progress_choice,
    rounding_mode,
    say,
)
from dmlpy.cli.files import NpyFile, dtype_words, open_npy
from dmlpy.cli.output import CHUNK_BYTES, Chunk, axis_chunks, convert_file, flat_chunks, plan_output
from dmlpy.cli.saturation import Saturation
from dmlpy.errors import InvalidArgumentError, ScaleWarning

QUANTIZE_INPUTS = tuple(np.dtype(name) for name in ("float32", "float16", "int32"))
QUANTIZED: dict[str, np.dtype[Any]] = {"uint8": np.dtype(np.uint8), "int8": np.dtype(np.int8)}
DEQUANTIZE_INPUTS = tuple(np.dtype(name) for name in ("int8", "uint8", "int16", "uint16", "int32", "uint32"))
DEQUANTIZED: dict[str, np.dtype[Any]] = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16)}
PARAMETER_FILE_DTYPES = tuple(np.dtype(f"{kind}{size}") for kind in "iu" for size in (1, 2, 4, 8)) + tuple(
    np.dtype(f"f{size}") for size in (2, 4, 8)
)
"""What a --scale or --zero-point file may hold (either byte order)."""


def _load_values(option: str, text: str, integers: bool) -> npt.NDArray[Any]:
    """A .npy file named by an option: a scalar or 1-D array of numbers, read as the input files are (open_npy:
    the header checked, object data refused unread, a short file refused)."""
    path = Path(text)
    if not path.exists():  # an existing path that is not a regular file gets open_npy's words for what it is
        kind = "whole number" if integers else "number"
        raise CliError(f"{option} {text!r} is not a {kind}, comma-separated {kind}s, or a .npy file")
    try:
        with open_npy(path, PARAMETER_FILE_DTYPES, f"{option} takes integer or float data") as npy:
            if len(npy.shape) > 1:
                raise CliError(
                    f"{path}: holds {dtype_words(npy.dtype)} data of shape {npy.shape}; it must hold a number or a "
                    "1-D array of numbers"
                )
            raw = np.empty(npy.nbytes, np.uint8)
            npy.read_into(raw.data)
    except CliError as error:
        raise CliError(f"{option} {error}") from None
    return raw.view(npy.dtype).astype(npy.dtype.newbyteorder("="))


def _number(piece: str, integers: bool) -> int | float:
    """A number as written: an int exactly; else (not for ``integers``) a float, or for a finite number beyond a
    double's range (1e400, which float() makes infinite) the whole number it is, which held_values then refuses
    as finite. ValueError for anything else."""
    try:
        return int(piece)
    except ValueError:
        if integers:
            raise
        number = float(piece)
    if math.isinf(number):
        with contextlib.suppress(ValueError):  # "inf", "-Infinity": Fraction takes no infinity; they are one
            return int(Fraction(piece))
    return number


def _values(option: str, text: str, integers: bool) -> object:
    """An option's numbers: one or comma-separated, as written (whole numbers for ``integers``), or a .npy
    file's, as the file holds them (``integers``: as Python numbers, since a zero point's values, not the file's
    type, must suit the data)."""
    pieces = [piece.strip() for piece in text.split(",")]
    try:
        numbers = [_number(piece, integers) for piece in pieces]
        return numbers if len(numbers) > 1 else numbers[0]  # one number: a refusal shows it without an index
    except ValueError:
        if len(pieces) > 1 or not text.strip():
            kind = "whole numbers" if integers else "numbers"
            raise CliError(f"{option} {text!r}: give one of the {kind} or comma-separated {kind}") from None
    values = _load_values(option, text, integers)
    return values.tolist() if integers else values


def _held(option: str, name: str, values: object, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """An option's values as ``dtype``, held as the one-liners hold ``name``'s (scale, zero_point); CliError
    naming the option otherwise."""
    from dmlpy.arrays.parameters import held_values

    try:
        return held_values(name, values, dtype, argument=option)
    except InvalidArgumentError as error:
        raise CliError(str(error)) from None


@dataclass(frozen=True)
class Parameters:
    """The scales and zero points, the axis they run along (None: one value for the whole tensor) of IN's
    ``shape`` as they read it (its own, or a 1-D IN split into (blocks, block)), and that reading in words."""

    scale: npt.NDArray[Any]
    zero_point: npt.NDArray[Any] | None
    axis: int | None
    shape: tuple[int, ...]
    reading: str

    def describe(self) -> str:
        return self.reading

    def for_chunk(self, chunk: Chunk) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None, int | None]:
        """The scale, zero point and axis for one chunk: the chunk's slice of per-axis values, along its axis
        1 (chunks of per-axis conversions are (outer, axis, inner))."""
        if chunk.along is None:
            return self.scale, self.zero_point, None
        scale = self.scale if self.scale.size == 1 else self.scale[chunk.along]
        zero_point = self.zero_point
        if zero_point is not None and zero_point.size > 1:
            zero_point = zero_point[chunk.along]
        return scale, zero_point, 1


def _parameters(
    args: argparse.Namespace, source: NpyFile, scale_dtype: np.dtype[Any], zero_point_dtype: np.dtype[Any]
) -> Parameters:
    """--scale, --zero-point and --axis checked against IN's shape, as the one-liners check them."""
    from dmlpy.arrays.blocked import blocked_runs, is_blocked

    scale = _one_or_several(_held("--scale", "scale", _values("--scale", args.scale, False), scale_dtype))
    zero_point = None
    if args.zero_point is not None:
        zero_values = _values("--zero-point", args.zero_point, integers=True)
        zero_point = _one_or_several(_held("--zero-point", "zero_point", zero_values, zero_point_dtype))
    counts = {"--scale": scale.size, **({} if zero_point is None else {"--zero-point": zero_point.size})}
    dimensions = len(source.shape)
    rank = max(1, dimensions)  # a 0-d file is one element, as the one-liners take it
    if args.axis is not None and not -rank <= args.axis < rank:
        raise CliError(f"--axis {args.axis} is out of range for IN's {dimensions} dimensions")
    if all(count == 1 for count in counts.values()):
        return Parameters(scale, zero_point, None, source.shape, "per tensor")
    if is_blocked(dimensions, scale, zero_point, args.axis, None):
        try:
            split = blocked_runs(source.shape, scale, zero_point, None, None)[0].split
        except InvalidArgumentError as error:
            raise CliError(
                f"IN is 1-D and --axis is not given, so several values are one per block of IN's elements (or per "
                f"element), as dml.quantize_linear reads them: {error}"
            ) from None
        reading = f"per block of {split.sizes[1]}" if split.blocked else "per element"
        return Parameters(scale, zero_point, 0, split.sizes, reading)
    if args.axis is None and rank < 2:
        raise CliError(
            f"{' and '.join(counts)} give per-axis values and IN has {dimensions} dimensions: give --axis (the "
            "default axis is 1)"
        )
    axis = (1 if args.axis is None else args.axis) % rank
    length = source.shape[axis] if source.shape else 1
    for option, count in counts.items():
        if count not in (1, length):
            raise CliError(f"{option} has {count} values but IN's axis {axis} has {length} entries")
    return Parameters(scale, zero_point, axis, source.shape, f"per axis {axis}")


def _one_or_several(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """One value as a scalar, as the one-liners take one number: a 1-D one would be per axis, or per block."""
    return values.reshape(()) if values.size == 1 else values


def _chunks(source: NpyFile, parameters: Parameters, chunk_bytes: int) -> tuple[Iterable[Chunk], int]:
    step = max(1, chunk_bytes // source.dtype.itemsize)
    if parameters.axis is None or not source.shape:
        return flat_chunks(source.size, step), step
    # A 1-D file lies in element order whatever its header's fortran_order says, and so does its split.
    fortran = source.fortran_order and len(source.shape) > 1
    return axis_chunks(parameters.shape, fortran, parameters.axis, step), step


def _summary(
    verb: str, source: NpyFile, output: np.dtype[Any], parameters: Parameters, paths: tuple[Path, Path], note: str
) -> None:
    count = source.size
    plural = "" if count == 1 else "s"
    say(
        f"{verb} {count} element{plural} ({dtype_words(source.dtype)} to {output}, {parameters.describe()}) from "
        f"{paths[0]} into {paths[1]}{note}",
        stream=sys.stderr,
    )


def _convert(
    args: argparse.Namespace,
    source: NpyFile,
    paths: tuple[Path, Path],
    output: np.dtype[Any],
    parameters: Parameters,
    operation: Callable[..., None],
    call: str,
    words: tuple[str, str],
    saturation: Saturation | None = None,
) -> None:
    """What quantize and dequantize share once the input is open: ``operation(chunk, scale, zero_point, axis,
    out, device)`` over the file chunk by chunk into an atomic output, with the chunk's slice of the parameters;
    ``words`` name the work in the progress bar and in the summary ("quantizing", "quantized"), which says what
    ``saturation`` counted. A scale that is not a finite positive number gets the ScaleWarning of ``call`` (the
    one-liner: ``quantize_linear``), printed once, for the whole scale."""
    from dmlpy.arrays.parameters import scale_values

    plan_output(paths[1], force=args.force)  # checked before a device is created; convert_file checks again
    device = pick_device(args.device)

    def convert(chunk: npt.NDArray[Any], out: npt.NDArray[Any], where: Chunk) -> None:
        scale, zero_point, axis = parameters.for_chunk(where)
        operation(chunk, scale, zero_point, axis, out, device)
        if saturation is not None:
            saturation.count(chunk, out, scale, zero_point, axis, device)

    chunks, step = _chunks(source, parameters, args.chunk_bytes or CHUNK_BYTES)
    progress = progress_choice(args)
    with printed_warnings(f"dmlpy {args.command}"):
        scale_values(call, parameters.scale, parameters.scale.dtype)
        warnings.filterwarnings("ignore", category=ScaleWarning)  # each chunk's call would repeat it for its slice
        convert_file(
            source, paths[1], output, chunks, step, convert, label=words[0], progress=progress, force=args.force
        )
    if not args.quiet:
        note = "" if saturation is None else f"; {saturation.summary()}"
        _summary(words[1], source, output, parameters, paths, note)


class _Quantize:
    """``dmlpy quantize``: float32, float16 or int32 data to uint8 or int8, like ONNX QuantizeLinear."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_file_arguments(parser)
        _add_parameter_arguments(parser)
        parser.add_argument("--dtype", choices=list(QUANTIZED), default="uint8", help="output type (default uint8)")
        parser.add_argument(
            "--mode",
            default="half_to_even",
            help="rounding: half_to_even (default, ONNX's), or any mode dml.round takes (nGraph's nine run as "
            "dmlpy extensions)",
        )

    def run(self, args: argparse.Namespace) -> int:
        output = QUANTIZED[args.dtype]
        source_path, target = file_paths(args, changes_dtype=f"{output} data")
        mode = rounding_mode(args.mode)
        takes = "quantize takes float32, float16 or int32 data"
        with open_npy(source_path, QUANTIZE_INPUTS, takes) as source:
            native = source.dtype.newbyteorder("=")
            scale_dtype = np.dtype(np.float16) if native == np.float16 else np.dtype(np.float32)
            parameters = _parameters(args, source, scale_dtype, output)
            from dmlpy.arrays import quantize_linear

            def quantize(chunk: Any, scale: Any, zero_point: Any, axis: Any, out: Any, device: Any) -> None:
                quantize_linear(chunk, scale, zero_point, axis, output, mode=mode, out=out, device=device)

            paths, words = (source_path, target), ("quantizing", "quantized")
            saturation = Saturation(output, mode)
            _convert(args, source, paths, output, parameters, quantize, "quantize_linear", words, saturation)
        return EXIT_OK


class _Dequantize:
    """``dmlpy dequantize``: 8-, 16- or 32-bit integer data to float32 or float16, like ONNX DequantizeLinear."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_file_arguments(parser)
        _add_parameter_arguments(parser)
        parser.add_argument(
            "--dtype", choices=list(DEQUANTIZED), default="float32", help="output type, the scale's (default float32)"
        )

    def run(self, args: argparse.Namespace) -> int:
        output = DEQUANTIZED[args.dtype]
        source_path, target = file_paths(args, changes_dtype=f"{output} data")
        takes = "dequantize takes int8, uint8, int16, uint16, int32 or uint32 data"
        with open_npy(source_path, DEQUANTIZE_INPUTS, takes) as source:
            parameters = _parameters(args, source, output, source.dtype.newbyteorder("="))
            from dmlpy.arrays import dequantize_linear

            def dequantize(chunk: Any, scale: Any, zero_point: Any, axis: Any, out: Any, device: Any) -> None:
                dequantize_linear(chunk, scale, zero_point, axis, out=out, device=device)

            paths, words = (source_path, target), ("dequantizing", "dequantized")
            _convert(args, source, paths, output, parameters, dequantize, "dequantize_linear", words)
        return EXIT_OK


def _add_parameter_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scale",
        required=True,
        metavar="S",
        help="a number, comma-separated numbers (one per entry of --axis), or a .npy file of them",
    )
    parser.add_argument(
        "--zero-point",
        metavar="Z",
        help="whole numbers, as --scale takes them (default: none, that is 0); negative ones as --zero-point=-3,-1",
    )
    parser.add_argument(
        "--axis", type=int, metavar="A", help="the axis per-axis values run along (default 1, as ONNX's)"
    )


QUANTIZE = _Quantize()
DEQUANTIZE = _Dequantize()
