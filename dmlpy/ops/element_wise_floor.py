"""DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC (learn.microsoft.com, "DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC";
docs/operators/element_wise_ceil.md): ``f(x) = floor(x)``, with the optional ScaleBias applied first. Introduced at
DML_FEATURE_LEVEL_1_0 with exactly 4 dimensions; 1 to 8 from 3_0; FLOAT32 and FLOAT16 only; in-place allowed."""

from __future__ import annotations

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._unary import UnaryMathDesc
from dmlpy.support import SupportRow, SupportTable

_FLOATS = frozenset({TensorDataType.FLOAT32, TensorDataType.FLOAT16})


class ElementWiseFloorOperatorDesc(UnaryMathDesc):
    """DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC: OutputTensor = floor(InputTensor * Scale + Bias), exact."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_FLOOR
    SUPPORT = SupportTable(
        OperatorType.ELEMENT_WISE_FLOOR,
        rows=(
            SupportRow(FeatureLevel.FL_1_0, (4, 4), {"InputTensor": _FLOATS, "OutputTensor": _FLOATS}),
            SupportRow(FeatureLevel.FL_3_0, (1, 8), {"InputTensor": _FLOATS, "OutputTensor": _FLOATS}),
        ),
    )
    FUNCTION = "FLOOR"
    BUILDER_NAME = "floor"
    ONNX_OPS = ("Floor",)
