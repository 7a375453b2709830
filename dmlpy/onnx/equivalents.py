"""ONNX element-wise op types of a type their own DirectML operator's support table lacks, lowered through other
operators that compute the same values exactly (issue 46: "where DirectML's natural operator lacks a type but
another expresses the same result exactly, lower to that one"):

- Abs of an unsigned type (UINT8 to UINT64; ELEMENT_WISE_ABS takes signed types and floats): ``|x|`` is ``x``, an
  ELEMENT_WISE_IDENTITY copy.
- Relu of a type ACTIVATION_RELU lacks (INT64; its table holds FLOAT16, FLOAT32, INT8, INT16, INT32): ``max(0, x)``
  is ELEMENT_WISE_MAX of x and a constant 0 (DML_FEATURE_LEVEL_6_2's constant node), which takes every integer.
- PRelu of a type ACTIVATION_PARAMETERIZED_RELU lacks: of an unsigned type (UINT32, UINT64) no x is below 0, so
  ``y = x`` (the slope is never read: an ELEMENT_WISE_IDENTITY copy of X); of INT64, ONNX's ``x < 0 ? slope * x :
  x`` step for step, ELEMENT_WISE_IF of ELEMENT_WISE_LOGICAL_LESS_THAN(x, 0), ELEMENT_WISE_MULTIPLY(x, slope) (the
  product wraps, as NumPy's and onnx.reference's int64 product does) and x.

Still refused, DirectML's validation saying which table lacks the type, because no operator computes the same
values: Shrink of INT64 and UINT64 (ONNX adds its FLOAT bias in float64 and truncates: ACTIVATION_SHRINK's
integer tables stop at 32 bits, and no integer operator adds a fraction), Pow of an INT64 base (ELEMENT_WISE_POW
stops at 32 bits; a power by repeated products would need the exponent's values when the graph is built), every
DOUBLE op type but the moves and Cast (DirectML's FLOAT64 tables hold only those), and the moves of INT4 and UINT4
(ELEMENT_WISE_IDENTITY takes no 4-bit type)."""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.enums import OperatorType, TensorDataType
from dmlpy.graph import Expression
from dmlpy.graph.operators import BUILDERS
from dmlpy.onnx.elements import expressed
from dmlpy.ops import OPERATORS
from dmlpy.ops._types import UNSIGNED_8_32

_UNSIGNED = UNSIGNED_8_32 | {TensorDataType.UINT64}
_OWN_OPERATOR = {
    "Abs": OperatorType.ELEMENT_WISE_ABS,
    "Relu": OperatorType.ACTIVATION_RELU,
    "PRelu": OperatorType.ACTIVATION_PARAMETERIZED_RELU,
}
"""The op types this module lowers otherwise where their own operator lacks the operand's type."""


def _lacks(op_type: str, x: Expression) -> bool:
    """Whether ``op_type``'s own operator's support table, at ``x``'s graph's feature level, lacks ``x``'s type."""
    if op_type not in _OWN_OPERATOR:
        return False
    table = OPERATORS[_OWN_OPERATOR[op_type]].SUPPORT.row_for(x.graph.feature_level)
    return x.data_type not in table.types_of("OutputTensor")


def unary_equivalent(op_type: str, x: Expression, where: str) -> Expression | None:
    """Abs or Relu of ``x`` through another operator where its own lacks ``x``'s type (the module says how);
    None where the op type's own operator takes it (or refuses it with no equivalent: its builder says why)."""
    if not _lacks(op_type, x):
        return None
    if op_type == "Abs" and x.data_type in _UNSIGNED:
        return expressed(where, BUILDERS["identity"], x)
    if op_type == "Relu":
        return expressed(where, BUILDERS["max"], x, 0)
    return None


def binary_equivalent(op_type: str, operands: Sequence[Expression], where: str) -> Expression | None:
    """PRelu of X and a slope (read with X's Sizes) through other operators where ACTIVATION_PARAMETERIZED_RELU
    lacks their type (the module says how); None otherwise."""
    if op_type != "PRelu" or not _lacks(op_type, operands[0]):
        return None
    x, slope = operands
    if x.data_type in _UNSIGNED:
        return expressed(where, BUILDERS["identity"], x)
    if x.data_type != TensorDataType.INT64:
        return None
    below = expressed(where, BUILDERS["less_than"], x, 0)
    return expressed(where, BUILDERS["if_"], below, expressed(where, BUILDERS["multiply"], x, slope), x)
