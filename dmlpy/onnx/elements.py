"""ONNX element types as DirectML tensor data types, their names in messages, declared shapes in messages,
NodeRefused and ``expressed`` (a builder call whose refusal names the ONNX node): the vocabulary the other modules
of dmlpy.onnx share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import DmlError, InvalidArgumentError, UnsupportedError
from dmlpy.graph import Expression

T = TensorDataType
ELEMENT_TYPES: dict[int, TensorDataType] = {
    onnx.TensorProto.FLOAT: T.FLOAT32,
    onnx.TensorProto.FLOAT16: T.FLOAT16,
    onnx.TensorProto.DOUBLE: T.FLOAT64,
    onnx.TensorProto.INT8: T.INT8,
    onnx.TensorProto.UINT8: T.UINT8,
    onnx.TensorProto.INT16: T.INT16,
    onnx.TensorProto.UINT16: T.UINT16,
    onnx.TensorProto.INT32: T.INT32,
    onnx.TensorProto.UINT32: T.UINT32,
    onnx.TensorProto.INT64: T.INT64,
    onnx.TensorProto.UINT64: T.UINT64,
    onnx.TensorProto.INT4: T.INT4,
    onnx.TensorProto.UINT4: T.UINT4,
}
"""ONNX element types DirectML has a tensor data type for."""
_ONNX_TYPES = {data_type: elem_type for elem_type, data_type in ELEMENT_TYPES.items()}


def type_name(elem_type: int) -> str:
    try:
        return str(onnx.TensorProto.DataType.Name(elem_type))
    except ValueError:  # a number TensorProto.DataType does not list
        return f"data type {elem_type}"


def onnx_element_type(data_type: TensorDataType) -> int:
    """The ONNX element type of a DirectML tensor data type (UINT8 for UINT8: a bool value is known as one by the
    node that computes it, dmlpy.onnx.nodes.boolean_output)."""
    return _ONNX_TYPES[data_type]


def onnx_name(data_type: TensorDataType) -> str:
    return type_name(onnx_element_type(data_type))


MAX_DIMENSIONS = 8
"""DirectML tensors have 1 to 8 dimensions."""


class NodeRefused(UnsupportedError):
    """An ONNX node dmlpy cannot run, with the reason (an UnsupportedError, so a dml.DmlError)."""


def element_type(elem_type: int, where: str) -> TensorDataType:
    data_type = ELEMENT_TYPES.get(elem_type)
    if data_type is None:
        raise NodeRefused(f"{where} is {type_name(elem_type)}, which DirectML has no tensor data type for")
    return data_type


BOOL_HELD_AS = TensorDataType.UINT8
"""DirectML has no bool tensors: an ONNX bool is held as UINT8 1 and 0, as its comparisons and logical operators
write their results."""


def value_type(elem_type: int, where: str) -> TensorDataType:
    """The data type a graph input or initializer of ONNX ``elem_type`` is held in: ``element_type``'s, and
    UINT8 for a bool (the nodes that take bools know it as one: dmlpy.onnx.lowering's ``booleans``)."""
    return BOOL_HELD_AS if elem_type == onnx.TensorProto.BOOL else element_type(elem_type, where)


def shown_shape(declared: Sequence[int | str | None]) -> str:
    """A declared ONNX shape as the model says it: ``[3, 'N']`` as ``[3, N]``, an unknown dimension as ``?``."""
    return "[" + ", ".join("?" if d is None else str(d) for d in declared) + "]"


def input_shape_error(
    name: str, shape: tuple[int, ...], declared: Sequence[int | str | None] | None, why: str
) -> InvalidArgumentError:
    """The array given for the model's input ``name`` has a ``shape`` the model cannot run: the message names the
    input, its shape and the declared one (or that none is), then ``why`` and the fix."""
    said = "declares no shape for it" if declared is None else f"declares {shown_shape(declared)}"
    return InvalidArgumentError(f"the model's input {name!r} has shape {shape}; the model {said}{why}")


Built = TypeVar("Built", Expression, list[Expression])


def expressed(where: str, build: Callable[..., Built], *args: Any, **kwargs: Any) -> Built:
    """``build(*args, **kwargs)``, a dml.graph node (SPLIT's: a list, one expression per output); what DirectML's
    validation refuses becomes a NodeRefused naming the ONNX node (``where``)."""
    try:
        return build(*args, **kwargs)
    except DmlError as error:
        raise NodeRefused(f"{where}: DirectML cannot express it: {error}") from error
