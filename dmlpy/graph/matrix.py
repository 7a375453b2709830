"""The builder functions of the matrix products: DirectMLX's ``dml::Gemm`` (DML_OPERATOR_GEMM, its arguments in its
order and with its defaults: C optional, TransA and TransB NONE, Alpha and Beta 1, no fused activation), and
``matrix_multiply_integer``, ``quantized_linear_matrix_multiply`` and ``matrix_multiply_integer_to_float``, which
DirectMLX does not offer: their arguments are the descriptors' input fields in C order, the optional zero points and
bias None by default. Each output is packed with the Sizes and DataType the operator's rule gives (``operator_node``:
A's batch Sizes, then M by N)."""

from __future__ import annotations

from typing import Any

from dmlpy.enums import MatrixTransform, TensorDataType
from dmlpy.graph.arguments import activation_argument, enum_argument, optional_operand
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import operator_node
from dmlpy.graph.values import c_float, data_type_argument
from dmlpy.ops import (
    GemmOperatorDesc,
    MatrixMultiplyIntegerOperatorDesc,
    MatrixMultiplyIntegerToFloatOperatorDesc,
    QuantizedLinearMatrixMultiplyOperatorDesc,
)


def gemm(
    a: Expression,
    b: Expression,
    c: Expression | None = None,
    trans_a: MatrixTransform | str | int = MatrixTransform.NONE,
    trans_b: MatrixTransform | str | int = MatrixTransform.NONE,
    alpha: float = 1.0,
    beta: float = 1.0,
    fused_activation: Any = None,
) -> Expression:
    """``dml::Gemm``: DML_OPERATOR_GEMM, ``fused_activation(alpha * op(a) x op(b) + beta * c)``, op transposing the
    last two dimensions where ``trans_a`` or ``trans_b`` is TRANSPOSE, one product per batch index; ``c`` (None: no
    CTensor, beta unused) has the output's Sizes; ``fused_activation`` a ``dml.FusedActivation`` or None."""
    where = "dml.graph.gemm"
    inputs = {
        "a_tensor": operand(a, where, "a"),
        "b_tensor": operand(b, where, "b"),
        "c_tensor": optional_operand(c, where, "c"),
    }
    return operator_node(
        GemmOperatorDesc,
        inputs,
        trans_a=enum_argument(MatrixTransform, trans_a, where, "trans_a"),
        trans_b=enum_argument(MatrixTransform, trans_b, where, "trans_b"),
        alpha=c_float(alpha, where, "alpha", "GEMM.Alpha"),
        beta=c_float(beta, where, "beta", "GEMM.Beta"),
        fused_activation=activation_argument(fused_activation, where),
    )


def matrix_multiply_integer(
    a: Expression, a_zero_point: Expression | None, b: Expression, b_zero_point: Expression | None = None
) -> Expression:
    """DML_OPERATOR_MATRIX_MULTIPLY_INTEGER (ONNX's MatMulInteger): INT32 ``(a - a_zero_point) x (b - b_zero_point)``;
    a zero point None is 0, one value or one per row of a (column of b)."""
    where = "dml.graph.matrix_multiply_integer"
    inputs = {
        "a_tensor": operand(a, where, "a"),
        "a_zero_point_tensor": optional_operand(a_zero_point, where, "a_zero_point"),
        "b_tensor": operand(b, where, "b"),
        "b_zero_point_tensor": optional_operand(b_zero_point, where, "b_zero_point"),
    }
    return operator_node(MatrixMultiplyIntegerOperatorDesc, inputs)


def quantized_linear_matrix_multiply(
    a: Expression,
    a_scale: Expression,
    a_zero_point: Expression | None,
    b: Expression,
    b_scale: Expression,
    b_zero_point: Expression | None,
    output_scale: Expression,
    output_zero_point: Expression | None,
    dtype: TensorDataType | str | int = TensorDataType.UINT8,
) -> Expression:
    """DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY (ONNX's QLinearMatMul): a and b dequantized, multiplied, and the
    product quantized by ``output_scale`` and ``output_zero_point``, of the output zero point's type; a zero point
    None is 0, and without ``output_zero_point`` the output is of type ``dtype`` (INT8 or UINT8; UINT8, ONNX's
    default)."""
    where = "dml.graph.quantized_linear_matrix_multiply"
    inputs = {
        "a_tensor": operand(a, where, "a"),
        "a_scale_tensor": operand(a_scale, where, "a_scale"),
        "a_zero_point_tensor": optional_operand(a_zero_point, where, "a_zero_point"),
        "b_tensor": operand(b, where, "b"),
        "b_scale_tensor": operand(b_scale, where, "b_scale"),
        "b_zero_point_tensor": optional_operand(b_zero_point, where, "b_zero_point"),
        "output_scale_tensor": operand(output_scale, where, "output_scale"),
        "output_zero_point_tensor": optional_operand(output_zero_point, where, "output_zero_point"),
    }
    chosen = None if output_zero_point is not None else data_type_argument(dtype, where)
    return operator_node(QuantizedLinearMatrixMultiplyOperatorDesc, inputs, chosen)


def matrix_multiply_integer_to_float(
    a: Expression,
    a_scale: Expression,
    a_zero_point: Expression | None,
    b: Expression,
    b_scale: Expression,
    b_zero_point: Expression | None = None,
    bias: Expression | None = None,
) -> Expression:
    """DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT: ``((a - a_zero_point) * a_scale) x ((b - b_zero_point) *
    b_scale) + bias``, of the scales' float type; a zero point or the bias None adds nothing."""
    where = "dml.graph.matrix_multiply_integer_to_float"
    inputs = {
        "a_tensor": operand(a, where, "a"),
        "a_scale_tensor": operand(a_scale, where, "a_scale"),
        "a_zero_point_tensor": optional_operand(a_zero_point, where, "a_zero_point"),
        "b_tensor": operand(b, where, "b"),
        "b_scale_tensor": operand(b_scale, where, "b_scale"),
        "b_zero_point_tensor": optional_operand(b_zero_point, where, "b_zero_point"),
        "bias_tensor": optional_operand(bias, where, "bias"),
    }
    return operator_node(MatrixMultiplyIntegerToFloatOperatorDesc, inputs)
