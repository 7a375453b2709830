"""ONNX's Cast and CastLike as DirectML's CAST: the target type is Cast's ``to`` attribute, or CastLike's second
input's type (only its type is read, never its values). The conversion is DirectML's (docs/operators/cast.md), as
docs/conformance.md's policy says where onnx.reference's differs: a NaN or an out-of-range float to an integer is
0 or saturated here, where NumPy's conversion, which onnx.reference runs, is undefined in C.

A bool target is ONNX's ``x != 0`` (a NaN is true, 0.5 true), not a conversion to the UINT8 that holds a bool:
LOGICAL_EQUALS with 0, then LOGICAL_NOT, giving UINT8 1 and 0; a bool source is UINT8 1 and 0 already. Types DirectML
has no tensor for (STRING, BFLOAT16, the float8, float4 and 2-bit types) are refused, and with them the ``saturate``
attribute, which only the float8 targets read."""

from __future__ import annotations

import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.operators import BUILDERS
from dmlpy.onnx.elements import BOOL_HELD_AS, expressed, onnx_element_type, value_type
from dmlpy.ops._types import FLOATS_AND_FLOAT64

CAST_OPS = ("Cast", "CastLike")


def cast_target(
    node: onnx.NodeProto, attributes: dict[str, int], like: list[tuple[TensorDataType, bool]], where: str
) -> int:
    """The ONNX element type ``node`` converts to: Cast's ``to``, or CastLike's target_type's, given in ``like`` as
    its data type and whether it is an ONNX bool."""
    if node.op_type == "CastLike":
        ((data_type, boolean),) = like
        return onnx.TensorProto.BOOL if boolean else onnx_element_type(data_type)
    if "to" not in attributes:
        raise InvalidArgumentError(f"{where}: it has no 'to' attribute; Cast takes the target type there")
    return attributes["to"]


def cast_node(x: Expression, input_is_boolean: bool, target: int, where: str) -> Expression:
    """``x`` converted to the ONNX element type ``target`` as DirectML's CAST converts (a bool target as
    ``x != 0``)."""
    data_type = value_type(target, f"{where}: its target type")
    if target == onnx.TensorProto.BOOL:
        if input_is_boolean:
            return expressed(where, BUILDERS["identity"], x)
        zero = 0.0 if x.data_type in FLOATS_AND_FLOAT64 else 0
        equal = expressed(where, BUILDERS["equals"], x, zero, dtype=BOOL_HELD_AS)
        return expressed(where, BUILDERS["logical_not"], equal)
    return expressed(where, BUILDERS["cast"], x, data_type)
