"""NumPy dtype tuples the operators' tests share, written out by hand (not dmlpy.dtypes, which is under test)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

import dmlpy as dml
from dmlpy.extensions import ExtTensorDataType

ROUND_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))
"""The data types DML_ELEMENT_WISE_ROUND takes (FLOAT32, FLOAT16)."""
INTEGER_DTYPES_32 = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32))
"""The integer types of QuantizeLinear's output and DequantizeLinear's input: 8 to 32 bits."""
INTEGER_DTYPES = (*INTEGER_DTYPES_32, np.dtype(np.int64), np.dtype(np.uint64))
"""Every integer type, 8 to 64 bits (the extension Round passes them through)."""
DATA_TYPE: dict[np.dtype[Any], Any] = {
    np.dtype(np.float32): dml.TensorDataType.FLOAT32,
    np.dtype(np.float16): dml.TensorDataType.FLOAT16,
    np.dtype(np.float64): dml.TensorDataType.FLOAT64,
    np.dtype(ml_dtypes.bfloat16): ExtTensorDataType.BFLOAT16,
    np.dtype(np.int8): dml.TensorDataType.INT8,
    np.dtype(np.uint8): dml.TensorDataType.UINT8,
    np.dtype(np.int16): dml.TensorDataType.INT16,
    np.dtype(np.uint16): dml.TensorDataType.UINT16,
    np.dtype(np.int32): dml.TensorDataType.INT32,
    np.dtype(np.uint32): dml.TensorDataType.UINT32,
    np.dtype(np.int64): dml.TensorDataType.INT64,
    np.dtype(np.uint64): dml.TensorDataType.UINT64,
}
"""The tensor data type of each NumPy dtype (not dmlpy.dtypes.data_type_of, which is code under test)."""
NUMPY_DTYPE: dict[Any, np.dtype[Any]] = {data_type: dtype for dtype, data_type in DATA_TYPE.items()}
"""DATA_TYPE's inverse: a TensorDataType's NumPy dtype."""
