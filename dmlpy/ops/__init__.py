"""The operators: each declares itself once in its module, the table (``dmlpy.ops.table``) lists them, and
DML_OPERATOR_DESC (``dmlpy.ops.union``) is built from it; this package exports them."""

from __future__ import annotations

from dmlpy.ops._unary import ScaleBias
from dmlpy.ops.activation_exponential import (
    ActivationCeluOperatorDesc,
    ActivationEluOperatorDesc,
    ActivationGeluOperatorDesc,
    ActivationParametricSoftplusOperatorDesc,
    ActivationScaledEluOperatorDesc,
    ActivationScaledTanhOperatorDesc,
    ActivationSigmoidOperatorDesc,
    ActivationSoftplusOperatorDesc,
    ActivationSwishOperatorDesc,
    ActivationTanhOperatorDesc,
)
from dmlpy.ops.activation_piecewise import (
    ActivationHardSigmoidOperatorDesc,
    ActivationHardSwishOperatorDesc,
    ActivationIdentityOperatorDesc,
    ActivationLeakyReluOperatorDesc,
    ActivationLinearOperatorDesc,
    ActivationParameterizedReluOperatorDesc,
    ActivationReluGradOperatorDesc,
    ActivationReluOperatorDesc,
    ActivationShrinkOperatorDesc,
    ActivationSoftsignOperatorDesc,
    ActivationThresholdedReluOperatorDesc,
)
from dmlpy.ops.activation_softmax import (
    ActivationHardmax1OperatorDesc,
    ActivationHardmaxOperatorDesc,
    ActivationLogSoftmax1OperatorDesc,
    ActivationLogSoftmaxOperatorDesc,
    ActivationSoftmax1OperatorDesc,
    ActivationSoftmaxOperatorDesc,
)
from dmlpy.ops.cast import CastOperatorDesc
from dmlpy.ops.element_wise_add1 import ElementWiseAdd1OperatorDesc
from dmlpy.ops.element_wise_arithmetic import (
    ElementWiseAddOperatorDesc,
    ElementWiseDifferenceSquareOperatorDesc,
    ElementWiseDivideOperatorDesc,
    ElementWiseMaxOperatorDesc,
    ElementWiseMeanOperatorDesc,
    ElementWiseMinOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ElementWiseSubtractOperatorDesc,
)
from dmlpy.ops.element_wise_atan_yx import ElementWiseAtanYxOperatorDesc
from dmlpy.ops.element_wise_bits import (
    ElementWiseBitAndOperatorDesc,
    ElementWiseBitCountOperatorDesc,
    ElementWiseBitNotOperatorDesc,
    ElementWiseBitOrOperatorDesc,
    ElementWiseBitShiftLeftOperatorDesc,
    ElementWiseBitShiftRightOperatorDesc,
    ElementWiseBitXorOperatorDesc,
)
from dmlpy.ops.element_wise_ceil import ElementWiseCeilOperatorDesc
from dmlpy.ops.element_wise_clip import (
    ElementWiseClip1OperatorDesc,
    ElementWiseClipOperatorDesc,
    ElementWiseThresholdOperatorDesc,
)
from dmlpy.ops.element_wise_clip_grad import (
    ElementWiseClipGrad1OperatorDesc,
    ElementWiseClipGradOperatorDesc,
)
from dmlpy.ops.element_wise_floor import ElementWiseFloorOperatorDesc
from dmlpy.ops.element_wise_identity import ElementWiseIdentityOperatorDesc
from dmlpy.ops.element_wise_if import ElementWiseIfOperatorDesc
from dmlpy.ops.element_wise_is import (
    ElementWiseIsInfinityOperatorDesc,
    ElementWiseIsNanOperatorDesc,
)
from dmlpy.ops.element_wise_logical import (
    ElementWiseLogicalAndOperatorDesc,
    ElementWiseLogicalEqualsOperatorDesc,
    ElementWiseLogicalGreaterThanOperatorDesc,
    ElementWiseLogicalGreaterThanOrEqualOperatorDesc,
    ElementWiseLogicalLessThanOperatorDesc,
    ElementWiseLogicalLessThanOrEqualOperatorDesc,
    ElementWiseLogicalNotOperatorDesc,
    ElementWiseLogicalOrOperatorDesc,
    ElementWiseLogicalXorOperatorDesc,
)
from dmlpy.ops.element_wise_math import (
    ElementWiseAcoshOperatorDesc,
    ElementWiseAcosOperatorDesc,
    ElementWiseAsinhOperatorDesc,
    ElementWiseAsinOperatorDesc,
    ElementWiseAtanhOperatorDesc,
    ElementWiseAtanOperatorDesc,
    ElementWiseCoshOperatorDesc,
    ElementWiseCosOperatorDesc,
    ElementWiseErfOperatorDesc,
    ElementWiseExpOperatorDesc,
    ElementWiseLogOperatorDesc,
    ElementWiseRecipOperatorDesc,
    ElementWiseSinhOperatorDesc,
    ElementWiseSinOperatorDesc,
    ElementWiseSqrtOperatorDesc,
    ElementWiseTanhOperatorDesc,
    ElementWiseTanOperatorDesc,
)
from dmlpy.ops.element_wise_modulus import (
    ElementWiseModulusFloorOperatorDesc,
    ElementWiseModulusTruncateOperatorDesc,
)
from dmlpy.ops.element_wise_pow import ElementWiseConstantPowOperatorDesc, ElementWisePowOperatorDesc
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
)
from dmlpy.ops.element_wise_quantized_linear_add import ElementWiseQuantizedLinearAddOperatorDesc
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.ops.element_wise_signs import (
    ElementWiseAbsOperatorDesc,
    ElementWiseNegateOperatorDesc,
    ElementWiseSignOperatorDesc,
)
from dmlpy.ops.ext_element_wise_quantize_linear import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.ops.ext_element_wise_round import ExtElementWiseRoundOperatorDesc
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.ops.gemm import GemmOperatorDesc
from dmlpy.ops.matrix_multiply_integer import (
    MatrixMultiplyIntegerOperatorDesc,
    MatrixMultiplyIntegerToFloatOperatorDesc,
    QuantizedLinearMatrixMultiplyOperatorDesc,
)
from dmlpy.ops.quantize import DequantizeOperatorDesc, QuantizeOperatorDesc
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.ops.table import DIRECTML_OPERATORS as DIRECTML_OPERATORS
from dmlpy.ops.table import OPERATORS as OPERATORS
from dmlpy.ops.union import OperatorDesc as OperatorDesc
from dmlpy.ops.union import as_operator_desc_base as as_operator_desc_base
from dmlpy.ops.union import validate as validate

__all__ = [
    "DIRECTML_OPERATORS",
    "OPERATORS",
    "ActivationCeluOperatorDesc",
    "ActivationEluOperatorDesc",
    "ActivationGeluOperatorDesc",
    "ActivationHardSigmoidOperatorDesc",
    "ActivationHardSwishOperatorDesc",
    "ActivationHardmax1OperatorDesc",
    "ActivationHardmaxOperatorDesc",
    "ActivationIdentityOperatorDesc",
    "ActivationLeakyReluOperatorDesc",
    "ActivationLinearOperatorDesc",
    "ActivationLogSoftmax1OperatorDesc",
    "ActivationLogSoftmaxOperatorDesc",
    "ActivationParameterizedReluOperatorDesc",
    "ActivationParametricSoftplusOperatorDesc",
    "ActivationReluGradOperatorDesc",
    "ActivationReluOperatorDesc",
    "ActivationScaledEluOperatorDesc",
    "ActivationScaledTanhOperatorDesc",
    "ActivationShrinkOperatorDesc",
    "ActivationSigmoidOperatorDesc",
    "ActivationSoftmax1OperatorDesc",
    "ActivationSoftmaxOperatorDesc",
    "ActivationSoftplusOperatorDesc",
    "ActivationSoftsignOperatorDesc",
    "ActivationSwishOperatorDesc",
    "ActivationTanhOperatorDesc",
    "ActivationThresholdedReluOperatorDesc",
    "CastOperatorDesc",
    "DequantizeOperatorDesc",
    "ElementWiseAbsOperatorDesc",
    "ElementWiseAcosOperatorDesc",
    "ElementWiseAcoshOperatorDesc",
    "ElementWiseAdd1OperatorDesc",
    "ElementWiseAddOperatorDesc",
    "ElementWiseAsinOperatorDesc",
    "ElementWiseAsinhOperatorDesc",
    "ElementWiseAtanOperatorDesc",
    "ElementWiseAtanYxOperatorDesc",
    "ElementWiseAtanhOperatorDesc",
    "ElementWiseBitAndOperatorDesc",
    "ElementWiseBitCountOperatorDesc",
    "ElementWiseBitNotOperatorDesc",
    "ElementWiseBitOrOperatorDesc",
    "ElementWiseBitShiftLeftOperatorDesc",
    "ElementWiseBitShiftRightOperatorDesc",
    "ElementWiseBitXorOperatorDesc",
    "ElementWiseCeilOperatorDesc",
    "ElementWiseClip1OperatorDesc",
    "ElementWiseClipGrad1OperatorDesc",
    "ElementWiseClipGradOperatorDesc",
    "ElementWiseClipOperatorDesc",
    "ElementWiseConstantPowOperatorDesc",
    "ElementWiseCosOperatorDesc",
    "ElementWiseCoshOperatorDesc",
    "ElementWiseDequantizeLinearOperatorDesc",
    "ElementWiseDifferenceSquareOperatorDesc",
    "ElementWiseDivideOperatorDesc",
    "ElementWiseErfOperatorDesc",
    "ElementWiseExpOperatorDesc",
    "ElementWiseFloorOperatorDesc",
    "ElementWiseIdentityOperatorDesc",
    "ElementWiseIfOperatorDesc",
    "ElementWiseIsInfinityOperatorDesc",
    "ElementWiseIsNanOperatorDesc",
    "ElementWiseLogOperatorDesc",
    "ElementWiseLogicalAndOperatorDesc",
    "ElementWiseLogicalEqualsOperatorDesc",
    "ElementWiseLogicalGreaterThanOperatorDesc",
    "ElementWiseLogicalGreaterThanOrEqualOperatorDesc",
    "ElementWiseLogicalLessThanOperatorDesc",
    "ElementWiseLogicalLessThanOrEqualOperatorDesc",
    "ElementWiseLogicalNotOperatorDesc",
    "ElementWiseLogicalOrOperatorDesc",
    "ElementWiseLogicalXorOperatorDesc",
    "ElementWiseMaxOperatorDesc",
    "ElementWiseMeanOperatorDesc",
    "ElementWiseMinOperatorDesc",
    "ElementWiseModulusFloorOperatorDesc",
    "ElementWiseModulusTruncateOperatorDesc",
    "ElementWiseMultiplyOperatorDesc",
    "ElementWiseNegateOperatorDesc",
    "ElementWisePowOperatorDesc",
    "ElementWiseQuantizeLinearOperatorDesc",
    "ElementWiseQuantizedLinearAddOperatorDesc",
    "ElementWiseRecipOperatorDesc",
    "ElementWiseRoundOperatorDesc",
    "ElementWiseSignOperatorDesc",
    "ElementWiseSinOperatorDesc",
    "ElementWiseSinhOperatorDesc",
    "ElementWiseSqrtOperatorDesc",
    "ElementWiseSubtractOperatorDesc",
    "ElementWiseTanOperatorDesc",
    "ElementWiseTanhOperatorDesc",
    "ElementWiseThresholdOperatorDesc",
    "ExtElementWiseQuantizeLinearOperatorDesc",
    "ExtElementWiseRoundOperatorDesc",
    "FusedActivation",
    "GemmOperatorDesc",
    "MatrixMultiplyIntegerOperatorDesc",
    "MatrixMultiplyIntegerToFloatOperatorDesc",
    "OperatorDesc",
    "QuantizeOperatorDesc",
    "QuantizedLinearMatrixMultiplyOperatorDesc",
    "ScalarUnion",
    "ScaleBias",
]
