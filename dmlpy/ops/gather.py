"""The gathers, from Microsoft's pages: DML_GATHER_OPERATOR_DESC (FL 1_0, ONNX Gather),
DML_GATHER_ELEMENTS_OPERATOR_DESC (FL 2_1, ONNX GatherElements), DML_GATHER_ND_OPERATOR_DESC (FL 2_1, ONNX GatherND)
and DML_GATHER_ND1_OPERATOR_DESC (FL 3_0, GatherND's batch_dims).

InputTensor, IndicesTensor and OutputTensor have one DimensionCount; InputTensor and OutputTensor one DataType. The
pages pad every tensor with leading 1s to that DimensionCount, and a count field says how many of a tensor's
dimensions are its own (IndexDimensions, InputDimensionCount, IndicesDimensionCount). dmlpy runs all four as one
kernel, ``opencl/indexing.cl``'s gather: each describes its shape rule as an ``IndexedView``
(dmlpy/kernels/indexing.py), the output's index space with the input's and the indices' strides over it and the
dimensions the indices choose.

Where the pages contradict themselves, dmlpy follows the worked examples:

* GATHER's IndexDimensions is given the range [0, IndicesTensor.DimensionCount), which its own Example 1
  (IndexDimensions 1, a 1-D IndicesTensor) breaks: dmlpy takes [0, IndicesTensor.DimensionCount]. Its Example 3
  (IndexDimensions 2, IndicesTensor {1,2}, OutputTensor {3,2}) agrees with its formula only for IndexDimensions 1.
* GATHER_ND's and GATHER_ND1's formula takes InputTensor.Sizes[DimensionCount - indexTupleSize ..] for the trailing
  Sizes, while their examples ("the {6,7} comes from input tensor, ignoring the first 3 dimensions"; GATHER_ND1's
  batched Example 2, output {1,1,3,2}) take the input's actual dimensions after the batches and the tuple, as ONNX's
  GatherND does: dmlpy follows the examples.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.indexing import IndexedView, indexing_kernel
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._indexing import EIGHT_TYPES, INDEX_TYPES, UINT32_ONLY, IndexingDesc, right_aligned
from dmlpy.ops._types import EVERY_TYPE, FLOATS
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_ROWS_2_1 = (
    (L.FL_2_1, {"InputTensor": ((4, 4), EIGHT_TYPES), "IndicesTensor": ((4, 4), UINT32_ONLY)}),
    (L.FL_3_0, {"InputTensor": ((1, 8), EIGHT_TYPES), "IndicesTensor": ((1, 8), INDEX_TYPES)}),
    (L.FL_4_1, {"InputTensor": ((1, 8), EVERY_TYPE), "IndicesTensor": ((1, 8), INDEX_TYPES)}),
)


def gather_table(operator: OperatorType, since: FeatureLevel) -> SupportTable:
    """The gathers' tables (OutputTensor as InputTensor), from ``since``; GATHER's 1_0 row: floats only."""
    rows = [(L.FL_1_0, {"InputTensor": ((4, 4), FLOATS), "IndicesTensor": ((4, 4), UINT32_ONLY)}), *_ROWS_2_1]
    return SupportTable.per_tensor(
        operator,
        frozenset(),
        tuple((level, {**row, "OutputTensor": row["InputTensor"]}) for level, row in rows if level >= since),
    )


def _inputs(inputs: dict[str, BufferTensorDesc | None]) -> tuple[BufferTensorDesc, BufferTensorDesc, TensorDataType]:
    """InputTensor, IndicesTensor and the output's DataType, InputTensor's."""
    data, indices = inputs["input_tensor"], inputs["indices_tensor"]
    assert data is not None and indices is not None and isinstance(data.data_type, TensorDataType)
    return data, indices, data.data_type


class _GatherDesc(IndexingDesc):
    INPUTS = ("input_tensor", "indices_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = (("input_tensor", "indices_tensor", "output_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to read from."""
    indices_tensor: TensorDesc = Field(alias="IndicesTensor")
    """IndicesTensor: the indices (UINT32; from FL 3_0 INT32, INT64, UINT64 too, a negative index counting from the
    end of its dimension); InputTensor's DimensionCount."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType and DimensionCount; its Sizes are the operator's rule."""

    def indexed_view(self) -> IndexedView:
        """The output's index space, InputTensor's and IndicesTensor's strides over it, and the chosen dimensions."""
        raise NotImplementedError

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """indexing.cl's gather over ``indexed_view``."""
        data_type, index_type = self.input_tensor.desc.data_type, self.indices_tensor.desc.data_type
        return indexing_kernel("gather", data_type, index_type, self.indexed_view(), profile)


class GatherOperatorDesc(_GatherDesc):
    """DML_GATHER_OPERATOR_DESC: output[...] = input[..., indices[...], ...] along Axis (ONNX Gather)."""

    OPERATOR_TYPE = OperatorType.GATHER
    BUILDER_NAME = "gather"
    ONNX_OPS = ("Gather",)
    SUPPORT = gather_table(OPERATOR_TYPE, L.FL_1_0)

    axis: UInt32 = Field(alias="Axis")
    """Axis (UINT): the dimension of InputTensor to gather on, in [0, InputTensor.DimensionCount)."""
    index_dimensions: UInt32 = Field(alias="IndexDimensions")
    """IndexDimensions (UINT): how many of IndicesTensor's last dimensions hold indices (the others are leading
    1s), in [0, IndicesTensor.DimensionCount]."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor.Sizes before Axis, IndicesTensor's last IndexDimensions Sizes, InputTensor.Sizes after Axis,
        right-aligned to the DimensionCount (leading 1s cropped or prepended); InputTensor's DataType."""
        data, indices, data_type = _inputs(inputs)
        axis, count = fields["axis"], fields["index_dimensions"]
        pieces = (*data.sizes[:axis], *indices.sizes[len(indices.sizes) - count :], *data.sizes[axis + 1 :])
        rule = (
            f"InputTensor.Sizes[0..Axis) + IndicesTensor.Sizes[{len(indices.sizes) - count}..{len(indices.sizes)}) "
            f"(its last IndexDimensions) + InputTensor.Sizes[Axis+1..{len(data.sizes)}) = {list(pieces)}, "
            f"right-aligned to {len(data.sizes)} dimensions"
        )
        sizes = right_aligned(pieces, len(data.sizes))
        if sizes is None:
            raise InvalidArgumentError(
                f"GATHER: {rule} drops a size other than 1: InputTensor's own rank + IndexDimensions - 1 must be at "
                f"most the DimensionCount ({len(data.sizes)}); lower IndexDimensions or give the tensors more "
                "dimensions"
            )
        return (OutputShape(sizes, data_type, rule),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        self.check_axis("axis", "input_tensor", "the axis of InputTensor to gather on")
        rank = len(self.sizes_of("indices_tensor"))
        self.check_count(
            "index_dimensions",
            0,
            rank,
            "the last IndexDimensions of IndicesTensor's dimensions hold the indices (the page says [0, "
            "DimensionCount); its Example 1 uses IndexDimensions 1 with a 1-D IndicesTensor, and dmlpy follows it)",
        )
        self.check_meaningful("indices_tensor", "index_dimensions")
        self.expected_outputs()  # an output of more dimensions than the tensors have is refused here, with its rule

    def indexed_view(self) -> IndexedView:
        """Output dimension d is piece d of InputTensor.Sizes[0..Axis) + IndicesTensor's last IndexDimensions Sizes
        + InputTensor.Sizes[Axis+1..) right-aligned: the input steps along the first and last pieces, the indices
        along the middle ones (a padding 1 or a cropped leading 1: neither)."""
        data, indices, output = self.input_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        rank, axis, count = len(data.sizes), self.axis, self.index_dimensions
        data_strides, index_strides = data.effective_strides, indices.effective_strides
        pieces = rank + count - 1
        steps: list[tuple[int, int]] = []  # (input, indices) per output dimension
        for dim in range(rank):
            piece = dim - (rank - pieces)
            if piece < 0:
                steps.append((0, 0))
            elif piece < axis:
                steps.append((data_strides[piece], 0))
            elif piece < axis + count:
                steps.append((0, index_strides[rank - count + piece - axis]))
            else:
                steps.append((data_strides[piece - count + 1], 0))
        source, index = zip(*steps, strict=True)
        strides = (tuple(source), tuple(index), output.effective_strides)
        return IndexedView(output.sizes, strides, (data.sizes[axis],), (data_strides[axis],))


class GatherElementsOperatorDesc(_GatherDesc):
    """DML_GATHER_ELEMENTS_OPERATOR_DESC: output[i, j, ...] = input[.., indices[i, j, ...] at Axis, ..] (ONNX
    GatherElements)."""

    OPERATOR_TYPE = OperatorType.GATHER_ELEMENTS
    BUILDER_NAME = "gather_elements"
    ONNX_OPS = ("GatherElements",)
    SUPPORT = gather_table(OPERATOR_TYPE, L.FL_2_1)

    axis: UInt32 = Field(alias="Axis")
    """Axis (UINT): the dimension of InputTensor the indices choose along, in [0, InputTensor.DimensionCount)."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """IndicesTensor's Sizes, InputTensor's DataType."""
        _, indices, data_type = _inputs(inputs)
        return (OutputShape(indices.sizes, data_type, "IndicesTensor.Sizes, with InputTensor's DataType"),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        axis = self.check_axis("axis", "input_tensor", "the axis of InputTensor the indices choose along")
        self.check_sizes_like("indices_tensor", "input_tensor", axis)

    def indexed_view(self) -> IndexedView:
        """IndicesTensor's index space: the input steps along every dimension but Axis, where the index chooses."""
        data, indices, output = self.input_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        source = tuple(0 if d == self.axis else s for d, s in enumerate(data.effective_strides))
        strides = (source, indices.effective_strides, output.effective_strides)
        return IndexedView(output.sizes, strides, (data.sizes[self.axis],), (data.effective_strides[self.axis],))


class _GatherNdDesc(_GatherDesc):
    """GATHER_ND and GATHER_ND1: IndicesTensor's last dimension is the size of each index tuple."""

    input_dimension_count: UInt32 = Field(alias="InputDimensionCount")
    """InputDimensionCount (UINT): InputTensor's actual dimensions, its last ones (the others are leading 1s), in
    [1, InputTensor.DimensionCount]."""
    indices_dimension_count: UInt32 = Field(alias="IndicesDimensionCount")
    """IndicesDimensionCount (UINT): IndicesTensor's actual dimensions, the last being the tuple size, in
    [1, IndicesTensor.DimensionCount]."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """IndicesTensor's actual Sizes but the last (the batches, then the index tuples' own), then InputTensor's
        actual Sizes after the batches and the tuple, right-aligned; InputTensor's DataType."""
        data, indices, data_type = _inputs(inputs)
        batch = fields.get("batch_dimension_count", 0)
        own_data = data.sizes[len(data.sizes) - fields["input_dimension_count"] :]
        own_indices = indices.sizes[len(indices.sizes) - fields["indices_dimension_count"] :]
        tuple_size = indices.sizes[-1]
        pieces = (*own_indices[:-1], *own_data[batch + tuple_size :])
        batches = " (BatchDimensionCount batches first)" if batch else ""
        rule = (
            f"IndicesTensor's last IndicesDimensionCount Sizes but the tuple size {list(own_indices[:-1])}{batches}, "
            f"then InputTensor's last InputDimensionCount Sizes after {batch + tuple_size} (BatchDimensionCount + "
            f"the tuple size IndicesTensor.Sizes[-1]) {list(own_data[batch + tuple_size :])}, right-aligned to "
            f"{len(data.sizes)} dimensions"
        )
        sizes = right_aligned(pieces, len(data.sizes))
        if sizes is None:
            raise InvalidArgumentError(
                f"{cls.operator_name()}: {rule} is {len(pieces)} dimensions, more than the tensors' "
                f"{len(data.sizes)}: give every tensor more dimensions"
            )
        return (OutputShape(sizes, data_type, rule),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        for count, tensor in (("input_dimension_count", "input_tensor"), ("indices_dimension_count", "indices_tensor")):
            rank = len(self.sizes_of(tensor))
            self.check_count(count, 1, rank, f"{self.c_field(tensor)}'s actual dimensions, its last ones")
        own_data = self.check_meaningful("input_tensor", "input_dimension_count")
        own_indices = self.check_meaningful("indices_tensor", "indices_dimension_count")
        batch: int = getattr(self, "batch_dimension_count", 0)
        if batch:
            self.check_batches(own_data, own_indices, batch)
        tuple_size = own_indices[-1]
        room = len(own_data) - batch
        if tuple_size > room:
            raise InvalidArgumentError(
                f"{self.operator_name()}.IndicesTensor.Sizes[{len(self.sizes_of('indices_tensor')) - 1}] is "
                f"{tuple_size}; it must be at most InputDimensionCount - BatchDimensionCount ({room}): "
                "IndicesTensor's last dimension is the size of each index tuple, one coordinate per InputTensor "
                "dimension after the batches"
            )
        self.expected_outputs()  # an output of more dimensions than the tensors have is refused here, with its rule

    def indexed_view(self) -> IndexedView:
        """Output dimension d is piece d of IndicesTensor's actual Sizes but the tuple's + InputTensor's actual Sizes
        after the batches and the tuple, right-aligned: the indices step along the first pieces (and the input too
        along the batches), the input along the last; each tuple chooses along the input's dimensions after the
        batches."""
        data, indices, output = self.input_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        rank, batch = len(data.sizes), getattr(self, "batch_dimension_count", 0)
        own_data, own_indices = self.input_dimension_count, self.indices_dimension_count
        data_strides, index_strides = data.effective_strides, indices.effective_strides
        tuple_size = indices.sizes[-1]
        first_data = rank - own_data  # InputTensor's first actual dimension
        pieces = (own_indices - 1) + (own_data - batch - tuple_size)
        steps: list[tuple[int, int]] = []  # (input, indices) per output dimension
        for dim in range(rank):
            piece = dim - (rank - pieces)
            if piece < 0:
                steps.append((0, 0))
            elif piece < own_indices - 1:
                batch_step = data_strides[first_data + piece] if piece < batch else 0
                steps.append((batch_step, index_strides[rank - own_indices + piece]))
            else:
                steps.append((data_strides[first_data + batch + tuple_size + piece - (own_indices - 1)], 0))
        source, index = zip(*steps, strict=True)
        chosen = range(first_data + batch, first_data + batch + tuple_size)
        return IndexedView(
            output.sizes,
            (tuple(source), tuple(index), output.effective_strides),
            tuple(data.sizes[d] for d in chosen),
            tuple(data_strides[d] for d in chosen),
            index_strides[-1],
        )

    def check_batches(self, own_data: tuple[int, ...], own_indices: tuple[int, ...], batch: int) -> None:
        """GATHER_ND1's batches: BatchDimensionCount below both tensors' actual dimensions (the last of the indices
        is the tuple size), and the batch Sizes the same in both."""


class GatherNdOperatorDesc(_GatherNdDesc):
    """DML_GATHER_ND_OPERATOR_DESC: output[...] = input[indices[...]], each index a tuple of coordinates along
    IndicesTensor's last dimension (ONNX GatherND, batch_dims 0)."""

    OPERATOR_TYPE = OperatorType.GATHER_ND
    SUPPORT = gather_table(OPERATOR_TYPE, L.FL_2_1)


class GatherNd1OperatorDesc(_GatherNdDesc):
    """DML_GATHER_ND1_OPERATOR_DESC: GATHER_ND with BatchDimensionCount leading batches, output[batch, ...] =
    input[batch, indices[batch, ...], ...] (ONNX GatherND's batch_dims); BatchDimensionCount 0 is GATHER_ND."""

    OPERATOR_TYPE = OperatorType.GATHER_ND1
    BUILDER_NAME = "gather_nd"
    ONNX_OPS = ("GatherND",)
    SUPPORT = gather_table(OPERATOR_TYPE, L.FL_3_0)

    batch_dimension_count: UInt32 = Field(alias="BatchDimensionCount")
    """BatchDimensionCount (UINT): how many of the actual dimensions of InputTensor and IndicesTensor are
    independent batches, in [0, InputTensor.DimensionCount) and [0, IndicesTensor.DimensionCount)."""

    def check_batches(self, own_data: tuple[int, ...], own_indices: tuple[int, ...], batch: int) -> None:
        for tensor, own in (("InputTensor", own_data), ("IndicesTensor", own_indices)):
            if batch >= len(own):
                self.refuse(
                    "batch_dimension_count",
                    batch,
                    f"it must be less than {tensor}'s actual dimensions ({len(own)}, its "
                    f"{'InputDimensionCount' if tensor == 'InputTensor' else 'IndicesDimensionCount'}): the batches "
                    "lead, and IndicesTensor's last dimension is the index tuple",
                )
        for dim in range(batch):
            if own_indices[dim] != own_data[dim]:
                raise InvalidArgumentError(
                    f"GATHER_ND1.IndicesTensor's batch Size {dim} is {own_indices[dim]}; it must equal InputTensor's "
                    f"({own_data[dim]}): the first BatchDimensionCount ({batch}) actual dimensions are batches of both"
                )


GATHER_OPERATORS = (GatherOperatorDesc, GatherElementsOperatorDesc, GatherNdOperatorDesc, GatherNd1OperatorDesc)
"""The gathers, in the operator table's order."""
