"""DirectML's transcendental activations (docs/operators/activation_exponential.md): ACTIVATION_ELU, SCALED_ELU,
SIGMOID, TANH, SCALED_TANH, SOFTPLUS, PARAMETRIC_SOFTPLUS (DML_FEATURE_LEVEL_1_0), CELU (3_0), GELU (5_1) and SWISH
(6_2), FLOAT32 and FLOAT16, in place allowed. Each is its page's formula on OpenCL's exp, expm1, log1p, tanh and
erfc, in the form that neither overflows nor cancels (``opencl/elementwise_ops.h``, section "exponential
activations"), within ``FLOAT32_ULPS`` of the exact result: the built-ins' OpenCL bounds carried through the
formula's other roundings. Their parameters are C FLOATs compiled in as exact literals, the builder's defaults
DirectMLX's."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops.activation_piecewise import ActivationDesc, activation_table, floats_since

L = FeatureLevel


class ActivationEluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_ELU_OPERATOR_DESC: OutputTensor = x where x >= 0, else Alpha * (exp(x) - 1)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_ELU
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "elu", "activation_elu", ("alpha",)
    FLOAT32_ULPS = 7
    ONNX_OPS = ("Elu",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the scale of the exponential branch (DirectMLX's default 1)."""


class ActivationCeluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_CELU_OPERATOR_DESC: OutputTensor = max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1))."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_CELU
    SUPPORT = activation_table(OPERATOR_TYPE, floats_since(L.FL_3_0))
    FUNCTION, BUILDER_NAME, PARAMETERS = "celu", "activation_celu", ("alpha",)
    FLOAT32_ULPS = 8
    ONNX_OPS = ("Celu",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the scale of the exponential branch and of its argument (DirectMLX's default 1)."""


class ActivationScaledEluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC: OutputTensor = Gamma * x where x > 0, else
    Gamma * (Alpha * exp(x) - Alpha)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SCALED_ELU
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "scaled_elu", "activation_scaled_elu", ("alpha", "gamma")
    FLOAT32_ULPS = 8
    ONNX_OPS = ("Selu",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.6732631921768188, "gamma": 1.0507010221481323}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the scale of the exponential branch (DirectMLX's default 1.67326319217681884765625)."""
    gamma: float = Field(alias="Gamma")
    """Gamma (FLOAT): the scale of both branches (DirectMLX's default 1.05070102214813232421875)."""


class ActivationSigmoidOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SIGMOID_OPERATOR_DESC: OutputTensor = 1 / (1 + exp(-x))."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SIGMOID
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME = "sigmoid", "activation_sigmoid"
    FLOAT32_ULPS = 8
    ONNX_OPS = ("Sigmoid",)


class ActivationTanhOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_TANH_OPERATOR_DESC: OutputTensor = tanh(x), ELEMENT_WISE_TANH's function without ScaleBias (the
    ONNX op type Tanh stays ELEMENT_WISE_TANH's)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_TANH
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME = "tanh", "activation_tanh"
    FLOAT32_ULPS = 5


class ActivationScaledTanhOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC: OutputTensor = Alpha * tanh(Beta * x)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SCALED_TANH
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "scaled_tanh", "activation_scaled_tanh", ("alpha", "beta")
    FLOAT32_ULPS = 12
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0, "beta": 0.5}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the output's scale (DirectMLX's default 1)."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): the input's scale (DirectMLX's default 0.5)."""


class ActivationSoftplusOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC: OutputTensor = ln(1 + exp(Steepness * x)) / Steepness; Steepness at
    least 1 below DML_FEATURE_LEVEL_6_4."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SOFTPLUS
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "softplus", "activation_softplus", ("steepness",)
    FLOAT32_ULPS = 12
    ONNX_OPS = ("Softplus",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"steepness": 1.0}

    steepness: float = Field(alias="Steepness")
    """Steepness (FLOAT): the input's scale and the output's divisor (DirectMLX's default 1); the page: it "cannot
    be less than 1", a rule DML_FEATURE_LEVEL_6_4 lifted."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        if level < L.FL_6_4 and not self.steepness >= 1:  # a NaN is not at least 1 either
            raise InvalidArgumentError(
                f"{self.operator_name()}.Steepness is {self.steepness!r}; it cannot be less than 1 below "
                f"{L.FL_6_4.c_name} (it was validated against {level.c_name}). Use a Steepness of 1 or more, or a "
                f"device of {L.FL_6_4.c_name} or higher, which lifted the rule"
            )


class ActivationParametricSoftplusOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC: OutputTensor = Alpha * ln(1 + exp(Beta * x))."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_PARAMETRIC_SOFTPLUS
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "parametric_softplus", "activation_parametric_softplus", ("alpha", "beta")
    FLOAT32_ULPS = 13

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the output's scale (DirectMLX gives no default)."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): the input's scale (DirectMLX gives no default)."""


class ActivationGeluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_GELU_OPERATOR_DESC: OutputTensor = 0.5 * x * (1 + erf(x / sqrt(2))), the exact (erf) form."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_GELU
    SUPPORT = activation_table(OPERATOR_TYPE, floats_since(L.FL_5_1))
    FUNCTION, BUILDER_NAME = "gelu", "activation_gelu"
    FLOAT32_ULPS = 34
    ONNX_OPS = ("Gelu",)


class ActivationSwishOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SWISH_OPERATOR_DESC: OutputTensor = x * sigmoid(SigmoidInputScale * x)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SWISH
    SUPPORT = activation_table(OPERATOR_TYPE, floats_since(L.FL_6_2))
    FUNCTION, BUILDER_NAME, PARAMETERS = "swish", "activation_swish", ("sigmoid_input_scale",)
    FLOAT32_ULPS = 24
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"sigmoid_input_scale": 1.0}

    sigmoid_input_scale: float = Field(alias="SigmoidInputScale")
    """SigmoidInputScale (FLOAT): the sigmoid's input scale (1, the page's typical value and SiLU: DirectMLX has no
    Swish)."""


EXPONENTIAL_ACTIVATIONS: tuple[type[ActivationDesc], ...] = (
    ActivationEluOperatorDesc,
    ActivationCeluOperatorDesc,
    ActivationScaledEluOperatorDesc,
    ActivationSigmoidOperatorDesc,
    ActivationTanhOperatorDesc,
    ActivationScaledTanhOperatorDesc,
    ActivationSoftplusOperatorDesc,
    ActivationParametricSoftplusOperatorDesc,
    ActivationGeluOperatorDesc,
    ActivationSwishOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
