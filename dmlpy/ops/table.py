"""The operator table, the only registry: one line per operator or family, in the order messages and lists name
them. Everything else reads it: the package's exports, DML_OPERATOR_DESC (``dmlpy.ops.union``), the JSON Schema, the
CLI, the runtime, the graph builder (``dml.graph.<BUILDER_NAME>``), the ONNX backend (``ONNX_OPS``) and the docs'
operator list."""

from __future__ import annotations

from dmlpy.enums import ExtOperatorType, OperatorType
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops.activation_exponential import EXPONENTIAL_ACTIVATIONS
from dmlpy.ops.activation_piecewise import (
    PIECEWISE_ACTIVATIONS,
)
from dmlpy.ops.activation_softmax import SOFTMAX_ACTIVATIONS
from dmlpy.ops.cast import CastOperatorDesc
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
from dmlpy.ops.fused_activation import FUSIBLE_ACTIVATIONS, FusedActivation
from dmlpy.ops.gemm import GemmOperatorDesc
from dmlpy.ops.matrix_multiply_integer import INTEGER_MATRIX_OPERATORS
from dmlpy.ops.quantize import DequantizeOperatorDesc, QuantizeOperatorDesc

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
    GemmOperatorDesc,
    *INTEGER_MATRIX_OPERATORS,
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
