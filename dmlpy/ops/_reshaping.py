"""What SLICE, SLICE1, SLICE_GRAD, JOIN, SPLIT, PADDING, PADDING1 and TILE share: their support tables' type sets,
a C ``INT`` array entry (SLICE1's negative strides), and the rule that an array of one entry per dimension
(``DimensionCount`` or ``RepeatsCount`` sizing it) has as many entries as the tensors have dimensions."""

from __future__ import annotations

from typing import ClassVar

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import EVERY_TYPE, FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

T, L = TensorDataType, FeatureLevel
FL_1_0_TYPES = FLOATS | {T.INT32, T.INT16, T.UINT32, T.UINT16}
"""SLICE's, JOIN's and SPLIT's types at FL 1_0: no 8-bit integers yet."""
FL_2_1_TYPES = FLOATS | INTEGERS_8_32
"""The 8- to 32-bit types, from FL 2_1."""
TILE_4_1_TYPES = FL_2_1_TYPES | INTEGERS_64
"""TILE's at FL 4_1: the 64-bit integers, and no FLOAT64 (its page names none at any level)."""
EVERY = EVERY_TYPE


Rows = tuple[tuple[FeatureLevel, tuple[int, int], frozenset[TensorDataType]], ...]


def table(operator: OperatorType, tensors: tuple[str, ...], rows: Rows) -> SupportTable:
    """The table of an operator whose tensors (C names) take the same dimension counts and types at each level."""
    return SupportTable.per_tensor(
        operator,
        frozenset(),
        tuple((level, dict.fromkeys(tensors, (dims, types))) for level, dims, types in rows),
    )


def listed(names: list[str]) -> str:
    """``A, B and C``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class PerDimensionDesc(StructuredDesc):
    """An operator whose array fields hold one entry per dimension of its tensors: the count that sizes them
    (``COUNTED_ARRAYS``, one count) must be the DimensionCount of ``COUNTED_BY``."""

    COUNTED_BY: ClassVar[str] = "input_tensor"
    """The tensor whose DimensionCount the count must equal."""

    def per_dimension(self) -> tuple[str, tuple[str, ...], int]:
        """The count field, its arrays, and its value."""
        ((count_field, arrays),) = self.COUNTED_ARRAYS.items()
        return count_field, arrays, getattr(self, count_field)

    def check_count_is_the_rank(self) -> None:
        count_field, arrays, count = self.per_dimension()
        tensor: TensorDesc = getattr(self, self.COUNTED_BY)
        rank = tensor.desc.dimension_count
        if count != rank:
            names = listed([self.c_field(name) for name in arrays])
            raise InvalidArgumentError(
                f"{self.operator_name()}.{self.c_field(count_field)} is {count}; it must equal "
                f"{self.c_field(self.COUNTED_BY)}.DimensionCount ({rank}): {names} hold one entry per dimension of "
                "the tensors"
            )
