"""DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND, a dmlpy extension. **Not DirectML.**

Round in nGraph's nine modes on FLOAT32, FLOAT16, FLOAT64 (devices with cl_khr_fp64), the extension BFLOAT16,
and the integer types, which come back unchanged (OpenVINO Round-5's rule). It mirrors the shape of DirectML's
Round descriptor but has an ``ExtOperatorType`` and an ``ExtRoundingMode``; no DirectML feature level accepts
it, and a device created with ``extensions=True`` validates it by the rules below and runs it.
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import ExtOperatorType, ExtRoundingMode, ExtTensorDataType, TensorDataType
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.kernels import CPU_PROFILE, PACKED_RUN, KernelSpec, LaunchProfile, LoweredOperator
from dmlpy.ops._base import DeviceCapabilities
from dmlpy.ops._unary import UnaryElementWiseDesc

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


def mode_index(mode: ExtRoundingMode) -> str:
    """The ROUND_MODE define of ``elementwise_ops.h``'s round_in_mode: the mode's position among nGraph's nine."""
    return str(list(ExtRoundingMode).index(mode))


class ExtElementWiseRoundOperatorDesc(UnaryElementWiseDesc):
    """DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND (a dmlpy extension, not DirectML): OutputTensor =
    round(InputTensor) in one of nGraph's nine modes."""

    OPERATOR_TYPE = ExtOperatorType.ELEMENT_WISE_ROUND
    BUILDER_NAME = None  # a graph holds DirectML operators only
    ONNX_OPS = ()

    rounding_mode: ExtRoundingMode = Field(default=ExtRoundingMode.NEAREST_TOWARD_EVEN, alias="RoundingMode")
    """RoundingMode (DMLPY_EXT_ROUNDING_MODE, nGraph's names)."""

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, {self.rounding_mode.name})"

    def check_extension_rules(self, capabilities: DeviceCapabilities) -> None:
        """DirectML's buffer-tensor rules, the extension's data types, shared sizes."""
        self.check_buffer_tensors()
        name, data_type = self.operator_name(), self.input_tensor.desc.data_type
        if data_type not in SUPPORTED_TYPES:
            allowed = ", ".join(str(t) for t in sorted(SUPPORTED_TYPES))
            raise InvalidArgumentError(f"{name}.InputTensor.DataType is {data_type}; the extension takes {allowed}")
        if data_type == TensorDataType.FLOAT64 and not capabilities.fp64:
            raise UnsupportedError(f"{name} on FLOAT64 needs a device with cl_khr_fp64; this one has none")
        self.check_output_like_input()

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        data_type = self.input_tensor.desc.data_type
        layout = self.element_layout()
        storage = _FLOAT_STORAGE.get(data_type, _INTEGER_STORAGE)
        # Integers come back unchanged in every mode: one program serves all nine.
        mode = ExtRoundingMode.TOWARD_ZERO if storage == _INTEGER_STORAGE else self.rounding_mode
        defines = (
            ("STORAGE", str(storage)),
            ("ROUND_MODE", mode_index(mode)),
            ("ELEMENT_T", DATA_TYPES[data_type].opencl_storage),
            ("PACKED", "1" if layout.packed else "0"),
            ("RANK", str(layout.rank)),
        )
        run = PACKED_RUN if layout.packed else ELEMENTS_PER_ITEM
        return profile.lowered(KernelSpec("ext_round.cl", "ext_round", defines), layout, run)
