"""ONNX's reductions as DirectML's REDUCE, ARGMAX and ARGMIN, through their builder functions
(``dmlpy.graph.reduction``): ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
ReduceLogSum, ReduceLogSumExp and ReduceSumSquare as REDUCE's SUM, AVERAGE, MAX, MIN, MULTIPLY, L1, L2, LOG_SUM,
LOG_SUM_EXP and SUM_SQUARE; ArgMax and ArgMin as ARGMAX and ARGMIN with INT64 indices (ONNX's output type), the last
of equal extremes (select_last_index 1) as AxisDirection DECREASING.

The axes are an attribute before opset 18 (ReduceSum: 13) and an input from it, which becomes REDUCE's Axes
field, fixed when the graph is built, so it must be an initializer. Left out or empty, the axes are every axis,
or none with noop_with_empty_axes 1 (the node is then a copy, ELEMENT_WISE_IDENTITY). DirectML keeps the reduced
dimensions (Sizes 1 there); ONNX's keepdims 0 drops them: the output's bytes are the same, so the value's ONNX
shape drops them while its Sizes keep them (an element-wise node after it reads it as it is; a node that reads its
shape, a movement or a broadcasting one, is refused by the lowering saying why)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import onnx

from dmlpy.enums import AxisDirection, ReduceFunction, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.reduction import arg_max, arg_min, reduce
from dmlpy.onnx.elements import expressed
from dmlpy.onnx.movement import Fixed

REDUCE_FUNCTIONS = {
    "ReduceSum": ReduceFunction.SUM,
    "ReduceMean": ReduceFunction.AVERAGE,
    "ReduceMax": ReduceFunction.MAX,
    "ReduceMin": ReduceFunction.MIN,
    "ReduceProd": ReduceFunction.MULTIPLY,
    "ReduceL1": ReduceFunction.L1,
    "ReduceL2": ReduceFunction.L2,
    "ReduceLogSum": ReduceFunction.LOG_SUM,
    "ReduceLogSumExp": ReduceFunction.LOG_SUM_EXP,
    "ReduceSumSquare": ReduceFunction.SUM_SQUARE,
}
"""The Reduce op types -> REDUCE's Function."""
INDEX_OPS = {"ArgMax": arg_max, "ArgMin": arg_min}
REDUCTION_OPS = (*REDUCE_FUNCTIONS, *INDEX_OPS)
_AXES_INPUT_FROM = {"ReduceSum": 13}
"""The opset from which the axes are an input (18 for the others): an attribute before."""
_AXES_INPUT_OPSET = 18
ONNX_INDEX_TYPE = TensorDataType.INT64
"""ArgMax's and ArgMin's output type: ONNX's indices are int64."""

Reduced = Callable[[Expression, "tuple[int, ...] | None"], tuple[Expression, tuple[int, ...]]]
"""A checked node's node, for its data input and its ONNX shape: the expression (Sizes of the input's rank) and the
output's ONNX shape. At prepare (the shape None: the input is one element) the operator reduces that element's one
dimension, so that DirectML's type rules are checked before the first run; the axes are checked at run."""


def reduction_plan(node: onnx.NodeProto, opset: int, attributes: dict[str, int], fixed: Fixed, where: str) -> Reduced:
    """The node checked as far as its input's shape allows (attributes, the axes' initializer), and how to build
    it for the input's shape (``Reduced``)."""
    keep = attributes.get("keepdims", 1)
    if keep not in (0, 1):
        raise InvalidArgumentError(f"{where}: keepdims {keep}; ONNX takes 0 or 1")
    if node.op_type in INDEX_OPS:
        return _index_plan(node, attributes, bool(keep), where)
    noop = attributes.get("noop_with_empty_axes", 0)
    if noop not in (0, 1):
        raise InvalidArgumentError(f"{where}: noop_with_empty_axes {noop}; ONNX takes 0 or 1")
    axes = _given_axes(node, opset, fixed, where)
    function = REDUCE_FUNCTIONS[node.op_type]

    def build(x: Expression, shape: tuple[int, ...] | None) -> tuple[Expression, tuple[int, ...]]:
        if not axes and noop:
            return expressed(where, BUILDERS["identity"], x), shape or ()
        if shape is None:
            return expressed(where, reduce, x, function, (0,)), ()
        chosen = _checked_axes(axes or list(range(len(shape))), len(shape), where)
        # An ONNX scalar is one element of Sizes (1,): reducing it reduces that dimension.
        result = expressed(where, reduce, x, function, chosen or (0,))
        return result, _onnx_shape(shape, chosen, keep=bool(keep))

    return build


def _index_plan(node: onnx.NodeProto, attributes: dict[str, int], keep: bool, where: str) -> Reduced:
    last = attributes.get("select_last_index", 0)
    if last not in (0, 1):
        raise InvalidArgumentError(f"{where}: select_last_index {last}; ONNX takes 0 or 1")
    direction = AxisDirection.DECREASING if last else AxisDirection.INCREASING
    axis = attributes.get("axis", 0)

    def build(x: Expression, shape: tuple[int, ...] | None) -> tuple[Expression, tuple[int, ...]]:
        if shape is None:
            return expressed(where, INDEX_OPS[node.op_type], x, (0,), direction, ONNX_INDEX_TYPE), ()
        chosen = _checked_axes([axis], len(shape), where) if shape else ()
        result = expressed(where, INDEX_OPS[node.op_type], x, chosen or (0,), direction, ONNX_INDEX_TYPE)
        return result, _onnx_shape(shape, chosen, keep=keep)

    return build


def _given_axes(node: onnx.NodeProto, opset: int, fixed: Fixed, where: str) -> list[int]:
    """The node's axes (empty where left out): its attribute, or from ``_AXES_INPUT_FROM`` its second input, an
    initializer of integers of one dimension."""
    if opset < _AXES_INPUT_FROM.get(node.op_type, _AXES_INPUT_OPSET):
        given = next((a for a in node.attribute if a.name == "axes"), None)
        return [int(v) for v in given.ints] if given is not None else []
    if len(node.input) < 2 or not node.input[1]:
        return []
    held = "DirectML's REDUCE holds them in a descriptor field (Axes)"
    value = fixed(node.input[1], "axes", where, held)
    if value.ndim != 1 or value.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{where}: its axes {node.input[1]!r} is {value.dtype} of shape {list(value.shape)}; "
            f"{node.op_type} takes integers in one dimension there"
        )
    return [int(v) for v in value]


def _checked_axes(axes: Sequence[int], rank: int, where: str) -> tuple[int, ...]:
    """``axes`` in 0 to ``rank`` - 1 (a negative one counted from the end), each once, ascending."""
    bound = max(rank, 1)  # an ONNX scalar's one element: axis 0 or -1 of Sizes (1,)
    wrong = [axis for axis in axes if not -bound <= axis < bound]
    if wrong:
        raise InvalidArgumentError(
            f"{where}: axis {wrong[0]} is out of range for an input of rank {rank} ({-bound} to {bound - 1})"
        )
    chosen = [axis % bound for axis in axes]
    if len(set(chosen)) < len(chosen):
        raise InvalidArgumentError(f"{where}: axes {list(axes)} name an axis twice")
    return tuple(sorted(chosen)) if rank else ()


def _onnx_shape(shape: tuple[int, ...], axes: tuple[int, ...], *, keep: bool) -> tuple[int, ...]:
    """The output's ONNX shape: the input's, each reduced dimension 1 (keepdims 1) or left out (keepdims 0)."""
    if keep:
        return tuple(1 if d in axes else size for d, size in enumerate(shape))
    return tuple(size for d, size in enumerate(shape) if d not in axes)
