"""What dmlpy needs to know about each DML_TENSOR_DATA_TYPE: its width, NumPy dtype and OpenCL storage."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from dmlpy.enums import ExtTensorDataType, TensorDataType
from dmlpy.ml_types import ML_DTYPE_NAMES, ml_dtype

AnyDataType = TensorDataType | ExtTensorDataType
"""A DirectML data type, or a dmlpy extension one (which no DirectML feature level accepts)."""


FLOATS = frozenset({TensorDataType.FLOAT32, TensorDataType.FLOAT16})
"""The types arithmetic holds as float: FLOAT32, and FLOAT16's values exactly."""


@dataclass(frozen=True)
class DataTypeInfo:
    """One row of the data-type table."""

    bits: int
    """Width of one element; 4 for the packed 4-bit types."""
    numpy_name: str
    """The name of the NumPy dtype holding one element (``numpy``)."""
    opencl_storage: str
    """The OpenCL C type a kernel's buffer pointer uses: ``uchar`` for the 4-bit types (two elements a byte,
    opencl/elementwise.cl). FLOAT16 is stored as ``half``, read and written through its bits."""

    @property
    def numpy(self) -> np.dtype[np.generic]:
        """The NumPy dtype holding one element; ml_dtypes' int4 and uint4 hold a 4-bit element in a byte of its own,
        packed two to a byte at the boundary with DirectML's buffers (dmlpy/nibbles.py). ml_dtypes' three types
        import ml_dtypes when first asked for (dmlpy/ml_types.py)."""
        return _numpy_dtype(self.numpy_name)


@cache
def _numpy_dtype(name: str) -> np.dtype[np.generic]:
    return ml_dtype(name) if name in ML_DTYPE_NAMES else np.dtype(name)


DATA_TYPES: dict[AnyDataType, DataTypeInfo] = {
    TensorDataType.FLOAT32: DataTypeInfo(32, "float32", "float"),
    TensorDataType.FLOAT16: DataTypeInfo(16, "float16", "half"),
    TensorDataType.UINT32: DataTypeInfo(32, "uint32", "uint"),
    TensorDataType.UINT16: DataTypeInfo(16, "uint16", "ushort"),
    TensorDataType.UINT8: DataTypeInfo(8, "uint8", "uchar"),
    TensorDataType.INT32: DataTypeInfo(32, "int32", "int"),
    TensorDataType.INT16: DataTypeInfo(16, "int16", "short"),
    TensorDataType.INT8: DataTypeInfo(8, "int8", "char"),
    TensorDataType.FLOAT64: DataTypeInfo(64, "float64", "double"),
    TensorDataType.UINT64: DataTypeInfo(64, "uint64", "ulong"),
    TensorDataType.INT64: DataTypeInfo(64, "int64", "long"),
    TensorDataType.UINT4: DataTypeInfo(4, "uint4", "uchar"),
    TensorDataType.INT4: DataTypeInfo(4, "int4", "uchar"),
    ExtTensorDataType.BFLOAT16: DataTypeInfo(16, "bfloat16", "ushort"),
}


def element_size_in_bits(data_type: AnyDataType) -> int:
    """Bits per element; 0 for UNKNOWN (DMLCalcBufferTensorSize returns 0 for it)."""
    info = DATA_TYPES.get(data_type)
    return info.bits if info else 0


def element_size(data_type: AnyDataType) -> int:
    """Whole bytes per element (1 for the 4-bit types, which never start mid-byte at an offset)."""
    return max(1, element_size_in_bits(data_type) // 8)


def elements_in(data_type: AnyDataType, byte_count: int) -> int:
    """How many elements of ``data_type`` ``byte_count`` bytes hold: a binding's byte offset as the element
    offset a kernel indexes with (two per byte for the 4-bit types)."""
    return byte_count * 8 // element_size_in_bits(data_type)


def is_nibble(data_type: AnyDataType) -> bool:
    """Whether ``data_type`` is a 4-bit type (INT4, UINT4): two elements a byte, the even one in the low nibble."""
    return element_size_in_bits(data_type) == 4


def data_type_of(dtype: np.dtype[np.generic] | type) -> AnyDataType:
    """The data type for a NumPy dtype (bfloat16 gives the extension type); ValueError when there is none."""
    wanted = np.dtype(dtype)
    for data_type, info in DATA_TYPES.items():
        if info.numpy_name == wanted.name and info.numpy == wanted:
            return data_type
    raise ValueError(f"NumPy dtype {wanted} has no DML_TENSOR_DATA_TYPE")
