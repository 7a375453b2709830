"""Blocked quantization in the one-liners: a scale (and zero point) per block of elements, in WebNN's form (of
the input's rank, with no axis) or ONNX's (``axis`` and ``block_size``), run as DirectML runs it
(``dmlpy.quantization_blocks``): the input and output viewed split, (blocks, block) per blocked axis, and the
scale broadcast over each block with a 0 stride, views of the same memory, nothing materialised. ONNX's partial
last block is a second run over the input's and output's last elements with its one scale broadcast.
``blocked_runs`` checks the shapes and plans the runs; ``split_view`` and ``split_parameter`` make one run's
views of a NumPy or pyopencl array and of a scale or zero point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl.array as cl_array

from dmlpy.arrays.checks import is_device_array
from dmlpy.arrays.device_memory import may_share_memory
from dmlpy.errors import InvalidArgumentError
from dmlpy.quantization_blocks import BlockSplit, block_split, onnx_block_runs


def is_blocked(
    rank: int,
    scales: npt.NDArray[Any],
    zero_points: npt.NDArray[Any] | None,
    axis: int | None,
    block_size: int | None,
) -> bool:
    """Whether a call on an input of ``rank`` dimensions is blocked: ONNX's form (``block_size`` given) or
    WebNN's (a scale or zero point of two or more dimensions, or, for a 1-D input with no ``axis``, a 1-D scale
    of several values); any other scalar or 1-D scale is per tensor or per axis."""
    if block_size is not None or scales.ndim > 1 or (zero_points is not None and zero_points.ndim > 1):
        return True
    # ONNX's default axis, 1, does not exist in a 1-D input, so WebNN's reading (the scale of the input's rank:
    # per element, or per block of input size / scale size) is the only one left.
    return rank == 1 and axis is None and scales.ndim == 1 and scales.size > 1


@dataclass(frozen=True)
class BlockedRun:
    """One dispatch of a blocked call: the input's and output's ``index`` (everything, or a range along ONNX's
    axis), its scale and zero point (None, or one value for the whole run), and their ``split``."""

    index: tuple[slice, ...]
    scales: npt.NDArray[Any]
    zero_points: npt.NDArray[Any] | None
    split: BlockSplit


def blocked_runs(
    shape: tuple[int, ...],
    scales: npt.NDArray[Any],
    zero_points: npt.NDArray[Any] | None,
    axis: int | None,
    block_size: int | None,
) -> list[BlockedRun]:
    """The runs of a blocked call over an input of ``shape`` with checked ``scales`` and ``zero_points`` (the
    zero point the scale's shape, or one number): one for WebNN's form, one or two for ONNX's (``axis``
    defaulting to 1, as ONNX's does). InvalidArgumentError naming the rule for any shape neither form takes, a
    single-number scale with a block_size included (ONNX uses block_size only with a scale per block; a scale of
    x's rank must have its blocked shape, one value or not)."""
    if zero_points is not None and zero_points.ndim and zero_points.shape != scales.shape:
        raise InvalidArgumentError(
            f"zero_point has shape {zero_points.shape}; with a scale per block (scale of shape {scales.shape}) it "
            "must have the scale's shape, or be one number"
        )
    everything = tuple(slice(None) for _ in shape)
    if block_size is not None and scales.ndim == 0:
        raise InvalidArgumentError(
            f"block_size is {block_size}, but scale is one number, which applies to the whole tensor and would "
            "leave block_size unread: ONNX uses block_size only in its blocked form, a scale of x's rank "
            f"({len(shape)}) with one value per block along axis (ceil(x.shape[axis] / block_size) there, x's length "
            "elsewhere); pass block_size=None for one scale, or a scale per block"
        )
    if block_size is None:
        if axis is not None:
            raise InvalidArgumentError(
                f"axis is {axis}, but scale has shape {scales.shape}: a scale of the input's rank is WebNN's blocked "
                "form, whose shape says the blocks, and takes no axis; ONNX's blocked form takes axis= with "
                "block_size="
            )
        return [_run(everything, scales, zero_points, shape)]
    along, runs = onnx_block_runs(shape, scales.shape, 1 if axis is None else axis, block_size)
    planned = []
    for run in runs:
        index = _along(along, run.input_range, len(shape))
        scale_index = _along(along, run.scale_range, len(shape))
        piece_shape = tuple(len(run.input_range) if d == along else n for d, n in enumerate(shape))
        zero_piece = zero_points if zero_points is None or not zero_points.ndim else zero_points[scale_index]
        planned.append(_run(index, scales[scale_index], zero_piece, piece_shape))
    return planned


def _along(axis: int, indices: range, rank: int) -> tuple[slice, ...]:
    """The index of ``indices`` along ``axis``, everything along the others."""
    return tuple(slice(indices.start, indices.stop) if d == axis else slice(None) for d in range(rank))


def _run(
    index: tuple[slice, ...],
    scales: npt.NDArray[Any],
    zero_points: npt.NDArray[Any] | None,
    shape: tuple[int, ...],
) -> BlockedRun:
    split = block_split(shape, scales.shape)
    # One zero point stays 0-d (ascontiguousarray would make it 1-D), broadcast over the whole run.
    zero_piece = zero_points if zero_points is None or not zero_points.ndim else np.ascontiguousarray(zero_points)
    return BlockedRun(index, np.ascontiguousarray(scales), zero_piece, split)


def apart_from(array: Any, target: Any) -> Any:
    """``array`` as the runs of a call with a partial last block read it when they write ``target``: a packed
    copy where they may share memory (the first run would overwrite what the second reads; each dispatch
    snapshots only what overlaps its own output). A device array that shares memory with ``target`` is refused:
    pass a copy."""
    if not is_device_array(array):
        return array.copy() if np.may_share_memory(array, target) else array
    if may_share_memory(array, target):
        raise InvalidArgumentError(
            "x and out share memory on the device, and a partial last block runs as a second dispatch, which would "
            "read what the first one wrote: pass a copy of x, or an out apart from it"
        )
    return array


def split_view(array: Any, split: BlockSplit) -> Any:
    """A NumPy or pyopencl array of ``split.input_shape`` viewed with the split sizes: the same memory and, for a
    pyopencl array, the same events (the dispatch waits for them and adds its own)."""
    strides = split.input_strides(array.strides)  # a split is linear in the strides, so bytes split as elements do
    if is_device_array(array):
        return cl_array.Array(
            array.queue,
            split.sizes,
            array.dtype,
            data=array.base_data,
            offset=array.offset,
            strides=strides,
            events=array.events,
        )
    return np.lib.stride_tricks.as_strided(array, shape=split.sizes, strides=strides)


def split_parameter(values: npt.NDArray[Any], split: BlockSplit) -> npt.NDArray[Any]:
    """A packed scale or zero point of ``split.scale_shape`` (or one number) viewed with the split sizes: 0
    strides where it is broadcast and along each block."""
    if values.ndim == 0:
        return np.broadcast_to(values, split.sizes)
    strides = tuple(s * values.itemsize for s in split.scale_strides)
    return np.lib.stride_tricks.as_strided(values, shape=split.sizes, strides=strides, writeable=False)
