"""DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC (DML_FEATURE_LEVEL_4_0): two quantized tensors dequantized,
added and quantized again, element by element:

    AValue = (A - AZeroPoint) * AScale;  BValue = (B - BZeroPoint) * BScale
    Output = saturate(round((AValue + BValue) / OutputScale) + OutputZeroPoint)

Each scale and zero point is per-tensor: it holds one element (Microsoft's page), so dmlpy takes a tensor of A's
DimensionCount whose Sizes are 1, or A's with 0-strides, along each dimension. A missing zero point is 0. The
arithmetic is QuantizeLinear's and DequantizeLinear's (``quantize_expression``, ``dequantize_expression``): the
differences exact, each product and the sum rounded to float, a true division, halves to even (the page does not
say how round() breaks ties; QuantizeLinear's rule, ONNX's QLinearAdd's), then saturation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import ElementwiseLayout, blocked_layout
from dmlpy.ops._base import OutputShape
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops.element_wise_quantize_linear import dequantize_expression, quantize_expression
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

T = TensorDataType
_QUANTIZED = frozenset({T.INT8, T.UINT8})
_SCALE = frozenset({T.FLOAT32})

PER_TENSOR = (
    "a_scale_tensor",
    "a_zero_point_tensor",
    "b_scale_tensor",
    "b_zero_point_tensor",
    "output_scale_tensor",
    "output_zero_point_tensor",
)
"""The scale and zero-point fields: one element each."""


class ElementWiseQuantizedLinearAddOperatorDesc(ElementwiseDesc):
    """DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC: OutputTensor = saturate(round((dequantize(A) +
    dequantize(B)) / OutputScale) + OutputZeroPoint), per-tensor scales and zero points, halves to even."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_QUANTIZED_LINEAR_ADD
    SUPPORT = SupportTable(
        OperatorType.ELEMENT_WISE_QUANTIZED_LINEAR_ADD,
        (
            SupportRow(
                FeatureLevel.FL_4_0,
                (1, 8),
                {
                    "ATensor": _QUANTIZED,
                    "AScaleTensor": _SCALE,
                    "AZeroPointTensor": _QUANTIZED,
                    "BTensor": _QUANTIZED,
                    "BScaleTensor": _SCALE,
                    "BZeroPointTensor": _QUANTIZED,
                    "OutputScaleTensor": _SCALE,
                    "OutputZeroPointTensor": _QUANTIZED,
                    "OutputTensor": _QUANTIZED,
                },
                optional=frozenset({"AZeroPointTensor", "BZeroPointTensor", "OutputZeroPointTensor"}),
            ),
        ),
    )
    INPUTS = ("a_tensor", *PER_TENSOR[:2], "b_tensor", *PER_TENSOR[2:])
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = False  # the page says nothing of in-place execution
    BUILDER_NAME: ClassVar[str | None] = "quantized_linear_add"
    BARE_FORM: ClassVar[bool] = False

    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor: the left-hand quantized values."""
    a_scale_tensor: TensorDesc = Field(alias="AScaleTensor")
    """AScaleTensor: ATensor's scale, one element."""
    a_zero_point_tensor: TensorDesc | None = Field(default=None, alias="AZeroPointTensor")
    """AZeroPointTensor: ATensor's zero point, one element of ATensor's DataType; null means 0."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: the right-hand quantized values, ATensor's Sizes (0-strides broadcast it)."""
    b_scale_tensor: TensorDesc = Field(alias="BScaleTensor")
    """BScaleTensor: BTensor's scale, one element."""
    b_zero_point_tensor: TensorDesc | None = Field(default=None, alias="BZeroPointTensor")
    """BZeroPointTensor: BTensor's zero point, one element of BTensor's DataType; null means 0."""
    output_scale_tensor: TensorDesc = Field(alias="OutputScaleTensor")
    """OutputScaleTensor: OutputTensor's scale, one element."""
    output_zero_point_tensor: TensorDesc | None = Field(default=None, alias="OutputZeroPointTensor")
    """OutputZeroPointTensor: OutputTensor's zero point, one element of OutputTensor's DataType; null means 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: ATensor's Sizes."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """ATensor's Sizes; OutputZeroPointTensor's DataType, the caller's choice where that is left out."""
        return cls.outputs_like(inputs, "a_tensor", "output_zero_point_tensor")

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(("dimension_count",), "a_tensor", (*PER_TENSOR, "b_tensor", "output_tensor"))
        self.check_same(("sizes",), "a_tensor", ("b_tensor", "output_tensor"))
        for values, zero_point in (
            ("a_tensor", "a_zero_point_tensor"),
            ("b_tensor", "b_zero_point_tensor"),
            ("output_tensor", "output_zero_point_tensor"),
        ):
            self.check_same(("data_type",), values, (zero_point,))
        for field in PER_TENSOR:
            self._check_one_element(field)

    def _check_one_element(self, field: str) -> None:
        tensor: TensorDesc | None = getattr(self, field)
        if tensor is None:
            return
        full = self.a_tensor.desc.sizes
        desc = tensor.desc
        for dim, (size, stride, a_size) in enumerate(zip(desc.sizes, desc.effective_strides, full, strict=True)):
            if size != 1 and (size != a_size or stride != 0):
                raise InvalidArgumentError(
                    f"{self.operator_name()}.{self.c_field(field)}.Sizes[{dim}] is {size} with Strides[{dim}] "
                    f"{stride}; a scale or zero point is per-tensor, one element: give it Sizes of 1, or "
                    f"ATensor's ({a_size}) with a 0-stride, along each dimension"
                )

    def element_layout(self) -> ElementwiseLayout:
        """A's dimensions; a scale or zero point steps by 0 along all of them (an absent one too)."""
        sizes = self.a_tensor.desc.sizes
        ones = (1,) * len(sizes)
        tensors = [
            (ones, (0,) * len(sizes)) if tensor is None else (tensor.desc.sizes, tensor.desc.effective_strides)
            for tensor in (*self.input_tensors(), *self.output_tensors())
        ]
        return blocked_layout(sizes, tensors)

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale, output_zero_point = inputs
        assert a is not None and b is not None and a_scale is not None and b_scale is not None
        assert output_scale is not None
        a_type, b_type = self.a_tensor.desc.data_type, self.b_tensor.desc.data_type
        output_type = self.output_tensor.desc.data_type
        assert isinstance(a_type, T) and isinstance(b_type, T) and isinstance(output_type, T)
        total = (
            f"({dequantize_expression(a, a_scale, a_zero_point, a_type)}"
            f" + {dequantize_expression(b, b_scale, b_zero_point, b_type)})"
        )
        return quantize_expression(total, output_scale, output_zero_point, T.FLOAT32, output_type)

    def explain_lines(self) -> list[str]:
        return [
            "dequantize(A) + dequantize(B), then QuantizeLinear's quantize and saturation (halves to even), through "
            "the element-wise template (opencl/elementwise_ops.h)"
        ]
