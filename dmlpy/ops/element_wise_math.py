"""DirectML's unary float math operators: SQRT, RECIP, EXP, LOG, the trigonometric and hyperbolic functions and
their inverses, ERF (docs/operators/element_wise_math.md). Each is ``f(x * Scale + Bias)`` with the optional
ScaleBias, FLOAT32 and FLOAT16 only, in place allowed, with the support table Microsoft's pages give CEIL: exactly
4 dimensions from the level that introduced it, 1 to 8 from DML_FEATURE_LEVEL_3_0.

SQRT and RECIP are correctly rounded (the template builds with -cl-fp32-correctly-rounded-divide-sqrt); the others are
dmlpy's own float arithmetic (opencl/float_math.h: the same bits on every device), within ``FLOAT32_ULPS`` of the
exact result: what was measured, with a margin (docs/operators/element_wise_math.md), at most the OpenCL
specification's bound for the built-in each replaced. A FLOAT16 result lies within one ULP of half precision of the
correctly rounded half."""

from __future__ import annotations

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.ops._unary import UnaryMathDesc, float_math_support

FL_1_0, FL_2_0 = FeatureLevel.FL_1_0, FeatureLevel.FL_2_0


class ElementWiseSqrtOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_SQRT_OPERATOR_DESC: OutputTensor = sqrt(InputTensor * Scale + Bias), correctly rounded."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_SQRT
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "SQRT", 0
    BUILDER_NAME, ONNX_OPS = "sqrt", ("Sqrt",)


class ElementWiseRecipOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_RECIP_OPERATOR_DESC: OutputTensor = 1 / (InputTensor * Scale + Bias), correctly
    rounded (1 / ±0 is ±infinity, as IEEE 754 divides)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_RECIP
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "RECIP", 0
    BUILDER_NAME, ONNX_OPS = "recip", ("Reciprocal",)


class ElementWiseExpOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_EXP_OPERATOR_DESC: OutputTensor = exp(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_EXP
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "EXP", 2
    BUILDER_NAME, ONNX_OPS = "exp", ("Exp",)


class ElementWiseLogOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_LOG_OPERATOR_DESC: OutputTensor = ln(InputTensor * Scale + Bias); NaN below 0, -infinity
    at 0, as the page says."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOG
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "LOG", 2
    BUILDER_NAME, ONNX_OPS = "log", ("Log",)


class ElementWiseSinOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_SIN_OPERATOR_DESC: OutputTensor = sin(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_SIN
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "SIN", 2
    BUILDER_NAME, ONNX_OPS = "sin", ("Sin",)


class ElementWiseCosOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_COS_OPERATOR_DESC: OutputTensor = cos(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_COS
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "COS", 2
    BUILDER_NAME, ONNX_OPS = "cos", ("Cos",)


class ElementWiseTanOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_TAN_OPERATOR_DESC: OutputTensor = tan(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_TAN
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "TAN", 4
    BUILDER_NAME, ONNX_OPS = "tan", ("Tan",)


class ElementWiseAsinOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ASIN_OPERATOR_DESC: OutputTensor = asin(InputTensor * Scale + Bias); NaN outside
    [-1, 1]."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ASIN
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "ASIN", 2
    BUILDER_NAME, ONNX_OPS = "asin", ("Asin",)


class ElementWiseAcosOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ACOS_OPERATOR_DESC: OutputTensor = acos(InputTensor * Scale + Bias); NaN outside
    [-1, 1]."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ACOS
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "ACOS", 2
    BUILDER_NAME, ONNX_OPS = "acos", ("Acos",)


class ElementWiseAtanOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ATAN_OPERATOR_DESC: OutputTensor = atan(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ATAN
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_1_0)
    FUNCTION, FLOAT32_ULPS = "ATAN", 3
    BUILDER_NAME, ONNX_OPS = "atan", ("Atan",)


class ElementWiseSinhOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_SINH_OPERATOR_DESC: OutputTensor = sinh(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_SINH
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "SINH", 3
    BUILDER_NAME, ONNX_OPS = "sinh", ("Sinh",)


class ElementWiseCoshOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_COSH_OPERATOR_DESC: OutputTensor = cosh(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_COSH
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "COSH", 3
    BUILDER_NAME, ONNX_OPS = "cosh", ("Cosh",)


class ElementWiseTanhOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_TANH_OPERATOR_DESC: OutputTensor = tanh(InputTensor * Scale + Bias) (ACTIVATION_TANH is
    another operator, without ScaleBias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_TANH
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "TANH", 2
    BUILDER_NAME, ONNX_OPS = "tanh", ("Tanh",)


class ElementWiseAsinhOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ASINH_OPERATOR_DESC: OutputTensor = asinh(InputTensor * Scale + Bias)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ASINH
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "ASINH", 3
    BUILDER_NAME, ONNX_OPS = "asinh", ("Asinh",)


class ElementWiseAcoshOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC: OutputTensor = acosh(InputTensor * Scale + Bias); NaN below 1 (the
    page is silent; C99's acosh and IEEE 754 give NaN)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ACOSH
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "ACOSH", 3
    BUILDER_NAME, ONNX_OPS = "acosh", ("Acosh",)


class ElementWiseAtanhOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ATANH_OPERATOR_DESC: OutputTensor = atanh(InputTensor * Scale + Bias); ±infinity at ±1,
    NaN beyond."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ATANH
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "ATANH", 3
    BUILDER_NAME, ONNX_OPS = "atanh", ("Atanh",)


class ElementWiseErfOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_ERF_OPERATOR_DESC: OutputTensor = erf(InputTensor * Scale + Bias), the Gauss error
    function."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ERF
    SUPPORT = float_math_support(OPERATOR_TYPE, FL_2_0)
    FUNCTION, FLOAT32_ULPS = "ERF", 2
    BUILDER_NAME, ONNX_OPS = "erf", ("Erf",)


MATH_OPERATORS: tuple[type[UnaryMathDesc], ...] = (
    ElementWiseSqrtOperatorDesc,
    ElementWiseRecipOperatorDesc,
    ElementWiseExpOperatorDesc,
    ElementWiseLogOperatorDesc,
    ElementWiseSinOperatorDesc,
    ElementWiseCosOperatorDesc,
    ElementWiseTanOperatorDesc,
    ElementWiseAsinOperatorDesc,
    ElementWiseAcosOperatorDesc,
    ElementWiseAtanOperatorDesc,
    ElementWiseSinhOperatorDesc,
    ElementWiseCoshOperatorDesc,
    ElementWiseTanhOperatorDesc,
    ElementWiseAsinhOperatorDesc,
    ElementWiseAcoshOperatorDesc,
    ElementWiseAtanhOperatorDesc,
    ElementWiseErfOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
