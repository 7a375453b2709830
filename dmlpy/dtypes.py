"""What dmlpy needs to know about each DML_TENSOR_DATA_TYPE: its width, NumPy dtype and OpenCL storage."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from dmlpy.enums import ExtTensorDataType, TensorDataType

AnyDataType = TensorDataType | ExtTensorDataType
"""A DirectML data type, or a dmlpy extension one (which no DirectML feature level accepts)."""


@dataclass(frozen=True)
class DataTypeInfo:
    """One row of the data-type table."""

    bits: int
    """Width of one element; 4 for the packed 4-bit types."""
    numpy: np.dtype[np.generic] | None
    """The NumPy dtype holding one element, None where NumPy has none (4-bit types)."""
    opencl_storage: str | None
    """The OpenCL C type a kernel's buffer pointer uses. FLOAT16 is stored as ``half`` and read through
    vload_half/vstore_half, which needs no cl_khr_fp16."""


DATA_TYPES: dict[AnyDataType, DataTypeInfo] = {
    TensorDataType.FLOAT32: DataTypeInfo(32, np.dtype(np.float32), "float"),
    TensorDataType.FLOAT16: DataTypeInfo(16, np.dtype(np.float16), "half"),
    TensorDataType.UINT32: DataTypeInfo(32, np.dtype(np.uint32), "uint"),
    TensorDataType.UINT16: DataTypeInfo(16, np.dtype(np.uint16), "ushort"),
    TensorDataType.UINT8: DataTypeInfo(8, np.dtype(np.uint8), "uchar"),
    TensorDataType.INT32: DataTypeInfo(32, np.dtype(np.int32), "int"),
    TensorDataType.INT16: DataTypeInfo(16, np.dtype(np.int16), "short"),
    TensorDataType.INT8: DataTypeInfo(8, np.dtype(np.int8), "char"),
    TensorDataType.FLOAT64: DataTypeInfo(64, np.dtype(np.float64), "double"),
    TensorDataType.UINT64: DataTypeInfo(64, np.dtype(np.uint64), "ulong"),
    TensorDataType.INT64: DataTypeInfo(64, np.dtype(np.int64), "long"),
    TensorDataType.UINT4: DataTypeInfo(4, None, None),
    TensorDataType.INT4: DataTypeInfo(4, None, None),
    ExtTensorDataType.BFLOAT16: DataTypeInfo(16, np.dtype(ml_dtypes.bfloat16), "ushort"),
}


def element_size_in_bits(data_type: AnyDataType) -> int:
    """Bits per element; 0 for UNKNOWN (DMLCalcBufferTensorSize returns 0 for it)."""
    info = DATA_TYPES.get(data_type)
    return info.bits if info else 0


def element_size(data_type: AnyDataType) -> int:
    """Whole bytes per element (1 for the 4-bit types, which never start mid-byte at an offset)."""
    return max(1, element_size_in_bits(data_type) // 8)


def data_type_of(dtype: np.dtype[np.generic] | type) -> AnyDataType:
    """The data type for a NumPy dtype (bfloat16 gives the extension type); ValueError when there is none."""
    wanted = np.dtype(dtype)
    for data_type, info in DATA_TYPES.items():
        if info.numpy == wanted:
            return data_type
    raise ValueError(f"NumPy dtype {wanted} has no DML_TENSOR_DATA_TYPE")
