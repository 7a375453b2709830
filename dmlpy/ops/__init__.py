"""The operators: each declares itself once in its module, the table (``dmlpy.ops.table``) lists them, and
DML_OPERATOR_DESC (``dmlpy.ops.union``) is built from it; this package exports them."""

from __future__ import annotations

from dmlpy.ops._recurrent import RecurrentActivation
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
from dmlpy.ops.adam_optimizer import AdamOptimizerOperatorDesc
from dmlpy.ops.batch_normalization import (
    BatchNormalizationGradOperatorDesc,
    BatchNormalizationOperatorDesc,
    BatchNormalizationTrainingGradOperatorDesc,
    BatchNormalizationTrainingOperatorDesc,
)
from dmlpy.ops.cast import CastOperatorDesc
from dmlpy.ops.convolution import ConvolutionOperatorDesc
from dmlpy.ops.convolution_integer import (
    ConvolutionIntegerOperatorDesc,
    QuantizedLinearConvolutionOperatorDesc,
)
from dmlpy.ops.cumulative import CumulativeProductOperatorDesc, CumulativeSummationOperatorDesc
from dmlpy.ops.depth_space import (
    DepthToSpace1OperatorDesc,
    DepthToSpaceOperatorDesc,
    SpaceToDepth1OperatorDesc,
    SpaceToDepthOperatorDesc,
)
from dmlpy.ops.dynamic_quantize_linear import DynamicQuantizeLinearOperatorDesc
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
from dmlpy.ops.fold import FoldOperatorDesc, UnfoldOperatorDesc
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.ops.gather import (
    GatherElementsOperatorDesc,
    GatherNd1OperatorDesc,
    GatherNdOperatorDesc,
    GatherOperatorDesc,
)
from dmlpy.ops.gemm import GemmOperatorDesc
from dmlpy.ops.generators import (
    DiagonalMatrix1OperatorDesc,
    DiagonalMatrixOperatorDesc,
    FillValueConstantOperatorDesc,
    FillValueSequenceOperatorDesc,
    RandomGeneratorOperatorDesc,
)
from dmlpy.ops.join_split import JoinOperatorDesc, SplitOperatorDesc
from dmlpy.ops.local_response_normalization import (
    LocalResponseNormalizationGradOperatorDesc,
    LocalResponseNormalizationOperatorDesc,
)
from dmlpy.ops.lp_normalization import LpNormalizationOperatorDesc
from dmlpy.ops.matrix_multiply_integer import (
    MatrixMultiplyIntegerOperatorDesc,
    MatrixMultiplyIntegerToFloatOperatorDesc,
    QuantizedLinearMatrixMultiplyOperatorDesc,
)
from dmlpy.ops.mean_variance_normalization import (
    MeanVarianceNormalization1OperatorDesc,
    MeanVarianceNormalization2OperatorDesc,
    MeanVarianceNormalizationOperatorDesc,
)
from dmlpy.ops.multihead_attention import MultiheadAttention1OperatorDesc, MultiheadAttentionOperatorDesc
from dmlpy.ops.padding import Padding1OperatorDesc, PaddingOperatorDesc
from dmlpy.ops.pooling import (
    AveragePooling1OperatorDesc,
    AveragePoolingOperatorDesc,
    LpPooling1OperatorDesc,
    LpPoolingOperatorDesc,
    MaxPooling1OperatorDesc,
    MaxPooling2OperatorDesc,
    MaxPoolingOperatorDesc,
)
from dmlpy.ops.pooling_grad import AveragePoolingGradOperatorDesc, MaxPoolingGradOperatorDesc, MaxUnpoolingOperatorDesc
from dmlpy.ops.quantize import DequantizeOperatorDesc, QuantizeOperatorDesc
from dmlpy.ops.quantized_pooling import QuantizedLinearAveragePoolingOperatorDesc
from dmlpy.ops.recurrent import GruOperatorDesc, LstmOperatorDesc, RnnOperatorDesc
from dmlpy.ops.reduction import ArgMaxOperatorDesc, ArgMinOperatorDesc, ReduceOperatorDesc
from dmlpy.ops.resample import (
    Resample1OperatorDesc,
    Resample2OperatorDesc,
    Resample3OperatorDesc,
    ResampleOperatorDesc,
    Upsample2DOperatorDesc,
)
from dmlpy.ops.resample_grad import ResampleGrad1OperatorDesc, ResampleGradOperatorDesc
from dmlpy.ops.roi import (
    RoiAlign1OperatorDesc,
    RoiAlignGradOperatorDesc,
    RoiAlignOperatorDesc,
    RoiPoolingOperatorDesc,
)
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.ops.scatter import (
    OneHotOperatorDesc,
    ScatterElementsOperatorDesc,
    ScatterNdOperatorDesc,
    ScatterOperatorDesc,
)
from dmlpy.ops.sequences import (
    NonzeroCoordinatesOperatorDesc,
    ReverseSubsequencesOperatorDesc,
    ValueScale2DOperatorDesc,
)
from dmlpy.ops.size_2d import Size2D
from dmlpy.ops.slice import Slice1OperatorDesc, SliceGradOperatorDesc, SliceOperatorDesc
from dmlpy.ops.table import DIRECTML_OPERATORS as DIRECTML_OPERATORS
from dmlpy.ops.table import OPERATORS as OPERATORS
from dmlpy.ops.tile import TileOperatorDesc
from dmlpy.ops.top_k import TopK1OperatorDesc, TopKOperatorDesc
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
    "AdamOptimizerOperatorDesc",
    "ArgMaxOperatorDesc",
    "ArgMinOperatorDesc",
    "AveragePooling1OperatorDesc",
    "AveragePoolingGradOperatorDesc",
    "AveragePoolingOperatorDesc",
    "BatchNormalizationGradOperatorDesc",
    "BatchNormalizationOperatorDesc",
    "BatchNormalizationTrainingGradOperatorDesc",
    "BatchNormalizationTrainingOperatorDesc",
    "CastOperatorDesc",
    "ConvolutionIntegerOperatorDesc",
    "ConvolutionOperatorDesc",
    "CumulativeProductOperatorDesc",
    "CumulativeSummationOperatorDesc",
    "DepthToSpace1OperatorDesc",
    "DepthToSpaceOperatorDesc",
    "DequantizeOperatorDesc",
    "DiagonalMatrix1OperatorDesc",
    "DiagonalMatrixOperatorDesc",
    "DynamicQuantizeLinearOperatorDesc",
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
    "FillValueConstantOperatorDesc",
    "FillValueSequenceOperatorDesc",
    "FoldOperatorDesc",
    "FusedActivation",
    "GatherElementsOperatorDesc",
    "GatherNd1OperatorDesc",
    "GatherNdOperatorDesc",
    "GatherOperatorDesc",
    "GemmOperatorDesc",
    "GruOperatorDesc",
    "JoinOperatorDesc",
    "LocalResponseNormalizationGradOperatorDesc",
    "LocalResponseNormalizationOperatorDesc",
    "LpNormalizationOperatorDesc",
    "LpPooling1OperatorDesc",
    "LpPoolingOperatorDesc",
    "LstmOperatorDesc",
    "MatrixMultiplyIntegerOperatorDesc",
    "MatrixMultiplyIntegerToFloatOperatorDesc",
    "MaxPooling1OperatorDesc",
    "MaxPooling2OperatorDesc",
    "MaxPoolingGradOperatorDesc",
    "MaxPoolingOperatorDesc",
    "MaxUnpoolingOperatorDesc",
    "MeanVarianceNormalization1OperatorDesc",
    "MeanVarianceNormalization2OperatorDesc",
    "MeanVarianceNormalizationOperatorDesc",
    "MultiheadAttention1OperatorDesc",
    "MultiheadAttentionOperatorDesc",
    "NonzeroCoordinatesOperatorDesc",
    "OneHotOperatorDesc",
    "OperatorDesc",
    "Padding1OperatorDesc",
    "PaddingOperatorDesc",
    "QuantizeOperatorDesc",
    "QuantizedLinearAveragePoolingOperatorDesc",
    "QuantizedLinearConvolutionOperatorDesc",
    "QuantizedLinearMatrixMultiplyOperatorDesc",
    "RandomGeneratorOperatorDesc",
    "RecurrentActivation",
    "ReduceOperatorDesc",
    "Resample1OperatorDesc",
    "Resample2OperatorDesc",
    "Resample3OperatorDesc",
    "ResampleGrad1OperatorDesc",
    "ResampleGradOperatorDesc",
    "ResampleOperatorDesc",
    "ReverseSubsequencesOperatorDesc",
    "RnnOperatorDesc",
    "RoiAlign1OperatorDesc",
    "RoiAlignGradOperatorDesc",
    "RoiAlignOperatorDesc",
    "RoiPoolingOperatorDesc",
    "ScalarUnion",
    "ScaleBias",
    "ScatterElementsOperatorDesc",
    "ScatterNdOperatorDesc",
    "ScatterOperatorDesc",
    "Size2D",
    "Slice1OperatorDesc",
    "SliceGradOperatorDesc",
    "SliceOperatorDesc",
    "SpaceToDepth1OperatorDesc",
    "SpaceToDepthOperatorDesc",
    "SplitOperatorDesc",
    "TileOperatorDesc",
    "TopK1OperatorDesc",
    "TopKOperatorDesc",
    "UnfoldOperatorDesc",
    "Upsample2DOperatorDesc",
    "ValueScale2DOperatorDesc",
]
