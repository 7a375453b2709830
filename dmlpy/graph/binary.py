"""The builder functions of the binary element-wise operators, ``dml.graph.add(a, b)`` and the rest, made from
their descriptor classes: DirectMLX's ``dml::Add(a, b)``, where ``a`` and ``b`` have one DataType and Sizes and the
output is packed like them. One of them may be a number or a NumPy array instead of an expression (a constant
node, DML_FEATURE_LEVEL_6_2 and up): a number is broadcast over the other's Sizes with 0-strides, an array of the
other's rank is broadcast along its dimensions of size 1 (NumPy's rule within one rank). Two expressions of
different Sizes are refused with what to do: DirectML broadcasts by Strides, so a graph input that repeats is
described with the full Sizes and 0-strides (``g.input``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from dmlpy.dtypes import DATA_TYPES, data_type_of
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.graph.builder import Expression
from dmlpy.graph.outputs import packed_output
from dmlpy.graph.values import data_type_argument, held
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.element_wise_add1 import ElementWiseAdd1OperatorDesc
from dmlpy.ops.element_wise_if import ElementWiseIfOperatorDesc
from dmlpy.ops.element_wise_pow import ElementWisePowOperatorDesc
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.tensor import BufferTensorDesc

Builder = Callable[..., Expression]


def binary_builder(desc_class: type[OperatorDescBase]) -> Builder:
    """The builder function of an operator of two inputs and one output (the binary operators, PARAMETERIZED_RELU's
    input and slope, RELU_GRAD's input and gradient): ``f(a, b)``, its inputs in binding order, an expression and an
    expression, number or array."""
    name = desc_class.BUILDER_NAME
    assert name is not None and len(desc_class.INPUTS) == 2 and len(desc_class.OUTPUTS) == 1
    where = f"dml.graph.{name}"
    (first, second), (output,) = desc_class.INPUTS, desc_class.OUTPUTS

    output_type = desc_class.BUILDER_OUTPUT_TYPE

    def build(a: Expression | Any, b: Expression | Any, dtype: Any = output_type) -> Expression:
        like = a if isinstance(a, Expression) else b
        if not isinstance(like, Expression):
            raise argument_error(
                where, "a", a, "an expression of a dml.Graph (a or b; the other may be a number or a NumPy array)"
            )
        chosen = None if output_type is None else data_type_argument(dtype, where)
        with like.graph._all_or_nothing():  # a constant made, then the operator refused
            a_value = broadcast_operand(a, like, where, "a")
            b_value = broadcast_operand(b, like, where, "b")
            inputs = {first: a_value.desc, second: b_value.desc}
            op = desc_class(**inputs, **{output: packed_output(desc_class, inputs, chosen)})
            return like.graph.add_operator(op, [a_value, b_value])

    c_name = "".join(part.capitalize() for part in name.split("_"))
    build.__name__ = build.__qualname__ = name
    build.__module__ = "dmlpy.graph"
    build.__doc__ = (
        f"``dml::{c_name}``: {desc_class.OPERATOR_TYPE.c_name} of ``a`` ({desc_class.c_field(first)}) and ``b`` "
        f"({desc_class.c_field(second)}), the output packed (their Sizes).\n\n"
        "``a``, ``b``: expressions of one DataType and Sizes; one of them may be a number (broadcast) or a NumPy "
        "array of the other's rank (broadcast along its dimensions of size 1), made a constant node (from 6_2)."
    )
    operand_annotation = "Expression | float | ndarray"
    parameters = [
        inspect.Parameter("a", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=operand_annotation),
        inspect.Parameter("b", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=operand_annotation),
    ]
    if output_type is not None:  # DirectMLX's outputDataType
        build.__doc__ += (
            f"\n``dtype``: the output's DataType (DirectMLX's outputDataType), {output_type.name} by default"
        )
        parameters.append(
            inspect.Parameter(
                "dtype",
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=output_type,
                annotation="TensorDataType | str | int",
            )
        )
    build.__signature__ = inspect.Signature(parameters, return_annotation=Expression)  # type: ignore[attr-defined]
    return build


def if_(condition: Expression | Any, a: Expression | Any, b: Expression | Any) -> Expression:
    """``dml::If``: DML_OPERATOR_ELEMENT_WISE_IF, ``a`` where ``condition`` is nonzero, else ``b``, the output packed
    (their Sizes).

    ``condition``: a UINT8 expression, or a NumPy array of UINT8 (a constant node, from 6_2); ``a``, ``b``:
    expressions of one DataType and Sizes, one of them may be a number or a NumPy array (broadcast constants)."""
    where = "dml.graph.if_"
    like = a if isinstance(a, Expression) else b
    if not isinstance(like, Expression):
        raise argument_error(where, "a", a, "an expression of a dml.Graph (a or b: its DataType is the output's)")
    with like.graph._all_or_nothing():  # a constant made, then the operator refused
        a_value = broadcast_operand(a, like, where, "a")
        b_value = broadcast_operand(b, like, where, "b")
        condition_value = broadcast_operand(condition, like, where, "condition", TensorDataType.UINT8)
        inputs = {"condition_tensor": condition_value.desc, "a_tensor": a_value.desc, "b_tensor": b_value.desc}
        op = ElementWiseIfOperatorDesc(**inputs, output_tensor=packed_output(ElementWiseIfOperatorDesc, inputs))
        return like.graph.add_operator(op, [condition_value, a_value, b_value])


def pow_(x: Expression | Any, exponent: Expression | Any) -> Expression:
    """``dml::Pow``: DML_OPERATOR_ELEMENT_WISE_POW, ``x`` to the power ``exponent``, the output packed (x's Sizes, x's
    DataType). Called as ``dml.graph.pow`` (its BUILDER_NAME); named ``pow_`` here so as not to shadow the builtin.

    ``x``, ``exponent``: expressions of one Sizes; the exponent's DataType may differ from x's (from
    DML_FEATURE_LEVEL_3_0). One of them may be a number or a NumPy array of the other's rank (a constant node, from
    6_2), of the other's DataType."""
    where = "dml.graph.pow"
    like = x if isinstance(x, Expression) else exponent
    if not isinstance(like, Expression):
        raise argument_error(where, "x", x, "an expression of a dml.Graph (x or exponent; the other may be a number)")
    with like.graph._all_or_nothing():  # a constant made, then the operator refused
        base = broadcast_operand(x, like, where, "x")
        exponent_type = exponent.data_type if isinstance(exponent, Expression) else None
        power = broadcast_operand(exponent, like, where, "exponent", exponent_type)
        inputs = {"input_tensor": base.desc, "exponent_tensor": power.desc}
        op = ElementWisePowOperatorDesc(**inputs, output_tensor=packed_output(ElementWisePowOperatorDesc, inputs))
        return like.graph.add_operator(op, [base, power])


def broadcast_operand(
    value: Any, like: Expression, where: str, name: str, data_type: TensorDataType | None = None
) -> Expression:
    """``value`` as an operand of ``like``'s Sizes and ``data_type`` (``like``'s by default): an expression of them
    as it is; a number or an array of ``like``'s rank (each dimension 1 or ``like``'s) a constant node read with
    0-strides where it repeats. Refused: another expression's Sizes or DataType, an array of another dtype, a
    number the DataType does not hold (``dmlpy.graph.values``), which would otherwise change silently."""
    data_type = like.data_type if data_type is None else data_type
    if isinstance(value, Expression):
        for what, given, wanted in (("DataType", value.data_type, data_type), ("Sizes", value.sizes, like.sizes)):
            if given != wanted:
                raise InvalidArgumentError(
                    f"{where}: {name} has {what} {_shown(given)}, the other operand {_shown(wanted)}; the operands of "
                    "a binary operator have one DataType and Sizes. DirectML broadcasts by Strides: describe a graph "
                    "input that repeats with the full Sizes and 0-strides along the repeated dimensions (g.input), "
                    "or give the value as a number or a NumPy array"
                )
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | np.number | np.ndarray):
        raise argument_error(where, name, value, "an expression, a number or a NumPy array of the other's rank")
    if isinstance(value, np.ndarray) and value.ndim and value.dtype != DATA_TYPES[data_type].numpy:
        raise InvalidArgumentError(
            f"{where}: {name} is a NumPy array of {_type_name(value.dtype)}; the other operand is "
            f"{data_type.name}: give an array of {DATA_TYPES[data_type].numpy} (the operands have one DataType)"
        )
    holder = "the other operand is" if data_type == like.data_type else "its DataType is"
    array = held(value, data_type, where, name, holder)
    if not array.ndim:
        return like.graph.constant(array, _described(like.sizes, data_type, (0,) * len(like.sizes)))
    ranks_agree = array.ndim == len(like.sizes)
    fits = ranks_agree and all(n in (1, size) for n, size in zip(array.shape, like.sizes, strict=True))
    if not fits:
        raise InvalidArgumentError(
            f"{where}: {name} has shape {array.shape}; an array operand has the other's rank and, along each "
            f"dimension, 1 (broadcast) or the other's size (Sizes {list(like.sizes)})"
        )
    strides = _packed_strides(array.shape)
    return like.graph.constant(array, _described(like.sizes, data_type, strides))


def _packed_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides of ``shape``, 0 along its dimensions of size 1 (where it is broadcast)."""
    strides, reach = [], 1
    for size in reversed(shape):
        strides.append(0 if size == 1 else reach)
        reach *= size
    return tuple(reversed(strides))


def _described(sizes: tuple[int, ...], data_type: TensorDataType, strides: tuple[int, ...]) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def _type_name(dtype: np.dtype[Any]) -> str:
    try:
        return TensorDataType(data_type_of(dtype)).name
    except (ValueError, KeyError):
        return str(dtype)


def _shown(value: Any) -> str:
    return value.name if isinstance(value, TensorDataType) else str(list(value))


def add1(a: Expression | Any, b: Expression | Any, fused_activation: FusedActivation | None = None) -> Expression:
    """``dml::Add`` with DirectMLX's FusedActivation: DML_OPERATOR_ELEMENT_WISE_ADD1, ``fused_activation(a + b)``,
    the output packed (their Sizes); FLOAT32 or FLOAT16.

    ``a``, ``b``: as ``add`` takes them; ``fused_activation``: a ``dml.FusedActivation`` (Type, one of the
    activations DirectML fuses, and Desc, its fields with InputTensor and OutputTensor null), or None for a + b."""
    where = "dml.graph.add1"
    like = a if isinstance(a, Expression) else b
    if not isinstance(like, Expression):
        raise argument_error(
            where, "a", a, "an expression of a dml.Graph (a or b; the other may be a number or a NumPy array)"
        )
    if fused_activation is not None and not isinstance(fused_activation, FusedActivation):
        raise argument_error(
            where, "fused_activation", fused_activation, "a dml.FusedActivation(type=..., desc={...}) or None"
        )
    with like.graph._all_or_nothing():
        a_value = broadcast_operand(a, like, where, "a")
        b_value = broadcast_operand(b, like, where, "b")
        inputs = {"a_tensor": a_value.desc, "b_tensor": b_value.desc}
        op = ElementWiseAdd1OperatorDesc(
            **inputs,
            output_tensor=packed_output(ElementWiseAdd1OperatorDesc, inputs),
            fused_activation=fused_activation,
        )
        return like.graph.add_operator(op, [a_value, b_value])
