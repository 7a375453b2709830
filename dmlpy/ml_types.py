"""ml_dtypes' NumPy types (bfloat16, int4, uint4), with ml_dtypes imported the first time one is needed.

Importing ml_dtypes registers its types and their casts with NumPy: 0.5 s of CPU, a quarter of what ``import
dmlpy`` cost (2026-12-07), which a process that never meets one of these types (most CLI commands and scripts)
need not pay. An array of one of them exists only once ml_dtypes is imported, so asking whether a dtype is one
imports nothing."""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

import numpy as np

ML_DTYPE_NAMES = ("bfloat16", "int4", "uint4")
"""The ml_dtypes types dmlpy knows: bfloat16 (the extension's BFLOAT16), and DirectML's INT4 and UINT4."""
NIBBLE_TYPES = ("int4", "uint4")
"""ml_dtypes' 4-bit integer types, DirectML's INT4 and UINT4 (NumPy holds an element in a byte of its own)."""


@cache
def ml_dtype(name: str) -> np.dtype[Any]:
    """ml_dtypes' type ``name`` (``bfloat16``, ``int4``, ``uint4``) as a NumPy dtype, importing ml_dtypes."""
    import ml_dtypes

    dtype: np.dtype[Any] = np.dtype(getattr(ml_dtypes, name))
    return dtype


def is_ml_dtype(dtype: Any, *names: str) -> bool:
    """Whether ``dtype`` is one of ml_dtypes' types ``names``; False without importing anything while ml_dtypes
    is not imported, when no dtype can be one."""
    if "ml_dtypes" not in sys.modules:
        return False
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        return False
    return any(resolved == ml_dtype(name) for name in names)


def integer_limits(dtype: np.dtype[Any]) -> Any:
    """``np.iinfo`` of an integer dtype, ml_dtypes' ``iinfo`` for its 4-bit types (which NumPy's knows not)."""
    if is_ml_dtype(dtype, *NIBBLE_TYPES):
        import ml_dtypes

        return ml_dtypes.iinfo(dtype)  # type: ignore[no-untyped-call]
    return np.iinfo(dtype)


def largest_finite(dtype: np.dtype[Any]) -> float:
    """The largest finite value of a float dtype, ml_dtypes' bfloat16 included (which NumPy's finfo knows not)."""
    if is_ml_dtype(dtype, "bfloat16"):
        import ml_dtypes

        return float(ml_dtypes.finfo(dtype).max)  # type: ignore[no-untyped-call]
    return float(np.finfo(dtype).max)
