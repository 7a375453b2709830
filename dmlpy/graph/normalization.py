"""The builder functions of the normalizations with statistics or optional inputs: DirectMLX's
``dml::BatchNormalization`` and ``dml::MeanVarianceNormalization`` (DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1), and
``mean_variance_normalization2`` (DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2, which DirectMLX does not offer: its
arguments follow ``dml::MeanVarianceNormalization``'s, UseMean and UseVariance in NormalizeVariance's place). The
output is packed with InputTensor's Sizes and DataType (``operator_node``). LOCAL_RESPONSE_NORMALIZATION and
LP_NORMALIZATION, one input and one output, get their functions from the operator table (``dmlpy.graph.operators``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.errors import argument_error
from dmlpy.graph.arguments import activation_argument, optional_operand
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import operator_node
from dmlpy.graph.values import c_float
from dmlpy.ops import (
    BatchNormalizationOperatorDesc,
    MeanVarianceNormalization1OperatorDesc,
    MeanVarianceNormalization2OperatorDesc,
)
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.fused_activation import FusedActivation


def _axes(axes: Any, where: str) -> tuple[int, ...]:
    if isinstance(axes, str) or not isinstance(axes, Sequence):
        raise argument_error(where, "axes", axes, "a list of dimensions, counted from 0 (the outermost)")
    return tuple(axes)


def batch_normalization(
    x: Expression,
    mean: Expression,
    variance: Expression,
    scale: Expression,
    bias: Expression,
    spatial: bool,
    epsilon: float,
    fused_activation: FusedActivation | None = None,
) -> Expression:
    """``dml::BatchNormalization``: DML_OPERATOR_BATCH_NORMALIZATION, ``fused_activation(scale * (x - mean) /
    sqrt(variance + epsilon) + bias)``.

    ``mean``, ``variance``, ``scale``, ``bias``: expressions of x's DataType and DimensionCount, each size 1
    (broadcast) or x's; ``spatial``: FALSE keeps the statistics' spatial dimensions from broadcasting (no effect from
    DML_FEATURE_LEVEL_4_0); ``epsilon``: added to the variance, a number FLOAT32 holds; ``fused_activation``: a
    ``dml.FusedActivation`` or None"""
    where = "dml.graph.batch_normalization"
    desc_class = BatchNormalizationOperatorDesc
    given = {"mean_tensor": mean, "variance_tensor": variance, "scale_tensor": scale, "bias_tensor": bias}
    inputs = {"input_tensor": operand(x, where, "x")}
    inputs.update({field: operand(value, where, field.removesuffix("_tensor")) for field, value in given.items()})
    return operator_node(
        desc_class,
        inputs,
        spatial=spatial,
        epsilon=c_float(epsilon, where, "epsilon", f"{desc_class.operator_name()}.Epsilon"),
        fused_activation=activation_argument(fused_activation, where),
    )


def _mean_variance(
    desc_class: type[OperatorDescBase],
    where: str,
    x: Expression,
    scale: Expression | None,
    bias: Expression | None,
    axes: Sequence[int],
    epsilon: float,
    fused_activation: FusedActivation | None,
    **fields: Any,
) -> Expression:
    inputs = {
        "input_tensor": operand(x, where, "x"),
        "scale_tensor": optional_operand(scale, where, "scale"),
        "bias_tensor": optional_operand(bias, where, "bias"),
    }
    return operator_node(
        desc_class,
        inputs,
        axes=_axes(axes, where),
        epsilon=c_float(epsilon, where, "epsilon", f"{desc_class.operator_name()}.Epsilon"),
        fused_activation=activation_argument(fused_activation, where),
        **fields,
    )


def mean_variance_normalization(
    x: Expression,
    scale: Expression | None,
    bias: Expression | None,
    axes: Sequence[int],
    normalize_variance: bool,
    epsilon: float,
    fused_activation: FusedActivation | None = None,
) -> Expression:
    """``dml::MeanVarianceNormalization``: DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, ``fused_activation(scale * (x -
    mean) / sqrt(variance + epsilon) + bias)`` with the mean and variance over ``axes`` (without
    ``normalize_variance``, ``scale * (x - mean) + bias``).

    ``scale``, ``bias``: expressions broadcast to x (each size 1 or x's), or None to leave one out (DirectMLX's
    Optional; below DML_FEATURE_LEVEL_5_2 both or neither); ``axes``: the dimensions, counted from 0;
    ``epsilon``: a number FLOAT32 holds; ``fused_activation``: a ``dml.FusedActivation`` or None"""
    return _mean_variance(
        MeanVarianceNormalization1OperatorDesc,
        "dml.graph.mean_variance_normalization",
        x,
        scale,
        bias,
        axes,
        epsilon,
        fused_activation,
        normalize_variance=normalize_variance,
    )


def mean_variance_normalization2(
    x: Expression,
    scale: Expression | None,
    bias: Expression | None,
    axes: Sequence[int],
    use_mean: bool,
    use_variance: bool,
    epsilon: float,
    fused_activation: FusedActivation | None = None,
) -> Expression:
    """DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2 (DML_FEATURE_LEVEL_6_3; not in DirectMLX: the arguments of
    ``dml::MeanVarianceNormalization``, ``use_mean`` and ``use_variance`` in NormalizeVariance's place):
    ``fused_activation(scale * (x - mean) / sqrt(variance + epsilon) + bias)``, the mean subtracted only under
    ``use_mean``, the division only under ``use_variance``.

    ``scale``, ``bias``: expressions broadcast to x, or None, each on its own; ``axes``: the dimensions, counted
    from 0; ``epsilon``: a number FLOAT32 holds; ``fused_activation``: a ``dml.FusedActivation`` or None"""
    return _mean_variance(
        MeanVarianceNormalization2OperatorDesc,
        "dml.graph.mean_variance_normalization2",
        x,
        scale,
        bias,
        axes,
        epsilon,
        fused_activation,
        use_mean=use_mean,
        use_variance=use_variance,
    )
