"""Capability as data: each operator's DirectML "tensor support" table, one row per feature level.

A row holds from its level up to the next row's level. Checks always take the feature level explicitly
(the device's, or the one given to ``dml.validate``); there is no ambient state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.tensor import BufferTensorDesc


@dataclass(frozen=True)
class SupportRow:
    """What one feature level allows: a dimension-count range and the data types of each tensor (C names)."""

    level: FeatureLevel
    dimension_counts: tuple[int, int]
    data_types: Mapping[str, frozenset[TensorDataType]]
    optional: frozenset[str] = frozenset()
    """Tensors (C names) that may be null at this level."""
    tensor_dimension_counts: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Tensors (C names) whose dimension-count range is their own, not ``dimension_counts`` (GEMM-like pages give
    a scale or zero point 1 to 4 dimensions where the matrices take 2 to 4)."""

    def dimension_counts_of(self, tensor: str) -> tuple[int, int]:
        named = tensor if tensor in self.tensor_dimension_counts else _array_of(tensor)
        return self.tensor_dimension_counts.get(named, self.dimension_counts)

    def types_of(self, tensor: str) -> frozenset[TensorDataType]:
        """The data types of ``tensor`` (a C name); an entry of an array of tensors (JOIN's ``InputTensors[1]``)
        has its array's row, unless the table names the entry (QUANTIZE's ``QuantizationTensors[1]``)."""
        return self.data_types[tensor if tensor in self.data_types else _array_of(tensor)]

    def describe_dimensions(self, tensor: str) -> str:
        low, high = self.dimension_counts_of(tensor)
        return f"exactly {low}" if low == high else f"{low} to {high}"

    def allows_dimension_count(self, tensor: str, count: int) -> bool:
        low, high = self.dimension_counts_of(tensor)
        return low <= count <= high


def _array_of(tensor: str) -> str:
    """The table's name of a tensor: an array entry's (``InputTensors[1]``) is its array's (``InputTensors``)."""
    return tensor.split("[", 1)[0]


def _type_list(types: frozenset[TensorDataType]) -> str:
    return ", ".join(str(t) for t in sorted(types))


TypesRow = tuple[FeatureLevel, tuple[int, int], frozenset[TensorDataType]]
"""One row of a table whose tensors share their types: its level, its dimension counts, the one set of types."""
TensorRow = tuple[FeatureLevel, Mapping[str, tuple[tuple[int, int], frozenset[TensorDataType]]]]
"""One row of a table whose tensors differ: its level and, per tensor (C name), its dimension counts and types."""


@dataclass(frozen=True)
class SupportTable:
    """An operator's rows, lowest level first."""

    operator: OperatorType
    rows: tuple[SupportRow, ...]
    variant: str = ""
    """Where the page gives a table per value of a field (REDUCE's per Function), which values this one holds,
    as messages name them: ``Function SUM or MULTIPLY``; empty for an operator's one table."""

    @classmethod
    def same_types(cls, operator: OperatorType, tensors: tuple[str, ...], rows: tuple[TypesRow, ...]) -> SupportTable:
        """The table of an operator whose ``tensors`` (C names) take one set of types at each level, as the pages
        of most element-wise operators give them (InputTensor and OutputTensor; ATensor, BTensor, OutputTensor)."""
        return cls(
            operator,
            rows=tuple(
                SupportRow(level, dimensions, dict.fromkeys(tensors, types)) for level, dimensions, types in rows
            ),
        )

    @classmethod
    def per_tensor(
        cls, operator: OperatorType, optional: frozenset[str], rows: tuple[TensorRow, ...], variant: str = ""
    ) -> SupportTable:
        """The table of an operator whose page gives each tensor its own dimension counts and types (GEMM,
        CONVOLUTION and the other operators that are not element-wise), transcribed row by row; ``optional``
        names the nullable tensors (their "Optional input" kind), the same at every level; ``variant`` the
        field values it holds for, where the page has one table per group of them."""
        table_rows = []
        for level, tensors in rows:
            first = next(iter(tensors.values()))[0]
            table_rows.append(
                SupportRow(
                    level,
                    first,
                    {name: types for name, (_, types) in tensors.items()},
                    optional,
                    {name: dims for name, (dims, _) in tensors.items() if dims != first},
                )
            )
        return cls(operator, tuple(table_rows), variant)

    @property
    def introduced(self) -> FeatureLevel:
        return self.rows[0].level

    def row_for(self, level: FeatureLevel) -> SupportRow:
        """The row in force at ``level``; UnsupportedError below the operator's first level."""
        in_force = [row for row in self.rows if row.level <= level]
        if not in_force:
            raise UnsupportedError(
                f"{self.operator.name} needs {self.introduced.c_name} or higher; it was validated against "
                f"{level.c_name}"
            )
        return in_force[-1]

    def _under(self) -> str:
        return f" under {self.variant}" if self.variant else ""

    def _later_rows(self, level: FeatureLevel) -> list[SupportRow]:
        return [row for row in self.rows if row.level > level]

    def check_presence(self, level: FeatureLevel, field: str) -> None:
        """A null tensor ``field`` (its C name) is allowed only where the row at ``level`` says it is optional."""
        if field in self.row_for(level).optional:
            return
        later = next((r for r in self._later_rows(level) if field in r.optional), None)
        hint = f" (optional from {later.level.c_name})" if later else ""
        raise InvalidArgumentError(
            f"{self.operator.name}.{field} is null; {level.c_name} requires it{self._under()}{hint}"
        )

    def check_dimension_count(self, level: FeatureLevel, field: str, desc: BufferTensorDesc) -> None:
        """The dimension count of the tensor ``field`` (its C name) against the row at ``level``."""
        row = self.row_for(level)
        where = f"{self.operator.name}.{field}"
        count = desc.dimension_count
        if not row.allows_dimension_count(field, count):
            later = next((r for r in self._later_rows(level) if r.allows_dimension_count(field, count)), None)
            hint = f" ({later.describe_dimensions(field)} from {later.level.c_name})" if later else ""
            raise InvalidArgumentError(
                f"{where}.DimensionCount is {count}; {level.c_name} allows {row.describe_dimensions(field)}"
                f"{self._under()}{hint}"
            )

    def check_data_type(self, level: FeatureLevel, field: str, desc: BufferTensorDesc) -> None:
        """The data type of the tensor ``field`` (its C name) against the row at ``level``."""
        row = self.row_for(level)
        where = f"{self.operator.name}.{field}"
        allowed = row.types_of(field)
        if desc.data_type not in allowed:
            later = next((r for r in self._later_rows(level) if desc.data_type in r.types_of(field)), None)
            hint = f" ({desc.data_type} from {later.level.c_name})" if later else ""
            raise InvalidArgumentError(
                f"{where}.DataType is {desc.data_type}; {level.c_name} allows {_type_list(allowed)}{self._under()}"
                f"{hint}"
            )
