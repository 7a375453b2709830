"""``dml.quantize_linear`` and ``dml.dequantize_linear``: ONNX-style one-liners over DirectML's
ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR. A scalar scale (and zero point) applies to the whole tensor;
a 1-D one applies along ``axis`` (ONNX's default axis 1), expressed as 0-strides, never materialised."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.enums import ExtRoundingMode, RoundingMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.modes import EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    _LinearQuantizationDesc,
)
from dmlpy.ops.ext_element_wise_quantize_linear import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.runtime.array_runner import ArrayCall, run
from dmlpy.runtime.device import Device, default_device

QUANTIZED_DTYPES = (np.dtype(np.uint8), np.dtype(np.int8))


def _parameter(
    name: str, value: npt.ArrayLike, shape: tuple[int, ...], axis: int | None, dtype: np.dtype[Any]
) -> npt.NDArray[Any]:
    """A scale or zero point as a view of the input's shape: a scalar or per-axis 1-D array broadcast with
    0-strides, never materialised.

    A zero point given as a NumPy integer must already have ``dtype`` (as ONNX requires); a plain Python int
    is converted when it fits, never wrapped."""
    given = np.asarray(value)
    if given.ndim > 1:
        raise InvalidArgumentError(f"{name} must be a scalar or 1-D; got shape {given.shape}")
    if given.dtype.kind not in "iuf":
        raise InvalidArgumentError(f"{name} must hold numbers; got {given.dtype}")
    if dtype.kind in "iu":
        if given.dtype.kind in "iu" and not isinstance(value, int) and given.dtype != dtype:
            raise InvalidArgumentError(f"{name} is {given.dtype}; it must be {dtype} here")
        limits = np.iinfo(dtype)
        whole = given.dtype.kind in "iu" or bool(np.all(np.floor(given) == given))
        if not whole or (given.size and (given.min() < limits.min or given.max() > limits.max)):
            raise InvalidArgumentError(f"{name} {value!r} is not a whole number from {limits.min} to {limits.max}")
    array = np.ascontiguousarray(given.astype(dtype, copy=False).reshape(-1))
    rank = max(1, len(shape))  # a 0-d input runs as one element
    resolved = 1 if axis is None else axis
    if axis is not None and not -rank <= axis < rank:
        raise InvalidArgumentError(f"axis {axis} is out of range for an input of {len(shape)} dimensions")
    if array.size == 1:
        return np.broadcast_to(array.reshape(()), shape)
    if not -rank <= resolved < rank:
        raise InvalidArgumentError(f"axis {resolved} is out of range for an input of {len(shape)} dimensions")
    resolved %= rank
    axis_length = shape[resolved] if shape else 1
    if array.size != axis_length:
        raise InvalidArgumentError(
            f"{name} has {array.size} values but the input's axis {resolved} has {axis_length} entries"
        )
    along_axis = [1] * len(shape)
    along_axis[resolved] = array.size
    return np.broadcast_to(array.reshape(along_axis), shape)


def _native(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    # Big-endian data on a little-endian host: the output takes the native dtype.
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def _check_out(out: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    if out is None:
        return np.empty(shape, dtype)
    if not isinstance(out, np.ndarray):
        raise InvalidArgumentError(f"out must be a NumPy array, not {type(out).__name__}")
    if out.shape != shape or out.dtype != dtype:
        raise InvalidArgumentError(f"out has shape {out.shape} and dtype {out.dtype}; it must be {shape} {dtype}")
    if not out.flags.writeable:
        raise InvalidArgumentError("out is read-only")
    return out


def _run(
    desc_class: type[_LinearQuantizationDesc],
    array: npt.NDArray[Any],
    parameters: tuple[tuple[npt.ArrayLike, np.dtype[Any]], tuple[npt.ArrayLike | None, np.dtype[Any]]],
    axis: int | None,
    output: npt.NDArray[Any],
    device: Device,
    fields: tuple[tuple[str, Any], ...] = (),
) -> npt.NDArray[Any]:
    """Dispatch ``desc_class`` over ``array`` into ``output`` with (scale, its dtype) and (zero point or None,
    its dtype); ``fields`` are further descriptor fields (an extension's rounding mode)."""
    if array.size == 0:
        return output
    (scale, scale_dtype), (zero_point, zero_point_dtype) = parameters
    scales = _parameter("scale", scale, array.shape, axis, scale_dtype)
    zero_points = (
        _parameter("zero_point", zero_point, array.shape, axis, zero_point_dtype) if zero_point is not None else None
    )
    run(ArrayCall(desc_class, fields, [array, scales, zero_points], output), device)
    return output


def quantize_linear(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | None = None,
    device: Device | None = None,
) -> npt.NDArray[Any]:
    """saturate(round_half_to_even(x / scale) + zero_point) as uint8 or int8, like ONNX QuantizeLinear.

    ``mode`` other than halves to even (nGraph's "ROUND_NEAREST_UPWARD", ... see ``dmlpy.modes``) runs the
    QuantizeLinear extension (not DirectML) on a device with extensions enabled.

    ``x``: float32, float16 or int32. ``scale``: a scalar, or 1-D along ``axis`` (default 1), float32 (or
    float16 for a float16 ``x``). ``zero_point``: same shape as ``scale``; its dtype is the output's, else
    ``dtype`` (default uint8). NaN quantizes to 0, +inf and -inf saturate.
    """
    array = _native(np.asarray(x))
    if array.dtype not in (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32)):
        raise InvalidArgumentError(f"quantize_linear takes float32, float16 or int32 input; got {array.dtype}")
    # A NumPy zero point decides the output type (ONNX's rule); a plain int or None leaves it to dtype.
    typed_zero_point = zero_point is not None and not isinstance(zero_point, int)
    zero_point_dtype = np.asarray(zero_point).dtype if typed_zero_point else None
    try:
        output_dtype = np.dtype(dtype) if dtype is not None else zero_point_dtype or np.dtype(np.uint8)
    except TypeError:
        raise InvalidArgumentError(f"dtype {dtype!r} is not a NumPy dtype; use uint8 or int8") from None
    if output_dtype not in QUANTIZED_DTYPES:
        raise InvalidArgumentError(f"quantize_linear produces uint8 or int8; got {output_dtype}")
    scale_dtype = np.dtype(np.float32) if array.dtype == np.int32 else array.dtype
    parameters = ((scale, scale_dtype), (zero_point, output_dtype))
    rounding_mode = resolve_mode(mode)
    output = _check_out(out, array.shape, output_dtype)
    if rounding_mode in (RoundingMode.HALVES_TO_NEAREST_EVEN, ExtRoundingMode.NEAREST_TOWARD_EVEN):
        device = device if device is not None else default_device()
        return _run(ElementWiseQuantizeLinearOperatorDesc, array, parameters, axis, output, device)
    extension_mode = (
        rounding_mode if isinstance(rounding_mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[rounding_mode]
    )
    device = device if device is not None else default_device(extensions=True)
    fields = (("rounding_mode", extension_mode),)
    return _run(ExtElementWiseQuantizeLinearOperatorDesc, array, parameters, axis, output, device, fields)


def dequantize_linear(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    out: npt.NDArray[Any] | None = None,
    device: Device | None = None,
) -> npt.NDArray[Any]:
    """(x - zero_point) * scale, like ONNX DequantizeLinear; the output has the scale's dtype (float32 or
    float16). ``x``: int8, uint8, int16, uint16, int32 or uint32."""
    array = _native(np.asarray(x))
    integers = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32)]
    if array.dtype not in integers:
        raise InvalidArgumentError(f"dequantize_linear takes 8-, 16- or 32-bit integer input; got {array.dtype}")
    given = np.asarray(scale).dtype
    output_dtype = given if given in (np.dtype(np.float32), np.dtype(np.float16)) else np.dtype(np.float32)
    parameters = ((scale, output_dtype), (zero_point, array.dtype))
    output = _check_out(out, array.shape, output_dtype)
    device = device if device is not None else default_device()
    return _run(ElementWiseDequantizeLinearOperatorDesc, array, parameters, axis, output, device)
