"""``ExtElementWiseRoundOperatorDesc``: Round in nGraph's nine modes on more data types. **Not DirectML.**

It mirrors DML_ELEMENT_WISE_ROUND_OPERATOR_DESC's shape (InputTensor, OutputTensor, RoundingMode), but its
operator type is ``DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND`` and its mode an ``ExtRoundingMode``. No DirectML
feature level accepts it (``dml.validate`` raises UnsupportedError); a device created with
``extensions=True`` runs it. Data types: FLOAT32, FLOAT16, FLOAT64 (devices with cl_khr_fp64), the extension
BFLOAT16, and the integer types, which come back unchanged (OpenVINO Round-5's rule).
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.codegen import KernelSpec, LoweredOperator, coalesce
from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import FeatureLevel, TensorDataType
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.extensions import ExtOperatorType, ExtRoundingMode, ExtTensorDataType
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import TensorDesc, check_buffer_tensor

ELEMENTS_PER_ITEM = 16

_FLOAT_STORAGE: dict[AnyDataType, int] = {
    TensorDataType.FLOAT32: 1,
    TensorDataType.FLOAT16: 2,
    TensorDataType.FLOAT64: 3,
    ExtTensorDataType.BFLOAT16: 4,
}
_INTEGER_STORAGE = 5
INTEGER_TYPES = frozenset(
    {
        TensorDataType.INT8,
        TensorDataType.UINT8,
        TensorDataType.INT16,
        TensorDataType.UINT16,
        TensorDataType.INT32,
        TensorDataType.UINT32,
        TensorDataType.INT64,
        TensorDataType.UINT64,
    }
)
SUPPORTED_TYPES: frozenset[AnyDataType] = frozenset(_FLOAT_STORAGE) | INTEGER_TYPES


class ExtElementWiseRoundOperatorDesc(OperatorDescBase):
    """DMLPY_EXT_ELEMENT_WISE_ROUND (a dmlpy extension, not DirectML): OutputTensor = round(InputTensor) in
    one of nGraph's nine modes."""

    OPERATOR_TYPE = ExtOperatorType.ELEMENT_WISE_ROUND
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: same DataType, DimensionCount and Sizes as InputTensor; Strides may differ."""
    rounding_mode: ExtRoundingMode = Field(default=ExtRoundingMode.NEAREST_TOWARD_EVEN, alias="RoundingMode")
    """RoundingMode (DMLPY_EXT_ROUNDING_MODE, nGraph's names)."""

    def validate_for(self, level: FeatureLevel) -> None:
        raise UnsupportedError(
            f"{self.operator_name()} is a dmlpy extension, not DirectML: no DirectML feature level "
            f"accepts it ({level.c_name} included). Run it on a device created with extensions=True."
        )

    def validate_extension(self, *, has_fp64: bool) -> None:
        """The extension's own rules: DirectML's buffer-tensor rules, its data types, shared sizes."""
        name = self.operator_name()
        for field, is_output in (("input_tensor", False), ("output_tensor", True)):
            check_buffer_tensor(getattr(self, field), f"{name}.{self.c_field(field)}", is_output=is_output)
        data_type = self.input_tensor.desc.data_type
        if data_type not in SUPPORTED_TYPES:
            allowed = ", ".join(str(t) for t in sorted(SUPPORTED_TYPES))
            raise InvalidArgumentError(f"{name}.InputTensor.DataType is {data_type}; the extension takes {allowed}")
        if data_type == TensorDataType.FLOAT64 and not has_fp64:
            raise UnsupportedError(f"{name} on FLOAT64 needs a device with cl_khr_fp64; this one has none")
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; only the strides may differ",
        )

    def lower(self) -> LoweredOperator:
        source, target = self.input_tensor.desc, self.output_tensor.desc
        layout = coalesce(source.sizes, (source.effective_strides, target.effective_strides))
        storage = _FLOAT_STORAGE.get(source.data_type, _INTEGER_STORAGE)
        modes = list(ExtRoundingMode)
        defines = (
            ("STORAGE", str(storage)),
            ("MODE", str(modes.index(self.rounding_mode))),
            ("ELEMENT_T", DATA_TYPES[source.data_type].opencl_storage or "uchar"),
            ("RANK", str(layout.rank)),
            ("ELEMENTS_PER_ITEM", str(ELEMENTS_PER_ITEM)),
        )
        return LoweredOperator(
            kernel=KernelSpec("ext_round.cl", "ext_round", defines),
            layout=layout,
            elements_per_work_item=ELEMENTS_PER_ITEM,
        )
