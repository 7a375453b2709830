"""DirectML's two-argument arctangent, ELEMENT_WISE_ATAN_YX (DML_FEATURE_LEVEL_3_1): OutputTensor = atan2(ATensor,
BTensor), the angle of the point (BTensor, ATensor), FLOAT32 and FLOAT16 (docs/operators/element_wise_math.md).
opencl/float_trig.h's atan2_float (dmlpy's own arithmetic: the same bits on every device; 2.4 ULPs measured over 2^21
pairs), declared within OpenCL's full-profile bound for atan2, 6 ULPs; C99 Annex F's values at the origin (the page
leaves it undefined) and at infinities."""

from __future__ import annotations

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._binary import BinaryArithmeticDesc, binary_support


class ElementWiseAtanYxOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC: OutputTensor = atan2(ATensor, BTensor) (ATensor the Y coordinate,
    BTensor the X)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ATAN_YX
    SUPPORT = binary_support(
        OPERATOR_TYPE, ((FeatureLevel.FL_3_1, (1, 8), frozenset({TensorDataType.FLOAT32, TensorDataType.FLOAT16})),)
    )
    FUNCTION, BUILDER_NAME = "atan_yx", "atan_yx"
    FLOAT32_ULPS = 6
