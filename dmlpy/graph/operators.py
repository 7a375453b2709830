"""The builder's operator functions, ``dml.graph.<BUILDER_NAME>``, read from the operator table: one function per
operator that names a ``BUILDER_NAME`` (DirectMLX's function in snake_case: ``dml::Round`` is ``round``).

A standard unary operator (one InputTensor, one OutputTensor, any other fields) needs no code here: its function
is made from its descriptor class, ``f(x, <field>=<default>, ...)``, the output packed like ``x`` (DirectMLX's
default tensor policy: the input's Sizes, no Strides) and of ``x``'s type, or, for an operator that declares a
``BUILDER_OUTPUT_TYPE`` (IS_NAN, IS_INFINITY), of the type a last keyword ``dtype`` names (DirectMLX's
outputDataType, that type by default). What a keyword accepts beyond the field's own type follows
the field's type: a rounding mode by any name ``dml.round`` takes, a struct (DML_SCALE_BIAS) as a tuple of its
members. Operators whose builder takes more than their fields (QuantizeLinear and DequantizeLinear, QUANTIZE and
DEQUANTIZE: the scale and zero point as expressions, numbers or arrays, the output type) have a function written
in ``dmlpy.graph.quantization``, registered in ``_WRITTEN``.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from dmlpy.enums import ExtRoundingMode, RoundingMode, TensorDataType
from dmlpy.errors import UnsupportedError
from dmlpy.graph import (
    attention,
    convolutions,
    generators,
    indexing,
    matrix,
    movement,
    normalization,
    pooling,
    recurrent,
    reduction,
    regions,
    resampling,
)
from dmlpy.graph.binary import add1, binary_builder, if_, pow_
from dmlpy.graph.builder import EXPRESSION_OPERATORS, Expression, operand
from dmlpy.graph.dynamic_quantization import dynamic_quantize_linear
from dmlpy.graph.outputs import packed_output
from dmlpy.graph.quantization import dequantize, dequantize_linear, quantize, quantize_linear, quantized_linear_add
from dmlpy.graph.values import c_float, data_type_argument, scalar_argument, scale_bias_argument
from dmlpy.modes import DIRECTML_EQUIVALENT, resolve_mode
from dmlpy.ops import (
    OPERATORS,
    ArgMaxOperatorDesc,
    ArgMinOperatorDesc,
    AveragePooling1OperatorDesc,
    BatchNormalizationOperatorDesc,
    CastOperatorDesc,
    ConvolutionIntegerOperatorDesc,
    ConvolutionOperatorDesc,
    DepthToSpace1OperatorDesc,
    DequantizeOperatorDesc,
    DiagonalMatrix1OperatorDesc,
    DynamicQuantizeLinearOperatorDesc,
    ElementWiseAdd1OperatorDesc,
    ElementWiseClip1OperatorDesc,
    ElementWiseClipGrad1OperatorDesc,
    ElementWiseClipGradOperatorDesc,
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseIfOperatorDesc,
    ElementWisePowOperatorDesc,
    ElementWiseQuantizedLinearAddOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    FillValueConstantOperatorDesc,
    FillValueSequenceOperatorDesc,
    GatherElementsOperatorDesc,
    GatherNd1OperatorDesc,
    GatherOperatorDesc,
    GemmOperatorDesc,
    GruOperatorDesc,
    JoinOperatorDesc,
    LpPooling1OperatorDesc,
    LstmOperatorDesc,
    MatrixMultiplyIntegerOperatorDesc,
    MatrixMultiplyIntegerToFloatOperatorDesc,
    MaxPooling2OperatorDesc,
    MaxUnpoolingOperatorDesc,
    MeanVarianceNormalization1OperatorDesc,
    MeanVarianceNormalization2OperatorDesc,
    MultiheadAttentionOperatorDesc,
    NonzeroCoordinatesOperatorDesc,
    OneHotOperatorDesc,
    Padding1OperatorDesc,
    QuantizedLinearAveragePoolingOperatorDesc,
    QuantizedLinearConvolutionOperatorDesc,
    QuantizedLinearMatrixMultiplyOperatorDesc,
    QuantizeOperatorDesc,
    ReduceOperatorDesc,
    Resample2OperatorDesc,
    ReverseSubsequencesOperatorDesc,
    RnnOperatorDesc,
    RoiAlign1OperatorDesc,
    RoiPoolingOperatorDesc,
    ScaleBias,
    ScatterElementsOperatorDesc,
    ScatterNdOperatorDesc,
    Slice1OperatorDesc,
    SpaceToDepth1OperatorDesc,
    SplitOperatorDesc,
    TileOperatorDesc,
    TopK1OperatorDesc,
    Upsample2DOperatorDesc,
    ValueScale2DOperatorDesc,
)
from dmlpy.ops._base import OperatorDescBase

Builder = Callable[..., Expression]
"""A builder function: expressions (and the operator's fields) in, the node's output expression out."""


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


_SCALE_BIAS = _Keyword(
    ScaleBias | tuple[float, float] | None,
    scale_bias_argument,
    "a ScaleBias, or a (scale, bias) tuple; each a number FLOAT32 holds (no finite one beyond its range)",
)


def _keyword(desc_class: type[OperatorDescBase], field: str) -> _Keyword:
    annotation = desc_class.model_fields[field].annotation
    if annotation is RoundingMode:
        note = 'a DirectML mode by any name dml.round takes ("half_to_even", "half_away_from_zero", "toward_zero")'
        return _Keyword(RoundingMode | str | int, _directml_mode, note)
    if ScaleBias in typing.get_args(annotation):
        return _SCALE_BIAS
    if annotation is float:  # a C FLOAT
        c_name = f"{desc_class.operator_name()}.{desc_class.c_field(field)}"
        return _Keyword(float, lambda value, where, keyword: c_float(value, where, keyword, c_name))
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
    derived = (*desc_class.INPUTS, *desc_class.OUTPUTS, *desc_class.BUILDER_DERIVED)
    fields = [f for f in desc_class.model_fields if f not in derived]
    keywords = {field: (desc_class.BUILDER_KEYWORDS.get(field, field), _keyword(desc_class, field)) for field in fields}
    parameters = [inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Expression)]
    # The required fields first (CLIP's Min and Max before its ScaleBias), as DirectMLX's functions order them.
    parameters += sorted(
        (
            inspect.Parameter(
                keyword,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=desc_class.BUILDER_DEFAULTS.get(
                    field, inspect.Parameter.empty if info.is_required() else info.default
                ),
                annotation=how.annotation,
            )
            for field, (keyword, how) in keywords.items()
            for info in (desc_class.model_fields[field],)
        ),
        key=lambda parameter: parameter.default is not inspect.Parameter.empty,
    )
    output_type = desc_class.BUILDER_OUTPUT_TYPE
    if output_type is not None:  # DirectMLX's outputDataType, after the fields as dml::IsInfinity orders them
        parameters.append(
            inspect.Parameter(
                "dtype",
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=output_type,
                annotation=TensorDataType | str | int,
            )
        )
    signature = inspect.Signature(parameters, return_annotation=Expression)

    def build(*args: Any, **kwargs: Any) -> Expression:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        x = operand(bound.arguments["x"], where, "x")
        values = {
            field: how.convert(bound.arguments[keyword], where, keyword) for field, (keyword, how) in keywords.items()
        }
        chosen = None if output_type is None else data_type_argument(bound.arguments["dtype"], where)
        tensors = {"input_tensor": x.desc, "output_tensor": packed_output(desc_class, {"input_tensor": x.desc}, chosen)}
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
    if output_type is not None:
        lines.append(f"``dtype``: the output's DataType (DirectMLX's outputDataType), {output_type.name} by default")
    build.__name__ = build.__qualname__ = name
    build.__module__ = "dmlpy.graph"
    build.__doc__ = "\n".join(lines)
    build.__signature__ = signature  # type: ignore[attr-defined]  # what help() and inspect show
    return build


def clip1(x: Expression, min: Any, max: Any, scale_bias: ScaleBias | tuple[float, float] | None = None) -> Expression:
    """``dml::Clip`` at DML_FEATURE_LEVEL_5_0: DML_OPERATOR_ELEMENT_WISE_CLIP1 on ``x``, its output packed (the
    input's Sizes).

    ``min``, ``max``: the bounds, numbers x's type holds (MinMaxDataType is x's DataType), exact for every type
    ``scale_bias``: applies ``x * Scale + Bias`` first; a ScaleBias, or a (scale, bias) tuple"""
    where = "dml.graph.clip1"
    x = operand(x, where, "x")
    data_type = TensorDataType(x.data_type)
    op = ElementWiseClip1OperatorDesc(
        input_tensor=x.desc,
        output_tensor=packed_output(ElementWiseClip1OperatorDesc, {"input_tensor": x.desc}),
        scale_bias=scale_bias_argument(scale_bias, where, "scale_bias"),
        min_max_data_type=data_type,
        min=scalar_argument(min, data_type, where, "min", "x is"),
        max=scalar_argument(max, data_type, where, "max", "x is"),
    )
    return x.graph.add_operator(op, [x])


def clip_grad(x: Expression, gradient: Expression, min: float, max: float) -> Expression:
    """``dml::ClipGrad``: DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD, ``gradient`` where ``x`` lies strictly between ``min``
    and ``max``, else 0; the output packed (x's Sizes).

    ``x``: the forward input; ``gradient``: the incoming gradient, x's DataType and Sizes; ``min``, ``max``: FLOATs"""
    where = "dml.graph.clip_grad"
    x, gradient = operand(x, where, "x"), operand(gradient, where, "gradient")
    name = ElementWiseClipGradOperatorDesc.operator_name()
    op = ElementWiseClipGradOperatorDesc(
        input_tensor=x.desc,
        input_gradient_tensor=gradient.desc,
        output_gradient_tensor=packed_output(
            ElementWiseClipGradOperatorDesc, {"input_tensor": x.desc, "input_gradient_tensor": gradient.desc}
        ),
        min=c_float(min, where, "min", f"{name}.Min"),
        max=c_float(max, where, "max", f"{name}.Max"),
    )
    return x.graph.add_operator(op, [x, gradient])


def clip_grad1(x: Expression, gradient: Expression, min: Any, max: Any) -> Expression:
    """``dml::ClipGrad`` at DML_FEATURE_LEVEL_5_0: DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1, as ``clip_grad`` with bounds of
    x's type (MinMaxDataType is x's DataType), exact for every type.

    ``x``: the forward input; ``gradient``: the incoming gradient; ``min``, ``max``: numbers x's type holds"""
    where = "dml.graph.clip_grad1"
    x, gradient = operand(x, where, "x"), operand(gradient, where, "gradient")
    data_type = TensorDataType(x.data_type)
    op = ElementWiseClipGrad1OperatorDesc(
        input_tensor=x.desc,
        input_gradient_tensor=gradient.desc,
        output_gradient_tensor=packed_output(
            ElementWiseClipGrad1OperatorDesc, {"input_tensor": x.desc, "input_gradient_tensor": gradient.desc}
        ),
        min_max_data_type=data_type,
        min=scalar_argument(min, data_type, where, "min", "x is"),
        max=scalar_argument(max, data_type, where, "max", "x is"),
    )
    return x.graph.add_operator(op, [x, gradient])


def cast(x: Expression, dtype: TensorDataType | str | int) -> Expression:
    """``dml::Cast``: DML_OPERATOR_CAST, ``x`` converted to ``dtype``, its output packed (the input's Sizes).

    ``dtype``: the output's DataType (DirectMLX's targetDataType), required; docs/operators/cast.md gives the rules"""
    where = "dml.graph.cast"
    x = operand(x, where, "x")
    output = packed_output(CastOperatorDesc, {"input_tensor": x.desc}, data_type_argument(dtype, where))
    op = CastOperatorDesc(input_tensor=x.desc, output_tensor=output)
    return x.graph.add_operator(op, [x])


_WRITTEN: dict[type[OperatorDescBase], Builder] = {
    CastOperatorDesc: cast,
    ElementWiseClipGradOperatorDesc: clip_grad,
    ElementWiseClipGrad1OperatorDesc: clip_grad1,
    ElementWiseClip1OperatorDesc: clip1,
    ElementWiseIfOperatorDesc: if_,
    ElementWisePowOperatorDesc: pow_,
    ElementWiseAdd1OperatorDesc: add1,
    ElementWiseQuantizeLinearOperatorDesc: quantize_linear,
    ElementWiseDequantizeLinearOperatorDesc: dequantize_linear,
    ElementWiseQuantizedLinearAddOperatorDesc: quantized_linear_add,
    QuantizeOperatorDesc: quantize,
    DequantizeOperatorDesc: dequantize,
    DynamicQuantizeLinearOperatorDesc: dynamic_quantize_linear,  # type: ignore[dict-item]  # [y, scale, zero point]
    Slice1OperatorDesc: movement.slice,
    JoinOperatorDesc: movement.join,
    SplitOperatorDesc: movement.split,  # type: ignore[dict-item]  # a list of expressions, one per part
    Padding1OperatorDesc: movement.padding,
    TileOperatorDesc: movement.tile,
    SpaceToDepth1OperatorDesc: movement.space_to_depth,
    DepthToSpace1OperatorDesc: movement.depth_to_space,
    ReduceOperatorDesc: reduction.reduce,
    ArgMinOperatorDesc: reduction.arg_min,
    ArgMaxOperatorDesc: reduction.arg_max,
    TopK1OperatorDesc: reduction.top_k,  # type: ignore[dict-item]  # [values, indices]
    AveragePooling1OperatorDesc: pooling.average_pooling,
    LpPooling1OperatorDesc: pooling.lp_pooling,
    MaxPooling2OperatorDesc: pooling.max_pooling,  # type: ignore[dict-item]  # [values] or [values, indices]
    MaxUnpoolingOperatorDesc: pooling.max_unpooling,
    BatchNormalizationOperatorDesc: normalization.batch_normalization,
    MeanVarianceNormalization1OperatorDesc: normalization.mean_variance_normalization,
    MeanVarianceNormalization2OperatorDesc: normalization.mean_variance_normalization2,
    GatherOperatorDesc: indexing.gather,
    GatherElementsOperatorDesc: indexing.gather_elements,
    GatherNd1OperatorDesc: indexing.gather_nd,
    ScatterElementsOperatorDesc: indexing.scatter_elements,
    ScatterNdOperatorDesc: indexing.scatter_nd,
    OneHotOperatorDesc: indexing.one_hot,
    ReverseSubsequencesOperatorDesc: indexing.reverse_subsequences,
    NonzeroCoordinatesOperatorDesc: indexing.nonzero_coordinates,  # type: ignore[dict-item]  # [count, coordinates]
    FillValueConstantOperatorDesc: generators.fill_value_constant,
    FillValueSequenceOperatorDesc: generators.fill_value_sequence,
    DiagonalMatrix1OperatorDesc: generators.diagonal_matrix,
    GemmOperatorDesc: matrix.gemm,
    MatrixMultiplyIntegerOperatorDesc: matrix.matrix_multiply_integer,
    QuantizedLinearMatrixMultiplyOperatorDesc: matrix.quantized_linear_matrix_multiply,
    MatrixMultiplyIntegerToFloatOperatorDesc: matrix.matrix_multiply_integer_to_float,
    ConvolutionOperatorDesc: convolutions.convolution,
    ConvolutionIntegerOperatorDesc: convolutions.convolution_integer,
    QuantizedLinearConvolutionOperatorDesc: convolutions.quantized_linear_convolution,
    RnnOperatorDesc: recurrent.rnn,  # type: ignore[dict-item]  # [sequence, single]
    LstmOperatorDesc: recurrent.lstm,  # type: ignore[dict-item]  # [sequence, single, cell_single]
    GruOperatorDesc: recurrent.gru,  # type: ignore[dict-item]  # [sequence, single]
    Resample2OperatorDesc: resampling.resample,
    Upsample2DOperatorDesc: resampling.upsample_2d,
    ValueScale2DOperatorDesc: resampling.value_scale_2d,
    RoiPoolingOperatorDesc: regions.roi_pooling,
    QuantizedLinearAveragePoolingOperatorDesc: pooling.quantized_linear_average_pooling,
    RoiAlign1OperatorDesc: regions.roi_align,
    MultiheadAttentionOperatorDesc: attention.multihead_attention,  # type: ignore[dict-item]  # or [out, keys, values]
}
"""The operators whose builder functions are written (dmlpy.graph.quantization, movement, reduction,
normalization, indexing, generators, resampling, recurrent, convolutions), not made from their descriptor class."""


def builders(operators: Iterable[type[OperatorDescBase]]) -> dict[str, Builder]:
    """``BUILDER_NAME`` -> builder function, for each of ``operators`` that names one."""
    return {desc.BUILDER_NAME: _builder(desc) for desc in operators if desc.BUILDER_NAME is not None}


def _builder(desc: type[OperatorDescBase]) -> Builder:
    if desc in _WRITTEN:
        return _WRITTEN[desc]
    return binary_builder(desc) if len(desc.INPUTS) == 2 else unary_builder(desc)


BUILDERS = builders(OPERATORS.values())
"""``dml.graph.<name>`` for every operator of the table that names a ``BUILDER_NAME``."""

# Python's + - * / and unary - on expressions (builder.EXPRESSION_OPERATORS): these very functions, made from the table.
EXPRESSION_OPERATORS.update({name: BUILDERS[name] for name in ("add", "subtract", "multiply", "divide", "negate")})
