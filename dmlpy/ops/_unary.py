"""What every unary element-wise operator shares (WebNN's ``Unary`` base plays the same part): an InputTensor,
an OutputTensor of the same type and shape whose strides may differ, in-place execution allowed."""

from __future__ import annotations

from pydantic import Field

from dmlpy.enums import FeatureLevel
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import TensorDesc


class UnaryElementWiseDesc(OperatorDescBase):
    """Base of the DML_ELEMENT_WISE_*_OPERATOR_DESC models with one input and one output."""

    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: same DataType, DimensionCount and Sizes as InputTensor; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_output_like_input()

    def check_output_like_input(self) -> None:
        """OutputTensor has InputTensor's DataType, DimensionCount and Sizes."""
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; only the strides may differ",
        )
