"""The extension operators. **Not DirectML.**

Each mirrors the shape of a DirectML descriptor but has an ``ExtOperatorType`` and an ``ExtRoundingMode``.
No DirectML feature level accepts one (``dml.validate`` raises UnsupportedError); a device created with
``extensions=True`` validates it by its own rules and runs it.

- ``ExtElementWiseRoundOperatorDesc``: Round in nGraph's nine modes on FLOAT32, FLOAT16, FLOAT64 (devices
  with cl_khr_fp64), the extension BFLOAT16, and the integer types, which come back unchanged (OpenVINO
  Round-5's rule).
- ``ExtElementWiseQuantizeLinearOperatorDesc``: DirectML's QuantizeLinear (its DML_FEATURE_LEVEL_6_4 rules)
  rounding ``input / scale`` in one of the nine modes instead of halves to even, as nGraph's Quantize does.
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.codegen import KernelSpec, LoweredOperator, coalesce
from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import FeatureLevel, TensorDataType
from dmlpy.errors import DmlError, InvalidArgumentError, UnsupportedError
from dmlpy.extensions import ExtOperatorType, ExtRoundingMode, ExtTensorDataType
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.element_wise_quantize_linear import ElementWiseQuantizeLinearOperatorDesc
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


class ExtensionOperator(OperatorDescBase):
    """Base of the extension operators: refused at every DirectML feature level, validated by its own rules
    on devices created with ``extensions=True``."""

    def validate_for(self, level: FeatureLevel) -> None:
        raise UnsupportedError(
            f"{self.operator_name()} is a dmlpy extension, not DirectML: no DirectML feature level "
            f"accepts it ({level.c_name} included). Run it on a device created with extensions=True."
        )

    def validate_extension(self, *, has_fp64: bool) -> None:
        """The extension's own rules; ``has_fp64`` tells whether the device runs double precision."""
        raise NotImplementedError


def _mode_index(mode: ExtRoundingMode) -> str:
    return str(list(ExtRoundingMode).index(mode))


class ExtElementWiseRoundOperatorDesc(ExtensionOperator):
    """DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND (a dmlpy extension, not DirectML): OutputTensor =
    round(InputTensor) in one of nGraph's nine modes."""

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

    def validate_extension(self, *, has_fp64: bool) -> None:
        """DirectML's buffer-tensor rules, the extension's data types, shared sizes."""
        name = self.operator_name()
        for field, is_output in (("input_tensor", False), ("output_tensor", True)):
            check_buffer_tensor(getattr(self, field), f"{name}.{self.c_field(field)}", is_output=is_output)
        data_type = self.input_tensor.desc.data_type
        if data_type not in SUPPORTED_TYPES:
            allowed = ", ".join(str(t) for t in sorted(SUPPORTED_TYPES))
            raise InvalidArgumentError(f"{name}.InputTensor.DataType is {data_type}; the extension takes {allowed}")
        if data_type == TensorDataType.FLOAT64 and not has_fp64:
            raise UnsupportedError(f"{name} on FLOAT64 needs a device with cl_khr_fp64; this one has none")
        self.check_output_like_input()

    def lower(self) -> LoweredOperator:
        source, target = self.input_tensor.desc, self.output_tensor.desc
        layout = coalesce(source.sizes, (source.effective_strides, target.effective_strides))
        storage = _FLOAT_STORAGE.get(source.data_type, _INTEGER_STORAGE)
        # Integers come back unchanged in every mode: one program serves all nine.
        mode = ExtRoundingMode.TOWARD_ZERO if storage == _INTEGER_STORAGE else self.rounding_mode
        defines = (
            ("STORAGE", str(storage)),
            ("ROUND_MODE", _mode_index(mode)),
            ("ELEMENT_T", DATA_TYPES[source.data_type].opencl_storage or "uchar"),
            ("RANK", str(layout.rank)),
            ("ELEMENTS_PER_ITEM", str(ELEMENTS_PER_ITEM)),
        )
        return LoweredOperator(
            kernel=KernelSpec("ext_round.cl", "ext_round", defines),
            layout=layout,
            elements_per_work_item=ELEMENTS_PER_ITEM,
        )


class ExtElementWiseQuantizeLinearOperatorDesc(ExtensionOperator, ElementWiseQuantizeLinearOperatorDesc):
    """DMLPY_EXT_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR (a dmlpy extension, not DirectML): QuantizeLinear that
    rounds ``input / scale`` in one of nGraph's nine modes."""

    # The DirectML parent's attribute is typed OperatorType; the extension deliberately replaces it.
    OPERATOR_TYPE = ExtOperatorType.ELEMENT_WISE_QUANTIZE_LINEAR  # type: ignore[assignment]

    rounding_mode: ExtRoundingMode = Field(default=ExtRoundingMode.NEAREST_TOWARD_EVEN, alias="RoundingMode")
    """RoundingMode (DMLPY_EXT_ROUNDING_MODE, nGraph's names) applied to Input / Scale."""

    def validate_extension(self, *, has_fp64: bool) -> None:
        """DirectML's QuantizeLinear rules at its newest level, which the extension keeps; a broken rule is
        reported as the extension's, quoting DirectML's."""
        try:
            ElementWiseQuantizeLinearOperatorDesc.validate_for(self, max(FeatureLevel))
        except DmlError as error:
            raise type(error)(
                f"{self.operator_name()} keeps DirectML QuantizeLinear's rules at {max(FeatureLevel).c_name}, "
                f"and breaks one: {error}"
            ) from None

    def lower(self) -> LoweredOperator:
        lowered = super().lower()
        kernel = lowered.kernel
        defines = (*kernel.defines, ("ROUND_MODE", _mode_index(self.rounding_mode)))
        return LoweredOperator(
            KernelSpec(kernel.source_name, kernel.kernel_name, defines, kernel.options),
            lowered.layout,
            lowered.elements_per_work_item,
        )
