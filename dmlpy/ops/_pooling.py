"""The pooling family's one window rule (docs/operators/pooling.md): AVERAGE_POOLING(1), LP_POOLING(1),
MAX_POOLING(1, 2), QUANTIZED_LINEAR_AVERAGE_POOLING and the gradients AVERAGE_POOLING_GRAD and MAX_POOLING_GRAD
slide a window over the spatial dimensions of a {BatchCount, ChannelCount, [Depth], Height, Width} tensor.

DimensionCount sizes Strides, WindowSize, StartPadding, EndPadding and, where the operator has them, Dilations
(``COUNTED_ARRAYS``: derived when left out); it is the input's DimensionCount - 2. Along spatial dimension i a
window covers (WindowSize[i] - 1) * Dilations[i] + 1 elements of the padded input, and the output has

    (InputTensor.Sizes[2 + i] + StartPadding[i] + EndPadding[i] - (WindowSize[i] - 1) * Dilations[i] - 1)
        / Strides[i] + 1

elements, the division rounded down (``window_output_size``); BatchCount and ChannelCount are the input's. The pages
of the operators with Dilations print the formula without them (WindowSize for the dilated window); dmlpy follows
the dilated window, which is the pages' formula at Dilations 1 and ONNX's MaxPool rule.

A convolution computes its spatial output by the same arithmetic (plus OutputPadding, and a transposed form), and
UNFOLD counts its blocks by it: ``window_output_size`` is theirs too (``ops/_window.py``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from dmlpy.enums import FeatureLevel, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels.pooling import PoolingWindow
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._window import window_output_size
from dmlpy.tensor import BufferTensorDesc, TensorDesc

WINDOW_ARRAYS = ("strides", "window_size", "start_padding", "end_padding")
"""The arrays DimensionCount sizes in every pooling operator, in C order."""
DILATED_ARRAYS = (*WINDOW_ARRAYS, "dilations")
"""The same, for the operators with Dilations."""


def window_formula(input_name: str, dilated: bool) -> str:
    """The spatial formula in words, as a refused output's message shows it."""
    window = "(WindowSize[i] - 1) * Dilations[i] - 1" if dilated else "WindowSize[i]"
    return f"({input_name}.Sizes[2 + i] + StartPadding[i] + EndPadding[i] - {window}) / Strides[i] + 1, rounded down"


def directml_type(desc: BufferTensorDesc) -> TensorDataType:
    """A DirectML operator's tensor's DataType (the support table has refused the extension types)."""
    assert isinstance(desc.data_type, TensorDataType), desc.data_type
    return desc.data_type


class PoolingDesc(StructuredDesc):
    """An operator that slides a window over the spatial dimensions: DimensionCount against the input's, Strides,
    WindowSize and Dilations at least 1, the dilated window within the padded input, and the output's Sizes."""

    FORWARD_INPUT: ClassVar[str] = "input_tensor"
    """The tensor (snake_case) with the forward pass's input Sizes: InputTensor, or a gradient's output."""
    FORWARD_OUTPUT: ClassVar[str] = "output_tensor"
    """The tensor with the forward pass's output Sizes: OutputTensor, or a gradient's InputGradientTensor."""
    DILATED: ClassVar[bool] = False
    """Whether the operator has Dilations (the "1" and "2" forms, the gradients but AVERAGE_POOLING_GRAD)."""

    @classmethod
    def forward_sizes(cls, input_sizes: tuple[int, ...], fields: dict[str, Any]) -> tuple[tuple[int, ...], str]:
        """The forward output's Sizes from the forward input's and the window fields, with the rule in words."""
        dilations = fields["dilations"] if cls.DILATED else (1,) * len(fields["strides"])
        spatial = tuple(
            window_output_size(size, start, end, window, stride, dilation)
            for size, start, end, window, stride, dilation in zip(
                input_sizes[2:],
                fields["start_padding"],
                fields["end_padding"],
                fields["window_size"],
                fields["strides"],
                dilations,
                strict=False,
            )
        )
        name = cls.c_field(cls.FORWARD_INPUT)
        rule = (
            f"{name}'s BatchCount and ChannelCount {list(input_sizes[:2])}, then per spatial dimension i "
            f"{window_formula(name, cls.DILATED)}: {list(spatial)}"
        )
        return (*input_sizes[:2], *spatial), rule

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The forward operators' output: the window rule on InputTensor, InputTensor's DataType."""
        x = inputs["input_tensor"]
        assert x is not None
        sizes, rule = cls.forward_sizes(x.sizes, fields)
        return (OutputShape(sizes, directml_type(x), rule),)

    def window_fields(self) -> dict[str, Any]:
        arrays = DILATED_ARRAYS if self.DILATED else WINDOW_ARRAYS
        return {name: getattr(self, name) for name in arrays}

    def check_shape_rules(self, level: FeatureLevel) -> None:
        name = self.operator_name()
        forward_input: TensorDesc = getattr(self, self.FORWARD_INPUT)
        sizes, input_name = forward_input.desc.sizes, self.c_field(self.FORWARD_INPUT)
        fields = self.window_fields()
        count = len(fields["strides"])  # DimensionCount, which construction holds to the arrays' length
        if count != len(sizes) - 2:
            raise InvalidArgumentError(
                f"{name}.DimensionCount is {count}; it must be {input_name}.DimensionCount - 2 ({len(sizes) - 2}): "
                "the window spans the spatial dimensions, those after BatchCount and ChannelCount (2 for a 4-D "
                "tensor, 3 for a 5-D one)"
            )
        for field in ("strides", "window_size", "dilations"):
            for index, value in enumerate(fields.get(field, ())):
                if value == 0:
                    raise InvalidArgumentError(
                        f"{name}.{self.c_field(field)}[{index}] is 0; it must be at least 1 (1 is the undilated, "
                        "unstrided window)"
                    )
        dilations = fields.get("dilations", (1,) * count)
        for index, size in enumerate(sizes[2:]):
            start, end = fields["start_padding"][index], fields["end_padding"][index]
            window, dilation = fields["window_size"][index], dilations[index]
            extent = (window - 1) * dilation + 1
            if size + start + end < extent:
                how = f" ((WindowSize - 1) * Dilations + 1, Dilations[{index}] {dilation})" if self.DILATED else ""
                raise InvalidArgumentError(
                    f"{name}.WindowSize[{index}] is {window}: the window spans {extent} elements{how}, more than "
                    f"{input_name}.Sizes[{index + 2}] ({size}) with StartPadding[{index}] ({start}) and "
                    f"EndPadding[{index}] ({end}) hold ({size + start + end}); the window must fit in the padded "
                    "input: make it smaller or pad more"
                )
        forward_output_name = self.FORWARD_OUTPUT
        if forward_output_name in self.INPUTS:
            wanted, rule = self.forward_sizes(sizes, fields)
            given: TensorDesc = getattr(self, forward_output_name)
            if given.desc.sizes != wanted:
                raise InvalidArgumentError(
                    f"{name}.{self.c_field(forward_output_name)}.Sizes is {list(given.desc.sizes)}; it must be the "
                    f"forward pass's output, {list(wanted)}: {rule}"
                )
        self.check_pooling_rules(level)

    def check_pooling_rules(self, level: FeatureLevel) -> None:
        """The operator's own rules after the window's (LP_POOLING's P, the quantized form's parameters)."""


class ForwardPoolingDesc(PoolingDesc):
    """A forward pooling of InputTensor into OutputTensor of its DataType and DimensionCount."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input_tensor",)
    OUTPUTS: ClassVar[tuple[str, ...]] = ("output_tensor",)
    SAME_DATA_TYPE: ClassVar[tuple[tuple[str, ...], ...]] = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT: ClassVar[tuple[tuple[str, ...], ...]] = (("input_tensor", "output_tensor"),)
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": WINDOW_ARRAYS}


class DilatedPoolingDesc(ForwardPoolingDesc):
    """A forward pooling with Dilations (the FL 2_1 and 6_2 forms)."""

    DILATED = True
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": DILATED_ARRAYS}


def window_of(desc: PoolingDesc) -> PoolingWindow:
    """The kernel's window from the operator's fields (Dilations 1 where it has none)."""
    fields = desc.window_fields()
    count = len(fields["strides"])
    dilations = fields.get("dilations", (1,) * count)
    return PoolingWindow(fields["window_size"], fields["strides"], dilations, fields["start_padding"])
