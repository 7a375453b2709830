"""DML_SPACE_TO_DEPTH_OPERATOR_DESC and DML_DEPTH_TO_SPACE_OPERATOR_DESC (FL 1_0), DML_SPACE_TO_DEPTH1_OPERATOR_DESC
and DML_DEPTH_TO_SPACE1_OPERATOR_DESC (FL 2_1), from Microsoft's pages.

SPACE_TO_DEPTH moves each BlockSize x BlockSize block of a {N, C, H, W} tensor into channels: OutputTensor is
{N, C * BlockSize^2, H / BlockSize, W / BlockSize}; DEPTH_TO_SPACE is its inverse, {N, C / BlockSize^2,
H * BlockSize, W * BlockSize} (ONNX's SpaceToDepth and DepthToSpace). The *1 forms add Order
(DML_DEPTH_SPACE_ORDER): DEPTH_COLUMN_ROW, the first forms' fixed order (ONNX's DCR), or COLUMN_ROW_DEPTH (CRD);
the Sizes are the same either way. dmlpy runs them as one strided copy (the element-wise template's Identity):
over the index space {N, C', H', BlockSize, W', BlockSize} of the spatial tensor (C' its channels, H' and W' its
blocks), the spatial tensor steps through its rows and columns and the deep one through its channels, the block's
row and column at the strides the order gives. Under the "cpu" launch profile, where the block's innermost column
interleaves BlockSize rows of the deep tensor (BlockSize 2 to 8, rows packed), the copy is opencl/block_copy.cl's,
which reads and writes whole rows (kernels.movement.block_layout).

Where a page contradicts itself: SPACE_TO_DEPTH's and SPACE_TO_DEPTH1's OutputTensor text gives {Batch,
Channels / (BlockSize * BlockSize), Height * BlockSize, Width * BlockSize}, DEPTH_TO_SPACE's shape; their worked
examples map {1, 2, 4, 6} to {1, 8, 2, 3}, which dmlpy follows. Left open by the pages and decided here: BlockSize 0
is refused, and so is a height or width (SPACE_TO_DEPTH) or channel count (DEPTH_TO_SPACE) that BlockSize (its
square) does not divide: no whole number of blocks fits, and ONNX refuses them too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.enums import DepthSpaceOrder, FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._movement import view_plan
from dmlpy.ops._reshaping import FL_2_1_TYPES, table
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import EVERY_TYPE, FLOATS, INPUT_OUTPUT
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_FOUR = (4, 4)
_ROWS = ((L.FL_1_0, _FOUR, FLOATS), (L.FL_2_1, _FOUR, FL_2_1_TYPES), (L.FL_5_0, _FOUR, EVERY_TYPE))
"""The four pages' rows: 4 dimensions always; FLOAT32 and FLOAT16, the 8- to 32-bit integers from FL 2_1, every
type from FL 5_0 (the *1 forms start at FL 2_1)."""


class _DepthSpaceDesc(StructuredDesc):
    """{N, C, H, W} rearranged by BlockSize: ``TO_DEPTH`` says which way."""

    TO_DEPTH: ClassVar[bool]
    """True for SPACE_TO_DEPTH(1): spatial blocks into channels; False for DEPTH_TO_SPACE(1)."""
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)

    if TYPE_CHECKING:
        input_tensor: TensorDesc
        output_tensor: TensorDesc
        block_size: int

    @classmethod
    def rule(cls) -> str:
        if cls.TO_DEPTH:
            return (
                "OutputTensor.Sizes = {N, C * BlockSize^2, H / BlockSize, W / BlockSize} of InputTensor.Sizes "
                "{N, C, H, W}"
            )
        return (
            "OutputTensor.Sizes = {N, C / BlockSize^2, H * BlockSize, W * BlockSize} of InputTensor.Sizes {N, C, H, W}"
        )

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The rearranged Sizes, with InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        block = fields["block_size"]
        n, c, h, w = source.sizes
        if cls.TO_DEPTH:
            sizes = (n, c * block * block, h // max(block, 1), w // max(block, 1))
        else:
            sizes = (n, c // max(block * block, 1), h * block, w * block)
        return (OutputShape(sizes, source.data_type, cls.rule()),)  # type: ignore[arg-type]

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """One copy over {N, C', H', i, W', j}: the spatial tensor's element (n, c, H' * b + i, W' * b + j), the deep
        one's channel (i * b + j) * C' + c (DEPTH_COLUMN_ROW) or c * b^2 + i * b + j (COLUMN_ROW_DEPTH)."""
        b = self.block_size
        spatial, deep = (
            (self.input_tensor, self.output_tensor) if self.TO_DEPTH else (self.output_tensor, self.input_tensor)
        )
        n, channels, rows, columns = spatial.desc.sizes
        sn, sc, sh, sw = spatial.desc.effective_strides
        dn, dc, dh, dw = deep.desc.effective_strides
        sizes = (n, channels, rows // b, b, columns // b, b)
        spatial_strides = (sn, sc, sh * b, sh, sw * b, sw)
        if getattr(self, "order", DepthSpaceOrder.DEPTH_COLUMN_ROW) == DepthSpaceOrder.DEPTH_COLUMN_ROW:
            deep_strides = (dn, dc, dh, b * channels * dc, dw, channels * dc)
        else:
            deep_strides = (dn, b * b * dc, dh, b * dc, dw, dc)
        strides = (spatial_strides, deep_strides) if self.TO_DEPTH else (deep_strides, spatial_strides)
        return view_plan(self.input_tensor, self.output_tensor, sizes, *strides, profile)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """BlockSize at least 1; a whole number of blocks: BlockSize divides H and W (SPACE_TO_DEPTH), BlockSize^2
        divides C (DEPTH_TO_SPACE)."""
        name, block = self.operator_name(), self.block_size
        if block < 1:
            raise InvalidArgumentError(
                f"{name}.BlockSize is {block}; it must be at least 1: the side of the square blocks moved between "
                "the spatial dimensions and the channels (1 copies the tensor)"
            )
        _, c, h, w = self.input_tensor.desc.sizes
        if self.TO_DEPTH:
            for dim, label, size in ((2, "H", h), (3, "W", w)):
                if size % block:
                    raise InvalidArgumentError(
                        f"{name}.InputTensor.Sizes[{dim}] ({label}) is {size}; BlockSize ({block}) must divide it: "
                        f"the output holds {label} / BlockSize whole blocks ({self.rule()})"
                    )
        elif c % (block * block):
            raise InvalidArgumentError(
                f"{name}.InputTensor.Sizes[1] (C) is {c}; BlockSize^2 ({block * block}) must divide it: each "
                f"output channel takes BlockSize^2 input channels ({self.rule()})"
            )


class SpaceToDepthOperatorDesc(_DepthSpaceDesc):
    """DML_SPACE_TO_DEPTH_OPERATOR_DESC: each BlockSize x BlockSize spatial block moved into channels, in
    depth-column-row order (ONNX's SpaceToDepth)."""

    OPERATOR_TYPE = OperatorType.SPACE_TO_DEPTH
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, _ROWS)
    TO_DEPTH = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, InputHeight, InputWidth}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, InputChannelCount * BlockSize^2, InputHeight / BlockSize, InputWidth /
    BlockSize}; InputTensor's DataType."""
    block_size: UInt32 = Field(alias="BlockSize")
    """BlockSize: the side of each square block, at least 1; it divides InputHeight and InputWidth."""


class DepthToSpaceOperatorDesc(_DepthSpaceDesc):
    """DML_DEPTH_TO_SPACE_OPERATOR_DESC: channels moved into BlockSize x BlockSize spatial blocks, in
    depth-column-row order (ONNX's DepthToSpace, mode DCR)."""

    OPERATOR_TYPE = OperatorType.DEPTH_TO_SPACE
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, _ROWS)
    TO_DEPTH = False

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, InputHeight, InputWidth}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, InputChannelCount / BlockSize^2, InputHeight * BlockSize, InputWidth *
    BlockSize}; InputTensor's DataType."""
    block_size: UInt32 = Field(alias="BlockSize")
    """BlockSize: the side of each square block, at least 1; its square divides InputChannelCount."""


class SpaceToDepth1OperatorDesc(_DepthSpaceDesc):
    """DML_SPACE_TO_DEPTH1_OPERATOR_DESC: SPACE_TO_DEPTH with the order of the moved elements chosen (Order)."""

    OPERATOR_TYPE = OperatorType.SPACE_TO_DEPTH1
    BUILDER_NAME = "space_to_depth"
    ONNX_OPS = ("SpaceToDepth",)
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, _ROWS[1:])
    TO_DEPTH = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, InputHeight, InputWidth}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, InputChannelCount * BlockSize^2, InputHeight / BlockSize, InputWidth /
    BlockSize}; InputTensor's DataType."""
    block_size: UInt32 = Field(alias="BlockSize")
    """BlockSize: the side of each square block, at least 1; it divides InputHeight and InputWidth."""
    order: DepthSpaceOrder = Field(alias="Order")
    """Order: DEPTH_COLUMN_ROW (SPACE_TO_DEPTH's, ONNX's DCR) or COLUMN_ROW_DEPTH (ONNX's CRD)."""


class DepthToSpace1OperatorDesc(_DepthSpaceDesc):
    """DML_DEPTH_TO_SPACE1_OPERATOR_DESC: DEPTH_TO_SPACE with the order of the moved elements chosen (Order)."""

    OPERATOR_TYPE = OperatorType.DEPTH_TO_SPACE1
    BUILDER_NAME = "depth_to_space"
    ONNX_OPS = ("DepthToSpace",)
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, _ROWS[1:])
    TO_DEPTH = False

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, InputHeight, InputWidth}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, InputChannelCount / BlockSize^2, InputHeight * BlockSize, InputWidth *
    BlockSize}; InputTensor's DataType."""
    block_size: UInt32 = Field(alias="BlockSize")
    """BlockSize: the side of each square block, at least 1; its square divides InputChannelCount."""
    order: DepthSpaceOrder = Field(alias="Order")
    """Order: DEPTH_COLUMN_ROW (DEPTH_TO_SPACE's, ONNX's DCR) or COLUMN_ROW_DEPTH (ONNX's CRD)."""


DEPTH_SPACE_OPERATORS = (
    SpaceToDepthOperatorDesc,
    DepthToSpaceOperatorDesc,
    SpaceToDepth1OperatorDesc,
    DepthToSpace1OperatorDesc,
)
"""SPACE_TO_DEPTH, DEPTH_TO_SPACE and their *1 forms, in the operator table's order."""
