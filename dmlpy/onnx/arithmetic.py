"""ONNX's arithmetic nodes (Add, Sub, Mul, Div, Max, Min, Sum, Mean, Mod, the comparisons, the logical and bitwise
op types, BitShift) as DirectML's binary operators, and Where as ELEMENT_WISE_IF, with ONNX's multidirectional
(NumPy) broadcasting: the output's shape is ``np.broadcast_shapes`` of the inputs', and an input
of another shape is read with the output's Sizes and 0-strides along the dimensions it repeats, as DirectML
broadcasts (its three tensors have one DimensionCount and Sizes; a rank-0 value is Sizes (1,)). PRelu is read so
too, its slope broadcast one way only (to X's shape), as DirectML's PARAMETERIZED_RELU, and Pow, its exponent of a
type of its own (ELEMENT_WISE_POW from DML_FEATURE_LEVEL_3_0), the output the base's. Where's three inputs
broadcast together, its condition an ONNX bool (UINT8, IF's ConditionTensor) and X and Y of one type.

The variadic op types are chains of binary nodes, left to right, as onnx.reference computes them: Max, Min and
Sum of a, b, c are op(op(a, b), c); one input is an ELEMENT_WISE_IDENTITY copy. Mean of two inputs is DirectML's
ELEMENT_WISE_MEAN (correctly rounded, the sum never overflowing); of three or more, the sum (ADD nodes, left to
right) divided by the input count, a constant node (DML_FEATURE_LEVEL_6_2): onnx.reference's arithmetic step for
step, each step correctly rounded in the inputs' type."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce

import numpy as np
import onnx

from dmlpy.enums import OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.nodes import CONSTANT_LEVEL
from dmlpy.graph.operators import BUILDERS
from dmlpy.onnx.elements import MAX_DIMENSIONS, NodeRefused, onnx_name
from dmlpy.onnx.equivalents import binary_equivalent
from dmlpy.onnx.nodes import LOWERED_TO
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._binary import BinaryElementWiseDesc
from dmlpy.tensor import BufferTensorDesc, packed_strides

UNIDIRECTIONAL_OPS = ("PRelu",)
"""The op types whose second input ONNX broadcasts to the first's shape, never the first to the second's
(unidirectional broadcasting): PRelu's slope, read with X's Sizes and 0-strides as PARAMETERIZED_RELU's
SlopeTensor."""
SELECTION_OPS = tuple(op for op, desc in LOWERED_TO.items() if desc.OPERATOR_TYPE == OperatorType.ELEMENT_WISE_IF)
"""Where: ELEMENT_WISE_IF, the condition first."""
MIXED_TYPE_OPS = ("Pow",)
"""The op types whose second input's type is its own (Pow's exponent, T1), the output having the first's."""
BROADCASTING_OPS = (
    *(op for op, desc in LOWERED_TO.items() if issubclass(desc, BinaryElementWiseDesc)),
    *UNIDIRECTIONAL_OPS,
    *SELECTION_OPS,
    *MIXED_TYPE_OPS,
)
"""The op types of two or more inputs that ONNX broadcasts: those lowered to binary operators (Add, Sub, ...,
Sum, Mean, Mod, BitShift), PRelu, Where and Pow."""
_CHAINED_OPS = {"Max", "Min", "Sum"}
"""The variadic op types that are a chain of their binary operator (Mean's third input is no MEAN of the first
two's)."""

Expressed = Callable[..., Expression]
"""``expressed(where, build, *args)``: a builder call whose refusal names the ONNX node (lowering's _expressed)."""


def broadcast_shape(names: Sequence[str], shapes: Sequence[tuple[int, ...]], where: str) -> tuple[int, ...]:
    """The output shape of a node whose inputs ``names`` have ``shapes``: NumPy's broadcast of them, which is
    ONNX's multidirectional broadcasting (dimensions right-aligned, each 1 or the output's)."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError as error:
        given = ", ".join(f"{name!r} {list(shape)}" for name, shape in zip(names, shapes, strict=True))
        raise InvalidArgumentError(
            f"{where}: its inputs have shapes {given}, which ONNX's multidirectional broadcasting does not join "
            "(right-aligned, each dimension 1 or the others' size)"
        ) from error


def broadcast_read(data_type: TensorDataType, shape: tuple[int, ...], output: tuple[int, ...]) -> BufferTensorDesc:
    """A value of ``shape`` read as an operand of a node whose output has shape ``output``: the output's Sizes
    (rank-0: (1,)), the value's own row-major strides where its dimension is the output's, 0 where it repeats
    (a dimension of 1, or one it lacks: ONNX aligns shapes on the right)."""
    sizes = output or (1,)
    padded = (1,) * (len(sizes) - len(shape)) + shape
    if padded == sizes:
        return BufferTensorDesc(data_type=data_type, sizes=sizes)
    strides = tuple(0 if n == 1 else stride for n, stride in zip(padded, packed_strides(padded), strict=True))
    return BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def arithmetic_node(
    op_type: str,
    desc: type[OperatorDescBase],
    found: Sequence[tuple[str, tuple[int, ...], TensorDataType]],
    read: Callable[[str, tuple[int, ...], str], Expression],
    where: str,
    expressed: Expressed,
) -> tuple[Expression, tuple[int, ...]]:
    """A node of ``op_type`` lowered to ``desc`` (``nodes.lowered_operator``) whose inputs are ``found``, (name,
    ONNX shape, data type) in the node's order: its result and ONNX shape, the inputs' broadcast, each input read
    with it by ``read(name, shape, where)`` (lowering's: ``broadcast_read`` for a graph input or initializer)."""
    selection = op_type in SELECTION_OPS
    operands = found[1:] if selection else found
    if op_type not in MIXED_TYPE_OPS and len({data_type for _, _, data_type in operands}) > 1:
        given = ", ".join(f"{name!r} {onnx_name(data_type)}" for name, _, data_type in operands)
        alike = "X and Y" if selection else "all of them"
        raise InvalidArgumentError(f"{where}: its inputs are {given}; {op_type} takes one type for {alike}")
    if selection and found[0][2] != TensorDataType.UINT8:
        raise InvalidArgumentError(
            f"{where}: its condition {found[0][0]!r} is {onnx_name(found[0][2])}; {op_type}'s condition is a bool"
        )
    names = [name for name, _, _ in found]
    shape = broadcast_shape(names, [shape for _, shape, _ in found], where)
    if op_type in UNIDIRECTIONAL_OPS and shape != found[0][1]:
        raise InvalidArgumentError(
            f"{where}: its inputs have shapes {', '.join(f'{n!r} {list(s)}' for n, s, _ in found)}; {op_type} "
            f"broadcasts {names[1]!r} to {names[0]!r}'s shape (ONNX's unidirectional broadcasting), never "
            f"{names[0]!r} to another: give {names[1]!r} a shape that broadcasts to {list(found[0][1])}"
        )
    if len(shape) > MAX_DIMENSIONS:
        raise NodeRefused(f"{where}: its output has {len(shape)} dimensions; DirectML tensors have 1 to 8")
    values = [read(name, shape, where) for name in names]
    if selection:
        return expressed(where, BUILDERS["if_"], *values), shape
    return _arithmetic(op_type, desc, values, where, expressed), shape


def _arithmetic(
    op_type: str, desc: type[OperatorDescBase], operands: Sequence[Expression], where: str, expressed: Expressed
) -> Expression:
    """The node's result from its ``operands`` (one DataType, the output's Sizes): one binary node of ``desc`` for
    Add, Sub, Mul, Div, Mod, ...; a chain, left to right, for Max, Min and Sum; Mean as the module says."""
    if len(operands) == 1:
        return expressed(where, BUILDERS["identity"], operands[0])
    equivalent = binary_equivalent(op_type, operands, where)  # PRelu of INT64, ...
    if equivalent is not None:
        return equivalent
    assert desc.BUILDER_NAME is not None, "every arithmetic operator has a builder function"
    build = BUILDERS[desc.BUILDER_NAME]
    if op_type in _CHAINED_OPS or len(operands) == 2:
        return reduce(lambda a, b: expressed(where, build, a, b), operands)
    count, level = len(operands), operands[0].graph.feature_level
    if level < CONSTANT_LEVEL:
        raise NodeRefused(
            f"{where}: a Mean of {count} inputs is their sum divided by {count}, as onnx.reference computes it "
            f"(DirectML's ELEMENT_WISE_MEAN takes two); the divisor is a constant node, which arrived at "
            f"{CONSTANT_LEVEL.c_name}, and this graph is at {level.c_name}"
        )
    total = reduce(lambda a, b: expressed(where, BUILDERS["add"], a, b), operands)
    return expressed(where, BUILDERS["divide"], total, float(count))


def check_booleans_alike(node: onnx.NodeProto, booleans: set[str], where: str) -> None:
    """InvalidArgumentError where some of the node's inputs are ONNX bools and others not: ONNX's binary op types
    take one type T for both, Where for X and Y (a bool and a UINT8 are both UINT8 to DirectML, so its validation
    cannot tell)."""
    names = node.input[1:] if node.op_type in SELECTION_OPS else node.input
    if len({name in booleans for name in names}) > 1:
        given = ", ".join(f"{name!r} {'BOOL' if name in booleans else 'not BOOL'}" for name in names)
        raise InvalidArgumentError(f"{where}: its inputs are {given}; {node.op_type} takes one type for all of them")
