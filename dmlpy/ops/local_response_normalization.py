"""The local response normalizations (docs/operators/normalization.md): DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC
(FL 1_0) and DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC (FL 3_1), from Microsoft's pages.

Output = Input / (Bias + Alpha / LocalSize * the sum of Input^2 over the local window)^Beta, the window LocalSize
elements along Width and Height, or along the channels too (CrossChannel TRUE); InputTensor { N, C, H, W } and the
output of one DataType and Sizes, exactly 4 dimensions, FLOAT32 or FLOAT16. LocalSize is at least 1. dmlpy runs
LOCAL_RESPONSE_NORMALIZATION (opencl/local_response_normalization.cl, one output element at a time: the window's
compensated sum of squares, then pow), centring the window as ONNX's LRN does (floor((LocalSize - 1) / 2) elements
before, ceil((LocalSize - 1) / 2) after, clipped at the edges, the divisor LocalSize throughout; CrossChannel FALSE a
LocalSize x LocalSize window over Height and Width, the page's Alpha / LocalSize kept); it validates the gradient
and does not run it yet.

Where the gradient's page contradicts itself: its LocalSize text reads inverted against its CrossChannel text (TRUE
the width and height of the region, FALSE the element count); dmlpy follows CrossChannel's text and the forward
operator's page, which agree (TRUE sums across channels). Neither changes a rule dmlpy checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels import CPU_PROFILE, ElementwiseLayout, KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS
from dmlpy.kernels.source import KernelSpec
from dmlpy.model import Bool, UInt32
from dmlpy.ops._normalization import NormalizationDesc, float_rows
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
RUN = 256
"""Output elements per work-item under the "cpu" profile: each costs a window of reads, so a shorter run than the
template's 1024 still amortises the walk's start."""


def float_bits(value: float) -> int:
    """``value`` rounded to float32 (as C's FLOAT field holds it), as the bits a kernel reads back with as_float."""
    with np.errstate(over="ignore"):
        return int(np.float32(value).view(np.uint32))


class _LocalResponseFields(NormalizationDesc):
    """The window's rule, shared by the operator and its gradient; each declares the fields in DirectML.h's order
    (its tensors, then CrossChannel, LocalSize, Alpha, Beta, Bias)."""

    if TYPE_CHECKING:  # the window's extent, which ``check_normalization_rules`` reads
        local_size: int

    def check_normalization_rules(self, level: FeatureLevel) -> None:
        self.check_local_size(self.local_size)


class LocalResponseNormalizationOperatorDesc(_LocalResponseFields):
    """DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC: OutputTensor = Input / (Bias + Alpha / LocalSize * the sum of
    Input^2 over the window)^Beta."""

    OPERATOR_TYPE = OperatorType.LOCAL_RESPONSE_NORMALIZATION
    BUILDER_NAME = "local_response_normalization"
    ONNX_OPS = ("LRN",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE, frozenset(), float_rows(("InputTensor", "OutputTensor"), ((L.FL_1_0, (4, 4)),))
    )
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    PAGE_SIZES = "InputTensor and OutputTensor must have the same DataType and Sizes"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the data, { BatchCount, ChannelCount, Height, Width }."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""
    cross_channel: Bool = Field(alias="CrossChannel")
    """CrossChannel (BOOL): TRUE sums across channels as well; FALSE over Width and Height only."""
    local_size: UInt32 = Field(alias="LocalSize")
    """LocalSize (UINT): the window's extent along each summed dimension, at least 1."""
    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the sum's factor, divided by LocalSize (0.0001 recommended)."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): the denominator's exponent (0.75 recommended)."""
    bias: float = Field(alias="Bias")
    """Bias (FLOAT): added to the scaled sum (1 recommended)."""

    def window(self) -> tuple[int, int, int, int]:
        """The elements the window takes before and after an element along C, then along H and W (ONNX's
        centring: floor((LocalSize - 1) / 2) before, ceil((LocalSize - 1) / 2) after)."""
        before, after = (self.local_size - 1) // 2, self.local_size // 2
        return (before, after, 0, 0) if self.cross_channel else (0, 0, before, after)

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """opencl/local_response_normalization.cl over the four dimensions, the window and Alpha / LocalSize, Beta
        and Bias as kernel arguments (Alpha / LocalSize rounded to float once, as a float division gives it)."""
        sizes = self.input_tensor.desc.sizes
        half = self.input_tensor.desc.data_type == TensorDataType.FLOAT16
        spec = KernelSpec(
            "local_response_normalization.cl",
            "local_response_normalization",
            (("DML_FLOAT16", str(int(half))),),
            TEMPLATE_OPTIONS,  # x / pow(...) correctly rounded
        )
        layout = ElementwiseLayout(
            element_count=int(np.prod(sizes)),
            sizes=tuple(sizes),
            strides=(tuple(self.input_tensor.desc.effective_strides), tuple(self.output_tensor.desc.effective_strides)),
        )
        scale = np.float32(self.alpha) / np.float32(self.local_size)
        numbers = (*self.window(), float_bits(float(scale)), float_bits(self.beta), float_bits(self.bias))
        return profile.lowered(spec, layout, RUN, parameters=(KernelParameter("uint8", numbers),))


class LocalResponseNormalizationGradOperatorDesc(_LocalResponseFields):
    """DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC: the gradient of LOCAL_RESPONSE_NORMALIZATION at InputTensor
    (the forward input), given InputGradientTensor; the page gives no formula."""

    OPERATOR_TYPE = OperatorType.LOCAL_RESPONSE_NORMALIZATION_GRAD
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        float_rows(("InputTensor", "InputGradientTensor", "OutputGradientTensor"), ((L.FL_3_1, (4, 4)),)),
    )
    INPUTS = ("input_tensor", "input_gradient_tensor")
    OUTPUTS = ("output_gradient_tensor",)
    SAME_DATA_TYPE = ((*INPUTS, "output_gradient_tensor"),)
    SAME_SIZES = (INPUTS,)
    PAGE_SIZES = "InputGradientTensor, InputTensor and OutputGradientTensor must have the same DataType and Sizes"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the forward operator's input, { BatchCount, ChannelCount, Height, Width }."""
    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the incoming gradient; InputTensor's Sizes."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: the gradient of the input; InputTensor's Sizes and DataType."""
    cross_channel: Bool = Field(alias="CrossChannel")
    """CrossChannel (BOOL): TRUE sums across channels as well; FALSE over Width and Height only."""
    local_size: UInt32 = Field(alias="LocalSize")
    """LocalSize (UINT): the window's extent along each summed dimension, at least 1."""
    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the sum's factor, divided by LocalSize (0.0001 recommended)."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): the denominator's exponent (0.75 recommended)."""
    bias: float = Field(alias="Bias")
    """Bias (FLOAT): added to the scaled sum (1 recommended)."""


LOCAL_RESPONSE_OPERATORS = (LocalResponseNormalizationOperatorDesc, LocalResponseNormalizationGradOperatorDesc)
"""The local response normalizations, in the operator table's order."""
