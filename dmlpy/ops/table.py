"""The operator table, the only registry: one line per operator or family, in the order messages and lists name
them. Everything else reads it: the package's exports, DML_OPERATOR_DESC (``dmlpy.ops.union``), the JSON Schema, the
CLI, the runtime, the graph builder (``dml.graph.<BUILDER_NAME>``), the ONNX backend (``ONNX_OPS``) and the docs'
operator list."""

from __future__ import annotations

from dmlpy.enums import ExtOperatorType, OperatorType
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._recurrent import RecurrentActivation
from dmlpy.ops.activation_exponential import EXPONENTIAL_ACTIVATIONS
from dmlpy.ops.activation_piecewise import (
    PIECEWISE_ACTIVATIONS,
    ActivationDesc,
)
from dmlpy.ops.activation_softmax import SOFTMAX_ACTIVATIONS
from dmlpy.ops.adam_optimizer import AdamOptimizerOperatorDesc
from dmlpy.ops.batch_normalization import BATCH_NORMALIZATION_OPERATORS
from dmlpy.ops.cast import CastOperatorDesc
from dmlpy.ops.convolution import ConvolutionOperatorDesc
from dmlpy.ops.convolution_integer import INTEGER_CONVOLUTION_OPERATORS
from dmlpy.ops.cumulative import CUMULATIVE_OPERATORS
from dmlpy.ops.depth_space import DEPTH_SPACE_OPERATORS
from dmlpy.ops.dynamic_quantize_linear import DynamicQuantizeLinearOperatorDesc
from dmlpy.ops.element_wise_add1 import ElementWiseAdd1OperatorDesc
from dmlpy.ops.element_wise_arithmetic import (
    ARITHMETIC_OPERATORS,
)
from dmlpy.ops.element_wise_atan_yx import ElementWiseAtanYxOperatorDesc
from dmlpy.ops.element_wise_bits import (
    BIT_OPERATORS,
)
from dmlpy.ops.element_wise_ceil import ElementWiseCeilOperatorDesc
from dmlpy.ops.element_wise_clip import (
    CLIP_OPERATORS,
)
from dmlpy.ops.element_wise_clip_grad import (
    CLIP_GRAD_OPERATORS,
)
from dmlpy.ops.element_wise_floor import ElementWiseFloorOperatorDesc
from dmlpy.ops.element_wise_identity import ElementWiseIdentityOperatorDesc
from dmlpy.ops.element_wise_if import ElementWiseIfOperatorDesc
from dmlpy.ops.element_wise_is import (
    TEST_OPERATORS,
)
from dmlpy.ops.element_wise_logical import (
    LOGICAL_OPERATORS,
)
from dmlpy.ops.element_wise_math import (
    MATH_OPERATORS,
)
from dmlpy.ops.element_wise_modulus import (
    MODULUS_OPERATORS,
)
from dmlpy.ops.element_wise_pow import POW_OPERATORS
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
)
from dmlpy.ops.element_wise_quantized_linear_add import ElementWiseQuantizedLinearAddOperatorDesc
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.ops.element_wise_signs import (
    SIGN_OPERATORS,
)
from dmlpy.ops.ext_element_wise_quantize_linear import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.ops.ext_element_wise_round import ExtElementWiseRoundOperatorDesc
from dmlpy.ops.fold import FOLD_OPERATORS
from dmlpy.ops.fused_activation import FUSIBLE_ACTIVATIONS, FusedActivation
from dmlpy.ops.gather import GATHER_OPERATORS
from dmlpy.ops.gemm import GemmOperatorDesc
from dmlpy.ops.generators import GENERATOR_OPERATORS
from dmlpy.ops.join_split import JOIN_SPLIT_OPERATORS
from dmlpy.ops.local_response_normalization import LOCAL_RESPONSE_OPERATORS
from dmlpy.ops.lp_normalization import LpNormalizationOperatorDesc
from dmlpy.ops.matrix_multiply_integer import INTEGER_MATRIX_OPERATORS
from dmlpy.ops.mean_variance_normalization import MEAN_VARIANCE_OPERATORS
from dmlpy.ops.multihead_attention import ATTENTION_OPERATORS
from dmlpy.ops.padding import PADDING_OPERATORS
from dmlpy.ops.pooling import POOLING_OPERATORS
from dmlpy.ops.pooling_grad import POOLING_BACKWARD_OPERATORS
from dmlpy.ops.quantize import DequantizeOperatorDesc, QuantizeOperatorDesc
from dmlpy.ops.recurrent import RECURRENT_OPERATORS
from dmlpy.ops.reduction import REDUCTION_OPERATORS
from dmlpy.ops.resample import RESAMPLE_OPERATORS
from dmlpy.ops.resample_grad import RESAMPLE_GRAD_OPERATORS
from dmlpy.ops.roi import ROI_OPERATORS
from dmlpy.ops.scatter import SCATTER_OPERATORS
from dmlpy.ops.sequences import SEQUENCE_OPERATORS
from dmlpy.ops.slice import SLICE_OPERATORS
from dmlpy.ops.tile import TileOperatorDesc
from dmlpy.ops.top_k import TOP_K_OPERATORS

AnyOperatorType = OperatorType | ExtOperatorType

_IN_ORDER: tuple[type[OperatorDescBase], ...] = (  # in the order messages and lists name them
    ElementWiseRoundOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizedLinearAddOperatorDesc,
    ElementWiseIdentityOperatorDesc,
    ElementWiseCeilOperatorDesc,
    ElementWiseFloorOperatorDesc,
    *MATH_OPERATORS,
    *TEST_OPERATORS,
    *ARITHMETIC_OPERATORS,
    ElementWiseAdd1OperatorDesc,
    *SIGN_OPERATORS,
    *CLIP_OPERATORS,
    *CLIP_GRAD_OPERATORS,
    *LOGICAL_OPERATORS,
    *BIT_OPERATORS,
    *MODULUS_OPERATORS,
    ElementWiseAtanYxOperatorDesc,
    ElementWiseIfOperatorDesc,
    *POW_OPERATORS,
    *PIECEWISE_ACTIVATIONS,
    *SOFTMAX_ACTIVATIONS,
    *EXPONENTIAL_ACTIVATIONS,
    CastOperatorDesc,
    QuantizeOperatorDesc,
    DequantizeOperatorDesc,
    DynamicQuantizeLinearOperatorDesc,
    GemmOperatorDesc,
    *INTEGER_MATRIX_OPERATORS,
    ConvolutionOperatorDesc,
    *INTEGER_CONVOLUTION_OPERATORS,
    *POOLING_OPERATORS,
    *POOLING_BACKWARD_OPERATORS,
    *ROI_OPERATORS,
    *BATCH_NORMALIZATION_OPERATORS,
    *MEAN_VARIANCE_OPERATORS,
    *LOCAL_RESPONSE_OPERATORS,
    LpNormalizationOperatorDesc,
    *RECURRENT_OPERATORS,
    *REDUCTION_OPERATORS,
    *TOP_K_OPERATORS,
    *CUMULATIVE_OPERATORS,
    *SLICE_OPERATORS,
    *JOIN_SPLIT_OPERATORS,
    *PADDING_OPERATORS,
    TileOperatorDesc,
    *GATHER_OPERATORS,
    *SCATTER_OPERATORS,
    *GENERATOR_OPERATORS,
    *RESAMPLE_OPERATORS,
    *RESAMPLE_GRAD_OPERATORS,
    *DEPTH_SPACE_OPERATORS,
    *SEQUENCE_OPERATORS,
    *FOLD_OPERATORS,
    *ATTENTION_OPERATORS,
    AdamOptimizerOperatorDesc,
    ExtElementWiseRoundOperatorDesc,
    ExtElementWiseQuantizeLinearOperatorDesc,
)
OPERATORS: dict[AnyOperatorType, type[OperatorDescBase]] = {desc.OPERATOR_TYPE: desc for desc in _IN_ORDER}
"""Every operator dmlpy implements, DirectML's and the extensions (not DirectML), by operator type."""
DIRECTML_OPERATORS = {t: desc for t, desc in OPERATORS.items() if not desc.is_extension()}
"""The DirectML operators: what DML_OPERATOR_DESC (``OperatorDesc``) holds."""

FusedActivation.ACTIVATIONS = {
    t: desc
    for t, desc in DIRECTML_OPERATORS.items()
    if isinstance(t, OperatorType) and t.name in FUSIBLE_ACTIVATIONS and issubclass(desc, ElementwiseDesc)
}
"""The activations an operator's FusedActivation may name: every one of the table that DirectML fuses."""

RecurrentActivation.ACTIVATIONS = {
    t: desc
    for t, desc in DIRECTML_OPERATORS.items()
    if isinstance(t, OperatorType) and issubclass(desc, ActivationDesc)
}
"""The activations an entry of RNN's, LSTM's or GRU's ActivationDescs may name: every one-input element-wise
activation of the table."""
