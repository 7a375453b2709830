"""The base of the operators that are not element-wise (GEMM, CONVOLUTION and the families after them): tensors of
different shapes, related by the constraints Microsoft's pages list under "Tensor constraints" and by a shape rule.

A page's constraints are declared, not written: ``SAME_DATA_TYPE`` and ``SAME_DIMENSION_COUNT`` hold its groups
("ATensor, BTensor, CTensor, and OutputTensor must have the same DataType and DimensionCount") and
``check_operator_rules`` checks them; a scale or zero point that holds one value per tensor or one per row,
column or channel is checked by ``check_parameter``; a FusedActivation, DML_OPERATOR_DESC of an activation, by
that activation's own rules on the output (``check_fused_activation``). What each operator adds is its own
arithmetic of Sizes: K agreement for GEMM, the window for CONVOLUTION.

The base's ``lower`` is an UnsupportedError that says dmlpy validates the operator but does not run it yet; a
family that runs overrides ``plan`` (the movement operators: SLICE, SLICE1, JOIN, SPLIT, PADDING(1), TILE, the
depth-space forms) or ``lower`` (the reductions).
"""

from __future__ import annotations

from typing import ClassVar, Self

from pydantic import model_validator

from dmlpy.enums import FeatureLevel
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.tensor import TensorDesc


class StructuredDesc(OperatorDescBase):
    """An operator whose tensors differ in shape: the page's same-DataType and same-DimensionCount groups checked
    from their declarations, then the operator's own rules (``check_shape_rules``)."""

    SUPPORTS_IN_PLACE = False
    # Their tensor fields overlap the element-wise operators' (ATensor, BTensor, OutputTensor; InputTensor,
    # OutputTensor): a bare JSON descriptor with only those would fit both, so these need their Type.
    BARE_FORM: ClassVar[bool] = False
    SAME_DATA_TYPE: ClassVar[tuple[tuple[str, ...], ...]] = ()
    """The page's groups of tensors (snake_case fields) that must have the same DataType."""
    SAME_DIMENSION_COUNT: ClassVar[tuple[tuple[str, ...], ...]] = ()
    """The page's groups of tensors (snake_case fields) that must have the same DimensionCount."""
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Count field -> the array fields it sizes, as directml.h's ``_Field_size_(DimensionCount)`` says
    (CONVOLUTION's DimensionCount sizes Strides, Dilations, StartPadding, EndPadding and OutputPadding). Left out,
    the count is derived from the arrays; given, every array must have that many entries."""

    @model_validator(mode="after")
    def _count_the_arrays(self) -> Self:
        # A count against its arrays is the struct agreeing with itself, as DimensionCount against Sizes is for a
        # tensor: refused at construction, before any rule can read an array past its end.
        for count_field, arrays in self.COUNTED_ARRAYS.items():
            lengths = {self.c_field(name): len(getattr(self, name)) for name in arrays}
            count = getattr(self, count_field)
            if count is None:
                if len(set(lengths.values())) > 1:
                    given = ", ".join(f"{name} {length}" for name, length in lengths.items())
                    raise ValueError(
                        f"{', '.join(lengths)} must have one entry per spatial dimension each; they have {given}"
                    )
                object.__setattr__(self, count_field, next(iter(lengths.values())))
                continue
            for name, length in lengths.items():
                if length != count:
                    raise ValueError(
                        f"{name} has {length} entries; {self.c_field(count_field)} is {count} and sizes it "
                        f"(leave {self.c_field(count_field)} out and dmlpy derives it)"
                    )
        return self

    def check_operator_rules(self, level: FeatureLevel) -> None:
        for attribute, groups, kind in (
            ("dimension_count", self.SAME_DIMENSION_COUNT, "DimensionCount"),
            ("data_type", self.SAME_DATA_TYPE, "DataType"),
        ):
            for group in groups:
                present = [field for field in self.group_slots(group) if getattr(self, field) is not None]
                if not present:
                    continue
                names = [self.c_field(field) for field in group]
                listed = f"{', '.join(names[:-1])} and {names[-1]}"
                note = f" (the page: {listed} must have the same {kind})"
                self.check_same((attribute,), present[0], present[1:], note)
        self.check_shape_rules(level)

    def group_slots(self, group: tuple[str, ...]) -> tuple[str, ...]:
        """A declared group's tensors as this descriptor binds them: the fields themselves, or for an array of
        tensors (JOIN's InputTensors) each entry's slot."""
        return group

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """The operator's own rules across Sizes and fields, after the groups hold."""

    def check_parameter(self, field: str, count: int, per: str) -> None:
        """A scale or zero point ``field`` (present or not) that holds one value for the whole tensor (every size 1)
        or one per ``per`` (one size ``count``, the others 1). The pages' layouts bracket the optional leading 1s
        (``{ [1], [1], AZeroPointCount, [1] }``), so the axis that holds the ``count`` values is not fixed."""
        tensor: TensorDesc | None = getattr(self, field)
        if tensor is None:
            return
        sizes = tensor.desc.sizes
        spread = [size for size in sizes if size != 1]
        if not spread or spread == [count]:
            return
        raise InvalidArgumentError(
            f"{self.operator_name()}.{self.c_field(field)}.Sizes is {list(sizes)}; it must hold one value for the "
            f"whole tensor (every size 1) or one per {per} ({count}: one size {count}, every other size 1)"
        )

    def check_fused_activation(
        self, level: FeatureLevel, activation: FusedActivation | None, output_field: str | None = None
    ) -> None:
        """A FusedActivation is its own operator's rules on OutputTensor: its support table, its fields. An operator
        of several outputs names the one the activation writes (``output_field``: BATCH_NORMALIZATION_TRAINING's
        OutputTensor)."""
        if activation is not None:
            (output,) = self.output_tensors() if output_field is None else (getattr(self, output_field),)
            assert output is not None, "a fusing operator's one output is required"
            activation.bound_to(output, f"{self.operator_name()}.FusedActivation").validate_on(level)
