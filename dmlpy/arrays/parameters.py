"""The one-liners' scale and zero point: checked, converted to the types the operator takes, and viewed as the
input's shape (per tensor, or per axis along ``axis``, ONNX's default 1) with 0-strides, never materialised.
A scale that is zero, negative, infinite or NaN runs, as DirectML and ONNX run it, with a ScaleWarning."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from dmlpy import nibbles
from dmlpy.arrays.checks import as_array, described
from dmlpy.errors import InvalidArgumentError


def integral(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` holds integers: NumPy's, and ml_dtypes' 4-bit ones (which NumPy counts as kind V)."""
    return dtype.kind in "iu" or dtype in nibbles.DTYPES


def axis_argument(axis: object) -> int | None:
    """``axis`` as an int: None, a Python or NumPy integer (a bool is neither here)."""
    if axis is None:
        return None
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, int | np.integer):
        raise InvalidArgumentError(f"axis must be an int or None, not {described(axis)}")
    return int(axis)


def numbers(name: str, value: object) -> npt.NDArray[Any]:
    """A scale or zero point as an array of numbers (a scalar, 1-D, or of the input's rank for a blocked call);
    InvalidArgumentError for anything else."""
    if value is None:
        raise InvalidArgumentError(f"{name} is required: a number or a 1-D array of numbers; got None")
    given = as_array(name, value)
    if given.dtype.kind != "f" and not integral(given.dtype):
        raise InvalidArgumentError(
            f"{name} must be a number or a 1-D array of numbers (integer or float); got {described(value)} "
            f"(NumPy dtype {given.dtype})"
        )
    return given


def block_size_argument(block_size: object) -> int | None:
    """``block_size`` as an int: None, or a positive Python or NumPy integer (a bool is neither here)."""
    if block_size is None:
        return None
    if isinstance(block_size, bool | np.bool_) or not isinstance(block_size, int | np.integer) or block_size < 1:
        raise InvalidArgumentError(
            "block_size must be a positive int (the elements per scale along axis) or None, not "
            f"{described(block_size)}"
        )
    return int(block_size)


def parameter_values(name: str, value: object, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """A scale or zero point's values as ``dtype``, of the shape given, checked.

    A zero point given as a NumPy integer must already have ``dtype`` (as ONNX requires); a plain Python int
    is converted when it fits, never wrapped."""
    given = numbers(name, value)
    if integral(dtype):
        if integral(given.dtype) and not isinstance(value, int) and given.dtype != dtype:
            raise InvalidArgumentError(f"{name} is {given.dtype}; it must be {dtype} here")
        limits = ml_dtypes.iinfo(dtype)  # type: ignore[no-untyped-call]  # NumPy's iinfo knows no int4
        whole = integral(given.dtype) or bool(np.all(np.floor(given) == given))
        if not whole or (given.size and (given.min() < limits.min or given.max() > limits.max)):
            raise InvalidArgumentError(f"{name} {value!r} is not a whole number from {limits.min} to {limits.max}")
    return given.astype(dtype, copy=False)


def parameter_view(name: str, values: npt.NDArray[Any], shape: tuple[int, ...], axis: int | None) -> npt.NDArray[Any]:
    """A scale or zero point's checked ``values`` (parameter_values), a scalar or per-axis 1-D array, as a view of
    the input's shape, broadcast with 0-strides, never materialised."""
    array = np.ascontiguousarray(values.reshape(-1))
    rank = max(1, len(shape))  # a 0-d input runs as one element
    resolved = 1 if axis is None else axis
    if axis is not None and not -rank <= axis < rank:
        raise InvalidArgumentError(f"axis {axis} is out of range for an input of {len(shape)} dimensions")
    if array.size == 1:
        return values_view(array, shape, None)
    if not -rank <= resolved < rank:
        raise InvalidArgumentError(
            f"{name} has {array.size} values, one per index of an axis, and axis was left out, so it is 1 (ONNX's "
            f"default), which an input of {len(shape)} dimension{'s' if len(shape) != 1 else ''} does not have: give "
            "axis=0 for a 1-D input, or a single value"
        )
    resolved %= rank
    axis_length = shape[resolved] if shape else 1
    if array.size != axis_length:
        raise InvalidArgumentError(
            f"{name} has {array.size} values but the input's axis {resolved} has {axis_length} entries"
        )
    return values_view(array, shape, resolved)


def values_view(values: npt.NDArray[Any], shape: tuple[int, ...], axis: int | None) -> npt.NDArray[Any]:
    """Checked scale or zero point ``values`` (one value, or 1-D: one per index of the non-negative ``axis``) as a
    view of ``shape``, with 0-strides; ``axis`` is not read for one value."""
    if values.size == 1 or axis is None:
        return np.broadcast_to(values.reshape(()), shape)
    along_axis = [1] * len(shape)
    along_axis[axis] = values.size
    return np.broadcast_to(values.reshape(along_axis), shape)
