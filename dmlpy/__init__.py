"""dmlpy: DirectML's operator-descriptor model in Python, run on any OpenCL device.

Descriptors and validation (``dmlpy.tensor``, ``dmlpy.ops``) are pure Python; only ``dmlpy.runtime`` imports
pyopencl, and it is loaded on first use of a runtime name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dmlpy.enums import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
    DML_TENSOR_DIMENSION_COUNT_MAX,
    DML_TENSOR_DIMENSION_COUNT_MAX1,
    BindingType,
    CreateDeviceFlags,
    ExecutionFlags,
    Feature,
    FeatureLevel,
    OperatorType,
    QuantizationType,
    RoundingMode,
    TensorDataType,
    TensorFlags,
    TensorType,
)
from dmlpy.errors import (
    DeviceRemovedError,
    DmlError,
    InvalidArgumentError,
    KernelBuildError,
    OutOfMemoryError,
    UnsupportedError,
)
from dmlpy.ops import OPERATORS, OperatorDesc, validate
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
)
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc, calc_buffer_tensor_size

if TYPE_CHECKING:
    from dmlpy.runtime import (
        BindingProperties,
        BindingTable,
        Buffer,
        BufferBinding,
        CommandRecorder,
        CompiledOperator,
        Device,
        Operator,
        OperatorInitializer,
        create_device,
        default_device,
        dequantize_linear,
        quantize_linear,
        round,
    )

_RUNTIME_NAMES = {
    "BindingProperties",
    "BindingTable",
    "Buffer",
    "BufferBinding",
    "CommandRecorder",
    "CompiledOperator",
    "Device",
    "Operator",
    "OperatorInitializer",
    "create_device",
    "default_device",
    "dequantize_linear",
    "quantize_linear",
    "round",
}


def __getattr__(name: str) -> Any:
    # The runtime imports pyopencl; load it only when a runtime name is used, so descriptor work and
    # validation need no OpenCL installation.
    if name in _RUNTIME_NAMES:
        from dmlpy import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'dmlpy' has no attribute {name!r}")


__all__ = [
    "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
    "DML_PERSISTENT_BUFFER_ALIGNMENT",
    "DML_TEMPORARY_BUFFER_ALIGNMENT",
    "DML_TENSOR_DIMENSION_COUNT_MAX",
    "DML_TENSOR_DIMENSION_COUNT_MAX1",
    "OPERATORS",
    "BindingProperties",
    "BindingTable",
    "BindingType",
    "Buffer",
    "BufferBinding",
    "BufferTensorDesc",
    "CommandRecorder",
    "CompiledOperator",
    "CreateDeviceFlags",
    "Device",
    "DeviceRemovedError",
    "DmlError",
    "ElementWiseDequantizeLinearOperatorDesc",
    "ElementWiseQuantizeLinearOperatorDesc",
    "ElementWiseRoundOperatorDesc",
    "ExecutionFlags",
    "Feature",
    "FeatureLevel",
    "InvalidArgumentError",
    "KernelBuildError",
    "Operator",
    "OperatorDesc",
    "OperatorInitializer",
    "OperatorType",
    "OutOfMemoryError",
    "QuantizationType",
    "RoundingMode",
    "TensorDataType",
    "TensorDesc",
    "TensorFlags",
    "TensorType",
    "UnsupportedError",
    "calc_buffer_tensor_size",
    "create_device",
    "default_device",
    "dequantize_linear",
    "quantize_linear",
    "round",
    "validate",
]
