"""Blocked quantization's shapes, the DirectML way: a scale (and zero point) per block of ``b`` elements along an
axis is that axis split into (blocks, b), with a 0 stride on the scale's inner dimension, so the blocks run
through ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR (1 to 8 dimensions from DML_FEATURE_LEVEL_3_0) with
nothing materialised: an axis of stride ``s`` and length ``B*b`` splits into strides ``(b*s, s)``, a view of the
same memory, and the scale is its own small array broadcast with 0 strides.

Pure shape logic on tuples of ints, shared by the one-liners (``dmlpy.arrays``), the graph builder and the ONNX
backend: ``block_split`` is WebNN's form (a scale of the input's rank, each dimension 1, the input's or a divisor
of it), ``onnx_block_runs`` ONNX opset 21's (``axis`` and ``block_size``, the last block possibly partial).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dmlpy.errors import InvalidArgumentError
from dmlpy.tensor import packed_strides

MAX_SPLIT_DIMENSIONS = 8
"""ELEMENT_WISE_QUANTIZE_LINEAR and DEQUANTIZE_LINEAR take 1 to 8 dimensions (from DML_FEATURE_LEVEL_3_0)."""
OPERATORS = "ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR"


@dataclass(frozen=True)
class BlockSplit:
    """An input of ``input_shape`` quantized with a scale of ``scale_shape`` (WebNN's form), as DirectML runs it:
    both viewed with the split ``sizes``, each input axis in ``blocked`` split into (blocks, block)."""

    input_shape: tuple[int, ...]
    scale_shape: tuple[int, ...]
    sizes: tuple[int, ...]
    """The split sizes of every tensor of the operator (input, scale, zero point, output)."""
    blocked: tuple[int, ...]
    """The input axes split in blocks, ascending."""

    def input_strides(self, strides: Sequence[int]) -> tuple[int, ...]:
        """The split strides of the input (or output) whose strides are ``strides``, in any unit (elements, or a
        NumPy array's bytes): a blocked axis of stride ``s`` becomes ``(block * s, s)``."""
        split: list[int] = []
        for axis, stride in enumerate(strides):
            if axis in self.blocked:
                split += [self.input_shape[axis] // self.scale_shape[axis] * stride, stride]
            else:
                split.append(stride)
        return tuple(split)

    @property
    def scale_strides(self) -> tuple[int, ...]:
        """The split strides, in elements, of a packed scale (or zero point) of ``scale_shape``: 0 where it is
        broadcast (a dimension of 1) and on each block's inner dimension, its own strides elsewhere."""
        split: list[int] = []
        for axis, stride in enumerate(packed_strides(self.scale_shape)):
            own = 0 if self.scale_shape[axis] == 1 else stride
            split += [own, 0] if axis in self.blocked else [own]
        return tuple(split)


def block_split(input_shape: Sequence[int], scale_shape: Sequence[int], name: str = "scale") -> BlockSplit:
    """The split of an input of ``input_shape`` for a ``name`` (scale or zero point) of ``scale_shape``, the
    input's rank: per axis, the scale is broadcast (1), per element (the input's size) or per block (a divisor
    of the input's size: block = input size / scale size). InvalidArgumentError for any other shape, and for a
    split of more than 8 dimensions."""
    shape, given = tuple(int(d) for d in input_shape), tuple(int(d) for d in scale_shape)
    if len(given) != len(shape):
        raise InvalidArgumentError(
            f"{name} has shape {given}, {len(given)} dimensions, for an input of shape {shape}; a {name} per block "
            f"has the input's rank ({len(shape)}), every dimension 1, the input's own, or a divisor of it"
        )
    sizes: list[int] = []
    blocked: list[int] = []
    for axis, (length, count) in enumerate(zip(shape, given, strict=True)):
        if count in (1, length):
            sizes.append(length)
        elif 1 < count < length and length % count == 0:
            sizes += [count, length // count]
            blocked.append(axis)
        else:
            raise InvalidArgumentError(
                f"{name} has {count} entries along axis {axis}, where the input (shape {shape}) has {length}: every "
                f"dimension of the {name} must be 1, the input's own, or a divisor of it (one {name} per block of "
                f"input/{name} elements); give axis {axis} one of {divisors_of(length)} entries"
            )
    if len(sizes) > MAX_SPLIT_DIMENSIONS:
        raise InvalidArgumentError(
            f"{name} of shape {given} blocks axes {blocked} of an input of shape {shape}, which splits it into "
            f"{len(sizes)} dimensions {tuple(sizes)}; {OPERATORS} take at most {MAX_SPLIT_DIMENSIONS}: block fewer "
            "axes, or merge the input's dimensions first (a reshape)"
        )
    return BlockSplit(shape, given, tuple(sizes), tuple(blocked))


def divisors_of(length: int) -> list[int]:
    """The scale sizes an axis of ``length`` takes, ascending: its divisors (found up to its square root); 0 or
    1 for an empty axis."""
    if length == 0:
        return [0, 1]
    small = [d for d in range(1, math.isqrt(length) + 1) if length % d == 0]
    return sorted({*small, *(length // d for d in small)})


@dataclass(frozen=True)
class BlockRun:
    """One run of ONNX's blocked form as WebNN's: the input's (and output's) ``input_range`` along the axis,
    with the scale's (and zero point's) ``scale_range`` along it."""

    input_range: range
    scale_range: range


def onnx_block_runs(
    input_shape: Sequence[int], scale_shape: Sequence[int], axis: int, block_size: int, name: str = "scale"
) -> tuple[int, list[BlockRun]]:
    """ONNX opset 21's blocked form (``axis``, ``block_size``) as runs of WebNN's, and the non-negative axis.
    The scale has the input's rank, every dimension the input's but ``axis``, which has
    ceil(input's / block_size); a last block that is partial takes its own scale, as onnx.reference's
    QuantizeLinear and DequantizeLinear do (they repeat each scale ``block_size`` times and cut the repeats to the
    input's length), so it runs apart: the whole blocks, then the partial one with its one scale broadcast."""
    shape, given = tuple(int(d) for d in input_shape), tuple(int(d) for d in scale_shape)
    if block_size < 1:
        raise InvalidArgumentError(f"block_size is {block_size}; it must be a positive number of elements")
    if not -len(shape) <= axis < len(shape):
        raise InvalidArgumentError(f"axis {axis} is out of range for an input of {len(shape)} dimensions")
    along = axis % len(shape)
    blocks = -(-shape[along] // block_size)
    wanted = tuple(blocks if d == along else length for d, length in enumerate(shape))
    if given != wanted:
        raise InvalidArgumentError(
            f"{name} has shape {given}; with axis {axis} and block_size {block_size} (ONNX's blocked form) it must "
            f"have shape {wanted}: the input's {shape} but ceil({shape[along]} / {block_size}) = {blocks} along axis "
            f"{along}"
        )
    whole = shape[along] // block_size
    runs = [BlockRun(range(0, whole * block_size), range(0, whole))] if whole else []
    if shape[along] % block_size:
        runs.append(BlockRun(range(whole * block_size, shape[along]), range(whole, whole + 1)))
    return along, runs
