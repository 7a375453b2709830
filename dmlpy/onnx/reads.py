"""How a node of the normalization and indexing families reads its inputs (``dmlpy.onnx.normalization``,
``dmlpy.onnx.indexing``): the ways ``dmlpy.onnx.lowering`` reads a value, passed as one object, so that those
modules need not import the lowering that calls them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dmlpy.enums import TensorDataType
from dmlpy.graph import Expression
from dmlpy.onnx.movement import Fixed


@dataclass(frozen=True)
class Reads:
    """``shaped(name, sizes, where)``: a tensor input read with ``sizes`` (its ONNX shape with leading 1s, or a 1
    inserted: a graph input or initializer is read so; a node's output only where it was computed so, as dmlpy
    builds no Reshape); ``per_axis(name, data_name, like, axis, where, what)``: a value of one element, or one per
    index of ``axis`` of the shape ``like`` (the input ``data_name``'s, which a mismatch blames), read with
    ``like``'s Sizes and 0 strides elsewhere (BatchNormalization's statistics, InstanceNormalization's scale);
    ``strided(name, sizes, strides)``: a value read through ``sizes`` and ``strides`` counted in its packed ONNX
    array's elements (a MatMul operand's 1-D reshape and 0-strided batch, a per-row zero point);
    ``broadcast(name, like, where)``: a value read with ``like``'s Sizes and 0 strides where it repeats (NumPy's
    rule); ``fixed``: an initializer read on the host (a descriptor field); ``known(name, where)``: a value's ONNX
    shape and data type."""

    shaped: Callable[[str, Sequence[int], str], Expression]
    per_axis: Callable[[str, str, tuple[int, ...], int, str, str], Expression]
    broadcast: Callable[[str, tuple[int, ...], str], Expression]
    strided: Callable[[str, Sequence[int], Sequence[int]], Expression]
    fixed: Fixed
    known: Callable[[str, str], tuple[tuple[int, ...], TensorDataType]]


Outputs = list[tuple[Expression, tuple[int, ...]]]
"""A node's outputs: each one's expression and ONNX shape (its Sizes may hold leading 1s the shape drops)."""


def padded(shape: Sequence[int], rank: int) -> tuple[int, ...]:
    """``shape`` with leading 1s to ``rank`` dimensions (an ONNX scalar is one element: (1,))."""
    return (1,) * (rank - len(shape)) + tuple(shape) if rank else (1,)
