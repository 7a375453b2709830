"""DirectML's remainders (docs/operators/element_wise_modulus.md): ELEMENT_WISE_MODULUS_TRUNCATE (C's ``fmod`` and
``%``: the dividend's sign) and ELEMENT_WISE_MODULUS_FLOOR (Python's ``%``: the divisor's sign), both from
DML_FEATURE_LEVEL_2_1, every tensor one type. The arithmetic and the choices where the pages are silent (a zero
divisor): ``opencl/elementwise_ops.h``, section "remainders"."""

from __future__ import annotations

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._binary import BinaryArithmeticDesc, binary_support
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.support import TypesRow

T, L = TensorDataType, FeatureLevel
TYPES_2_1 = FLOATS | INTEGERS_8_32
ROWS: tuple[TypesRow, ...] = (
    (L.FL_2_1, (4, 4), TYPES_2_1),
    (L.FL_3_0, (1, 8), TYPES_2_1),
    (L.FL_6_0, (1, 8), TYPES_2_1 | INTEGERS_64),
)


class ElementWiseModulusTruncateOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC: OutputTensor = ATensor - BTensor * trunc(ATensor / BTensor),
    the remainder with ATensor's sign (-7 mod 3 is -1); a float's is exact."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_MODULUS_TRUNCATE
    SUPPORT = binary_support(OPERATOR_TYPE, ROWS)
    FUNCTION, BUILDER_NAME = "modulus_truncate", "modulus_truncate"


class ElementWiseModulusFloorOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC: OutputTensor = ATensor - BTensor * floor(ATensor / BTensor), the
    remainder with BTensor's sign (-7 mod 3 is 2)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_MODULUS_FLOOR
    SUPPORT = binary_support(OPERATOR_TYPE, ROWS)
    FUNCTION, BUILDER_NAME = "modulus_floor", "modulus_floor"
    ONNX_OPS = ("Mod",)  # fmod 0, its default; fmod 1 lowers to MODULUS_TRUNCATE (dmlpy.onnx.nodes)


MODULUS_OPERATORS = (ElementWiseModulusTruncateOperatorDesc, ElementWiseModulusFloorOperatorDesc)
"""This module's operators, in the order the operator table lists them."""
