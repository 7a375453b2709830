"""The builder's operator functions, ``dml.graph.<BUILDER_NAME>``, read from the operator table: one function per
operator that names a ``BUILDER_NAME`` (DirectMLX's function in snake_case: ``dml::Round`` is ``round``).

A standard unary operator (one InputTensor, one OutputTensor, any other fields) needs no code here: its function
is made from its descriptor class, ``f(x, <field>=<default>, ...)``, the output packed like ``x`` (DirectMLX's
default tensor policy: the input's Sizes, no Strides). What a keyword accepts beyond the field's own type follows
the field's type: a rounding mode by any name ``dml.round`` takes, a struct (DML_SCALE_BIAS) as a tuple of its
members. Operators whose builder takes more than their fields (QuantizeLinear and DequantizeLinear: the scale and
zero point as expressions, numbers or arrays, the output type) have a function written here, registered in
``_WRITTEN``.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.dtypes import data_type_of
from dmlpy.enums import ExtRoundingMode, RoundingMode, TensorDataType
from dmlpy.errors import InvalidArgumentError, UnsupportedError, argument_error
from dmlpy.graph.builder import Expression
from dmlpy.model import DmlModel
from dmlpy.modes import DIRECTML_EQUIVALENT, resolve_mode
from dmlpy.ops import (
    OPERATORS,
    DequantizeOperatorDesc,
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    QuantizeOperatorDesc,
)
from dmlpy.ops._base import OperatorDescBase
from dmlpy.quantization_blocks import block_split
from dmlpy.tensor import BufferTensorDesc

Builder = Callable[..., Expression]
"""A builder function: expressions (and the operator's fields) in, the node's output expression out."""


def _broadcast(sizes: tuple[int, ...], data_type: TensorDataType) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=sizes, strides=(0,) * len(sizes))


def _packed(data_type: TensorDataType, like: Expression) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=like.sizes)


def _operand(x: Any, where: str, name: str) -> Expression:
    if not isinstance(x, Expression):
        raise argument_error(where, name, x, "an expression of a dml.Graph (g.input(...), or another node's result)")
    return x


# ------------------------------------------------------------------------------- standard unary operators


@dataclass(frozen=True)
class _Keyword:
    """How a builder keyword becomes its descriptor field's value."""

    annotation: Any
    """What the keyword takes, as the signature shows it."""
    convert: Callable[[Any, str, str], Any]
    """(value, where, keyword) -> the field's value."""
    note: str = ""
    """What the docstring adds about the keyword."""


def _directml_mode(value: Any, where: str, keyword: str) -> RoundingMode:
    resolved = resolve_mode(value)
    directml = DIRECTML_EQUIVALENT.get(resolved) if isinstance(resolved, ExtRoundingMode) else resolved
    if directml is None:
        raise UnsupportedError(
            f"{where}: {keyword} {resolved.c_name} has no DirectML equivalent, and a graph holds DirectML "
            "operators only; DirectML rounds HALVES_TO_NEAREST_EVEN, TOWARD_ZERO and TOWARD_INFINITY"
        )
    return directml


def _struct_keyword(struct: type[DmlModel]) -> _Keyword:
    """A struct field (DML_SCALE_BIAS): the struct, or a tuple of its members in C order (None for a null one)."""
    members = list(struct.model_fields)

    def convert(value: Any, where: str, keyword: str) -> Any:
        if isinstance(value, tuple):
            return struct(**{member: value[index] for index, member in enumerate(members)})
        return value

    annotation = struct | tuple[tuple(struct.model_fields[m].annotation for m in members)] | None  # type: ignore[misc]
    return _Keyword(annotation, convert, f"a {struct.__name__}, or a ({', '.join(members)}) tuple")


def _keyword(desc_class: type[OperatorDescBase], field: str) -> _Keyword:
    annotation = desc_class.model_fields[field].annotation
    if annotation is RoundingMode:
        note = 'a DirectML mode by any name dml.round takes ("half_to_even", "half_away_from_zero", "toward_zero")'
        return _Keyword(RoundingMode | str | int, _directml_mode, note)
    structs = [a for a in typing.get_args(annotation) if isinstance(a, type) and issubclass(a, DmlModel)]
    if structs:
        return _struct_keyword(structs[0])
    return _Keyword(annotation, lambda value, where, keyword: value)


def unary_builder(desc_class: type[OperatorDescBase]) -> Builder:
    """The builder function of a standard unary operator, from its descriptor class alone: ``x`` (an expression)
    and its fields as keywords (named as ``BUILDER_KEYWORDS`` says, defaulting as the fields do)."""
    name = desc_class.BUILDER_NAME
    if name is None or desc_class.INPUTS != ("input_tensor",) or desc_class.OUTPUTS != ("output_tensor",):
        raise TypeError(
            f"{desc_class.__name__} is no standard unary operator with a BUILDER_NAME (one InputTensor, one "
            "OutputTensor): write its builder function in dmlpy/graph/operators.py and register it in _WRITTEN"
        )
    where = f"dml.graph.{name}"
    fields = [f for f in desc_class.model_fields if f not in (*desc_class.INPUTS, *desc_class.OUTPUTS)]
    keywords = {field: (desc_class.BUILDER_KEYWORDS.get(field, field), _keyword(desc_class, field)) for field in fields}
    parameters = [inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Expression)]
    parameters += [
        inspect.Parameter(
            keyword,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if info.is_required() else info.default,
            annotation=how.annotation,
        )
        for field, (keyword, how) in keywords.items()
        for info in (desc_class.model_fields[field],)
    ]
    signature = inspect.Signature(parameters, return_annotation=Expression)

    def build(*args: Any, **kwargs: Any) -> Expression:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        x = _operand(bound.arguments["x"], where, "x")
        values = {
            field: how.convert(bound.arguments[keyword], where, keyword) for field, (keyword, how) in keywords.items()
        }
        tensors = {"input_tensor": x.desc, "output_tensor": _packed(x.data_type, x)}
        op = desc_class(**tensors, **values)
        return x.graph.add_operator(op, [x])

    c_name = "".join(part.capitalize() for part in name.split("_"))
    lines = [
        f"``dml::{c_name}``: {desc_class.OPERATOR_TYPE.c_name} on ``x``, its output packed (the input's Sizes).",
        "",
    ]
    for field, (keyword, how) in keywords.items():
        description = (desc_class.model_fields[field].description or "").split("\n")[0].rstrip(".")
        lines.append(f"``{keyword}``: {description}{'; ' + how.note if how.note else ''}")
    build.__name__ = build.__qualname__ = name
    build.__module__ = "dmlpy.graph"
    build.__doc__ = "\n".join(lines)
    build.__signature__ = signature  # type: ignore[attr-defined]  # what help() and inspect show
    return build


# ---------------------------------------------------------------- operators with builder-specific arguments


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
    """A scale or zero point: an expression of ``like``'s Sizes, a number made a broadcast constant, or an
    array of ``like``'s rank made a constant (``_array_parameter``)."""
    if isinstance(value, np.ndarray) and value.ndim:
        return _array_parameter(value, like, data_type, where, name)
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
    return like.graph.constant(value, _broadcast(like.sizes, data_type))


def _output_type(
    dtype: TensorDataType | str | int | None, decides: Any, default: TensorDataType, where: str, name: str
) -> TensorDataType:
    """The output's data type: that of ``decides`` (the ``name`` argument) when it is an expression or an array
    (its NumPy dtype's), else ``dtype``, else ``default``. A ``dtype`` that contradicts it is refused, not
    ignored."""
    wanted = None if dtype is None else TensorDataType.parse(dtype)
    if isinstance(decides, np.ndarray) and decides.ndim:
        try:
            given = TensorDataType(data_type_of(decides.dtype))
        except ValueError:
            raise InvalidArgumentError(
                f"{where}: {name} is a NumPy array of {decides.dtype}, which DirectML has no tensor data type for"
            ) from None
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


def _quantization_node(
    desc_class: type[OperatorDescBase],
    parameter: Callable[[Any, Expression, TensorDataType, str, str], Expression],
    x: Expression,
    scale: tuple[Expression | float | npt.NDArray[Any], TensorDataType],
    zero_point: tuple[Expression | int | npt.NDArray[Any] | None, TensorDataType],
    output_type: TensorDataType,
    where: str,
) -> Expression:
    """A quantization node on ``x`` (QuantizeLinear, DequantizeLinear, FL 6_3's QUANTIZE or DEQUANTIZE): the scale
    and zero point (each a value and the data type a number becomes) as expressions through ``parameter``,
    constant nodes for numbers, all of them taken back if the operator refuses."""
    with x.graph._all_or_nothing():
        scale_expression = parameter(scale[0], x, scale[1], where, "scale")
        # A number zero point takes the scale's Sizes (the zero point must have them; for the element-wise
        # operators they are x's anyway).
        zero = (
            None
            if zero_point[0] is None
            else parameter(zero_point[0], scale_expression, zero_point[1], where, "zero_point")
        )
        op = desc_class.from_slots(
            {
                "input_tensor": x.desc,
                "scale_tensor": scale_expression.desc,
                "zero_point_tensor": None if zero is None else zero.desc,
                "output_tensor": _packed(output_type, x),
            }
        )
        inputs = [x, scale_expression, zero]
        return x.graph.add_operator(op, inputs[: len(op.input_fields())])


def quantize_linear(
    x: Expression,
    scale: Expression | float | npt.NDArray[Any],
    zero_point: Expression | int | npt.NDArray[Any] | None = None,
    *,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """``dml::QuantizeLinear``: ELEMENT_WISE_QUANTIZE_LINEAR to UINT8 or INT8: the zero point's type when it
    is an expression or an array (a ``dtype`` that differs is refused), else ``dtype`` (UINT8 when left out).

    ``scale`` and ``zero_point``: expressions of x's Sizes (0 Strides where they repeat), numbers, or NumPy
    arrays of x's rank, each dimension 1 (broadcast) or x's (per element), made constant nodes (from 6_2). A
    scale per block of elements is x described split, (blocks, block) per blocked axis, with the scale 1 along
    each block: a graph has no Reshape, so an array that blocks x's Sizes is refused, naming the split Sizes."""
    where = "dml.graph.quantize_linear"
    x = _operand(x, where, "x")
    output_type = _output_type(dtype, zero_point, TensorDataType.UINT8, where, "zero_point")
    scale_type = TensorDataType.FLOAT32 if x.data_type == TensorDataType.INT32 else x.data_type
    return _quantization_node(
        ElementWiseQuantizeLinearOperatorDesc,
        _parameter,
        x,
        (scale, scale_type),
        (zero_point, output_type),
        output_type,
        where,
    )


def dequantize_linear(
    x: Expression,
    scale: Expression | float | npt.NDArray[Any],
    zero_point: Expression | int | npt.NDArray[Any] | None = None,
    *,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """``dml::DequantizeLinear``: ELEMENT_WISE_DEQUANTIZE_LINEAR to the scale's type when it is an expression
    or an array (a ``dtype`` that differs is refused), else to ``dtype`` (FLOAT32 or FLOAT16; FLOAT32 when left out).
    ``scale`` and ``zero_point`` as ``quantize_linear`` takes them (blocks: x described split)."""
    where = "dml.graph.dequantize_linear"
    x = _operand(x, where, "x")
    output_type = _output_type(dtype, scale, TensorDataType.FLOAT32, where, "scale")
    return _quantization_node(
        ElementWiseDequantizeLinearOperatorDesc,
        _parameter,
        x,
        (scale, output_type),
        (zero_point, x.data_type),
        output_type,
        where,
    )


def _own_shape_parameter(value: Any, like: Expression, data_type: TensorDataType, where: str, name: str) -> Expression:
    """A quantization tensor of FL 6_3's QUANTIZE and DEQUANTIZE, which keeps its own Sizes (each dimension 1,
    x's, or a divisor of it: DirectML splits the blocks itself): an expression as it is, a number one value
    broadcast over ``like``'s Sizes (x's for the scale, the scale's for the zero point), a NumPy array of x's rank
    a constant of its shape."""
    if isinstance(value, Expression):
        return value
    if isinstance(value, np.ndarray) and value.ndim:
        if value.ndim != len(like.sizes):
            raise InvalidArgumentError(
                f"{where}: {name} has shape {value.shape}; it must have x's rank ({len(like.sizes)}), each dimension "
                f"1, x's (Sizes {list(like.sizes)}), or a divisor of it"
            )
        return like.graph.constant(value, BufferTensorDesc(data_type=data_type, sizes=value.shape))
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise argument_error(where, name, value, "an expression, a number or a NumPy array of x's rank")
    return like.graph.constant(value, _broadcast(like.sizes, data_type))


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
    x = _operand(x, where, "x")
    output_type = _output_type(dtype, zero_point, TensorDataType.UINT8, where, "zero_point")
    return _quantization_node(
        QuantizeOperatorDesc,
        _own_shape_parameter,
        x,
        (scale, x.data_type),
        (zero_point, output_type),
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
    x = _operand(x, where, "x")
    output_type = _output_type(dtype, scale, TensorDataType.FLOAT32, where, "scale")
    return _quantization_node(
        DequantizeOperatorDesc,
        _own_shape_parameter,
        x,
        (scale, output_type),
        (zero_point, x.data_type),
        output_type,
        where,
    )


_WRITTEN: dict[type[OperatorDescBase], Builder] = {
    ElementWiseQuantizeLinearOperatorDesc: quantize_linear,
    ElementWiseDequantizeLinearOperatorDesc: dequantize_linear,
    QuantizeOperatorDesc: quantize,
    DequantizeOperatorDesc: dequantize,
}
"""The operators whose builder functions are written above, not made from their descriptor class."""


def builders(operators: Iterable[type[OperatorDescBase]]) -> dict[str, Builder]:
    """``BUILDER_NAME`` -> builder function, for each of ``operators`` that names one."""
    return {
        desc.BUILDER_NAME: _WRITTEN.get(desc) or unary_builder(desc)
        for desc in operators
        if desc.BUILDER_NAME is not None
    }


BUILDERS = builders(OPERATORS.values())
"""``dml.graph.<name>`` for every operator of the table that names a ``BUILDER_NAME``."""
