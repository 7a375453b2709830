"""ONNX's movement op types as DirectML's movement operators, through their builder functions
(``dmlpy.graph.movement``): Slice as SLICE1 (ONNX's starts and ends clamped per axis, a negative step a negative
InputWindowStrides), Concat as JOIN, Split as SPLIT (one expression per output), Pad as PADDING1 (constant, reflect,
edge, wrap), Tile as TILE, DepthToSpace and SpaceToDepth as DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1 (DCR and CRD).

What becomes a descriptor field (starts, ends, axes, steps, split, pads, constant_value, repeats) is fixed when the
graph is built, so it must be an initializer (read on the host through ``Fixed``). A node is read in two steps:
``movement_plan`` checks what does not depend on the shapes (attributes, the constant inputs' presence, types and
values), which ``prepare`` asks of every node; the plan's ``build`` then makes the nodes for the data inputs'
shapes, at the first ``run`` of those shapes. A form that selects no element along an axis (an empty slice, a part
of 0, a repeat of 0) is refused naming the axis: DirectML has no empty tensors; so is a negative pad (ONNX crops
there; PADDING1 only adds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import DepthSpaceOrder, PaddingMode, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.movement import depth_to_space, join, padding, slice, space_to_depth, split, tile
from dmlpy.onnx.elements import NodeRefused, expressed

MOVEMENT_OPS = ("Slice", "Concat", "Split", "Pad", "Tile", "DepthToSpace", "SpaceToDepth")
"""The op types this module lowers: each reads its data input (Concat: every input) as a tensor, the others as
descriptor fields."""

Fixed = Callable[[str, str, str, str], "np.ndarray[Any, Any]"]
"""``fixed(name, what, where, held)``: the initializer ``name`` that the node ``where`` reads as its ``what``
(starts, pads, ...); refused, saying ``held`` (which fields hold it), where it is no initializer."""
Build = Callable[[Sequence[Expression], Sequence[tuple[int, ...]]], list[Expression]]
"""A checked node's nodes, for its data inputs and their ONNX shapes: one expression per ONNX output."""

_PAD_MODES = {"constant": PaddingMode.CONSTANT, "reflect": PaddingMode.REFLECTION, "edge": PaddingMode.EDGE}
_WRAP_OPSET = 19
"""Pad's mode 'wrap' (PADDING1's WRAP) is Pad-19's."""
_ORDERS = {"DCR": DepthSpaceOrder.DEPTH_COLUMN_ROW, "CRD": DepthSpaceOrder.COLUMN_ROW_DEPTH}
_FIRST_OPSET = {"Slice": 1, "Concat": 1, "Split": 2, "Pad": 2, "Tile": 6, "DepthToSpace": 1, "SpaceToDepth": 1}
"""The first opset of each op type whose form dmlpy reads: Split-1 (its split as an attribute or a second input),
Pad-1 (paddings) and Tile-1 (tiles and axis inputs) are refused naming their opset."""
_INPUTS_FROM = {"Slice": 10, "Split": 13, "Pad": 11}
"""The opset from which Slice's starts, ends, axes and steps, Split's split and Pad's pads and constant_value are
inputs (attributes before)."""


def data_inputs(node: onnx.NodeProto) -> list[str]:
    """The node's inputs read as tensors: Concat's every input, the first for the others."""
    return list(node.input) if node.op_type == "Concat" else list(node.input[:1])


@dataclass(frozen=True)
class _Node:
    """What a movement node's plan reads: the node, its opset, where it is (for messages) and its initializers."""

    node: onnx.NodeProto
    opset: int
    where: str
    fixed: Fixed

    def attribute(self, name: str) -> Any:
        """The attribute ``name``'s value (None where it is left out), its type checked by ``check_attributes``."""
        for given in self.node.attribute:
            if given.name == name:
                return onnx.helper.get_attribute_value(given)
        return None

    def integers(self, index: int, what: str, held: str) -> list[int] | None:
        """Input ``index`` (None where it is left out), an initializer of integers of one dimension."""
        if len(self.node.input) <= index or not self.node.input[index]:
            return None
        value = self.fixed(self.node.input[index], what, self.where, held)
        if value.ndim != 1 or value.dtype.kind not in "iu":
            raise InvalidArgumentError(
                f"{self.where}: its {what} {self.node.input[index]!r} is {value.dtype} of shape {list(value.shape)}; "
                f"{self.node.op_type} takes integers in one dimension there"
            )
        return [int(v) for v in value]

    def axis(self, axis: int, rank: int, what: str = "axis") -> int:
        """``axis`` in 0 to ``rank`` - 1, a negative one counted from the end."""
        if not -rank <= axis < rank:
            raise InvalidArgumentError(
                f"{self.where}: {what} {axis} is out of range for an input of rank {rank} ({-rank} to {rank - 1})"
            )
        return axis % rank

    def empty(self, axis: int, why: str) -> NodeRefused:
        return NodeRefused(
            f"{self.where}: {why} along axis {axis}, an empty tensor; DirectML has no empty tensors (every "
            "dimension holds at least 1 element): leave the node out of the model"
        )


def check_attributes(node: onnx.NodeProto, opset: int, where: str) -> dict[str, int]:
    """The node's INT attributes (of any op type read through its schema: the movement ones, the reductions, ...),
    after checking each attribute is one its op type's schema at ``opset`` declares,
    of the declared type, the required ones given, and the opset one whose form dmlpy reads."""
    first = _FIRST_OPSET.get(node.op_type, 1)
    if opset < first:
        raise NodeRefused(
            f"{where}: {node.op_type} before opset {first} takes a form dmlpy does not read; "
            "convert the model to a later opset (onnx.version_converter)"
        )
    declared = onnx.defs.get_schema(node.op_type, opset).attributes
    integers: dict[str, int] = {}
    for attribute in node.attribute:
        if attribute.name not in declared:
            raise InvalidArgumentError(f"{where}: attribute {attribute.name!r} is none of {node.op_type}'s")
        # The schema's AttrType and the proto's AttributeType share their names (INT, INTS, STRING, ...).
        wanted = str(declared[attribute.name].type).rpartition(".")[2]
        if onnx.AttributeProto.AttributeType.Name(attribute.type) != wanted:
            raise InvalidArgumentError(
                f"{where}: attribute {attribute.name!r} is not {wanted}; {node.op_type} takes one"
            )
        if wanted == "INT":
            integers[attribute.name] = int(attribute.i)
    missing = [
        name for name, spec in declared.items() if spec.required and name not in {a.name for a in node.attribute}
    ]
    if missing:
        raise InvalidArgumentError(f"{where}: attribute {missing[0]!r} is missing; {node.op_type} requires it")
    return integers


def movement_plan(node: onnx.NodeProto, opset: int, data: Sequence[Expression], fixed: Fixed, where: str) -> Build:
    """The node checked as far as its shapes allow (``data``: its data inputs, read for their types only), and how
    to build it once the shapes are known."""
    read = _Node(node, opset, where, fixed)
    if node.op_type == "Concat":
        return _concat(read)
    if node.op_type == "Split":
        return _split(read)
    if node.op_type == "Pad":
        return _pad(read, TensorDataType(data[0].data_type))
    if node.op_type == "Tile":
        return _tile(read)
    if node.op_type == "Slice":
        return _slice(read)
    return _depth_space(read)


def _slice(read: _Node) -> Build:
    held = "DirectML's SLICE1 holds the window in descriptor fields (InputWindowOffsets, Sizes, Strides)"
    if read.opset >= _INPUTS_FROM["Slice"]:
        starts, ends, axes, steps = (
            read.integers(index, what, held) for index, what in enumerate(("starts", "ends", "axes", "steps"), 1)
        )
    else:
        starts, ends, axes, steps = read.attribute("starts"), read.attribute("ends"), read.attribute("axes"), None
    assert starts is not None and ends is not None  # required inputs (node_attributes) and attributes
    steps = steps if steps is not None else [1] * len(starts)
    if not len(starts) == len(ends) == len(steps) == len(axes if axes is not None else starts):
        raise InvalidArgumentError(
            f"{read.where}: starts, ends, axes and steps have {len(starts)}, {len(ends)}, "
            f"{len(axes) if axes is not None else '(left out)'} and {len(steps)} entries; Slice takes one per axis"
        )
    if 0 in steps:
        raise InvalidArgumentError(f"{read.where}: steps {steps}; a step may not be 0")

    def build(data: Sequence[Expression], shapes: Sequence[tuple[int, ...]]) -> list[Expression]:
        shape = shapes[0]
        chosen = [read.axis(axis, len(shape)) for axis in (axes if axes is not None else range(len(starts)))]
        if len(set(chosen)) < len(chosen):
            raise InvalidArgumentError(f"{read.where}: axes {axes} name an axis twice")
        offsets, sizes, strides = [0] * len(shape), list(shape), [1] * len(shape)
        for axis, start, end, step in zip(chosen, starts, ends, steps, strict=True):
            offsets[axis], sizes[axis], strides[axis] = _window(read, axis, shape[axis], (start, end, step))
        return [expressed(read.where, slice, data[0], offsets, sizes, strides)]

    return build


def _window(read: _Node, axis: int, dim: int, given: tuple[int, int, int]) -> tuple[int, int, int]:
    """SLICE1's InputWindowOffsets, Sizes and Strides along ``axis`` (of ``dim`` elements) for ONNX's ``given``
    start, end and step: a negative start or end counts from the end, then both are clamped, to [0, dim] for a
    positive step and to [0, dim - 1] and [-1, dim - 1] for a negative one (ONNX's Slice-10 rule); the window runs
    from the lower to the higher of the first and last element taken, read from its end where the step is
    negative."""
    start, end, step = given
    start, end = start + dim if start < 0 else start, end + dim if end < 0 else end
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
    else:
        start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    count = max(0, -((start - end) // step))  # ceil((end - start) / step), either sign
    if count == 0:
        raise read.empty(axis, f"starts {given[0]}, ends {given[1]} and steps {step} select no element of {dim}")
    last = start + (count - 1) * step
    return min(start, last), abs(last - start) + 1, step


def _concat(read: _Node) -> Build:
    def build(data: Sequence[Expression], shapes: Sequence[tuple[int, ...]]) -> list[Expression]:
        axis = read.axis(read.attribute("axis") if read.attribute("axis") is not None else 1, len(shapes[0]))
        return [expressed(read.where, join, list(data), axis)]

    return build


def _split(read: _Node) -> Build:
    held = "DirectML's SPLIT holds the parts in its output tensors' Sizes"
    outputs = len(read.node.output)
    parts = read.attribute("split") if read.opset < _INPUTS_FROM["Split"] else read.integers(1, "split", held)
    count = read.attribute("num_outputs")
    if parts is not None and count is not None:
        raise InvalidArgumentError(f"{read.where}: split and num_outputs are both given; Split takes one of them")
    if count is not None and count != outputs:
        raise InvalidArgumentError(f"{read.where}: num_outputs {count} for {outputs} outputs; give one per output")
    if parts is not None and len(parts) != outputs:
        raise InvalidArgumentError(f"{read.where}: split {list(parts)} for {outputs} outputs; give one per output")
    if parts is not None and min(parts) < 0:
        raise InvalidArgumentError(f"{read.where}: split {list(parts)}; a part may not be negative")

    def build(data: Sequence[Expression], shapes: Sequence[tuple[int, ...]]) -> list[Expression]:
        axis = read.axis(read.attribute("axis") or 0, len(shapes[0]))
        dim = shapes[0][axis]
        # No split: equal parts, the last smaller where they do not divide (Split-18's rule, onnx.reference's).
        chunk = -(-dim // outputs)
        sizes = list(parts) if parts is not None else [chunk] * (outputs - 1) + [dim - chunk * (outputs - 1)]
        if sum(sizes) != dim:
            raise InvalidArgumentError(f"{read.where}: split {sizes} sums to {sum(sizes)}; axis {axis} holds {dim}")
        if min(sizes) <= 0:
            raise read.empty(axis, f"parts {sizes} of {dim} elements leave part {sizes.index(min(sizes))} empty")
        return expressed(read.where, split, data[0], axis, sizes)

    return build


def _pad(read: _Node, data_type: TensorDataType) -> Build:
    held = "DirectML's PADDING1 holds them in descriptor fields (StartPadding, EndPadding, PaddingValue)"
    mode_name = read.attribute("mode")
    mode_text = mode_name.decode(errors="replace") if mode_name is not None else "constant"
    mode = PaddingMode.WRAP if mode_text == "wrap" and read.opset >= _WRAP_OPSET else _PAD_MODES.get(mode_text)
    if mode is None:
        modes = "'constant', 'reflect', 'edge'" + (", 'wrap'" if read.opset >= _WRAP_OPSET else "")
        raise InvalidArgumentError(f"{read.where}: mode {mode_text!r}; Pad at opset {read.opset} takes {modes}")
    value: float | int = 0
    if read.opset >= _INPUTS_FROM["Pad"]:
        pads, axes = read.integers(1, "pads", held), read.integers(3, "axes", held)
        if len(read.node.input) > 2 and read.node.input[2]:
            value = _pad_value(read, data_type, read.fixed(read.node.input[2], "constant_value", read.where, held))
    else:
        pads, axes = read.attribute("pads"), None
        value = read.attribute("value") or 0.0
    assert pads is not None  # a required input (node_attributes) and attribute
    if len(pads) % 2:
        raise InvalidArgumentError(f"{read.where}: pads has {len(pads)} entries; Pad takes a start and an end per axis")
    if min(pads, default=0) < 0:
        raise NodeRefused(
            f"{read.where}: pads {list(pads)} hold a negative pad, which ONNX reads as cropping; DirectML's PADDING1 "
            "only adds elements (StartPadding and EndPadding are UINT): crop with a Slice node instead"
        )

    def build(data: Sequence[Expression], shapes: Sequence[tuple[int, ...]]) -> list[Expression]:
        rank, half = len(shapes[0]), len(pads) // 2
        chosen = [read.axis(axis, rank) for axis in (axes if axes is not None else range(half))]
        if len(chosen) != half or (axes is None and half != rank) or len(set(chosen)) < half:
            raise InvalidArgumentError(
                f"{read.where}: pads {list(pads)} for axes {chosen} of an input of rank {rank}; Pad takes a start "
                "and an end for each axis, each axis once"
            )
        start, end = [0] * rank, [0] * rank
        for k, axis in enumerate(chosen):
            start[axis], end[axis] = pads[k], pads[half + k]
        return [expressed(read.where, padding, data[0], mode, value, start, end)]

    return build


def _pad_value(read: _Node, data_type: TensorDataType, value: np.ndarray[Any, Any]) -> float | int:
    """Pad's constant_value: one value of the data's type (a bool one as its UINT8 1 or 0)."""
    if value.size != 1:
        raise InvalidArgumentError(
            f"{read.where}: its constant_value has shape {list(value.shape)}; Pad takes one value (a scalar)"
        )
    if value.dtype == np.bool_:
        return int(value.reshape(-1)[0])
    if value.dtype != DATA_TYPES[data_type].numpy:
        raise InvalidArgumentError(
            f"{read.where}: its constant_value is {value.dtype} and its data {data_type.name}; Pad takes one type "
            "for both"
        )
    scalar: float | int = value.reshape(-1)[0].item()
    return scalar


def _tile(read: _Node) -> Build:
    repeats = read.integers(1, "repeats", "DirectML's TILE holds them in a descriptor field (Repeats)")
    assert repeats is not None  # a required input (node_attributes)
    if min(repeats, default=1) < 0:
        raise InvalidArgumentError(f"{read.where}: repeats {repeats}; a repeat may not be negative")
    if 0 in repeats:
        raise read.empty(repeats.index(0), f"repeats {repeats} repeat the input 0 times")

    def build(data: Sequence[Expression], shapes: Sequence[tuple[int, ...]]) -> list[Expression]:
        if len(repeats) != len(shapes[0]):
            raise InvalidArgumentError(
                f"{read.where}: repeats {repeats} for an input of rank {len(shapes[0])}; Tile takes one per axis"
            )
        return [expressed(read.where, tile, data[0], repeats)]

    return build


def _depth_space(read: _Node) -> Build:
    block = int(read.attribute("blocksize"))
    if block < 1:
        raise InvalidArgumentError(f"{read.where}: blocksize {block}; {read.node.op_type} takes 1 or more")
    mode = read.attribute("mode")
    mode_text = mode.decode(errors="replace") if mode is not None else "DCR"
    if mode_text not in _ORDERS:
        raise InvalidArgumentError(f"{read.where}: mode {mode_text!r}; DepthToSpace takes 'DCR' or 'CRD'")
    builder = depth_to_space if read.node.op_type == "DepthToSpace" else space_to_depth

    def build(data: Sequence[Expression], shapes: Sequence[tuple[int, ...]]) -> list[Expression]:
        return [expressed(read.where, builder, data[0], block, _ORDERS[mode_text])]

    return build
