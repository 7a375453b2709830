"""``dml.quantize_linear`` and ``dml.dequantize_linear``: ONNX-style one-liners over DirectML's
ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR. A scalar scale (and zero point) applies to the whole tensor;
a 1-D one applies along ``axis`` (ONNX's default axis 1), expressed as 0-strides, never materialised."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.dtypes import data_type_of
from dmlpy.enums import RoundingMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.extensions import ExtRoundingMode
from dmlpy.extensions.operators import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.modes import EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    _LinearQuantizationDesc,
)
from dmlpy.runtime.device import Device, default_device
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.runtime.host_arrays import CompiledCache, compile_initialized, run_on_arrays
from dmlpy.tensor import BufferTensorDesc, packed_strides

QUANTIZED_DTYPES = (np.dtype(np.uint8), np.dtype(np.int8))
_cache = CompiledCache()


def _parameter(
    name: str, value: npt.ArrayLike, shape: tuple[int, ...], axis: int | None, dtype: np.dtype[Any]
) -> tuple[npt.NDArray[Any], tuple[int, ...]]:
    """A scale or zero point as a contiguous 1-D array, and its strides over the input's shape.

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
    resolved = 1 if axis is None else axis
    if axis is not None and not -len(shape) <= axis < len(shape):
        raise InvalidArgumentError(f"axis {axis} is out of range for an input of {len(shape)} dimensions")
    if array.size == 1:
        return array, (0,) * len(shape)
    if not -len(shape) <= resolved < len(shape):
        raise InvalidArgumentError(f"axis {resolved} is out of range for an input of {len(shape)} dimensions")
    resolved %= len(shape)
    if array.size != shape[resolved]:
        raise InvalidArgumentError(
            f"{name} has {array.size} values but the input's axis {resolved} has {shape[resolved]} entries"
        )
    return array, tuple(1 if dim == resolved else 0 for dim in range(len(shape)))


def _run(
    desc_class: type[_LinearQuantizationDesc],
    array: npt.NDArray[Any],
    parameters: tuple[tuple[npt.ArrayLike, np.dtype[Any]], tuple[npt.ArrayLike | None, np.dtype[Any]]],
    axis: int | None,
    output_dtype: np.dtype[Any],
    device: Device | None,
    extra_fields: dict[str, Any] | None = None,
) -> npt.NDArray[Any]:
    """Dispatch ``desc_class`` over ``array`` with (scale, its dtype) and (zero point or None, its dtype);
    ``extra_fields`` are further descriptor fields (an extension's rounding mode)."""
    extra_fields = extra_fields or {}
    result = np.empty(array.shape, output_dtype)
    array = np.ascontiguousarray(array)  # a 0-d array becomes 1-D here: DirectML has no 0-d tensors
    shape = array.shape
    if array.size == 0:
        return result
    (scale, scale_dtype), (zero_point, zero_point_dtype) = parameters
    scales, scale_strides = _parameter("scale", scale, shape, axis, scale_dtype)
    zero_points, zero_point_strides = (
        _parameter("zero_point", zero_point, shape, axis, zero_point_dtype) if zero_point is not None else (None, None)
    )
    device = device if device is not None else default_device()

    def tensor(dtype: np.dtype[Any], strides: tuple[int, ...]) -> BufferTensorDesc:
        return BufferTensorDesc(data_type=data_type_of(dtype), sizes=shape, strides=strides)

    def make() -> CompiledOperator:
        desc = desc_class(
            input_tensor=tensor(array.dtype, packed_strides(shape)),
            scale_tensor=tensor(scale_dtype, scale_strides),
            zero_point_tensor=tensor(zero_point_dtype, zero_point_strides) if zero_point_strides else None,
            output_tensor=tensor(output_dtype, packed_strides(shape)),
            **extra_fields,
        )
        return compile_initialized(device, desc)

    key = (
        desc_class,
        *extra_fields.values(),
        array.dtype.char,
        shape,
        scale_dtype.char,
        scale_strides,
        zero_point_strides,
        output_dtype.char,
    )
    compiled = _cache.get(device, key, make)
    run_on_arrays(device, compiled, [array.reshape(-1), scales, zero_points], result.reshape(-1))
    return result


def quantize_linear(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    device: Device | None = None,
) -> npt.NDArray[Any]:
    """saturate(round_half_to_even(x / scale) + zero_point) as uint8 or int8, like ONNX QuantizeLinear.

    ``mode`` other than halves to even (nGraph's "ROUND_NEAREST_UPWARD", ... see ``dmlpy.modes``) runs the
    QuantizeLinear extension (not DirectML) on a device with extensions enabled.

    ``x``: float32, float16 or int32. ``scale``: a scalar, or 1-D along ``axis`` (default 1), float32 (or
    float16 for a float16 ``x``). ``zero_point``: same shape as ``scale``; its dtype is the output's, else
    ``dtype`` (default uint8). NaN quantizes to 0, +inf and -inf saturate.
    """
    array = np.asarray(x)
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
    if rounding_mode in (RoundingMode.HALVES_TO_NEAREST_EVEN, ExtRoundingMode.NEAREST_TOWARD_EVEN):
        return _run(ElementWiseQuantizeLinearOperatorDesc, array, parameters, axis, output_dtype, device)
    extension_mode = (
        rounding_mode if isinstance(rounding_mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[rounding_mode]
    )
    device = device if device is not None else default_device(extensions=True)
    extra = {"rounding_mode": extension_mode}
    return _run(ExtElementWiseQuantizeLinearOperatorDesc, array, parameters, axis, output_dtype, device, extra)


def dequantize_linear(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    device: Device | None = None,
) -> npt.NDArray[Any]:
    """(x - zero_point) * scale, like ONNX DequantizeLinear; the output has the scale's dtype (float32 or
    float16). ``x``: int8, uint8, int16, uint16, int32 or uint32."""
    array = np.asarray(x)
    integers = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32)]
    if array.dtype not in integers:
        raise InvalidArgumentError(f"dequantize_linear takes 8-, 16- or 32-bit integer input; got {array.dtype}")
    given = np.asarray(scale).dtype
    output_dtype = given if given in (np.dtype(np.float32), np.dtype(np.float16)) else np.dtype(np.float32)
    parameters = ((scale, output_dtype), (zero_point, array.dtype))
    return _run(ElementWiseDequantizeLinearOperatorDesc, array, parameters, axis, output_dtype, device)
