"""DirectML's piecewise activations (docs/operators/activation_piecewise.md): ACTIVATION_RELU, LEAKY_RELU,
THRESHOLDED_RELU, LINEAR, IDENTITY, HARD_SIGMOID, SOFTSIGN (DML_FEATURE_LEVEL_1_0), SHRINK (2_0), HARD_SWISH (6_2),
PARAMETERIZED_RELU (1_0, a SlopeTensor) and RELU_GRAD (3_0, the gradient). Each is its page's formula step by
step, every step correctly rounded in float32 (a FLOAT16 result then rounded to half; SHRINK's sum rounded to odd
first, so that it is the nearest half), so each is exact as its formula reads; RELU, PARAMETERIZED_RELU and RELU_GRAD
take the signed integers from 5_1, SHRINK every 8- to 32-bit integer (its FLOAT Bias and Threshold as the real
numbers they are, the result converted as Direct3D converts a float to an integer). The arithmetic and the NaN
and -0 results: ``opencl/elementwise_ops.h``, section "piecewise activations". Their parameters are C FLOATs,
compiled in as exact literals (each value its own program), and the builder's defaults are DirectMLX's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._types import FLOATS, INPUT_OUTPUT, INTEGERS_8_32
from dmlpy.ops._unary import UnaryElementWiseDesc, float_literal, register
from dmlpy.ops.element_wise_clip import integer_literal
from dmlpy.ops.element_wise_clip_grad import integer_conditions
from dmlpy.support import SupportTable, TypesRow
from dmlpy.tensor import TensorDesc

T, L = TensorDataType, FeatureLevel
SIGNED = frozenset({T.INT8, T.INT16, T.INT32})
FLOAT_ROWS: tuple[TypesRow, ...] = ((L.FL_1_0, (4, 4), FLOATS), (L.FL_2_0, (4, 5), FLOATS), (L.FL_3_0, (1, 8), FLOATS))
"""The table of most activations: FLOAT32 and FLOAT16, 4 dimensions, 4 to 5 from 2_0, 1 to 8 from 3_0."""
RELU_ROWS = (*FLOAT_ROWS, (L.FL_5_1, (1, 8), FLOATS | SIGNED))
"""RELU's and PARAMETERIZED_RELU's: the signed integers too from 5_1."""


def floats_since(level: FeatureLevel) -> tuple[TypesRow, ...]:
    """The one table of a newer activation's page: FLOAT32 and FLOAT16, 1 to 8 dimensions, from ``level``."""
    return ((level, (1, 8), FLOATS),)


class ActivationDesc(UnaryElementWiseDesc):
    """Base of the one-input activations: OutputTensor = ``<FUNCTION>_<T>(x, parameters...)``, its parameters the
    descriptor's PARAMETERS fields (C FLOATs) in C order."""

    FUNCTION: ClassVar[str]
    """The helper of ``opencl/elementwise_ops.h``, before its type suffix."""
    PARAMETERS: ClassVar[tuple[str, ...]] = ()
    """The FLOAT fields the helper takes after x."""
    BARE_FORM = False  # a parameterless one has Identity's fields

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        arguments = [value, *(float_literal(getattr(self, name)) for name in self.PARAMETERS)]
        return f"{self.FUNCTION}_{register(self.input_tensor.desc.data_type)}({', '.join(arguments)})"

    def describe(self) -> str:
        values = ", ".join(f"{self.c_field(name)} {getattr(self, name)!r}" for name in self.PARAMETERS)
        data_type = self.input_tensor.desc.data_type.name
        return f"{self.operator_name()} ({data_type}{', ' + values if values else ''})"

    def explain_lines(self) -> list[str]:
        return [f"{self.expression(['x'])} through the element-wise template (opencl/elementwise_ops.h)"]


def activation_table(operator: OperatorType, rows: tuple[TypesRow, ...] = FLOAT_ROWS) -> SupportTable:
    """A one-input activation's table: InputTensor and OutputTensor of one type of each row (FLOAT_ROWS's by
    default)."""
    return SupportTable.same_types(operator, INPUT_OUTPUT, rows)


class ActivationReluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_RELU_OPERATOR_DESC: OutputTensor = max(0, InputTensor) (+0 for -0 and a NaN)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_RELU
    SUPPORT = activation_table(OPERATOR_TYPE, RELU_ROWS)
    FUNCTION, BUILDER_NAME = "relu", "activation_relu"
    ONNX_OPS = ("Relu",)


class ActivationLeakyReluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC: OutputTensor = x where x >= 0, else Alpha * x."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_LEAKY_RELU
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "leaky_relu", "activation_leaky_relu", ("alpha",)
    ONNX_OPS = ("LeakyRelu",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 0.01}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the slope below 0 (DirectMLX's default 0.01)."""


class ActivationThresholdedReluOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC: OutputTensor = x where x > Alpha, else 0."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_THRESHOLDED_RELU
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "thresholded_relu", "activation_thresholded_relu", ("alpha",)
    ONNX_OPS = ("ThresholdedRelu",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the threshold, strictly exceeded (DirectMLX's default 1)."""


class ActivationLinearOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_LINEAR_OPERATOR_DESC: OutputTensor = Alpha * x + Beta (two roundings, no fma)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_LINEAR
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "linear", "activation_linear", ("alpha", "beta")

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the factor."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): the offset."""


class ActivationHardSigmoidOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC: OutputTensor = max(0, min(Alpha * x + Beta, 1))."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_HARD_SIGMOID
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME, PARAMETERS = "hard_sigmoid", "activation_hard_sigmoid", ("alpha", "beta")
    ONNX_OPS = ("HardSigmoid",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 0.2, "beta": 0.5}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the slope (DirectMLX's default 0.2)."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): the offset (DirectMLX's default 0.5)."""


class ActivationHardSwishOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC: OutputTensor = x * max(0, min(Alpha * x + Beta, 1))."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_HARD_SWISH
    SUPPORT = activation_table(OPERATOR_TYPE, ((L.FL_6_2, (1, 8), FLOATS),))
    FUNCTION, BUILDER_NAME, PARAMETERS = "hard_swish", "activation_hard_swish", ("alpha", "beta")
    ONNX_OPS = ("HardSwish",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1 / 6, "beta": 0.5}

    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the hard sigmoid's slope (DirectMLX's default 1/6)."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): its offset (DirectMLX's default 0.5)."""


class ActivationSoftsignOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC: OutputTensor = x / (1 + |x|)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SOFTSIGN
    SUPPORT = activation_table(OPERATOR_TYPE)
    FUNCTION, BUILDER_NAME = "softsign", "activation_softsign"
    ONNX_OPS = ("Softsign",)


WHOLE_LIMIT = 2**40
"""Beyond the 32-bit types' range by far: a whole part of Bias past it is clamped to it, as the result then
saturates either way (|x - whole| > 2**39 > every 32-bit value, and the last step moves it by 1 at most)."""


class ActivationShrinkOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_SHRINK_OPERATOR_DESC: OutputTensor = x - Bias where x > Threshold, x + Bias where
    x < -Threshold, else 0 (strict comparisons, in that order). An integer tensor's (from 5_1) Bias and Threshold
    are the real numbers their FLOATs hold: compared exactly, the exact sum converted toward zero and saturated."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SHRINK
    SUPPORT = activation_table(OPERATOR_TYPE, (*FLOAT_ROWS[1:], (L.FL_5_1, (1, 8), FLOATS | INTEGERS_8_32)))
    FUNCTION, BUILDER_NAME, PARAMETERS = "shrink", "activation_shrink", ("bias", "threshold")
    ONNX_OPS = ("Shrink",)
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {"bias": 0.0, "threshold": 0.5}

    bias: float = Field(alias="Bias")
    """Bias (FLOAT): subtracted above Threshold, added below -Threshold (DirectMLX's default 0)."""
    threshold: float = Field(alias="Threshold")
    """Threshold (FLOAT): x is kept (shifted by Bias) where |x| strictly exceeds it (DirectMLX's default 0.5)."""

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        x = inputs[0]
        assert x is not None, "InputTensor is required"
        data_type = self.input_tensor.desc.data_type
        if data_type in FLOATS:
            literals = (float_literal(self.threshold), float_literal(-self.threshold), float_literal(self.bias))
            function = "shrink_to_half" if data_type == T.FLOAT16 else "shrink_float"  # half: rounded once
            return f"{function}({x}, {', '.join(literals)})"
        return f"(({register(data_type)})shrink_integer((long)({x}), {', '.join(self._integer_arguments(x))}))"

    def _integer_arguments(self, x: str) -> list[str]:
        """shrink_integer's arguments after x (opencl/elementwise_ops.h): whether x > Threshold and x < -Threshold
        (CLIP_GRAD's exact comparisons with a real bound; none holds for a NaN Threshold), Bias's whole part
        (toward zero) and the sign of its fraction, and the type's range the result saturates to (0 and 0 for a
        NaN Bias: Direct3D converts the NaN sum to 0)."""
        data_type = self.input_tensor.desc.data_type
        info = np.iinfo(np.dtype(DATA_TYPES[data_type].numpy.str))
        with np.errstate(over="ignore"):  # a FLOAT beyond float32's range: an infinity, as C's conversion gives
            threshold, bias = float(np.float32(self.threshold)), float(np.float32(self.bias))
        if math.isnan(threshold):
            above, below = "0", "0"
        else:
            at_or_below, at_or_above = integer_conditions(x, threshold, -threshold, data_type)  # type: ignore[arg-type]
            above, below = f"!{at_or_below}", f"!{at_or_above}"
        if math.isnan(bias):
            whole, sign, lowest, highest = 0, 0, 0, 0
        else:
            whole = math.trunc(max(-WHOLE_LIMIT, min(WHOLE_LIMIT, bias)))  # an infinity clamped too
            fraction = bias - whole if abs(bias) < WHOLE_LIMIT else 0.0  # float32s past 2**40 are whole
            sign, lowest, highest = (fraction > 0) - (fraction < 0), int(info.min), int(info.max)
        whole_literal, lowest_literal, highest_literal = (integer_literal(v, T.INT64) for v in (whole, lowest, highest))
        return [above, below, whole_literal, str(sign), lowest_literal, highest_literal]


class ActivationIdentityOperatorDesc(ActivationDesc):
    """DML_ACTIVATION_IDENTITY_OPERATOR_DESC: OutputTensor = InputTensor, a copy of each element's bits."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_IDENTITY
    SUPPORT = activation_table(OPERATOR_TYPE)
    BUILDER_NAME = "activation_identity"

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        return inputs[0]

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        # A half's value in a float register loses a signalling NaN's bit: a FLOAT16 copy keeps its own kernel.
        return None if self.input_tensor.desc.data_type == T.FLOAT16 else inputs[0]

    def explain_lines(self) -> list[str]:
        return ["a copy of each element's bits"]


class ActivationParameterizedReluOperatorDesc(ElementwiseDesc):
    """DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC: OutputTensor = x where x >= 0, else SlopeTensor * x,
    element by element (the integers' product wraps)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_PARAMETERIZED_RELU
    SUPPORT = SupportTable.same_types(OPERATOR_TYPE, ("InputTensor", "SlopeTensor", "OutputTensor"), RELU_ROWS)
    INPUTS = ("input_tensor", "slope_tensor")
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True
    BUILDER_NAME = "activation_parameterized_relu"
    ONNX_OPS = ("PRelu",)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor."""
    slope_tensor: TensorDesc = Field(alias="SlopeTensor")
    """SlopeTensor: InputTensor's DataType, DimensionCount and Sizes (0-strides broadcast a slope per channel)."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType, DimensionCount and Sizes; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_one_type_and_shape()

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        x, slope = inputs
        assert x is not None and slope is not None, "InputTensor and SlopeTensor are required"
        return f"parameterized_relu_{register(self.input_tensor.desc.data_type)}({x}, {slope})"


class ActivationReluGradOperatorDesc(ElementwiseDesc):
    """DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC: OutputGradientTensor = InputGradientTensor where InputTensor > 0,
    else 0."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_RELU_GRAD
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        ("InputTensor", "InputGradientTensor", "OutputGradientTensor"),
        ((L.FL_3_0, (1, 8), FLOATS), (L.FL_4_0, (1, 8), FLOATS), (L.FL_5_1, (1, 8), FLOATS | SIGNED)),
    )
    INPUTS = ("input_tensor", "input_gradient_tensor")
    OUTPUTS = ("output_gradient_tensor",)
    SUPPORTS_IN_PLACE = True
    BUILDER_NAME = "activation_relu_grad"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the forward pass's input."""
    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the incoming gradient; InputTensor's DataType, DimensionCount and Sizes."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: InputTensor's DataType, DimensionCount and Sizes; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_one_type_and_shape()

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        x, gradient = inputs
        assert x is not None and gradient is not None, "InputTensor and InputGradientTensor are required"
        return f"relu_grad_{register(self.input_tensor.desc.data_type)}({x}, {gradient})"


PIECEWISE_ACTIVATIONS: tuple[type[OperatorDescBase], ...] = (
    ActivationReluOperatorDesc,
    ActivationLeakyReluOperatorDesc,
    ActivationThresholdedReluOperatorDesc,
    ActivationLinearOperatorDesc,
    ActivationHardSigmoidOperatorDesc,
    ActivationHardSwishOperatorDesc,
    ActivationSoftsignOperatorDesc,
    ActivationIdentityOperatorDesc,
    ActivationShrinkOperatorDesc,
    ActivationParameterizedReluOperatorDesc,
    ActivationReluGradOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
