"""A scale's or zero point's values as the tensor type that holds them, below the graph builder and the
one-liners: ``integral`` (which NumPy types hold integers), ONNX's rule for a zero point that has a NumPy integer
type of its own (``mistyped_zero_point``, read by ``dml.quantize_linear`` and ``dml.graph.quantize_linear``
alike), and the builder's check of a number zero point, which names the ``dtype=`` that would hold it
(``checked_values``, ``holds``). The values themselves enter by one rule, ``dmlpy.graph.values.held``: a zero point
is a whole number its type holds, never wrapped or truncated."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy import nibbles
from dmlpy.errors import InvalidArgumentError
from dmlpy.ml_types import integer_limits


def integral(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` holds integers: NumPy's, and ml_dtypes' 4-bit ones (which NumPy counts as kind V)."""
    return dtype.kind in "iu" or nibbles.is_nibble_dtype(dtype)


def checked_values(name: str, value: object, given: npt.NDArray[Any], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """``given`` (the numbers ``value`` holds) as ``dtype``. A zero point given as a NumPy integer must already
    have ``dtype`` (as ONNX requires); a plain Python int (or float) is converted when it is a whole number
    ``dtype`` holds, never wrapped or truncated: InvalidArgumentError otherwise."""
    if mistyped_zero_point(value, given, dtype):
        raise InvalidArgumentError(f"{name} is {given.dtype}; it must be {dtype} here")
    if integral(dtype):
        limits = integer_limits(dtype)
        whole = integral(given.dtype) or bool(np.all(np.floor(given) == given))
        if not whole or (given.size and (given.min() < limits.min or given.max() > limits.max)):
            raise InvalidArgumentError(f"{name} {value!r} is not a whole number from {limits.min} to {limits.max}")
    return given.astype(dtype, copy=False)


def mistyped_zero_point(value: object, given: npt.NDArray[Any], dtype: np.dtype[Any]) -> bool:
    """Whether a zero point ``value`` (``given``: the numbers it holds) for the integer type ``dtype`` has a NumPy
    integer type of its own other than ``dtype``, which ONNX refuses (a zero point has the quantized data's type);
    a plain Python int has none, and takes ``dtype`` when it fits."""
    return integral(dtype) and integral(given.dtype) and not isinstance(value, int) and given.dtype != dtype


def holds(value: int | float, dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` (an integer type) holds the number ``value``: a whole number in its range (an int compared
    as it is, never through a float, which one past a double's range would overflow)."""
    limits = integer_limits(dtype)
    whole = isinstance(value, int) or float(value).is_integer()
    return whole and limits.min <= value <= limits.max
