"""ONNX's op types that only re-describe a tensor, as DirectML expresses them: no operator, the reader's tensor desc
read through other Sizes and Strides (``dml.graph.reinterpret``; onnxruntime's DirectML provider lowers Transpose
and Expand to an ELEMENT_WISE_IDENTITY whose InputTensor is that view, and Reshape, Flatten, Squeeze and Unsqueeze
to its copy kernel, which in a graph is the same Identity node). dmlpy's graphs leave such an Identity out where
its readers read the view (``dmlpy.graph.views``), so here the view is the reader's own desc from the start:

- Transpose: Sizes and Strides permuted by ``perm`` (reversed when it is left out);
- Reshape (0 copies the input's dimension unless ``allowzero``; -1 is inferred), Flatten (``axis``), Squeeze and
  Unsqueeze (``axes``, an attribute before opset 13, an initializer from it): the same elements in the same order,
  other Sizes, packed (a value read through strides of its own is first copied packed: an Identity node);
- Expand: NumPy's broadcast of the input to the shape given, 0 Strides where it repeats.

The shapes and axes these read decide Sizes, fixed when the graph is built: each is an initializer. A graph input
or initializer read through a view is bound once more with the view's desc (``dmlpy.onnx.backend._as_read`` gives
the call the elements that desc reads); a computed value is read through it."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx

from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.onnx.attributes import ints_attribute
from dmlpy.onnx.elements import NodeRefused
from dmlpy.onnx.movement import Fixed
from dmlpy.tensor import BufferTensorDesc, packed_strides

VIEW_OPS = ("Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Expand")
_AXES_INPUT_OPSET = 13
"""Squeeze's and Unsqueeze's axes are an input from opset 13 (an attribute before)."""

Read = Callable[[Sequence[int], Sequence[int], bool], Expression]
"""``read(sizes, strides, packed)``: the node's input read through ``sizes`` and ``strides``, which count its
elements as its desc lays them out, or as its packed form does where ``packed`` (lowering's: a graph input or
initializer bound once more so, a computed value reinterpreted, first copied packed where it is not)."""


def view_node(
    node: onnx.NodeProto,
    opset: int,
    desc: BufferTensorDesc,
    shape: tuple[int, ...],
    fixed: Fixed,
    read: Read,
    prepare: bool,
    where: str,
) -> tuple[Expression, tuple[int, ...]]:
    """The node's output, its input (read as ``desc``, of ONNX shape ``shape``) through its view, and the output's
    ONNX shape. At prepare (every value one element) the initializers it reads are checked, and the input stands in
    for the output."""
    if prepare:
        _shape_input(node, 1, "axes" if node.op_type in ("Squeeze", "Unsqueeze") else "shape", fixed, where)
        return read(desc.sizes, desc.effective_strides, False), ()
    if node.op_type == "Transpose":
        perm = ints_attribute(node, "perm")
        order = list(reversed(range(len(shape)))) if perm is None else perm
        if sorted(order) != list(range(len(shape))):
            raise InvalidArgumentError(
                f"{where}: perm is {order}; it must hold each of 0 to {len(shape) - 1} once (the input has shape "
                f"{list(shape)})"
            )
        if not shape:
            return read(desc.sizes, desc.effective_strides, False), shape
        packed, strides = _as_shaped(desc, shape)
        return read([shape[d] for d in order], [strides[d] for d in order], packed), tuple(shape[d] for d in order)
    if node.op_type == "Expand":
        target = _shape_input(node, 1, "shape", fixed, where)
        assert target is not None, "node_attributes checked the schema's inputs"
        out = _broadcast_shape(shape, target, where)
        return broadcast_view(desc, shape, out, read), out
    out = _reshaped(node, opset, shape, fixed, where)
    if math.prod(out) != math.prod(shape):
        raise InvalidArgumentError(
            f"{where}: it reshapes {list(shape)} ({math.prod(shape)} elements) to {list(out)} "
            f"({math.prod(out)} elements); a reshape keeps every element"
        )
    if 0 in out:
        raise NodeRefused(f"{where}: its output's shape {list(out)} holds no element; DirectML has no empty tensors")
    sizes = out or (1,)
    return read(sizes, packed_strides(sizes), desc.effective_strides != packed_strides(desc.sizes)), out


def broadcast_view(desc: BufferTensorDesc, shape: tuple[int, ...], out: tuple[int, ...], read: Read) -> Expression:
    """A value (read as ``desc``, of ONNX ``shape``) read as one of ``out``'s shape, which it broadcasts to (NumPy's
    rule, shapes aligned on the right): 0 Strides where it repeats."""
    packed, strides = _as_shaped(desc, shape)
    padded = [(1, 0)] * (len(out) - len(shape)) + list(zip(shape, strides, strict=True))
    expanded = [0 if size == 1 and n != 1 else stride for (size, stride), n in zip(padded, out, strict=True)]
    return read(out or (1,), expanded if out else (1,), packed)


def _as_shaped(desc: BufferTensorDesc, shape: tuple[int, ...]) -> tuple[bool, tuple[int, ...]]:
    """Whether a value read as ``desc`` is read packed, and its Strides along the dimensions of its ONNX ``shape``:
    its own where its Sizes are the shape, else its packed form's (a reduction's kept 1s, a scalar's (1,)), whose
    elements lie in that shape's order."""
    if desc.sizes == shape:
        return False, desc.effective_strides
    return desc.effective_strides != packed_strides(desc.sizes), packed_strides(shape)


def _reshaped(node: onnx.NodeProto, opset: int, shape: tuple[int, ...], fixed: Fixed, where: str) -> tuple[int, ...]:
    """The output shape of a Reshape, Flatten, Squeeze or Unsqueeze node on an input of ``shape``."""
    rank = len(shape)
    if node.op_type == "Flatten":
        axis = _int(node, "axis", 1)
        if not -rank <= axis <= rank:
            raise InvalidArgumentError(f"{where}: axis is {axis}; it must be in [{-rank}, {rank}] (rank {rank})")
        axis += rank if axis < 0 else 0
        return (math.prod(shape[:axis]), math.prod(shape[axis:]))
    if node.op_type in ("Squeeze", "Unsqueeze"):
        given = opset >= _AXES_INPUT_OPSET
        axes = _shape_input(node, 1, "axes", fixed, where) if given else ints_attribute(node, "axes")
        if node.op_type == "Squeeze":
            chosen = _normalised(axes, rank, where) if axes is not None else [d for d, n in enumerate(shape) if n == 1]
            kept = [n for d, n in enumerate(shape) if d not in chosen]
            if any(shape[d] != 1 for d in chosen):
                raise InvalidArgumentError(f"{where}: axes {axes} name a dimension of {list(shape)} that is not 1")
            return tuple(kept)
        if axes is None:
            raise InvalidArgumentError(f"{where}: Unsqueeze needs axes")
        out_rank = rank + len(axes)
        chosen = _normalised(axes, out_rank, where)
        rest = iter(shape)
        return tuple(1 if d in chosen else next(rest) for d in range(out_rank))
    asked = _shape_input(node, 1, "shape", fixed, where)
    assert asked is not None
    allow_zero = _int(node, "allowzero", 0)
    out = [shape[d] if n == 0 and not allow_zero and d < rank else n for d, n in enumerate(asked)]
    if out.count(-1) > 1 or any(n < -1 for n in out):
        raise InvalidArgumentError(f"{where}: shape {asked}: at most one -1, and no other negative size")
    if -1 in out:
        known = math.prod(n for n in out if n != -1)
        if known == 0 or math.prod(shape) % known:
            raise InvalidArgumentError(
                f"{where}: shape {asked} cannot hold the {math.prod(shape)} elements of {list(shape)}"
            )
        out[out.index(-1)] = math.prod(shape) // known
    return tuple(out)


def _normalised(axes: Sequence[int], rank: int, where: str) -> list[int]:
    if any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) != len(axes):
        raise InvalidArgumentError(f"{where}: axes {list(axes)}: each in [{-rank}, {rank - 1}] and named once")
    return sorted(a % rank for a in axes)


def _broadcast_shape(shape: tuple[int, ...], target: Sequence[int], where: str) -> tuple[int, ...]:
    """NumPy's broadcast of ``shape`` and Expand's ``target``; InvalidArgumentError where they do not broadcast."""
    try:
        return tuple(int(n) for n in np.broadcast_shapes(shape, tuple(target)))
    except ValueError:
        raise InvalidArgumentError(
            f"{where}: the input's shape {list(shape)} does not broadcast to {list(target)} (NumPy's rule)"
        ) from None


def _shape_input(node: onnx.NodeProto, index: int, what: str, fixed: Fixed, where: str) -> list[int] | None:
    """Input ``index`` (None where left out): an initializer of integers of one dimension."""
    if len(node.input) <= index or not node.input[index]:
        return None
    value: np.ndarray[Any, Any] = fixed(node.input[index], what, where, _HELD)
    if value.ndim != 1 or value.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{where}: its {what} {node.input[index]!r} is {value.dtype} of shape {list(value.shape)}; "
            f"{node.op_type} takes INT64 of one dimension"
        )
    if value.size and (value.max() > 2**32 or value.min() < -(2**32)):
        raise NodeRefused(f"{where}: its {what} {value.tolist()} holds sizes beyond DirectML's 32-bit ones")
    return [int(n) for n in value]


def _int(node: onnx.NodeProto, name: str, default: int) -> int:
    for attribute in node.attribute:
        if attribute.name == name:
            return int(attribute.i)
    return default


_HELD = "DirectML holds a tensor's Sizes in its desc"
