"""NumPy dtype tuples the operators' tests share, written out by hand (not dmlpy.dtypes, which is under test)."""

from __future__ import annotations

import numpy as np

ROUND_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))
"""The data types DML_ELEMENT_WISE_ROUND takes (FLOAT32, FLOAT16)."""
INTEGER_DTYPES_32 = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32))
"""The integer types of QuantizeLinear's output and DequantizeLinear's input: 8 to 32 bits."""
INTEGER_DTYPES = (*INTEGER_DTYPES_32, np.dtype(np.int64), np.dtype(np.uint64))
"""Every integer type, 8 to 64 bits (the extension Round passes them through)."""
