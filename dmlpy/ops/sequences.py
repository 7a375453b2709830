"""DML_VALUE_SCALE_2D_OPERATOR_DESC (FL 1_0), DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC (FL 2_1) and
DML_NONZERO_COORDINATES_OPERATOR_DESC (FL 3_0), from Microsoft's pages.

VALUE_SCALE_2D: Output[n, c, h, w] = Scale * Input[n, c, h, w] + Bias[c], one bias per channel, ChannelCount 1 or 3
and the input's channel count (an image's preprocessing). REVERSE_SUBSEQUENCES reverses the first L elements of
every sequence along Axis, L from SequenceLengthsTensor (InputTensor's Sizes with Axis made 1); the output has the
input's Sizes (ONNX's ReverseSequence, which takes one axis for the batch and one for time). NONZERO_COORDINATES
writes the coordinates of the input's non-zero elements as the rows of an M x N matrix, M the input's element
count (every element could be non-zero), N from the input's effective rank (its DimensionCount less leading 1s) to
its DimensionCount; OutputCountTensor receives how many rows hold coordinates (ONNX's NonZero, transposed). dmlpy
runs REVERSE_SUBSEQUENCES (opencl/reverse_subsequences.cl: each output element reads the input at the mirrored
coordinate inside its sequence's length, at its own beyond) and NONZERO_COORDINATES (opencl/nonzero_coordinates.cl:
one work-item's serial scan, rows past the count left as they were) and VALUE_SCALE_2D (one launch of
ELEMENT_WISE_IDENTITY's scale-bias kernel per channel, over that channel's window of both tensors: Scale * x + Bias[c]
in float, product and sum each rounded once).

Where a page contradicts itself: VALUE_SCALE_2D's Bias text says one term "for each dimension of the input
tensor"; its ChannelCount text, its description and the header's ``_Field_size_(ChannelCount)`` make it one per
channel, which dmlpy follows.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import (
    CPU_PROFILE,
    ElementwiseLayout,
    KernelParameter,
    LaunchProfile,
    LoweredOperator,
    OperatorPlan,
    PlannedStep,
    PlanRef,
)
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.source import KernelSpec
from dmlpy.model import UInt32
from dmlpy.ops._axes import check_axis, sizes_along
from dmlpy.ops._base import OutputShape
from dmlpy.ops._reshaping import FL_2_1_TYPES, table
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import EVERY_TYPE, FLOATS, INPUT_OUTPUT
from dmlpy.ops._unary import ScaleBias
from dmlpy.ops.element_wise_identity import ElementWiseIdentityOperatorDesc
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
_UINT32 = frozenset({T.UINT32})
_RUN = 1024
"""Output elements per work-item of reverse_subsequences.cl under the "cpu" profile (the template's walk's)."""
_SIGNLESS: dict[object, str] = {T.FLOAT32: "0x7fffffffu", T.FLOAT16: "0x7fffu"}
"""nonzero_coordinates.cl's NONZERO_MASK for the float types: every bit but the sign (+0.0 and -0.0 are zero)."""


class ValueScale2DOperatorDesc(StructuredDesc):
    """DML_VALUE_SCALE_2D_OPERATOR_DESC: OutputTensor[n, c, h, w] = Scale * InputTensor[n, c, h, w] + Bias[c]."""

    OPERATOR_TYPE = OperatorType.VALUE_SCALE_2D
    BUILDER_NAME = "value_scale_2d"
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, ((L.FL_1_0, (4, 4), FLOATS),))
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"channel_count": ("bias",)}

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""
    scale: float = Field(alias="Scale")
    """Scale (C FLOAT): multiplies every input element."""
    # Left out, it is derived from Bias (COUNTED_ARRAYS), so after construction it is an int.
    channel_count: UInt32 = Field(default=None, alias="ChannelCount")  # type: ignore[assignment]
    """ChannelCount: 1 or 3, InputTensor.Sizes[1]; the entries of Bias; derived when left out."""
    bias: tuple[float, ...] = Field(alias="Bias")
    """Bias (C FLOAT array): one term per channel, added after the scale."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes and DataType (the page: the same DataType and Sizes)."""
        return cls.outputs_like(inputs, "input_tensor", "input_tensor")

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """Per channel c, ELEMENT_WISE_IDENTITY with ScaleBias (Scale, Bias[c]) over channel c of both tensors: each
        tensor's own strides with the channel made 1, its binding shifted to the channel's first element."""
        source, target = self.input_tensor.desc, self.output_tensor.desc
        sizes = (source.sizes[0], 1, *source.sizes[2:])
        steps = []
        for channel, bias in enumerate(self.bias):
            views = [
                BufferTensorDesc(data_type=tensor.data_type, sizes=sizes, strides=tensor.effective_strides)
                for tensor in (source, target)
            ]
            identity = ElementWiseIdentityOperatorDesc(
                input_tensor=views[0], output_tensor=views[1], scale_bias=ScaleBias(scale=self.scale, bias=bias)
            )
            refs = (
                PlanRef("input", 0, channel * source.effective_strides[1]),
                PlanRef("output", 0, channel * target.effective_strides[1]),
            )
            steps.append(PlannedStep(identity.lower(profile), refs))
        return OperatorPlan(tuple(steps))

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """ChannelCount is 1 or 3 and InputTensor's channel count."""
        name, count = self.operator_name(), self.channel_count
        if count not in (1, 3):
            raise InvalidArgumentError(
                f"{name}.ChannelCount is {count}; it must be 1 or 3 (a grey or a colour image): Bias holds one term "
                "per channel"
            )
        channels = self.input_tensor.desc.sizes[1]
        if channels != count:
            raise InvalidArgumentError(
                f"{name}.ChannelCount is {count}; it must equal InputTensor.Sizes[1] ({channels}), the channels of "
                "{BatchCount, ChannelCount, Height, Width}: Bias holds one term per channel"
            )


_SEQUENCE_ROWS = (
    (L.FL_2_1, (4, 4), FL_2_1_TYPES, _UINT32),
    (L.FL_3_0, (4, 5), FL_2_1_TYPES, _UINT32),
    (L.FL_4_0, (1, 8), FL_2_1_TYPES, _UINT32),
    (L.FL_5_0, (1, 8), EVERY_TYPE, _UINT32 | {T.UINT64}),
)


class ReverseSubsequencesOperatorDesc(StructuredDesc):
    """DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC: along Axis, the first L elements of each sequence reversed (L from
    SequenceLengthsTensor, clamped to the axis), the rest copied."""

    OPERATOR_TYPE = OperatorType.REVERSE_SUBSEQUENCES
    BUILDER_NAME = "reverse_subsequences"
    ONNX_OPS = ("ReverseSequence",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        tuple(
            (
                level,
                {"InputTensor": (dims, data), "SequenceLengthsTensor": (dims, lengths), "OutputTensor": (dims, data)},
            )
            for level, dims, data, lengths in _SEQUENCE_ROWS
        ),
    )
    INPUTS = ("input_tensor", "sequence_lengths_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = (("input_tensor", "output_tensor", "sequence_lengths_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the sequences, along Axis."""
    sequence_lengths_tensor: TensorDesc = Field(alias="SequenceLengthsTensor")
    """SequenceLengthsTensor: each sequence's length L, InputTensor's Sizes with Axis made 1; UINT32 (UINT64 from
    FL 5_0). 0 and 1 leave a sequence as it is; a length past the axis reverses the whole of it."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension the sequences run along, less than InputTensor.DimensionCount."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes and DataType."""
        return cls.outputs_like(inputs, "input_tensor", "input_tensor")

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """Axis names a dimension; SequenceLengthsTensor has InputTensor's Sizes with Axis made 1."""
        sizes = self.input_tensor.desc.sizes
        check_axis(self, "axis", self.axis, len(sizes))
        wanted = sizes_along(sizes, self.axis, 1)
        given = self.sequence_lengths_tensor.desc.sizes
        if given != wanted:
            raise InvalidArgumentError(
                f"{self.operator_name()}.SequenceLengthsTensor.Sizes is {list(given)}; it must be {list(wanted)}: "
                f"InputTensor.Sizes {list(sizes)} with dimension Axis ({self.axis}) made 1, one length per sequence"
            )

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """opencl/reverse_subsequences.cl over the output, uncoalesced, the lengths stepping 0 along Axis."""
        sizes, axis = self.input_tensor.desc.sizes, self.axis
        lengths = self.sequence_lengths_tensor.desc
        layout = ElementwiseLayout(
            element_count=math.prod(sizes),
            sizes=tuple(sizes),
            strides=(
                tuple(self.input_tensor.desc.effective_strides),
                tuple(0 if dim == axis else stride for dim, stride in enumerate(lengths.effective_strides)),
                tuple(self.output_tensor.desc.effective_strides),
            ),
        )
        defines = (
            ("ELEMENT_T", bits_type(self.input_tensor.desc.data_type).storage),
            ("LENGTH_T", "ulong" if lengths.data_type == T.UINT64 else "uint"),
            ("RANK", str(len(sizes))),
            ("AXIS", str(axis)),
        )
        spec = KernelSpec("reverse_subsequences.cl", "reverse_subsequences", defines, TEMPLATE_OPTIONS)
        return profile.lowered(spec, layout, _RUN)


_NONZERO_ROWS = (
    (L.FL_3_0, {"InputTensor": ((4, 5), FL_2_1_TYPES), "OutputCountTensor": ((4, 5), _UINT32),
                "OutputCoordinatesTensor": ((4, 5), _UINT32)}),
    (L.FL_4_0, {"InputTensor": ((1, 8), FL_2_1_TYPES), "OutputCountTensor": ((1, 8), _UINT32),
                "OutputCoordinatesTensor": ((2, 8), _UINT32)}),
)  # fmt: skip
_COUNT_RULE = "OutputCountTensor.Sizes are all 1 (one UINT32: how many rows of OutputCoordinatesTensor are written)"
_COORDINATES_RULE = (
    "OutputCoordinatesTensor.Sizes = {1, .., 1, M, N}: M = InputTensor's element count (every element could be "
    "non-zero), InputTensor's effective rank (DimensionCount less leading 1s) <= N <= InputTensor.DimensionCount"
)


def effective_rank(sizes: tuple[int, ...]) -> int:
    """The DimensionCount less the leading 1s (at least 1)."""
    leading = next((dim for dim, size in enumerate(sizes) if size != 1), len(sizes))
    return max(len(sizes) - leading, 1)


class NonzeroCoordinatesOperatorDesc(StructuredDesc):
    """DML_NONZERO_COORDINATES_OPERATOR_DESC: the coordinates of InputTensor's non-zero elements (+0.0 and -0.0 are
    zero) as rows, in element order, and their count."""

    OPERATOR_TYPE = OperatorType.NONZERO_COORDINATES
    BUILDER_NAME = "nonzero_coordinates"
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, frozenset(), _NONZERO_ROWS)
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_count_tensor", "output_coordinates_tensor")

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor whose non-zero elements are listed."""
    output_count_tensor: TensorDesc = Field(alias="OutputCountTensor")
    """OutputCountTensor: UINT32, every size 1: the number of non-zero elements."""
    output_coordinates_tensor: TensorDesc = Field(alias="OutputCoordinatesTensor")
    """OutputCoordinatesTensor: UINT32 {1, .., 1, M, N}: M the input's element count, N from its effective rank to
    its DimensionCount (each row the last N coordinates); rows past the count are undefined."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Both UINT32, their DimensionCount and N the caller's (``check_shape_rules`` checks them)."""
        source = inputs["input_tensor"]
        assert source is not None
        count = math.prod(source.sizes)
        coordinates = f"{_COORDINATES_RULE}: M = {count}, {effective_rank(source.sizes)} <= N <= {len(source.sizes)}"
        return (
            OutputShape(None, T.UINT32, _COUNT_RULE),
            OutputShape(None, T.UINT32, coordinates),
        )

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """OutputCountTensor holds one element; OutputCoordinatesTensor is {1, .., 1, M, N}."""
        name, sizes = self.operator_name(), self.input_tensor.desc.sizes
        count_sizes = self.output_count_tensor.desc.sizes
        if any(size != 1 for size in count_sizes):
            raise InvalidArgumentError(
                f"{name}.OutputCountTensor.Sizes is {list(count_sizes)}; every size must be 1: {_COUNT_RULE}"
            )
        given = self.output_coordinates_tensor.desc.sizes
        m, low, high = math.prod(sizes), effective_rank(sizes), len(sizes)
        *leading, rows, columns = given
        if any(size != 1 for size in leading) or rows != m or not low <= columns <= high:
            raise InvalidArgumentError(
                f"{name}.OutputCoordinatesTensor.Sizes is {list(given)}; it must be {{1, .., 1, {m}, N}} with "
                f"{low} <= N <= {high}: {_COORDINATES_RULE}"
            )

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """opencl/nonzero_coordinates.cl: one work-item scanning the input in row-major order (under the "gpu"
        profile a work-group, all but its first work-item idle)."""
        source = self.input_tensor.desc
        sizes, rank = source.sizes, len(source.sizes)
        layout = ElementwiseLayout(
            element_count=math.prod(sizes),
            sizes=tuple(sizes),
            strides=(tuple(source.effective_strides), (0,) * rank, (0,) * rank),
        )
        defines = [("ELEMENT_T", bits_type(source.data_type).storage), ("RANK", str(rank))]
        if source.data_type in _SIGNLESS:
            defines.append(("NONZERO_MASK", _SIGNLESS[source.data_type]))
        spec = KernelSpec("nonzero_coordinates.cl", "nonzero_coordinates", tuple(defines), TEMPLATE_OPTIONS)
        coordinates = self.output_coordinates_tensor.desc
        rows = (*coordinates.effective_strides[-2:], coordinates.sizes[-1])
        return LoweredOperator(spec, layout, layout.element_count, profile, (KernelParameter("uint8", rows),))


SEQUENCE_OPERATORS = (ValueScale2DOperatorDesc, ReverseSubsequencesOperatorDesc, NonzeroCoordinatesOperatorDesc)
"""VALUE_SCALE_2D, REVERSE_SUBSEQUENCES and NONZERO_COORDINATES, in the operator table's order."""
