"""dmlpy: DirectML's operator-descriptor model in Python, run on any OpenCL device.

Descriptors and validation (``dmlpy.tensor``, ``dmlpy.ops``) are pure Python; only ``dmlpy.runtime`` imports
pyopencl, and it is loaded on first use of a runtime name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dmlpy import ops
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
from dmlpy.ops import *  # noqa: F403  # the operator table's descriptors, OperatorDesc, validate
from dmlpy.tensor import BufferTensorDesc, TensorDesc, calc_buffer_tensor_size

if TYPE_CHECKING:
    from dmlpy.runtime import *  # noqa: F403


def __getattr__(name: str) -> Any:
    # The runtime imports pyopencl; load it only when one of its names is used, so descriptor work and
    # validation need no OpenCL installation. Dunder probes (copy, pickle, inspect) never load it.
    if not name.startswith("__"):
        runtime = importlib.import_module("dmlpy.runtime")
        if name in runtime.__all__:
            return getattr(runtime, name)
    raise AttributeError(f"module 'dmlpy' has no attribute {name!r}")


__all__ = [
    "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
    "DML_PERSISTENT_BUFFER_ALIGNMENT",
    "DML_TEMPORARY_BUFFER_ALIGNMENT",
    "DML_TENSOR_DIMENSION_COUNT_MAX",
    "DML_TENSOR_DIMENSION_COUNT_MAX1",
    "BindingType",
    "BufferTensorDesc",
    "CreateDeviceFlags",
    "DeviceRemovedError",
    "DmlError",
    "ExecutionFlags",
    "Feature",
    "FeatureLevel",
    "InvalidArgumentError",
    "KernelBuildError",
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
]
__all__ += ops.__all__  # names that `import *` gives; the runtime's are looked up lazily
