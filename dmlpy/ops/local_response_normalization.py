"""The local response normalizations (docs/operators/normalization.md): DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC
(FL 1_0) and DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC (FL 3_1), from Microsoft's pages.

Output = Input / (Bias + Alpha / LocalSize * the sum of Input^2 over the local window)^Beta, the window LocalSize
elements along Width and Height, or along the channels too (CrossChannel TRUE); InputTensor { N, C, H, W } and the
output of one DataType and Sizes, exactly 4 dimensions, FLOAT32 or FLOAT16. LocalSize is at least 1. dmlpy
validates them and does not run them yet.

Where the gradient's page contradicts itself: its LocalSize text reads inverted against its CrossChannel text (TRUE
the width and height of the region, FALSE the element count); dmlpy follows CrossChannel's text and the forward
operator's page, which agree (TRUE sums across channels). Neither changes a rule dmlpy checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.model import Bool, UInt32
from dmlpy.ops._normalization import NormalizationDesc, float_rows
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel


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
