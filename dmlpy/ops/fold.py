"""DML_UNFOLD_OPERATOR_DESC and DML_FOLD_OPERATOR_DESC (FL 6_4), from Microsoft's pages (MicrosoftDocs/windows-ai-docs
docs/directml/api/ns-directml-dml_unfold_operator_desc.md, ..._fold_...).

UNFOLD (im2col) copies each window of a {N, C, S0, .., S(DimensionCount-1)} tensor into a column of a
{N, C * prod(WindowSizes), BlockCount} one; FOLD (col2im) is the way back, summing where windows overlap, its
output's spatial Sizes the caller's. Both count the windows as the pages do:

    BlocksPerDimension[d] = (S[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1)
                            / Strides[d] + 1
    BlockCount = prod(BlocksPerDimension)

(torch.nn.Unfold and torch.nn.Fold; ONNX's Col2Im). dmlpy validates them and does not run them yet.

Where the pages contradict themselves: each says "InputTensor and OutputTensor must have the same DimensionCount",
and each describes the columns tensor as 3-D, {N, C * prod(WindowSizes), BlockCount}, with worked examples of a 3-D
tensor beside a 4-D one (UNFOLD {1, 1, 5, 5} -> {1, 9, 9}, FOLD {1, 9, 4} -> {1, 1, 4, 4}). dmlpy follows the
examples: the columns tensor has 3 dimensions, the spatial one 2 + DimensionCount. The pages' tables leave the data
types blank; dmlpy accepts every DirectML type (FL 6_4 is past FL 5_0, from which the other copying operators take
all eleven), the output's the input's. FOLD's page bounds DimensionCount by 6, UNFOLD's gives [1, 6]; dmlpy
refuses 0 for both (no spatial dimension, no window).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._reshaping import table
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import EVERY_TYPE, INPUT_OUTPUT
from dmlpy.ops._window import window_output_size
from dmlpy.tensor import BufferTensorDesc, TensorDesc

_ROWS = ((FeatureLevel.FL_6_4, (3, 8), EVERY_TYPE),)
_ARRAYS = ("window_sizes", "strides", "dilations", "start_padding", "end_padding")
BLOCKS_RULE = (
    "BlocksPerDimension[d] = (S[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1) / "
    "Strides[d] + 1, BlockCount = prod(BlocksPerDimension)"
)


def blocks_per_dimension(spatial: tuple[int, ...], fields: dict[str, Any]) -> tuple[int, ...]:
    """The pages' BlocksPerDimension of spatial Sizes ``spatial`` (0 where the window does not fit)."""
    counts = []
    for size, window, stride, dilation, start, end in zip(spatial, *(fields[name] for name in _ARRAYS), strict=False):
        counts.append(max(window_output_size(size, start, end, window, stride, dilation), 0))
    return tuple(counts)


class _SlidingWindowDesc(StructuredDesc):
    """A window slid over the ``SPATIAL`` tensor {N, C, S..}, one column per position in ``COLUMNS``
    {N, C * prod(WindowSizes), BlockCount}."""

    SPATIAL: ClassVar[str]
    COLUMNS: ClassVar[str]
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": _ARRAYS}

    if TYPE_CHECKING:
        input_tensor: TensorDesc
        output_tensor: TensorDesc
        dimension_count: int
        window_sizes: tuple[int, ...]
        strides: tuple[int, ...]
        dilations: tuple[int, ...]
        start_padding: tuple[int, ...]
        end_padding: tuple[int, ...]

    def window_fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _ARRAYS}

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """DimensionCount from 1 to 6; windows, strides and dilations at least 1; the tensors' DimensionCounts;
        the dilated window inside the padded spatial Sizes."""
        name, count = self.operator_name(), self.dimension_count
        if not 1 <= count <= 6:
            raise InvalidArgumentError(
                f"{name}.DimensionCount is {count}; it must be from 1 to 6: the spatial dimensions the window slides "
                "over (WindowSizes, Strides, Dilations, StartPadding and EndPadding hold one entry each)"
            )
        for field in ("window_sizes", "strides", "dilations"):
            for dim, value in enumerate(getattr(self, field)):
                if value < 1:
                    raise InvalidArgumentError(f"{name}.{self.c_field(field)}[{dim}] is {value}; it must be at least 1")
        spatial, columns = getattr(self, self.SPATIAL).desc, getattr(self, self.COLUMNS).desc
        if spatial.dimension_count != 2 + count:
            raise InvalidArgumentError(
                f"{name}.{self.c_field(self.SPATIAL)}.DimensionCount is {spatial.dimension_count}; it must be "
                f"2 + DimensionCount = {2 + count}: {{N, C, S0, .., S{count - 1}}}, DimensionCount spatial dimensions"
            )
        if columns.dimension_count != 3:
            raise InvalidArgumentError(
                f"{name}.{self.c_field(self.COLUMNS)}.DimensionCount is {columns.dimension_count}; it must be 3: "
                "{N, C * prod(WindowSizes), BlockCount}, as the pages' examples give it (their 'same DimensionCount' "
                "constraint contradicts their examples; dmlpy follows the examples)"
            )
        fields = self.window_fields()
        for dim, blocks in enumerate(blocks_per_dimension(spatial.sizes[2:], fields)):
            if blocks < 1:
                size, start, end = spatial.sizes[2 + dim], self.start_padding[dim], self.end_padding[dim]
                reach = self.dilations[dim] * (self.window_sizes[dim] - 1) + 1
                raise InvalidArgumentError(
                    f"{name}: the dilated window along spatial dimension {dim}, Dilations[{dim}] * "
                    f"(WindowSizes[{dim}] - 1) + 1 = {reach}, is larger than the padded size S + StartPadding + "
                    f"EndPadding = {size} + {start} + {end} = {size + start + end}: no window fits ({BLOCKS_RULE})"
                )


class UnfoldOperatorDesc(_SlidingWindowDesc):
    """DML_UNFOLD_OPERATOR_DESC: each window of InputTensor {N, C, S..} flattened into a column of OutputTensor
    {N, C * prod(WindowSizes), BlockCount} (im2col; zero padding)."""

    OPERATOR_TYPE = OperatorType.UNFOLD
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, _ROWS)
    SPATIAL, COLUMNS = "input_tensor", "output_tensor"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {N, C, S0, .., S(DimensionCount-1)}, DimensionCount spatial dimensions."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {N, C * prod(WindowSizes), BlockCount}; InputTensor's DataType."""
    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: InputTensor's spatial dimensions, 1 to 6; the entries of each array; derived when left out."""
    window_sizes: tuple[UInt32, ...] = Field(alias="WindowSizes")
    """WindowSizes: the window's size per spatial dimension, at least 1."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step per spatial dimension, at least 1 (not the tensor's Strides)."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the spacing of the window's elements per spatial dimension, at least 1 (1: adjacent)."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: implicit zeros before each spatial dimension of InputTensor."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: implicit zeros after each spatial dimension of InputTensor."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """{N, C * prod(WindowSizes), BlockCount}, with InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        n, c, *spatial = source.sizes
        sizes = (n, c * math.prod(fields["window_sizes"]), math.prod(blocks_per_dimension(tuple(spatial), fields)))
        rule = (
            f"OutputTensor.Sizes = {{N, C * prod(WindowSizes), BlockCount}} of InputTensor {{N, C, S..}}: {BLOCKS_RULE}"
        )
        return (OutputShape(sizes, source.data_type, rule),)  # type: ignore[arg-type]


class FoldOperatorDesc(_SlidingWindowDesc):
    """DML_FOLD_OPERATOR_DESC: each column of InputTensor {N, C * prod(WindowSizes), BlockCount} added back into its
    window of OutputTensor {N, C, S..} (col2im: overlapping values summed)."""

    OPERATOR_TYPE = OperatorType.FOLD
    SUPPORT = table(OPERATOR_TYPE, INPUT_OUTPUT, _ROWS)
    SPATIAL, COLUMNS = "output_tensor", "input_tensor"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {N, C * prod(WindowSizes), BlockCount}, BlockCount the windows OutputTensor's Sizes give."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {N, C, S0, .., S(DimensionCount-1)}, its spatial Sizes the caller's; InputTensor's DataType."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: OutputTensor's spatial dimensions, 1 to 6; the entries of each array; derived when left
    out."""
    window_sizes: tuple[UInt32, ...] = Field(alias="WindowSizes")
    """WindowSizes: the window's size per spatial dimension, at least 1."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step per spatial dimension, at least 1 (not the tensor's Strides)."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the spacing of the window's elements per spatial dimension, at least 1 (1: adjacent)."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: the implicit padding before each spatial dimension of OutputTensor (its values dropped)."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: the implicit padding after each spatial dimension of OutputTensor (its values dropped)."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """{N, InputTensor.Sizes[1] / prod(WindowSizes), S..}, the spatial Sizes the caller's (``chosen``); with
        InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        count = len(fields["window_sizes"])
        n, windowed = source.sizes[0], source.sizes[1] if len(source.sizes) > 1 else 1
        sizes = (n, windowed // max(math.prod(fields["window_sizes"]), 1), *(1,) * count)
        rule = (
            "OutputTensor.Sizes = {N, C, S..} of InputTensor {N, C * prod(WindowSizes), BlockCount}, S the caller's: "
            + BLOCKS_RULE
        )
        chosen = tuple(range(2, 2 + count))
        return (OutputShape(sizes, source.data_type, rule, chosen),)  # type: ignore[arg-type]

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """The window rules; prod(WindowSizes) divides InputTensor.Sizes[1]; BlockCount is the windows OutputTensor's
        spatial Sizes give."""
        super().check_shape_rules(level)
        name = self.operator_name()
        _, windowed, block_count = self.input_tensor.desc.sizes
        per_window = math.prod(self.window_sizes)
        if windowed % per_window:
            raise InvalidArgumentError(
                f"{name}.InputTensor.Sizes[1] is {windowed}; prod(WindowSizes) ({per_window}) must divide it: it is "
                "C * prod(WindowSizes), each column one window of C channels"
            )
        spatial = self.output_tensor.desc.sizes[2:]
        blocks = blocks_per_dimension(spatial, self.window_fields())
        if block_count != math.prod(blocks):
            raise InvalidArgumentError(
                f"{name}.InputTensor.Sizes[2] (BlockCount) is {block_count}; it must be {math.prod(blocks)}, the "
                f"windows OutputTensor's spatial Sizes {list(spatial)} hold, BlocksPerDimension {list(blocks)}: "
                f"{BLOCKS_RULE}"
            )


FOLD_OPERATORS = (FoldOperatorDesc, UnfoldOperatorDesc)
"""FOLD and UNFOLD, in the operator table's order (by DML_OPERATOR_TYPE value)."""
