"""DML_JOIN_OPERATOR_DESC and DML_SPLIT_OPERATOR_DESC (FL 1_0), from Microsoft's pages: JOIN concatenates InputCount
tensors along Axis (np.concatenate), SPLIT cuts one into OutputCount along Axis (np.split at the outputs' sizes).
Every tensor equals the others in every dimension but Axis, where the joined (split) tensor's size is the sum of the
parts'. One part is a copy. dmlpy runs each as one strided copy per part (the element-wise template's Identity
copy, ``pieces_plan``): a part is a window of the whole at its offset along Axis, which the copy reaches by shifting
the whole's binding (``PlanRef.shift``), so no part is read or written twice and no temporary is needed. Under the
"cpu" launch profile a JOIN along an inner axis of 2 to 7 parts whose rows (Axis and the dimensions after it) are
packed is one launch instead, writing each output row whole from the parts (kernels.movement.joined_rows).

Their parts are arrays of tensors (``InputTensors``, ``OutputTensors``, each sized by its count field; the
snake_case fields are ``inputs`` and ``outputs``, since ``input_tensors()`` and ``output_tensors()`` are every
operator's lists of its tensors): a descriptor binds one slot per entry, in order, named ``inputs[0]``,
``inputs[1]``, ... (``InputTensors[1]`` in messages); ``input_fields``, ``output_fields``, ``input_tensors`` and
``output_tensors`` list them, and each slot reads as an attribute, as every other tensor field does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import Field

from dmlpy.drawing.axes import PartsAlongAxis
from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.movement import joined_rows, strided_copy
from dmlpy.model import UInt32
from dmlpy.ops._base import OperatorDescBase, OutputShape
from dmlpy.ops._reshaping import EVERY, FL_1_0_TYPES, FL_2_1_TYPES, table
from dmlpy.ops._structured import StructuredDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_ENTRY = re.compile(r"^([a-z_]+)\[(\d+)\]$")


def slot(array: str, index: int) -> str:
    """The slot of entry ``index`` of the array field ``array``: ``inputs[1]``."""
    return f"{array}[{index}]"


def entries(tensors: dict[str, BufferTensorDesc | None], array: str) -> list[BufferTensorDesc]:
    """The entries of ``array`` among ``tensors`` (by slot, as ``output_shapes`` takes them), in order."""
    found = []
    index = 0
    while (tensor := tensors.get(slot(array, index))) is not None:
        found.append(tensor)
        index += 1
    return found


class TensorArrayDesc(StructuredDesc):
    """An operator with an array of tensors (``TENSOR_ARRAYS``, each named in INPUTS or OUTPUTS and sized by a
    count field in ``COUNTED_ARRAYS``): one binding slot per entry, and at least one entry."""

    TENSOR_ARRAYS: ClassVar[tuple[str, ...]] = ()
    """The array-of-tensor fields (snake_case)."""

    def __getattr__(self, name: str) -> Any:
        match = _ENTRY.match(name)
        if match is not None and match[1] in type(self).TENSOR_ARRAYS:
            array: tuple[TensorDesc, ...] = getattr(self, match[1])
            if int(match[2]) < len(array):
                return array[int(match[2])]
        return super().__getattr__(name)  # type: ignore[misc]

    def with_tensor(self, slot: str, desc: BufferTensorDesc) -> OperatorDescBase | None:
        match = _ENTRY.match(slot)
        if match is None or match[1] not in type(self).TENSOR_ARRAYS:
            return super().with_tensor(slot, desc)
        entries = list(getattr(self, match[1]))
        entries[int(match[2])] = entries[int(match[2])].model_copy(update={"desc": desc})
        return self.model_copy(update={match[1]: tuple(entries)})

    @classmethod
    def c_field(cls, field: str) -> str:
        match = _ENTRY.match(field)
        if match is not None:
            return f"{super().c_field(match[1])}[{match[2]}]"
        return super().c_field(field)

    def _slots(self, fields: tuple[str, ...]) -> Iterator[str]:
        for field in fields:
            if field in self.TENSOR_ARRAYS:
                yield from (slot(field, index) for index in range(len(getattr(self, field))))
            else:
                yield field

    def input_fields(self) -> tuple[str, ...]:
        return tuple(self._slots(self.INPUTS))

    def output_fields(self) -> tuple[str, ...]:
        return tuple(self._slots(self.OUTPUTS))

    def group_slots(self, group: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(self._slots(group))

    def describe(self) -> str:
        first = getattr(self, self.tensor_fields()[0])
        return f"{self.operator_name()} ({first.desc.data_type.name})"

    def check_support(self, level: FeatureLevel) -> None:
        """At least one entry in each array (its count above 0), then the table, entry by entry."""
        self.support_table().row_for(level)
        for count_field, arrays in self.COUNTED_ARRAYS.items():
            if getattr(self, count_field) == 0:
                names = ", ".join(self.c_field(array) for array in arrays)
                raise InvalidArgumentError(
                    f"{self.operator_name()}.{self.c_field(count_field)} is 0; it must be at least 1: {names} holds "
                    "the parts, and one part is a copy"
                )
        super().check_support(level)

    def expected_outputs(self) -> tuple[OutputShape, ...]:
        inputs = {name: getattr(self, name).desc for name in self.input_fields()}
        tensors = {*self.INPUTS, *self.OUTPUTS}
        fields = {name: getattr(self, name) for name in type(self).model_fields if name not in tensors}
        return self.output_shapes(inputs, {**fields, **self.given_output_fields()})

    def given_output_fields(self) -> dict[str, Any]:
        """What ``output_shapes`` takes from the given outputs where they are the caller's choice (SPLIT's sizes
        along Axis)."""
        return {}

    def pieces_plan(
        self, whole: TensorDesc, parts: tuple[TensorDesc, ...], *, joining: bool, profile: LaunchProfile
    ) -> OperatorPlan:
        """One copy per part, in order along Axis, between part k (slot k of its side) and its window of ``whole``
        (slot 0 of the other side): into the whole when ``joining`` (JOIN), out of it otherwise (SPLIT)."""
        whole_strides = whole.desc.effective_strides
        steps, along = [], 0
        for index, part in enumerate(parts):
            window = PlanRef("output" if joining else "input", 0, along * whole_strides[self.axis])
            piece = PlanRef("input" if joining else "output", index)
            source, target = (piece, window) if joining else (window, piece)
            strides = (part.desc.effective_strides, whole_strides)
            lowered = strided_copy(
                part.desc.data_type, part.desc.sizes, *(strides if joining else strides[::-1]), profile
            )
            steps.append(PlannedStep(lowered, (source, target)))
            along += part.desc.sizes[self.axis]
        return OperatorPlan(tuple(steps))

    def check_axis(self, rank_of: str) -> int:
        """Axis < ``rank_of``.DimensionCount; the axis."""
        axis: int = self.axis
        rank = getattr(self, rank_of).desc.dimension_count
        if axis >= rank:
            raise InvalidArgumentError(
                f"{self.operator_name()}.Axis is {axis}; it must be less than {self.c_field(rank_of)}.DimensionCount "
                f"({rank}): the dimension to {'join' if self.OPERATOR_TYPE == OperatorType.JOIN else 'split'} along, "
                f"0 to {rank - 1}"
            )
        return axis


def _along(sizes: tuple[int, ...], axis: int, size: int) -> tuple[int, ...]:
    return (*sizes[:axis], size, *sizes[axis + 1 :])


class JoinOperatorDesc(TensorArrayDesc):
    """DML_JOIN_OPERATOR_DESC: OutputTensor = InputTensors concatenated along Axis (ONNX's Concat)."""

    OPERATOR_TYPE = OperatorType.JOIN
    BUILDER_NAME = "join"
    ONNX_OPS = ("Concat",)
    SUPPORT = table(
        OPERATOR_TYPE,
        ("InputTensors", "OutputTensor"),
        ((L.FL_1_0, (4, 4), FL_1_0_TYPES), (L.FL_2_1, (4, 4), FL_2_1_TYPES), (L.FL_3_0, (4, 5), FL_2_1_TYPES),
         (L.FL_4_1, (1, 8), EVERY)),
    )  # fmt: skip
    INPUTS = ("inputs",)
    OUTPUTS = ("output_tensor",)
    TENSOR_ARRAYS = ("inputs",)
    SAME_DATA_TYPE = (("inputs", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"input_count": ("inputs",)}

    # Left out, it is derived from InputTensors (COUNTED_ARRAYS), so after construction it is an int.
    input_count: UInt32 = Field(default=None, alias="InputCount")  # type: ignore[assignment]
    """InputCount: the entries of InputTensors, at least 1; derived when left out."""
    inputs: tuple[TensorDesc, ...] = Field(alias="InputTensors")
    """InputTensors: the parts, in order; each has OutputTensor's Sizes but along Axis."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the parts joined; Sizes[Axis] is the sum of theirs."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension to join along, less than OutputTensor.DimensionCount."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The first part's Sizes, Sizes[Axis] the sum of the parts'; their DataType."""
        parts, axis = entries(inputs, "inputs"), fields["axis"]
        total = sum(part.sizes[axis] for part in parts)
        rule = f"InputTensors[0].Sizes with Sizes[{axis}] = the sum of InputTensors[i].Sizes[{axis}] (Axis {axis})"
        return (OutputShape(_along(parts[0].sizes, axis, total), parts[0].data_type, rule),)  # type: ignore[arg-type]

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """Whole output rows from every input in one launch where the join is along an inner axis of packed
        tensors (kernels.movement.joined_rows), else each input copied into its window of OutputTensor."""
        whole = self.output_tensor.desc
        parts = [(part.desc.sizes, part.desc.effective_strides) for part in self.inputs]
        rows = joined_rows(whole.data_type, self.axis, parts, whole.sizes, whole.effective_strides, profile)
        if rows is None:
            return self.pieces_plan(self.output_tensor, self.inputs, joining=True, profile=profile)
        refs = (*(PlanRef("input", index) for index in range(len(parts))), PlanRef("output", 0))
        return OperatorPlan((PlannedStep(rows, refs),))

    def drawn_shape(self) -> PartsAlongAxis | None:
        """Each input's Sizes along Axis in the output, for the picture; None without parts or where Axis is
        past a part's dimensions."""
        parts = tuple(part.desc.sizes for part in self.inputs)
        if not parts or any(self.axis >= len(sizes) for sizes in parts):
            return None
        (output,) = self.expected_outputs()
        assert output.sizes is not None  # the rule gives every Size
        return PartsAlongAxis(self.axis, "OutputTensor", output.sizes, "InputTensors", parts, joined=True)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """Axis is a dimension of OutputTensor; each part has the first part's Sizes but along Axis."""
        axis = self.check_axis("output_tensor")
        first = self.inputs[0].desc.sizes
        for index, part in enumerate(self.inputs[1:], 1):
            for dim, (size, wanted) in enumerate(zip(part.desc.sizes, first, strict=True)):
                if dim != axis and size != wanted:
                    raise InvalidArgumentError(
                        f"{self.operator_name()}.InputTensors[{index}].Sizes[{dim}] is {size}; it must equal "
                        f"InputTensors[0].Sizes[{dim}] ({wanted}): the parts differ only along Axis ({axis})"
                    )


class SplitOperatorDesc(TensorArrayDesc):
    """DML_SPLIT_OPERATOR_DESC: InputTensor cut along Axis into OutputTensors, in order (ONNX's Split)."""

    OPERATOR_TYPE = OperatorType.SPLIT
    BUILDER_NAME = "split"
    ONNX_OPS = ("Split",)
    SUPPORT = table(
        OPERATOR_TYPE,
        ("InputTensor", "OutputTensors"),
        ((L.FL_1_0, (4, 4), FL_1_0_TYPES), (L.FL_2_1, (4, 4), FL_2_1_TYPES), (L.FL_3_0, (1, 8), FL_2_1_TYPES),
         (L.FL_4_1, (1, 8), EVERY)),
    )  # fmt: skip
    INPUTS = ("input_tensor",)
    OUTPUTS = ("outputs",)
    TENSOR_ARRAYS = ("outputs",)
    SAME_DATA_TYPE = (("input_tensor", "outputs"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"output_count": ("outputs",)}

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to split."""
    output_count: UInt32 = Field(default=None, alias="OutputCount")  # type: ignore[assignment]
    """OutputCount: the entries of OutputTensors, at least 1; derived when left out."""
    outputs: tuple[TensorDesc, ...] = Field(alias="OutputTensors")
    """OutputTensors: the parts, in order; each has InputTensor's Sizes but along Axis, where they sum to
    InputTensor's."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension to split along, less than InputTensor.DimensionCount."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """One per output: InputTensor's Sizes, Sizes[Axis] the output's share. The shares are the caller's
        (``output_axis_sizes``: the given outputs', DirectMLX's outputAxisSizes); without them OutputCount equal
        shares (ONNX's Split without ``split``, np.split into sections)."""
        source, axis, count = inputs["input_tensor"], fields["axis"], fields["output_count"]
        assert source is not None
        whole = source.sizes[axis]
        shares = fields.get("output_axis_sizes")
        if shares is None:
            if count < 1 or whole % count:
                raise InvalidArgumentError(
                    f"{cls.operator_name()}: InputTensor.Sizes[{axis}] ({whole}) does not split into OutputCount "
                    f"({count}) equal parts; give each output's Sizes[{axis}]"
                )
            shares = (whole // count,) * count
        rule = (
            f"InputTensor.Sizes with Sizes[{axis}] the output's share (Axis {axis}); the shares sum to "
            f"InputTensor.Sizes[{axis}] ({whole})"
        )
        return tuple(OutputShape(_along(source.sizes, axis, share), source.data_type, rule) for share in shares)  # type: ignore[arg-type]

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """Each output copied from its window of InputTensor."""
        return self.pieces_plan(self.input_tensor, self.outputs, joining=False, profile=profile)

    def given_output_fields(self) -> dict[str, Any]:
        return {"output_axis_sizes": tuple(output.desc.sizes[self.axis] for output in self.outputs)}

    def drawn_shape(self) -> PartsAlongAxis | None:
        """Each output's Sizes along Axis in the input, for the picture; None where Axis is past a tensor's
        dimensions."""
        whole, parts = self.input_tensor.desc.sizes, tuple(part.desc.sizes for part in self.outputs)
        if any(self.axis >= len(sizes) for sizes in (whole, *parts)):
            return None
        return PartsAlongAxis(self.axis, "InputTensor", whole, "OutputTensors", parts, joined=False)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """Axis is a dimension of InputTensor; the outputs' Sizes[Axis] sum to InputTensor's."""
        axis = self.check_axis("input_tensor")
        shares = [output.desc.sizes[axis] for output in self.outputs]
        whole = self.input_tensor.desc.sizes[axis]
        if sum(shares) != whole:
            added = " + ".join(str(share) for share in shares)
            raise InvalidArgumentError(
                f"{self.operator_name()}.OutputTensors[i].Sizes[{axis}] sum to {added} = {sum(shares)}; they must "
                f"sum to InputTensor.Sizes[{axis}] ({whole}): the outputs take the input along Axis ({axis}), in order"
            )


JOIN_SPLIT_OPERATORS = (SplitOperatorDesc, JoinOperatorDesc)
"""SPLIT and JOIN, in the operator table's order (directml.h's values, 62 and 63)."""
