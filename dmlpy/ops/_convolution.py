"""The convolution family's one window rule: CONVOLUTION, CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION slide a
FilterTensor {FilterBatchCount, FilterChannelCount, [FilterDepth], [FilterHeight], FilterWidth} over an InputTensor
{BatchCount, InputChannelCount, [InputDepth], [InputHeight], InputWidth}, DimensionCount spatial dimensions (the
dimensions after the first two), into an OutputTensor {BatchCount, OutputChannelCount, ...}.

Per spatial dimension i, with the dilated filter ``Dilations[i] * (k - 1) + 1`` (k = FilterTensor.Sizes[2 + i]):

* FORWARD: ``(in + StartPadding[i] + EndPadding[i] - dilated) / Strides[i] + 1``, rounded down, as ONNX's Conv and
  DirectMLX's ``dml::Convolution`` compute it; the filter is {OutputChannelCount, InputChannelCount / GroupCount, ...}.
* BACKWARD (the transposed convolution): ``(in - 1) * Strides[i] + dilated - StartPadding[i] - EndPadding[i]``, as
  ONNX's ConvTranspose computes it; the filter is {InputChannelCount, OutputChannelCount / GroupCount, ...}, ONNX
  ConvTranspose's W and the layout TensorFlow-DirectML gives DirectML's BACKWARD convolution. DirectMLX leaves this
  direction's output size unwritten ("TODO: implement me").

CONVOLUTION adds ``OutputPadding[i]`` in either direction: its page says OutputPadding pads the end of each output
dimension, whatever the direction. The pages give no output-size formula, no channel rule and no rule for a stride,
dilation or GroupCount of 0: dmlpy follows ONNX's Conv and ConvTranspose (strides, dilations and group at least 1,
input channels a multiple of group).

They run as ``dmlpy/kernels/convolution.py``'s plan: the input unfolded (im2col, ``opencl/convolution.cl``) and
gemm.cl's contraction with the filter, per (batch, group), each operator's arithmetic in the contraction's epilogue
(``contraction``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dmlpy.drawing.windows import ConvolutionWindow, WindowDimension
from dmlpy.enums import ConvolutionDirection, FeatureLevel, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels.contraction import ABSENT
from dmlpy.kernels.convolution import Geometry, Operand, convolution_plan, pad_spatial
from dmlpy.kernels.launch import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.plan import OperatorPlan, PlanRef
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._window import window_output_size
from dmlpy.tensor import BufferTensorDesc, TensorDesc

_ARRAYS = ("strides", "dilations", "start_padding", "end_padding")


@dataclass(frozen=True)
class SpatialWindow:
    """One spatial dimension i of a convolution: its input size, filter size and the fields' entries."""

    index: int
    size: int
    kernel: int
    stride: int
    dilation: int
    start: int
    end: int
    output_padding: int
    backward: bool

    @property
    def dilated(self) -> int:
        """The filter's extent with its dilation: ``Dilations[i] * (k - 1) + 1``."""
        return self.dilation * (self.kernel - 1) + 1

    @property
    def output(self) -> int:
        if self.backward:
            return (self.size - 1) * self.stride + self.dilated - self.start - self.end + self.output_padding
        forward = window_output_size(self.size, self.start, self.end, self.kernel, self.stride, self.dilation)
        return forward + self.output_padding

    def arithmetic(self, with_output_padding: bool) -> str:
        """The formula with this dimension's numbers: ``(5 + 1 + 1 - 3) / 2 + 1 = 3``."""
        padding = f" + {self.output_padding}" if with_output_padding else ""
        if self.backward:
            return (
                f"({self.size} - 1) * {self.stride} + {self.dilated} - {self.start} - {self.end}{padding} = "
                f"{self.output}"
            )
        return (
            f"({self.size} + {self.start} + {self.end} - {self.dilated}) / {self.stride} + 1{padding} = {self.output}"
        )


@dataclass(frozen=True)
class Window:
    """What a convolution's fields and InputTensor and FilterTensor Sizes make: the output's Sizes and the rule."""

    sizes: tuple[int, ...]
    rule: str
    input_channels: int
    output_channels: int
    output_channels_from: str
    spatial: tuple[SpatialWindow, ...]
    backward: bool


class ConvolutionWindowDesc(StructuredDesc):
    """An operator that convolves FilterTensor with InputTensor over DimensionCount spatial dimensions: the window
    rule, the channels and groups, a bias of one value per output channel, scales and zero points per tensor or per
    output channel."""

    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": _ARRAYS}
    OUTPUT_TYPE_OF: ClassVar[str | None] = "input_tensor"
    """The input whose DataType the output has; None where the output's type is fixed (``OUTPUT_TYPE``) or, without
    it, the caller's choice."""
    OUTPUT_TYPE: ClassVar[TensorDataType | None] = None
    BIAS: ClassVar[str | None] = None
    """The bias tensor field, {1, OutputChannelCount, 1, ..}; None where the operator has none."""
    PER_TENSOR: ClassVar[tuple[str, ...]] = ()
    """Scale and zero-point fields that hold one value (every size 1)."""
    PER_OUTPUT_CHANNEL: ClassVar[tuple[str, ...]] = ()
    """Scale and zero-point fields that hold one value or one per output channel."""
    PADDING_VALUE: ClassVar[str | None] = None
    """The input's zero point field, the value the unfolded input's padding holds; None where padding is 0."""

    @classmethod
    def window(cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]) -> Window:
        source, kernel = inputs["input_tensor"], inputs["filter_tensor"]
        assert source is not None and kernel is not None
        backward = fields.get("direction") == ConvolutionDirection.BACKWARD
        with_output_padding = "output_padding" in cls.model_fields
        groups = int(fields.get("group_count") or 1)

        def entry(name: str, i: int, default: int) -> int:
            values = fields.get(name) or ()
            return int(values[i]) if i < len(values) else default

        spatial = tuple(
            SpatialWindow(
                i,
                source.sizes[2 + i],
                kernel.sizes[2 + i] if 2 + i < len(kernel.sizes) else 1,
                entry("strides", i, 1),
                entry("dilations", i, 1),
                entry("start_padding", i, 0),
                entry("end_padding", i, 0),
                entry("output_padding", i, 0),
                backward,
            )
            for i in range(len(source.sizes) - 2)
        )
        if backward:
            channels, channels_from = kernel.sizes[1] * groups, "FilterTensor.Sizes[1] * GroupCount"
            formula = (
                "(InputTensor.Sizes[2+i] - 1) * Strides[i] + Dilations[i] * (FilterTensor.Sizes[2+i] - 1) + 1 - "
                "StartPadding[i] - EndPadding[i]"
            )
        else:
            channels, channels_from = kernel.sizes[0], "FilterTensor.Sizes[0]"
            formula = (
                "(InputTensor.Sizes[2+i] + StartPadding[i] + EndPadding[i] - Dilations[i] * (FilterTensor.Sizes[2+i] "
                "- 1) - 1) / Strides[i] + 1"
            )
        formula += " + OutputPadding[i]" if with_output_padding else ""
        formula += "" if backward else ", rounded down"
        direction = "BACKWARD, the transposed convolution" if backward else "FORWARD"
        worked = ", ".join(dim.arithmetic(with_output_padding) for dim in spatial)
        rule = (
            f"BatchCount = InputTensor.Sizes[0], OutputChannelCount = {channels_from}, then per spatial dimension i "
            f"({direction}): {formula}: [{worked}]"
        )
        sizes = (source.sizes[0], channels, *(dim.output for dim in spatial))
        return Window(sizes, rule, source.sizes[1], channels, channels_from, spatial, backward)

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """BatchCount, OutputChannelCount, then the window's size per spatial dimension; the DataType of
        ``OUTPUT_TYPE_OF`` or ``OUTPUT_TYPE``."""
        window = cls.window(inputs, fields)
        typed = inputs.get(cls.OUTPUT_TYPE_OF) if cls.OUTPUT_TYPE_OF is not None else None
        data_type = cls.OUTPUT_TYPE if typed is None else typed.data_type
        assert data_type is None or isinstance(data_type, TensorDataType)
        return (OutputShape(window.sizes, data_type, window.rule),)

    def operands(self) -> dict[str, BufferTensorDesc | None]:
        """This descriptor's inputs by field, as ``output_shapes`` takes them."""
        return {name: None if (tensor := getattr(self, name)) is None else tensor.desc for name in self.INPUTS}

    def field_values(self) -> dict[str, Any]:
        """Every field that is not a tensor, by name, as ``output_shapes`` takes them."""
        tensors = {*self.INPUTS, *self.OUTPUTS}
        return {name: getattr(self, name) for name in type(self).model_fields if name not in tensors}

    def flipped(self) -> bool:
        """Whether the filter is read reversed along its spatial axes (CONVOLUTION's Mode against Direction)."""
        return False

    def geometry(self) -> Geometry:
        """The window's numbers as ``dmlpy/kernels/convolution.py`` takes them."""
        fields = self.field_values()
        window = self.window(self.operands(), fields)
        dims, padded = window.spatial, pad_spatial

        return Geometry(
            batch=window.sizes[0],
            groups=int(fields["group_count"]),
            input_channels=window.input_channels,
            output_channels=window.output_channels,
            input_spatial=padded([dim.size for dim in dims], 1),
            kernel=padded([dim.kernel for dim in dims], 1),
            output_spatial=padded([dim.output for dim in dims], 1),
            valid=padded([dim.output - (0 if dim.backward else dim.output_padding) for dim in dims], 1),
            strides=padded([dim.stride for dim in dims], 1),
            dilations=padded([dim.dilation for dim in dims], 1),
            starts=padded([dim.start for dim in dims], 0),
            spatial_count=len(dims),
            backward=window.backward,
            flipped=self.flipped(),
        )

    def slot(self, field: str) -> PlanRef | None:
        """What ``field`` is bound to in a plan: its input slot, the output; None where it is absent."""
        if getattr(self, field) is None:
            return None
        return PlanRef("output", 0) if field in self.OUTPUTS else PlanRef("input", self.INPUTS.index(field))

    def per_channel_strides(self, field: str) -> tuple[int, ...]:
        """A bias, scale or zero point's strides in the contraction domain: along the output channels, (group, row),
        by its channel axis' stride; one value, 0 everywhere; absent, ``ABSENT``."""
        tensor: TensorDesc | None = getattr(self, field)
        if tensor is None:
            return ABSENT
        sizes, strides = tensor.desc.sizes, tensor.desc.effective_strides
        channel = strides[1] if len(sizes) > 1 and sizes[1] != 1 else 0
        return (0, self.geometry().rows * channel, channel, 0, 0)

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """The filter packed where needed, the input unfolded, the contraction (``dmlpy/kernels/convolution.py``)."""
        tensors = {}
        for name, field in (("input", "input_tensor"), ("filter", "filter_tensor"), ("output", "output_tensor")):
            ref = self.slot(field)
            assert ref is not None  # required fields
            tensors[name] = (ref, getattr(self, field).desc)
        fill = None if self.PADDING_VALUE is None else self.slot(self.PADDING_VALUE)
        return convolution_plan(self.geometry(), tensors, fill, self.contraction, profile)

    def contraction(
        self, filter_operand: Operand, columns: Operand, output: Operand, profile: LaunchProfile
    ) -> tuple[LoweredOperator, tuple[PlanRef | None, ...]]:
        """gemm.cl's contraction of the filter (A) with the columns (B) into the output, the operator's epilogue."""
        raise NotImplementedError

    def drawn_shape(self) -> ConvolutionWindow | None:
        """The window's numbers per spatial dimension, from ``window`` (its sizes are the rule's), for the picture;
        None where InputTensor has no spatial dimension or FilterTensor no channels."""
        operands, fields = self.operands(), self.field_values()
        source, kernel = operands["input_tensor"], operands["filter_tensor"]
        if source is None or kernel is None or len(source.sizes) < 3 or len(kernel.sizes) < 2:
            return None
        window = self.window(operands, fields)
        with_output_padding = "output_padding" in type(self).model_fields
        dims = tuple(
            WindowDimension(
                axis=2 + dim.index,
                size=dim.size,
                kernel=dim.kernel,
                dilated=dim.dilated,
                stride=dim.stride,
                dilation=dim.dilation,
                start=dim.start,
                end=dim.end,
                output=dim.output,
                arithmetic=dim.arithmetic(with_output_padding),
            )
            for dim in window.spatial
        )
        return ConvolutionWindow(
            source.sizes,
            kernel.sizes,
            window.sizes,
            int(fields.get("group_count") or 1),
            window.backward,
            dims,
            window.rule,
        )

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """DimensionCount against the tensors, the fields' ranges, the channels and groups, the window, the bias and
        the scales and zero points; then the operator's own (``check_convolution_rules``)."""
        name, fields = self.operator_name(), self.field_values()
        source = self.operands()["input_tensor"]
        assert source is not None
        rank, count = len(source.sizes), fields["dimension_count"]
        if count != rank - 2:
            raise InvalidArgumentError(
                f"{name}.DimensionCount is {count}; InputTensor has {rank} dimensions, so it must be {rank - 2}: the "
                "spatial dimensions, every dimension after BatchCount and ChannelCount (Strides, Dilations, "
                "StartPadding, EndPadding hold one entry each per spatial dimension)"
            )
        for array in ("strides", "dilations"):
            for i, value in enumerate(fields[array]):
                if value < 1:
                    raise InvalidArgumentError(
                        f"{name}.{self.c_field(array)}[{i}] is {value}; it must be at least 1 (as ONNX's Conv "
                        "requires; the page leaves 0 undefined)"
                    )
        if fields["group_count"] < 1:
            raise InvalidArgumentError(
                f"{name}.GroupCount is {fields['group_count']}; it must be at least 1 (1: an ordinary convolution; "
                "InputChannelCount: a depth-wise one)"
            )
        window = self.window(self.operands(), fields)
        self.check_channels(window, fields["group_count"])
        self.check_spatial(window)
        self.check_bias(window)
        for field in self.PER_TENSOR:
            self.check_one_value(field)
        for field in self.PER_OUTPUT_CHANNEL:
            self.check_parameter(
                field, window.output_channels, f"output channel (OutputChannelCount = {window.output_channels_from})"
            )
        self.check_convolution_rules(level, window)

    def check_channels(self, window: Window, groups: int) -> None:
        """InputChannelCount splits into GroupCount groups; FilterTensor's first two Sizes follow the direction."""
        name = self.operator_name()
        kernel = self.operands()["filter_tensor"]
        assert kernel is not None
        channels = window.input_channels
        if channels % groups:
            raise InvalidArgumentError(
                f"{name}.InputTensor.Sizes[1] (InputChannelCount) is {channels}; it must be a multiple of GroupCount "
                f"({groups}): each group convolves InputChannelCount / GroupCount channels"
            )
        if window.backward:
            if kernel.sizes[0] != channels:
                raise InvalidArgumentError(
                    f"{name}.FilterTensor.Sizes[0] is {kernel.sizes[0]}; it must be InputTensor.Sizes[1] "
                    f"(InputChannelCount, {channels}): BACKWARD reads FilterTensor as {{InputChannelCount, "
                    "OutputChannelCount / GroupCount, ...}, ONNX ConvTranspose's W"
                )
            return
        if kernel.sizes[1] * groups != channels:
            raise InvalidArgumentError(
                f"{name}.FilterTensor.Sizes[1] is {kernel.sizes[1]}; it must be InputTensor.Sizes[1] / GroupCount = "
                f"{channels} / {groups} = {channels // groups}: FORWARD reads FilterTensor as {{OutputChannelCount, "
                "InputChannelCount / GroupCount, ...}"
            )
        if kernel.sizes[0] % groups:
            raise InvalidArgumentError(
                f"{name}.FilterTensor.Sizes[0] (OutputChannelCount) is {kernel.sizes[0]}; it must be a multiple of "
                f"GroupCount ({groups}): each group makes OutputChannelCount / GroupCount channels"
            )

    def check_spatial(self, window: Window) -> None:
        """FORWARD: the dilated filter fits the padded input; BACKWARD: the padding leaves an output."""
        name = self.operator_name()
        for dim in window.spatial:
            i, axis = dim.index, 2 + dim.index
            if not window.backward and dim.size + dim.start + dim.end < dim.dilated:
                raise InvalidArgumentError(
                    f"{name}.InputTensor.Sizes[{axis}] + StartPadding[{i}] + EndPadding[{i}] is {dim.size} + "
                    f"{dim.start} + {dim.end} = {dim.size + dim.start + dim.end}; it must be at least the dilated "
                    f"filter, Dilations[{i}] * (FilterTensor.Sizes[{axis}] - 1) + 1 = {dim.dilated}: the window must "
                    "fit in the padded input at least once"
                )
            if window.backward and dim.output < 1:
                raise InvalidArgumentError(
                    f"{name}.OutputTensor's spatial size {axis} would be {dim.arithmetic(True)}; it must be at least "
                    f"1: StartPadding[{i}] + EndPadding[{i}] ({dim.start + dim.end}) crop more than the transposed "
                    "convolution makes"
                )

    def check_bias(self, window: Window) -> None:
        """The bias, when given, is {1, OutputChannelCount, 1, ..}: one value per output channel."""
        if self.BIAS is None or (bias := getattr(self, self.BIAS)) is None:
            return
        wanted = (1, window.output_channels, *(1 for _ in window.spatial))
        if bias.desc.sizes != wanted:
            raise InvalidArgumentError(
                f"{self.operator_name()}.BiasTensor.Sizes is {list(bias.desc.sizes)}; it must be {list(wanted)} (the "
                "page: { 1, OutputChannelCount, [1], [1], 1 }): one value per output channel, OutputChannelCount = "
                f"{window.output_channels_from} ({window.output_channels})"
            )

    def check_one_value(self, field: str) -> None:
        """A scale or zero point ``field`` (present or not) that holds one value for the whole tensor."""
        tensor: TensorDesc | None = getattr(self, field)
        if tensor is None or all(size == 1 for size in tensor.desc.sizes):
            return
        raise InvalidArgumentError(
            f"{self.operator_name()}.{self.c_field(field)}.Sizes is {list(tensor.desc.sizes)}; it must hold one "
            "value (every size 1): the page gives it per tensor, { 1, 1, 1, 1 }"
        )

    def check_convolution_rules(self, level: FeatureLevel, window: Window) -> None:
        """The operator's own rules, given the window (CONVOLUTION's FusedActivation)."""
