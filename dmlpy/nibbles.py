"""4-bit tensors at the boundary between NumPy and DirectML's buffers.

NumPy holds a 4-bit element (ml_dtypes' int4, uint4) in a byte of its own; a DirectML buffer packs two a byte,
element 2i in the low nibble of byte i and element 2i + 1 in the high one (docs/quantization.md says where that
order is written down). A tensor's strides count elements either way, so a span of elements packs as it lies:
element e of the span is nibble e of the packed bytes. An odd count leaves the last byte's high nibble 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.ml_types import NIBBLE_TYPES, is_ml_dtype


def is_nibble_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a NumPy dtype of DirectML's 4-bit types (ml_dtypes' int4, uint4), a byte an element."""
    return is_ml_dtype(dtype, *NIBBLE_TYPES)


def pack(elements: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """``elements`` (int4 or uint4, read in C order) packed two a byte: ceil(n / 2) bytes."""
    nibbles = np.ascontiguousarray(elements).reshape(-1).view(np.uint8) & 0x0F
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)


def unpack(packed: npt.NDArray[np.uint8], count: int, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """The first ``count`` 4-bit elements of ``packed`` bytes as a 1-D array of ``dtype`` (int4 or uint4)."""
    nibbles = np.empty(2 * packed.size, np.uint8)
    nibbles[0::2] = packed & 0x0F
    nibbles[1::2] = packed >> 4
    values = nibbles[:count].astype(np.int8)
    if is_ml_dtype(np.dtype(dtype), "int4"):
        values = (values ^ 8) - 8  # the nibble's bit 3 is the sign: 8..15 are -8..-1
    return values.astype(dtype)
