"""The sets of data types and the tensor names the operators' support tables share, named once."""

from __future__ import annotations

from dmlpy.dtypes import FLOATS as FLOATS
from dmlpy.enums import TensorDataType

T = TensorDataType
FLOATS_AND_FLOAT64 = FLOATS | {T.FLOAT64}
"""Every floating-point type (FLOAT64 has no register type: its operators run on its encoding)."""
SIGNED_8_32 = frozenset({T.INT8, T.INT16, T.INT32})
SIGNED = SIGNED_8_32 | {T.INT64}
"""Every signed integer type."""
UNSIGNED_8_32 = frozenset({T.UINT8, T.UINT16, T.UINT32})
INTEGERS_8_32 = SIGNED_8_32 | UNSIGNED_8_32
INTEGERS_8_16 = frozenset({T.INT8, T.UINT8, T.INT16, T.UINT16})
INTEGERS_32 = frozenset({T.INT32, T.UINT32})
INTEGERS_64 = frozenset({T.INT64, T.UINT64})
EVERY_TYPE = FLOATS_AND_FLOAT64 | INTEGERS_8_32 | INTEGERS_64
"""DirectML's 11 tensor types (the bit operators take each from DML_FEATURE_LEVEL_4_1)."""
INPUT_OUTPUT = ("InputTensor", "OutputTensor")
"""A unary operator's tensors, as its support table names them."""
