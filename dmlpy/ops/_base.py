"""What every operator descriptor shares: tensors in binding order, validation against a feature level, and
lowering to an OpenCL kernel specification."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from dmlpy.codegen import LoweredOperator
from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.extensions import ExtOperatorType
from dmlpy.model import DmlModel
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc, check_buffer_tensor


class OperatorDescBase(DmlModel):
    """Base of the DML_*_OPERATOR_DESC models. Subclasses declare, as class data, their operator type, support
    table, tensor fields in binding order and whether the output may alias an input (in-place)."""

    OPERATOR_TYPE: ClassVar[OperatorType | ExtOperatorType]
    SUPPORT: ClassVar[SupportTable]
    INPUTS: ClassVar[tuple[str, ...]]
    """Input tensor fields (snake_case) in DirectML's binding order."""
    OUTPUTS: ClassVar[tuple[str, ...]]
    """Output tensor fields (snake_case) in DirectML's binding order."""
    SUPPORTS_IN_PLACE: ClassVar[bool]

    @classmethod
    def operator_name(cls) -> str:
        """How messages name the operator: DirectML's short name (ELEMENT_WISE_ROUND); an extension its full
        DMLPY_EXT_ spelling, so it is never mistaken for DirectML."""
        operator_type = cls.OPERATOR_TYPE
        return operator_type.name if isinstance(operator_type, OperatorType) else operator_type.c_name

    @classmethod
    def c_field(cls, field: str) -> str:
        """The C member name of a snake_case field, e.g. ``InputTensor``."""
        return cls.model_fields[field].alias or field

    def input_tensors(self) -> list[TensorDesc | None]:
        return [getattr(self, name) for name in self.INPUTS]

    def output_tensors(self) -> list[TensorDesc | None]:
        return [getattr(self, name) for name in self.OUTPUTS]

    def validate_for(self, level: FeatureLevel) -> None:
        """Raise UnsupportedError or InvalidArgumentError for the first rule this descriptor breaks at
        ``level``; return None when IDMLDevice::CreateOperator would accept it."""
        self.SUPPORT.row_for(level)
        name = self.operator_name()
        for fields, is_output in ((self.INPUTS, False), (self.OUTPUTS, True)):
            for field in fields:
                tensor: TensorDesc | None = getattr(self, field)
                if tensor is None:
                    self.SUPPORT.check_presence(level, self.c_field(field))
                    continue
                # The level's own dimension rule speaks first: "exactly 4 at 2_1" teaches more than "1 to 8".
                self.SUPPORT.check_dimension_count(level, self.c_field(field), tensor.desc)
                check_buffer_tensor(tensor, f"{name}.{self.c_field(field)}", is_output=is_output)
                self.SUPPORT.check_data_type(level, self.c_field(field), tensor.desc)
        self.check_operator_rules(level)

    def check_operator_rules(self, level: FeatureLevel) -> None:
        """The operator's own cross-tensor rules (shared sizes, types, attribute ranges)."""

    def check_output_like_input(self) -> None:
        """The unary element-wise rule: OutputTensor has InputTensor's DataType, DimensionCount and Sizes."""
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; only the strides may differ",
        )

    def check_same(self, attributes: Sequence[str], reference: str, fields: Sequence[str], note: str = "") -> None:
        """Each present tensor in ``fields`` must equal the ``reference`` tensor in every one of ``attributes``
        (BufferTensorDesc field names); InvalidArgumentError naming both otherwise."""
        wanted_desc = getattr(self, reference).desc
        for field in fields:
            tensor: TensorDesc | None = getattr(self, field)
            if tensor is None:
                continue
            for attribute in attributes:
                given, wanted = getattr(tensor.desc, attribute), getattr(wanted_desc, attribute)
                if given != wanted:
                    c_attribute = BufferTensorDesc.model_fields[attribute].alias
                    raise InvalidArgumentError(
                        f"{self.operator_name()}.{self.c_field(field)}.{c_attribute} is {given}; it must equal "
                        f"{self.c_field(reference)}.{c_attribute} ({wanted}){note}"
                    )

    def lower(self) -> LoweredOperator:
        """The OpenCL kernel and launch arguments that compute this operator (pure; no OpenCL needed)."""
        raise NotImplementedError(f"{self.operator_name()} has no OpenCL lowering")
