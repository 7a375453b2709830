"""DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC (learn.microsoft.com, "DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC";
docs/operators/element_wise_ceil.md): ``f(x) = floor(x)``, with the optional ScaleBias applied first. Introduced at
DML_FEATURE_LEVEL_1_0 with exactly 4 dimensions; 1 to 8 from 3_0; FLOAT32 and FLOAT16 only; in-place allowed."""

from __future__ import annotations

from dmlpy.enums import OperatorType
from dmlpy.ops._unary import UnaryMathDesc, float_math_support


class ElementWiseFloorOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC: OutputTensor = floor(InputTensor * Scale + Bias), exact."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_FLOOR
    SUPPORT = float_math_support(OperatorType.ELEMENT_WISE_FLOOR)
    FUNCTION = "FLOOR"
    BUILDER_NAME = "floor"
    ONNX_OPS = ("Floor",)
