"""The builder functions of the quantization operators, which take more than their fields: ``quantize_linear``
and ``dequantize_linear`` (ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR, the scale and zero point with x's
Sizes), ``quantize`` and ``dequantize`` (FL 6_3's QUANTIZE / DEQUANTIZE, which keep their own Sizes),
``quantized_linear_add`` (per-tensor scales and zero points of one element). A scale or
zero point is an expression, a number or a NumPy array, made a constant node (from 6_2): a number held by its
tensor's type (``dmlpy.graph.values``; a number zero point also checked as dml.quantize_linear checks it,
``dmlpy.quantization_values``), an array of its own type, never converted, so that the operator's rule on its
tensors' types speaks (QUANTIZE's scale has InputTensor's DataType). A call that raises leaves the graph as it was.
``dmlpy.graph.operators`` registers them in the operator table's builders."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.dtypes import DATA_TYPES, data_type_of
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.outputs import packed_output
from dmlpy.graph.values import data_type_argument, held
from dmlpy.ops import (
    DequantizeOperatorDesc,
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizedLinearAddOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    QuantizeOperatorDesc,
)
from dmlpy.ops._base import OperatorDescBase
from dmlpy.quantization_blocks import block_split
from dmlpy.quantization_values import checked_values, holds
from dmlpy.tensor import BufferTensorDesc


def _broadcast(sizes: tuple[int, ...], data_type: TensorDataType) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=sizes, strides=(0,) * len(sizes))


def _array_parameter(
    value: npt.NDArray[Any], like: Expression, data_type: TensorDataType, where: str, name: str
) -> Expression:
    """A scale or zero point given as an array of ``like``'s rank (WebNN's form), made a constant node with
    ``like``'s Sizes: 0 Strides where it is broadcast (a dimension of 1), its own where it has ``like``'s size.
    A dimension that divides ``like``'s (a block) is refused, saying how to describe ``x`` split instead: a
    graph has no Reshape to split ``x`` here."""
    try:
        split = block_split(like.sizes, value.shape, name)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{where}: {error}") from error
    if split.blocked:
        split_scale: list[int] = []
        for axis, count in enumerate(value.shape):
            split_scale += [count, 1] if axis in split.blocked else [count]
        raise InvalidArgumentError(
            f"{where}: {name} of shape {value.shape} has a value per block along axes {list(split.blocked)} of x "
            f"(Sizes {list(like.sizes)}), which reads x split, as Sizes {list(split.sizes)}; a graph's tensors keep "
            "the Sizes they were made with (there is no Reshape node here): describe x with the split Sizes (g.input "
            f"of Sizes {list(split.sizes)}, the same bytes) and give the {name} reshaped to {tuple(split_scale)}"
        )
    return like.graph.constant(
        value, BufferTensorDesc(data_type=data_type, sizes=like.sizes, strides=split.scale_strides)
    )


def _parameter(value: Any, like: Expression, data_type: TensorDataType, where: str, name: str) -> Expression:
    """A scale or zero point: an expression of ``like``'s Sizes, a number made a broadcast constant of
    ``data_type``, or an array of ``like``'s rank made a constant of its own type (``_array_parameter``)."""
    if isinstance(value, np.ndarray) and value.ndim:
        return _array_parameter(value, like, _array_type(value, where, name), where, name)
    if isinstance(value, Expression):
        if value.sizes != like.sizes:
            raise InvalidArgumentError(
                f"{where}: {name} has Sizes {list(value.sizes)}; it must have the input's Sizes {list(like.sizes)}, "
                "as DirectML's tensors do: describe a per-tensor or per-axis value with the input's Sizes and 0 "
                "Strides on the dimensions it repeats along"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise argument_error(
            where, name, value, "an expression, a number or a NumPy array of x's rank (a constant node, from 6_2)"
        )
    return like.graph.constant(_number(value, data_type, where, name), _broadcast(like.sizes, data_type))


def _number(value: Any, data_type: TensorDataType, where: str, name: str) -> npt.NDArray[Any]:
    """A number given as a scale or zero point, as its tensor's type holds it (``dmlpy.graph.values``)."""
    return held(value, data_type, where, name, f"the {name}'s DataType is")


def _array_type(value: npt.NDArray[Any], where: str, name: str) -> TensorDataType:
    """The DataType of an array given as a scale or zero point: its own, never converted, so that the operator's
    rule on its tensors' types (QUANTIZE's scale has InputTensor's DataType) speaks where it differs."""
    try:
        return TensorDataType(data_type_of(value.dtype))
    except ValueError:
        raise InvalidArgumentError(
            f"{where}: {name} is a NumPy array of {value.dtype}, which DirectML has no tensor data type for"
        ) from None


def _output_type(
    dtype: TensorDataType | str | int | None, decides: Any, default: TensorDataType, where: str, name: str
) -> TensorDataType:
    """The output's data type: that of ``decides`` (the ``name`` argument) when it is an expression, an array or
    a NumPy integer (its NumPy dtype's), else ``dtype``, else ``default``. A ``dtype`` that contradicts it is
    refused, not ignored."""
    wanted = None if dtype is None else data_type_argument(dtype, where)
    if isinstance(decides, np.integer):  # a NumPy integer zero point has its type, as dml.quantize_linear reads it
        decides = np.asarray(decides).reshape(1)
    if isinstance(decides, np.ndarray) and decides.ndim:
        given = _array_type(decides, where, name)
    elif isinstance(decides, Expression):
        given = decides.data_type
    else:
        return wanted if wanted is not None else default
    if wanted is not None and wanted != given:
        raise InvalidArgumentError(
            f"{where}: dtype is {wanted.name}, but {name} is {given.name}; the output has the {name}'s "
            f"type: leave dtype out, or give a {name} of {wanted.name}"
        )
    return given


_EIGHT_BIT = (TensorDataType.UINT8, TensorDataType.INT8)
"""What ELEMENT_WISE_QUANTIZE_LINEAR produces, in the order a zero point's ``dtype=`` fix names them."""


def _along(value: Any, like: Expression, axis: object, where: str, name: str) -> Any:
    """A scale or zero point given with ``axis`` (the one-liners' form): a 1-D array of one value per index of
    ``axis`` of x (or of one value) as an array of x's rank, 1 elsewhere; anything else as it is (a number applies
    to the whole tensor whatever the axis, as ONNX says). Without ``axis``, ``value`` as it is."""
    if axis is None:
        return value
    rank = len(like.sizes)
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer) or not -rank <= axis < rank:
        raise argument_error(where, "axis", axis, f"an int from {-rank} to {rank - 1} (x has Sizes {list(like.sizes)})")
    if not isinstance(value, np.ndarray) or not value.ndim:
        return value
    along = int(axis) % rank
    if value.ndim != 1 or value.size not in (1, like.sizes[along]):
        raise InvalidArgumentError(
            f"{where}: {name} has shape {value.shape}; with axis={axis} it is 1-D, one value per index of axis "
            f"{axis} of x (Sizes {list(like.sizes)}: {like.sizes[along]} values) or one value: give such an array, "
            "or leave axis out to give an array of x's rank"
        )
    return value.reshape([value.size if d == along else 1 for d in range(rank)])


def _check_zero_point(value: Any, data_type: TensorDataType, where: str, choices: tuple[TensorDataType, ...]) -> None:
    """InvalidArgumentError unless a number given as a zero point is one ``data_type`` holds (``checked_values``,
    dml.quantize_linear's rule: a whole number in range, never wrapped or truncated), naming the fix: the type of
    ``choices`` (what ``dtype=`` may pick; none where the zero point has x's type) that holds it."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        return  # an expression or an array has its own type; anything else is refused as a zero point later
    try:
        checked_values("zero_point", value, np.asarray(value), _numpy_type(data_type))
    except InvalidArgumentError as error:
        number = value.item() if isinstance(value, np.generic) else value
        holders = [t for t in choices if holds(number, _numpy_type(t))]
        if holders:
            fix = f"pass dtype={holders[0].name!r}, whose range holds it (the zero point has the output's type)"
        elif choices:
            fix = f"give a whole number that {' or '.join(t.name for t in choices)} holds"
        else:
            fix = f"the zero point has x's type, {data_type.name}: give one it holds"
        raise InvalidArgumentError(f"{where}: {error}, as {data_type.name} holds them; {fix}") from None


def _numpy_type(data_type: TensorDataType) -> np.dtype[Any]:
    return np.dtype(DATA_TYPES[data_type].numpy)


def _quantization_node(
    desc_class: type[OperatorDescBase],
    parameter: Callable[[Any, Expression, TensorDataType, str, str], Expression],
    x: Expression,
    scale: tuple[Expression | float | npt.NDArray[Any], TensorDataType],
    zero_point: tuple[Expression | int | npt.NDArray[Any] | None, TensorDataType, tuple[TensorDataType, ...]],
    output_type: TensorDataType,
    where: str,
) -> Expression:
    """A quantization node on ``x`` (QuantizeLinear, DequantizeLinear, FL 6_3's QUANTIZE or DEQUANTIZE): the scale
    and zero point (each a value and the data type a number becomes; for the zero point, also the types ``dtype=``
    may pick) as expressions through ``parameter``, constant nodes for numbers, all of them taken back if the
    operator refuses."""
    _check_zero_point(zero_point[0], zero_point[1], where, zero_point[2])
    with x.graph._all_or_nothing():
        scale_expression = parameter(scale[0], x, scale[1], where, "scale")
        # A number zero point takes the scale's Sizes (the zero point must have them; for the element-wise
        # operators they are x's anyway).
        zero = (
            None
            if zero_point[0] is None
            else parameter(zero_point[0], scale_expression, zero_point[1], where, "zero_point")
        )
        descs = {
            "input_tensor": x.desc,
            "scale_tensor": scale_expression.desc,
            "zero_point_tensor": None if zero is None else zero.desc,
        }
        op = desc_class.from_slots({**descs, "output_tensor": packed_output(desc_class, descs, output_type)})
        inputs = [x, scale_expression, zero]
        return x.graph.add_operator(op, inputs[: len(op.input_fields())])


def quantize_linear(
    x: Expression,
    scale: Expression | float | npt.NDArray[Any],
    zero_point: Expression | int | npt.NDArray[Any] | None = None,
    *,
    axis: int | None = None,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """``dml::QuantizeLinear``: ELEMENT_WISE_QUANTIZE_LINEAR to UINT8 or INT8: the zero point's type when it
    is an expression or an array (a ``dtype`` that differs is refused), else ``dtype`` (UINT8 when left out).

    ``scale`` and ``zero_point``: expressions of x's Sizes (0 Strides where they repeat), numbers, or NumPy
    arrays of x's rank, each dimension 1 (broadcast) or x's (per element), made constant nodes (from 6_2). A
    scale per block of elements is x described split, (blocks, block) per blocked axis, with the scale 1 along
    each block: a graph has no Reshape, so an array that blocks x's Sizes is refused, naming the split Sizes.

    ``axis`` (the one-liners' form): a 1-D array scale or zero point holds one value per index of that axis of x
    (a number still applies to the whole tensor). A number zero point must be a whole number the output type holds
    (``dtype``, UINT8 when left out), as dml.quantize_linear requires; a NumPy integer gives its own type."""
    where = "dml.graph.quantize_linear"
    x = operand(x, where, "x")
    scale, zero_point = _along(scale, x, axis, where, "scale"), _along(zero_point, x, axis, where, "zero_point")
    output_type = _output_type(dtype, zero_point, TensorDataType.UINT8, where, "zero_point")
    scale_type = TensorDataType.FLOAT32 if x.data_type == TensorDataType.INT32 else x.data_type
    return _quantization_node(
        ElementWiseQuantizeLinearOperatorDesc,
        _parameter,
        x,
        (scale, scale_type),
        (zero_point, output_type, _EIGHT_BIT),
        output_type,
        where,
    )


def dequantize_linear(
    x: Expression,
    scale: Expression | float | npt.NDArray[Any],
    zero_point: Expression | int | npt.NDArray[Any] | None = None,
    *,
    axis: int | None = None,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """``dml::DequantizeLinear``: ELEMENT_WISE_DEQUANTIZE_LINEAR to the scale's type when it is an expression
    or an array (a ``dtype`` that differs is refused), else to ``dtype`` (FLOAT32 or FLOAT16; FLOAT32 when left out).
    ``scale``, ``zero_point`` and ``axis`` as ``quantize_linear`` takes them (blocks: x described split); a number
    zero point must be a whole number x's type holds."""
    where = "dml.graph.dequantize_linear"
    x = operand(x, where, "x")
    scale, zero_point = _along(scale, x, axis, where, "scale"), _along(zero_point, x, axis, where, "zero_point")
    output_type = _output_type(dtype, scale, TensorDataType.FLOAT32, where, "scale")
    return _quantization_node(
        ElementWiseDequantizeLinearOperatorDesc,
        _parameter,
        x,
        (scale, output_type),
        (zero_point, x.data_type, ()),
        output_type,
        where,
    )


def _own_shape_parameter(value: Any, like: Expression, data_type: TensorDataType, where: str, name: str) -> Expression:
    """A quantization tensor of FL 6_3's QUANTIZE and DEQUANTIZE, which keeps its own Sizes (each dimension 1,
    x's, or a divisor of it: DirectML splits the blocks itself): an expression as it is, a number one value (a
    scale of Sizes 1, 1, ...; a zero point broadcast over ``like``, the scale, whose Sizes it must have), a NumPy
    array of x's rank a constant of its shape."""
    if isinstance(value, Expression):
        return value
    if isinstance(value, np.ndarray) and value.ndim:
        if value.ndim != len(like.sizes):
            raise InvalidArgumentError(
                f"{where}: {name} has shape {value.shape}; it must have x's rank ({len(like.sizes)}), each dimension "
                f"1, x's (Sizes {list(like.sizes)}), or a divisor of it"
            )
        own = BufferTensorDesc(data_type=_array_type(value, where, name), sizes=value.shape)
        return like.graph.constant(value, own)
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise argument_error(where, name, value, "an expression, a number or a NumPy array of x's rank")
    number = _number(value, data_type, where, name)
    if name == "scale":  # one value: Sizes of 1s, which every dimension of x divides
        return like.graph.constant(number, BufferTensorDesc(data_type=data_type, sizes=(1,) * len(like.sizes)))
    return like.graph.constant(number, _broadcast(like.sizes, data_type))


def quantize(
    x: Expression,
    scale: Expression | float | npt.NDArray[Any],
    zero_point: Expression | int | npt.NDArray[Any] | None = None,
    *,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """``DML_OPERATOR_QUANTIZE`` (DML_FEATURE_LEVEL_6_3): to INT8, INT4, UINT8 or UINT4, the zero point's type when
    it is an expression or an array (a ``dtype`` that differs is refused), else ``dtype`` (UINT8 when left out).

    ``scale`` and ``zero_point`` keep their own Sizes: expressions or NumPy arrays (constant nodes) of x's rank,
    each dimension 1, x's, or a divisor of it (a value per block: DirectML's own blocked form, no split), or
    numbers. Without a zero point the node is QuantizationType SCALE, which DirectML reads as 0 for signed types
    and the midpoint for unsigned ones (8 for UINT4, 128 for UINT8; docs/quantization.md): pass 0 for ONNX's
    rule."""
    where = "dml.graph.quantize"
    x = operand(x, where, "x")
    output_type = _output_type(dtype, zero_point, TensorDataType.UINT8, where, "zero_point")
    return _quantization_node(
        QuantizeOperatorDesc,
        _own_shape_parameter,
        x,
        (scale, x.data_type),
        (zero_point, output_type, (*_EIGHT_BIT, TensorDataType.UINT4, TensorDataType.INT4)),
        output_type,
        where,
    )


def dequantize(
    x: Expression,
    scale: Expression | float | npt.NDArray[Any],
    zero_point: Expression | int | npt.NDArray[Any] | None = None,
    *,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """``DML_OPERATOR_DEQUANTIZE`` (DML_FEATURE_LEVEL_6_3): from INT8, INT4, UINT8 or UINT4 to the scale's type
    when it is an expression or an array (a ``dtype`` that differs is refused), else to ``dtype`` (FLOAT32 or
    FLOAT16; FLOAT32 when left out). ``scale`` and ``zero_point`` as ``quantize`` takes them (SCALE without a
    zero point: the midpoint of an unsigned type)."""
    where = "dml.graph.dequantize"
    x = operand(x, where, "x")
    output_type = _output_type(dtype, scale, TensorDataType.FLOAT32, where, "scale")
    return _quantization_node(
        DequantizeOperatorDesc,
        _own_shape_parameter,
        x,
        (scale, output_type),
        (zero_point, x.data_type, ()),
        output_type,
        where,
    )


def quantized_linear_add(
    a: Expression,
    a_scale: Expression | float,
    a_zero_point: Expression | int | None,
    b: Expression,
    b_scale: Expression | float,
    b_zero_point: Expression | int | None,
    output_scale: Expression | float,
    output_zero_point: Expression | int | None = None,
    *,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """ELEMENT_WISE_QUANTIZED_LINEAR_ADD (DirectMLX has no function for it; the arguments in the C struct's order,
    ONNX QLinearAdd's): ``a`` and ``b`` (INT8 or UINT8, one Sizes) dequantized, added and quantized to the output
    zero point's type when it is an expression (a ``dtype`` that differs is refused), else to ``dtype`` (a's type
    when left out). Each scale and zero point is per-tensor: an expression of one element (Sizes 1 or a's with
    0-strides) or a number, made a constant node (from 6_2); a zero point None is 0, a number one its tensor's
    type holds."""
    where = "dml.graph.quantized_linear_add"
    a, b = operand(a, where, "a"), operand(b, where, "b")
    output_type = _output_type(dtype, output_zero_point, a.data_type, where, "output_zero_point")
    given = {
        "a_scale_tensor": (a_scale, TensorDataType.FLOAT32, "a_scale"),
        "a_zero_point_tensor": (a_zero_point, a.data_type, "a_zero_point"),
        "b_scale_tensor": (b_scale, TensorDataType.FLOAT32, "b_scale"),
        "b_zero_point_tensor": (b_zero_point, b.data_type, "b_zero_point"),
        "output_scale_tensor": (output_scale, TensorDataType.FLOAT32, "output_scale"),
        "output_zero_point_tensor": (output_zero_point, output_type, "output_zero_point"),
    }
    for value, data_type, name in given.values():
        if name.endswith("zero_point"):
            _check_zero_point(value, data_type, f"{where} ({name})", ())
    with a.graph._all_or_nothing():
        parameters = {
            field: None if value is None else _own_shape_parameter(value, a, data_type, where, name)
            for field, (value, data_type, name) in given.items()
        }
        descs = {
            "a_tensor": a.desc,
            "b_tensor": b.desc,
            **{field: None if p is None else p.desc for field, p in parameters.items()},
        }
        op = ElementWiseQuantizedLinearAddOperatorDesc.from_slots(
            {**descs, "output_tensor": packed_output(ElementWiseQuantizedLinearAddOperatorDesc, descs, output_type)}
        )
        inputs = {"a_tensor": a, "b_tensor": b, **parameters}
        return a.graph.add_operator(op, [inputs[field] for field in op.INPUTS])
