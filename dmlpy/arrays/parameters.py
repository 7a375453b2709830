"""The one-liners' scale and zero point: checked, converted to the types the operator takes, and viewed as the
input's shape (per tensor, or per axis along ``axis``, ONNX's default 1) with 0-strides, never materialised.
Each value is held by its type as the graph builder holds one (``dmlpy.graph.values.held``: a whole number in an
integer type's range, a float type's nearest value but never infinity for a finite number), or refused naming it.
A scale that is zero, negative, infinite or NaN as its type holds it runs, as DirectML and ONNX run it, with a
ScaleWarning."""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.arrays.checks import as_array, described
from dmlpy.dtypes import data_type_of
from dmlpy.errors import InvalidArgumentError, ScaleWarning
from dmlpy.graph.values import held
from dmlpy.quantization_values import integral, mistyped_zero_point

SCALE_EFFECTS = {
    "quantize_linear": "quantizing divides by it: x / scale is then infinite or NaN (saturated or zero results), "
    "or of the opposite sign",
    "dequantize_linear": "dequantizing multiplies by it: the results are then 0, infinite, NaN, or of the opposite "
    "sign",
}
"""What a scale that is not positive and finite does to each one-liner's results, for the ScaleWarning."""
HOLDERS = {"scale": "the scale is read as", "zero_point": "the zero point is read as"}
"""Whose type a refused value was to take, as ``held``'s message puts it before the type: the scale takes the
float data's (quantize_linear's x, FLOAT32 for an int32 x; dequantize_linear's output), the zero point the
quantized data's."""


def axis_argument(axis: object) -> int | None:
    """``axis`` as an int: None, a Python or NumPy integer (a bool is neither here)."""
    if axis is None:
        return None
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, int | np.integer):
        raise InvalidArgumentError(f"axis must be an int or None, not {described(axis)}")
    return int(axis)


def numbers(name: str, value: object) -> npt.NDArray[Any]:
    """A scale or zero point as an array of numbers (a scalar, 1-D, or of the input's rank for a blocked call);
    Python numbers that NumPy holds only as objects (an int beyond 64 bits, alone or in lists) as an array of
    those objects, for ``held`` to read one by one. InvalidArgumentError for anything else."""
    if value is None:
        raise InvalidArgumentError(f"{name} is required: a number or a 1-D array of numbers; got None")
    if isinstance(value, int | list | tuple) and not isinstance(value, bool):
        with contextlib.suppress(ValueError, TypeError):  # ragged lists: as_array says what is wrong with them
            cells = np.asarray(value)
            if cells.dtype == object:
                return cells
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
    """A scale or zero point's values as ``dtype``, of the shape given, checked: a zero point with a NumPy
    integer type of its own must have ``dtype`` already (as ONNX requires), and every value is held by ``dtype``
    (``held_values``). A plain Python int takes ``dtype`` when it fits, never wrapped."""
    given = numbers(name, value)
    if mistyped_zero_point(value, given, dtype):
        raise InvalidArgumentError(
            f"{name} is {given.dtype}; it must be {dtype} here, the quantized data's type (ONNX's rule for a typed "
            f"zero point): give {name} as a NumPy {dtype} array, or as one Python int"
        )
    # NumPy reads a list that mixes floats with ints beyond 2^53 through doubles; held reads each number as given.
    return held_values(name, value if isinstance(value, list | tuple) else given, dtype)


def held_values(name: str, values: object, dtype: np.dtype[Any], *, argument: str | None = None) -> npt.NDArray[Any]:
    """The numbers ``values`` (an array, a number, nested lists) of a scale or zero point (``name``) as
    ``dtype``, each held exactly (the nearest value of a float type), else InvalidArgumentError naming the
    ``argument`` (``name`` unless given: the command line's ``--scale``), the value and its index, the type and
    what to give: ``held``, the graph builder's rule."""
    return held(values, data_type_of(dtype), argument or name, "value", HOLDERS[name])


def scale_values(call: str, value: object, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """The scale's values as ``dtype`` (parameter_values), with a ScaleWarning from ``call`` (a one-liner's name)
    where one is zero, negative, infinite or NaN as ``dtype`` holds it: neither DirectML nor ONNX checks scale
    values, so the call runs."""
    scales = parameter_values("scale", value, dtype)
    # NaN compares False, so it is caught too. The usual scale is one number, which a Python float compares in a
    # fiftieth of NumPy's time (a 1K call takes about 180 us).
    if not (0.0 < scales.item() < math.inf if scales.size == 1 else bool(((scales > 0) & (scales < np.inf)).all())):
        _warn_outside_dmlpy(ScaleWarning(_scale_warning(call, scales)))
    return scales


def _scale_warning(call: str, scales: npt.NDArray[Any]) -> str:
    flat = scales.reshape(-1)
    unusable = np.flatnonzero(~((flat > 0) & (flat < np.inf)))
    first = float(flat[unusable[0]])
    if scales.size == 1:
        given = f"scale is {first} (as {scales.dtype})"
    else:
        index = tuple(int(i) for i in np.unravel_index(unusable[0], scales.shape))
        at = index[0] if len(index) == 1 else index
        given = (
            f"{unusable.size} of the scale's {scales.size} values are zero, negative, infinite or NaN (as "
            f"{scales.dtype}), the first {first} at index {at}"
        )
    return (
        f"{call}: {given}; neither DirectML nor ONNX checks scale values, so the call runs, but "
        f"{SCALE_EFFECTS[call]}: pass a positive, finite scale"
    )


def _warn_outside_dmlpy(warning: Warning) -> None:
    """Issue ``warning`` at the first caller outside dmlpy, as Python 3.12's ``skip_file_prefixes`` would: the
    one-liners reach the scale through calls of different depths (NumPy, Dask)."""
    level, frame = 1, sys._getframe(0)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "dmlpy":
        level, frame = level + 1, frame.f_back
    warnings.warn(warning, stacklevel=level)


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
    check_axis_length(name, array.size, shape, axis)
    return values_view(array, shape, resolved % rank)


def check_axis_length(name: str, count: int, shape: tuple[float, ...], axis: int | None) -> None:
    """That a per-axis scale or zero point's ``count`` values are one per index of the input's ``axis`` (None:
    ONNX's default, 1; in range): else InvalidArgumentError saying whether the axis was the default, and which
    axes of the input's ``shape`` (a dask array's may hold nan) the values would fit."""
    resolved = (1 if axis is None else axis) % max(1, len(shape))
    length = shape[resolved] if shape else 1
    if count == length:
        return
    message = f"{name} has {count} values but the input's axis {resolved} has {length} entries"
    if axis is None:
        message += "; axis was left out, so it is 1 (ONNX's default)"
    fitting = [f"axis={d}" for d, n in enumerate(shape) if n == count]
    shown = tuple(n if math.isnan(n) else int(n) for n in shape)  # a dask array's lengths: int, or nan
    if fitting:
        axes = "axis" if len(fitting) == 1 else "axes"
        raise InvalidArgumentError(
            f"{message}: pass {' or '.join(fitting)}, the input's {axes} of {count} entries (shape {shown})"
        )
    raise InvalidArgumentError(
        f"{message}, and no axis of the input (shape {shown}) has {count}: give one value per index of the axis, "
        "or a single value"
    )


def values_view(values: npt.NDArray[Any], shape: tuple[int, ...], axis: int | None) -> npt.NDArray[Any]:
    """Checked scale or zero point ``values`` (one value, or 1-D: one per index of the non-negative ``axis``) as a
    view of ``shape``, with 0-strides; ``axis`` is not read for one value."""
    if values.size == 1 or axis is None:
        return np.broadcast_to(values.reshape(()), shape)
    along_axis = [1] * len(shape)
    along_axis[axis] = values.size
    return np.broadcast_to(values.reshape(along_axis), shape)
