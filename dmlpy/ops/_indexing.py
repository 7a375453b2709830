"""The base of the gather, scatter, one-hot and generator operators: an axis or a count of dimensions as a field,
Sizes built by concatenating pieces of other tensors' Sizes and right-aligned to the tensors' DimensionCount, and
outputs whose Sizes are partly or wholly the caller's (ONE_HOT's depth; a generator's whole output, Sizes None).

``right_aligned`` is the pages' "the dimensions are right-aligned, with leading 1 values prepended if needed" (and
GATHER's "leading 1 values ... are cropped which would otherwise overflow"); ``check_meaningful`` the pages' "the number
of actual dimensions after ignoring any irrelevant leading ones" (GATHER_ND's InputDimensionCount).
An output rule that leaves some dimensions to the caller names them (``OutputShape.chosen``): validation compares
the rest.
"""

from __future__ import annotations

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32
from dmlpy.tensor import TensorDesc

T = TensorDataType
EIGHT_TYPES = FLOATS | INTEGERS_8_32
"""FLOAT32, FLOAT16 and the 8- to 32-bit integers: the pages' tables from DML_FEATURE_LEVEL_2_1."""
INDEX_TYPES = frozenset({T.INT64, T.INT32, T.UINT64, T.UINT32})
"""The index types from DML_FEATURE_LEVEL_3_0 (UINT32 only before)."""
UINT32_ONLY = frozenset({T.UINT32})


def right_aligned(pieces: tuple[int, ...], count: int) -> tuple[int, ...] | None:
    """``pieces`` as ``count`` dimensions: leading 1s prepended, or leading 1s cropped; None where cropping would
    drop a size other than 1."""
    extra = len(pieces) - count
    if extra <= 0:
        return (1,) * -extra + pieces
    return pieces[extra:] if all(size == 1 for size in pieces[:extra]) else None


class IndexingDesc(StructuredDesc):
    """The family's checks of fields against DimensionCounts and Sizes, each refusal naming the field and the rule."""

    def sizes_of(self, field: str) -> tuple[int, ...]:
        tensor: TensorDesc | None = getattr(self, field)
        assert tensor is not None, f"{field} is required"
        return tensor.desc.sizes

    def refuse(self, field: str, value: object, rule: str) -> None:
        raise InvalidArgumentError(f"{self.operator_name()}.{self.c_field(field)} is {value}; {rule}")

    def check_axis(self, field: str, of: str, what: str) -> int:
        """The UINT ``field`` names a dimension of tensor ``of``: it is below its DimensionCount."""
        axis: int = getattr(self, field)
        count = len(self.sizes_of(of))
        if axis >= count:
            self.refuse(
                field,
                axis,
                f"it must be less than {self.c_field(of)}.DimensionCount ({count}): {what}, in [0, {count})",
            )
        return axis

    def check_count(self, field: str, low: int, high: int, why: str) -> int:
        """The UINT ``field`` lies in [low, high]."""
        value: int = getattr(self, field)
        if not low <= value <= high:
            self.refuse(field, value, f"it must be in [{low}, {high}]: {why}")
        return value

    def check_meaningful(self, tensor: str, count_field: str) -> tuple[int, ...]:
        """The Sizes of ``tensor`` before its last ``count_field`` dimensions are the padding 1s the count leaves
        out; the meaningful Sizes are returned."""
        sizes, count = self.sizes_of(tensor), getattr(self, count_field)
        for dim, size in enumerate(sizes[: len(sizes) - count]):
            if size != 1:
                raise InvalidArgumentError(
                    f"{self.operator_name()}.{self.c_field(tensor)}.Sizes[{dim}] is {size}; it must be 1: "
                    f"{self.c_field(count_field)} ({count}) counts {self.c_field(tensor)}'s actual dimensions, the "
                    f"last {count}, after the leading 1s (raise {self.c_field(count_field)} to {len(sizes) - dim})"
                )
        return sizes[len(sizes) - count :]

    def check_sizes_like(self, field: str, like: str, but: int | None = None, note: str = "") -> None:
        """``field`` has the Sizes of ``like`` (DimensionCounts already agree), dimension ``but`` aside."""
        given, wanted = self.sizes_of(field), self.sizes_of(like)
        for dim, (size, other) in enumerate(zip(given, wanted, strict=True)):
            if dim != but and size != other:
                along = "" if but is None else f" but along Axis ({but})"
                raise InvalidArgumentError(
                    f"{self.operator_name()}.{self.c_field(field)}.Sizes[{dim}] is {size}; it must equal "
                    f"{self.c_field(like)}.Sizes[{dim}] ({other}): {self.c_field(field)} has {self.c_field(like)}'s "
                    f"Sizes{along}{note}"
                )
