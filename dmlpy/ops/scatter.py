"""The scatters and ONE_HOT, from Microsoft's pages: DML_SCATTER_OPERATOR_DESC (alias
DML_SCATTER_ELEMENTS_OPERATOR_DESC; ONNX ScatterElements), DML_SCATTER_ND_OPERATOR_DESC (FL 2_1, ONNX ScatterND) and
DML_ONE_HOT_OPERATOR_DESC (FL 2_0, ONNX OneHot). dmlpy runs all three on ``opencl/indexing.cl``: a scatter is a plan
of two launches, InputTensor copied into OutputTensor (Identity's strided copy), then each update written where its
index says (the scatter kernel over the updates' index space, ``IndexedView``); ONE_HOT one launch over the output.

Where the pages and the header disagree, dmlpy follows the header:

* SCATTER_ELEMENTS: the DML_SCATTER page says DML_FEATURE_LEVEL_1_0 and has a 1_0 table; directml.h declares
  DML_OPERATOR_SCATTER_ELEMENTS (94) and its alias DML_OPERATOR_SCATTER in the ``DML_TARGET_VERSION >= 0x2000`` block,
  and the feature-level history lists both among the 2_0 additions. dmlpy's first row is the page's 1_0 table, from
  DML_FEATURE_LEVEL_2_0.
* SCATTER_ND gives InputDimensionCount and IndicesDimensionCount the range [1, DimensionCount), which its own example
  breaks (InputDimensionCount 5 for a 5-D InputTensor; GATHER_ND's page says [1, DimensionCount]): dmlpy takes
  [1, DimensionCount]. Its UpdatesTensor formula takes InputTensor.Sizes[DimensionCount - indexTupleSize ..], its
  example the input's actual Sizes after the tuple ("the [6,7] comes from input tensor, ignoring the first 3
  dimensions"), as ONNX's ScatterND does: dmlpy follows the example.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.indexing import IndexedView, indexing_kernel, one_hot_kernel
from dmlpy.kernels.movement import strided_copy
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._indexing import (
    EIGHT_TYPES,
    INDEX_TYPES,
    UINT32_ONLY,
    IndexingDesc,
    right_aligned,
)
from dmlpy.ops._types import EVERY_TYPE, FLOATS
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_SCATTER = ("InputTensor", "UpdatesTensor", "OutputTensor")


def _scatter_row(level: FeatureLevel, dims: tuple[int, int], types: frozenset[Any], indices: frozenset[Any]) -> Any:
    return (level, {**dict.fromkeys(_SCATTER, (dims, types)), "IndicesTensor": (dims, indices)})


_SCATTER_ROWS = (
    _scatter_row(L.FL_2_1, (4, 4), EIGHT_TYPES, UINT32_ONLY),
    _scatter_row(L.FL_3_0, (1, 8), EIGHT_TYPES, INDEX_TYPES),
    _scatter_row(L.FL_4_1, (1, 8), EVERY_TYPE, INDEX_TYPES),
)


class _ScatterDesc(IndexingDesc):
    INPUTS = ("input_tensor", "indices_tensor", "updates_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "updates_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = (("input_tensor", "indices_tensor", "updates_tensor", "output_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor copied to the output before the updates are written."""
    indices_tensor: TensorDesc = Field(alias="IndicesTensor")
    """IndicesTensor: where each update goes (UINT32; from FL 3_0 INT32, INT64, UINT64 too, a negative index counting
    from the end of its dimension)."""
    updates_tensor: TensorDesc = Field(alias="UpdatesTensor")
    """UpdatesTensor: the values written; InputTensor's DataType."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes and DataType."""
        return cls.outputs_like(inputs, "input_tensor", "input_tensor")

    def indexed_view(self) -> IndexedView:
        """UpdatesTensor's index space, IndicesTensor's and OutputTensor's strides over it, and the chosen
        dimensions of OutputTensor."""
        raise NotImplementedError

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """InputTensor copied into OutputTensor, then the updates written where their indices say."""
        source, target = self.input_tensor.desc, self.output_tensor.desc
        copy = strided_copy(source.data_type, source.sizes, source.effective_strides, target.effective_strides, profile)
        scatter = indexing_kernel(
            "scatter", source.data_type, self.indices_tensor.desc.data_type, self.indexed_view(), profile
        )
        return OperatorPlan(
            (
                PlannedStep(copy, (PlanRef("input", 0), PlanRef("output", 0))),
                PlannedStep(scatter, (PlanRef("input", 2), PlanRef("input", 1), PlanRef("output", 0))),
            )
        )


class ScatterElementsOperatorDesc(_ScatterDesc):
    """DML_SCATTER_ELEMENTS_OPERATOR_DESC (DML_SCATTER_OPERATOR_DESC): output = input, then output[.., indices[i, j,
    ...] at Axis, ..] = updates[i, j, ...] (ONNX ScatterElements); overlapping writes leave no guaranteed winner."""

    OPERATOR_TYPE = OperatorType.SCATTER_ELEMENTS
    BUILDER_NAME = "scatter_elements"
    ONNX_OPS = ("ScatterElements",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        (_scatter_row(L.FL_2_0, (4, 4), FLOATS, UINT32_ONLY), *_SCATTER_ROWS),  # the page: 1_0; the header: 2_0
    )

    axis: UInt32 = Field(alias="Axis")
    """Axis (UINT): the dimension the indices choose along, in [0, OutputTensor.DimensionCount)."""

    def check_shape_rules(self, level: FeatureLevel) -> None:
        axis = self.check_axis("axis", "output_tensor", "the axis of OutputTensor the indices choose along")
        self.check_sizes_like("indices_tensor", "input_tensor", axis)
        self.check_sizes_like("updates_tensor", "indices_tensor", note=": one update per index")

    def indexed_view(self) -> IndexedView:
        """OutputTensor steps along every dimension but Axis, where the index chooses."""
        updates, indices, output = self.updates_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        target = tuple(0 if d == self.axis else s for d, s in enumerate(output.effective_strides))
        strides = (updates.effective_strides, indices.effective_strides, target)
        return IndexedView(updates.sizes, strides, (output.sizes[self.axis],), (output.effective_strides[self.axis],))


ScatterOperatorDesc = ScatterElementsOperatorDesc
"""DML_SCATTER_OPERATOR_DESC: directml.h's older name of the same struct (DML_OPERATOR_SCATTER, 94)."""


class ScatterNdOperatorDesc(_ScatterDesc):
    """DML_SCATTER_ND_OPERATOR_DESC: output = input, then output[indices[...]] = updates[...], each index a tuple of
    coordinates along IndicesTensor's last dimension (ONNX ScatterND)."""

    OPERATOR_TYPE = OperatorType.SCATTER_ND
    BUILDER_NAME = "scatter_nd"
    ONNX_OPS = ("ScatterND",)
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, frozenset(), _SCATTER_ROWS)

    input_dimension_count: UInt32 = Field(alias="InputDimensionCount")
    """InputDimensionCount (UINT): InputTensor's actual dimensions, its last ones (the others are leading 1s), in
    [1, InputTensor.DimensionCount]."""
    indices_dimension_count: UInt32 = Field(alias="IndicesDimensionCount")
    """IndicesDimensionCount (UINT): IndicesTensor's actual dimensions, the last being the tuple size, in
    [1, IndicesTensor.DimensionCount]."""

    def check_shape_rules(self, level: FeatureLevel) -> None:
        for count, tensor in (("input_dimension_count", "input_tensor"), ("indices_dimension_count", "indices_tensor")):
            rank = len(self.sizes_of(tensor))
            self.check_count(
                count,
                1,
                rank,
                f"{self.c_field(tensor)}'s actual dimensions, its last ones (the page says [1, DimensionCount); its "
                "example uses InputDimensionCount = DimensionCount, and dmlpy follows it)",
            )
        own_data = self.check_meaningful("input_tensor", "input_dimension_count")
        own_indices = self.check_meaningful("indices_tensor", "indices_dimension_count")
        tuple_size = own_indices[-1]
        if tuple_size > len(own_data):
            raise InvalidArgumentError(
                f"SCATTER_ND.IndicesTensor.Sizes[{len(self.sizes_of('indices_tensor')) - 1}] is {tuple_size}; it "
                f"must be at most InputDimensionCount ({len(own_data)}): IndicesTensor's last dimension is the size "
                "of each index tuple, one coordinate per InputTensor dimension"
            )
        pieces = (*own_indices[:-1], *own_data[tuple_size:])
        rule = (
            f"IndicesTensor's last IndicesDimensionCount Sizes but the tuple size {list(own_indices[:-1])}, then "
            f"InputTensor's last InputDimensionCount Sizes after the tuple size IndicesTensor.Sizes[-1] "
            f"{list(own_data[tuple_size:])}, right-aligned"
        )
        rank = len(self.sizes_of("input_tensor"))
        wanted = right_aligned(pieces, rank)
        given = self.sizes_of("updates_tensor")
        if wanted is None:
            raise InvalidArgumentError(
                f"SCATTER_ND: UpdatesTensor's Sizes would be {rule}: {len(pieces)} dimensions, more than the "
                f"tensors' {rank}; give every tensor more dimensions"
            )
        if given != wanted:
            raise InvalidArgumentError(
                f"SCATTER_ND.UpdatesTensor.Sizes is {list(given)}; it must be {list(wanted)}: {rule}"
            )

    def indexed_view(self) -> IndexedView:
        """UpdatesTensor's dimension d is piece d of IndicesTensor's actual Sizes but the tuple's + InputTensor's
        actual Sizes after the tuple, right-aligned: the indices step along the first pieces, OutputTensor along the
        last; each tuple chooses along OutputTensor's first actual dimensions."""
        updates, indices, output = self.updates_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        rank, tuple_size = len(output.sizes), indices.sizes[-1]
        own_data, own_indices = self.input_dimension_count, self.indices_dimension_count
        index_strides, output_strides = indices.effective_strides, output.effective_strides
        first_data = rank - own_data
        pieces = (own_indices - 1) + (own_data - tuple_size)
        steps: list[tuple[int, int]] = []  # (indices, output) per updates dimension
        for dim in range(rank):
            piece = dim - (rank - pieces)
            if piece < 0:
                steps.append((0, 0))
            elif piece < own_indices - 1:
                steps.append((index_strides[rank - own_indices + piece], 0))
            else:
                steps.append((0, output_strides[first_data + tuple_size + piece - (own_indices - 1)]))
        index, target = zip(*steps, strict=True)
        chosen = range(first_data, first_data + tuple_size)
        return IndexedView(
            updates.sizes,
            (updates.effective_strides, tuple(index), tuple(target)),
            tuple(output.sizes[d] for d in chosen),
            tuple(output_strides[d] for d in chosen),
            index_strides[-1],
        )


class OneHotOperatorDesc(IndexingDesc):
    """DML_ONE_HOT_OPERATOR_DESC: along Axis of the output, every sequence is OffValue (ValuesTensor's element 0) but
    at its index from IndicesTensor, which is OnValue (the next element along ValuesTensor's fastest-changing dimension
    of size above 1); an index beyond the sequence leaves it all OffValue (ONNX OneHot)."""

    OPERATOR_TYPE = OperatorType.ONE_HOT
    BUILDER_NAME = "one_hot"
    ONNX_OPS = ("OneHot",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        tuple(
            (level, {"IndicesTensor": (dims, indices), "ValuesTensor": (dims, types), "OutputTensor": (dims, types)})
            for level, dims, indices, types in (
                (L.FL_2_0, (4, 4), UINT32_ONLY, FLOATS),
                (L.FL_2_1, (4, 4), UINT32_ONLY, EIGHT_TYPES),
                (L.FL_3_0, (1, 8), INDEX_TYPES, EIGHT_TYPES),
                (L.FL_4_1, (1, 8), INDEX_TYPES, EVERY_TYPE),
            )
        ),
    )
    INPUTS = ("indices_tensor", "values_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("values_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = (("indices_tensor", "values_tensor", "output_tensor"),)

    indices_tensor: TensorDesc = Field(alias="IndicesTensor")
    """IndicesTensor: the OnValue's index in each sequence; OutputTensor's Sizes but 1 along Axis (UINT32; from FL
    3_0 INT32, INT64, UINT64 too, a negative index counting from the end of the sequence)."""
    values_tensor: TensorDesc = Field(alias="ValuesTensor")
    """ValuesTensor: any Sizes holding at least 2 elements, OffValue then OnValue."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: IndicesTensor's Sizes, but along Axis any size above 0 (the depth); ValuesTensor's DataType."""
    axis: UInt32 = Field(alias="Axis")
    """Axis (UINT): the dimension of the one-hot sequences, less than IndicesTensor.DimensionCount."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """IndicesTensor's Sizes with Sizes[Axis], the depth, the caller's choice; ValuesTensor's DataType."""
        indices, values = inputs["indices_tensor"], inputs["values_tensor"]
        assert indices is not None and values is not None
        axis, data_type = fields["axis"], values.data_type
        assert isinstance(data_type, TensorDataType)
        rule = f"IndicesTensor.Sizes, but Sizes[{axis}] (Axis: the one-hot depth, the caller's: any size above 0)"
        return (OutputShape(indices.sizes, data_type, rule, (axis,)),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        axis = self.check_axis("axis", "indices_tensor", "the dimension of the one-hot sequences")
        size = self.sizes_of("indices_tensor")[axis]
        if size != 1:
            raise InvalidArgumentError(
                f"ONE_HOT.IndicesTensor.Sizes[{axis}] is {size}; it must be 1: one index per sequence along Axis "
                f"({axis}), IndicesTensor having OutputTensor's Sizes but 1 along Axis"
            )
        elements = 1
        for extent in self.sizes_of("values_tensor"):
            elements *= extent
        if elements < 2:
            raise InvalidArgumentError(
                f"ONE_HOT.ValuesTensor.Sizes is {list(self.sizes_of('values_tensor'))}, {elements} element; it must "
                "hold at least 2: OffValue (element 0) and OnValue (the next along the fastest-changing dimension "
                "of size above 1)"
            )

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """indexing.cl's one_hot over OutputTensor: IndicesTensor read with 0 strides along Axis, OffValue
        ValuesTensor's first element and OnValue the next along its fastest-changing dimension of size above 1
        (the kernel binds the values first, then the indices, then the output)."""
        values, indices, output = self.values_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        index = tuple(0 if d == self.axis else s for d, s in enumerate(indices.effective_strides))
        on_offset = next(s for n, s in zip(values.sizes[::-1], values.effective_strides[::-1], strict=True) if n > 1)
        view = IndexedView(output.sizes, ((0,) * len(output.sizes), index, output.effective_strides))
        lowered = one_hot_kernel(output.data_type, indices.data_type, view, self.axis, on_offset, profile)
        return OperatorPlan((PlannedStep(lowered, (PlanRef("input", 1), PlanRef("input", 0), PlanRef("output", 0))),))


SCATTER_OPERATORS = (ScatterElementsOperatorDesc, ScatterNdOperatorDesc, OneHotOperatorDesc)
"""The scatters and ONE_HOT, in the operator table's order."""
