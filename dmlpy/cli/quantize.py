"""``dmlpy quantize`` and ``dmlpy dequantize``: a .npy file through ``dml.quantize_linear`` /
``dml.dequantize_linear`` chunk by chunk, with the same file handling as ``dmlpy round`` (chunked reads, a
progress bar, an atomic output, no overwriting of the input without --in-place, which these refuse: they
change the dtype).

``--scale`` and ``--zero-point`` take a number, comma-separated numbers (one per entry of ``--axis``, ONNX's
per-axis form) or a .npy file of a scalar or 1-D array. A per-axis conversion reads the file in chunks that
each hold whole blocks of the axis where they fit and otherwise a slice of it, with the matching slice of the
scales: chunking never changes the result. The summary of ``quantize`` counts the elements that saturated, and
both print the one-liners' ScaleWarning, once, for a scale that is not a finite positive number.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
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
from dmlpy.errors import ScaleWarning

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


def _values(option: str, text: str, integers: bool) -> npt.NDArray[Any]:
    """An option's numbers: one, comma-separated, or a .npy file's; floats, or whole numbers for ``integers``."""
    pieces = [piece.strip() for piece in text.split(",")]
    try:
        if integers:
            return np.array([int(piece) for piece in pieces], dtype=object)
        return np.array([float(piece) for piece in pieces], dtype=np.float64)
    except ValueError:
        if len(pieces) > 1 or not text.strip():
            kind = "whole numbers" if integers else "numbers"
            raise CliError(f"{option} {text!r}: give one of the {kind} or comma-separated {kind}") from None
    values = _load_values(option, text, integers)
    if integers:
        if values.dtype.kind == "f" and not np.all(np.floor(values) == values):
            raise CliError(f"{option} {text}: holds numbers that are not whole")
        return np.array([int(value) for value in values.tolist()], dtype=object)
    return values.astype(np.float64)


def _zero_points(text: str | None, dtype: np.dtype[Any]) -> npt.NDArray[Any] | None:
    """--zero-point as an array of ``dtype``; CliError for a value ``dtype`` cannot hold."""
    if text is None:
        return None
    values = _values("--zero-point", text, integers=True)
    limits = np.iinfo(dtype)
    outside = [value for value in values.tolist() if not limits.min <= value <= limits.max]
    if outside:
        raise CliError(
            f"--zero-point {outside[0]} does not fit {dtype}: zero points of {dtype} data are from {limits.min} to "
            f"{limits.max}"
        )
    return values.astype(dtype)


@dataclass(frozen=True)
class Parameters:
    """The scales and zero points, and the axis they run along (None: one value for the whole tensor)."""

    scale: npt.NDArray[Any]
    zero_point: npt.NDArray[Any] | None
    axis: int | None

    def describe(self) -> str:
        return "per tensor" if self.axis is None else f"per axis {self.axis}"

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
    scale = _values("--scale", args.scale, integers=False).astype(scale_dtype)
    zero_point = _zero_points(args.zero_point, zero_point_dtype)
    counts = {"--scale": scale.size, **({} if zero_point is None else {"--zero-point": zero_point.size})}
    dimensions = len(source.shape)
    rank = max(1, dimensions)  # a 0-d file is one element, as the one-liners take it
    if args.axis is not None and not -rank <= args.axis < rank:
        raise CliError(f"--axis {args.axis} is out of range for IN's {dimensions} dimensions")
    if all(count == 1 for count in counts.values()):
        return Parameters(scale.reshape(()), None if zero_point is None else zero_point.reshape(()), None)
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
    return Parameters(scale, zero_point, axis)


def _chunks(source: NpyFile, parameters: Parameters, chunk_bytes: int) -> tuple[Iterable[Chunk], int]:
    step = max(1, chunk_bytes // source.dtype.itemsize)
    if parameters.axis is None or not source.shape:
        return flat_chunks(source.size, step), step
    return axis_chunks(source.shape, source.fortran_order, parameters.axis, step), step


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
