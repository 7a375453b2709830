"""``dml.quantize_linear`` and ``dml.dequantize_linear``: ONNX-style one-liners over DirectML's
ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR. A scalar scale (and zero point) applies to the whole tensor;
a 1-D one applies along ``axis`` (ONNX's default axis 1), expressed as 0-strides, never materialised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pyopencl import array as cl_array

from dmlpy.enums import ExtRoundingMode, RoundingMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.modes import EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    _LinearQuantizationDesc,
)
from dmlpy.ops.ext_element_wise_quantize_linear import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.runtime.arguments import (
    Mask,
    as_array,
    check_device,
    check_out,
    described,
    input_array,
    new_output,
    out_data,
    resolve_device,
    unmask,
    with_mask,
)
from dmlpy.runtime.array_runner import ArrayCall
from dmlpy.runtime.dask_arrays import (
    as_task_value,
    axis_of_per_axis_values,
    check_dask_input,
    dequantize_blocks,
    is_dask_array,
    parameter_shape,
    quantize_blocks,
)
from dmlpy.runtime.device import Device
from dmlpy.runtime.device_array_runner import run_call
from dmlpy.runtime.split_runner import Piece, check_devices, run_split

QUANTIZED_DTYPES = (np.dtype(np.uint8), np.dtype(np.int8))


def _axis(axis: object) -> int | None:
    """``axis`` as an int: None, a Python or NumPy integer (a bool is neither here)."""
    if axis is None:
        return None
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, int | np.integer):
        raise InvalidArgumentError(f"axis must be an int or None, not {described(axis)}")
    return int(axis)


def _numbers(name: str, value: object) -> npt.NDArray[Any]:
    """A scale or zero point as an array of numbers, a scalar or 1-D; InvalidArgumentError for anything else."""
    if value is None:
        raise InvalidArgumentError(f"{name} is required: a number or a 1-D array of numbers; got None")
    given = as_array(name, value)
    if given.dtype.kind not in "iuf":
        raise InvalidArgumentError(
            f"{name} must be a number or a 1-D array of numbers (integer or float); got {described(value)} "
            f"(NumPy dtype {given.dtype})"
        )
    if given.ndim > 1:
        raise InvalidArgumentError(
            f"{name} has shape {given.shape}; ELEMENT_WISE_QUANTIZE_LINEAR takes a scalar (per tensor) or a 1-D "
            f"{name} along axis (per axis). Blocked quantization (a {name} per block of elements) belongs to "
            "DirectML's newer DML_OPERATOR_QUANTIZE / DML_OPERATOR_DEQUANTIZE (DML_FEATURE_LEVEL_6_3), which dmlpy "
            "does not implement"
        )
    return given


def _parameter(
    name: str, value: object, shape: tuple[int, ...], axis: int | None, dtype: np.dtype[Any]
) -> npt.NDArray[Any]:
    """A scale or zero point as a view of the input's shape: a scalar or per-axis 1-D array broadcast with
    0-strides, never materialised.

    A zero point given as a NumPy integer must already have ``dtype`` (as ONNX requires); a plain Python int
    is converted when it fits, never wrapped."""
    given = _numbers(name, value)
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
    along_axis = [1] * len(shape)
    along_axis[resolved] = array.size
    return np.broadcast_to(array.reshape(along_axis), shape)


def _run(
    desc_class: type[_LinearQuantizationDesc],
    array: npt.NDArray[Any],
    parameters: tuple[npt.NDArray[Any], npt.NDArray[Any] | None],
    out: object,
    mask: Mask | None,
    output_dtype: np.dtype[Any],
    device: Device | list[Device] | None,
    fields: tuple[tuple[str, Any], ...] = (),
) -> npt.NDArray[Any] | cl_array.Array:
    """Dispatch ``desc_class`` over ``array`` into ``out`` (a new array of ``output_dtype`` when None; a masked
    one's data) with the scale and zero point (or None) views; ``fields`` are further descriptor fields (an
    extension's rounding mode); ``mask`` is a masked ``x``'s; ``device`` a list splits the call across those
    devices. Every argument has been checked."""
    target = out_data(out, mask)
    output: Any = target if target is not None else new_output(array, array.shape, output_dtype)
    scales, zero_points = parameters
    if isinstance(device, list):
        extension = desc_class.is_extension()

        def piece(index: Piece, axis: int, on: Device, into: npt.NDArray[Any]) -> None:
            tensors = [array[index], scales[index], None if zero_points is None else zero_points[index]]
            run_call(
                ArrayCall(desc_class, fields, tensors, into[index]), resolve_device(on, array, extensions=extension)
            )

        run_split(array, output, device, piece, fresh=target is None)
        return with_mask(output, out, mask, keep_fill_value=False)  # type: ignore[no-any-return]
    run_on = resolve_device(device, array, extensions=desc_class.is_extension()) if array.size else None
    if run_on is not None:
        run_call(ArrayCall(desc_class, fields, [array, scales, zero_points], output), run_on)
    returned: npt.NDArray[Any] | cl_array.Array = with_mask(output, out, mask, keep_fill_value=False)
    return returned


def _devices_or_device(device: object, devices: object, array: object) -> Device | list[Device] | None:
    """The device to run on, or the devices to split across (``devices=``), checked."""
    if devices is not None:
        return check_devices(devices, device, array)
    check_device(device)
    return device  # type: ignore[return-value]  # checked: a Device or None


def _dask_parameters(
    x: Any,
    accepted: tuple[np.dtype[Any], ...],
    takes: str,
    scale: object,
    zero_point: object,
    axis: object,
    dtypes: tuple[np.dtype[Any], np.dtype[Any]],
    out: object,
) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None, int | None]:
    """A dask ``x``'s call checked as the NumPy one checks it (from its dtype and shape, no data), and its scale
    and zero point as the block tasks take them (as_task_value: a scalar, or 1-D along the returned non-negative
    axis)."""
    check_dask_input(x, accepted.__contains__, takes, out)
    resolved = _axis(axis)
    given = {"scale": scale} if zero_point is None else {"scale": scale, "zero_point": zero_point}
    along = axis_of_per_axis_values(x, resolved, {name: _numbers(name, value).size for name, value in given.items()})
    shape = parameter_shape(x, along)
    scale_view = _parameter("scale", scale, shape, resolved, dtypes[0])
    zero_view = None if zero_point is None else _parameter("zero_point", zero_point, shape, resolved, dtypes[1])
    return as_task_value(scale_view), None if zero_view is None else as_task_value(zero_view), along


def _output_dtype(dtype: object, zero_point: object) -> np.dtype[Any]:
    """quantize_linear's output dtype: ``dtype``, else a NumPy zero point's dtype (ONNX's rule), else uint8. A
    plain Python int zero point leaves it to ``dtype``."""
    if dtype is not None:
        given = dtype.__name__ if isinstance(dtype, type) else repr(dtype)
        try:
            output_dtype: np.dtype[Any] = np.dtype(dtype)  # type: ignore[call-overload]  # anything: checked here
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"dtype {given} ({type(dtype).__name__}) is not a NumPy dtype; quantize_linear produces uint8 or "
                "int8: pass dtype=np.uint8 or np.int8 (or None)"
            ) from None
        if output_dtype not in QUANTIZED_DTYPES:
            raise InvalidArgumentError(
                f"dtype {given} means {output_dtype}; quantize_linear produces uint8 or int8, the only outputs of "
                "DirectML's ELEMENT_WISE_QUANTIZE_LINEAR (4-bit outputs belong to its newer DML_OPERATOR_QUANTIZE, "
                "which dmlpy does not implement): pass dtype=np.uint8 or np.int8 (or None)"
            )
        return output_dtype
    if zero_point is None or isinstance(zero_point, int):  # a bool is refused as a zero point later
        return np.dtype(np.uint8)
    zero_point_dtype = _numbers("zero_point", zero_point).dtype
    if zero_point_dtype not in QUANTIZED_DTYPES:
        raise InvalidArgumentError(
            f"zero_point is {zero_point_dtype}; with no dtype= the zero point's dtype is the output's, and "
            "quantize_linear produces uint8 or int8: pass a np.uint8 or np.int8 zero point, or dtype=np.uint8 or "
            "np.int8"
        )
    return zero_point_dtype


@overload
def quantize_linear(
    x: cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: cl_array.Array | None = None,
    device: Device | None = None,
    devices: Sequence[Device] | None = None,
) -> cl_array.Array: ...


@overload
def quantize_linear(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any]: ...


def quantize_linear(
    x: npt.ArrayLike | cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | cl_array.Array | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any] | cl_array.Array:
    """saturate(round_half_to_even(x / scale) + zero_point) as uint8 or int8, like ONNX QuantizeLinear.

    ``x``, ``scale``, ``zero_point``, ``axis`` and ``dtype`` may be positional, in ONNX's order (its inputs,
    then its ``axis`` and ``output_dtype`` attributes); ``mode``, ``out`` and ``device`` are keyword-only, so a
    mode is never taken for one of those (``quantize_linear(x, s, z, 1, np.uint8, "ROUND_UP")`` is a TypeError).

    ``mode`` other than halves to even (nGraph's "ROUND_NEAREST_UPWARD", ... see ``dmlpy.modes``) runs the
    QuantizeLinear extension (not DirectML) on a device with extensions enabled.

    ``x``: float32, float16 or int32. ``scale``: a scalar, or 1-D along ``axis`` (default 1), float32 (or
    float16 for a float16 ``x``). ``zero_point``: same shape as ``scale``; its dtype is the output's, else
    ``dtype`` (default uint8). ``axis``: an int or None. NaN quantizes to 0, +inf and -inf saturate.

    ``x`` may be a NumPy array, number or nested lists, or anything NumPy views without a copy through
    ``__array__`` or ``__dlpack__`` (a torch CPU tensor; the result is a NumPy array), or a pyopencl array (the
    result is one on ``x``'s queue, enqueued without waiting; scale and zero point stay host values; see
    docs/gpu.md); other device memory, iterators, None and torch tensors NumPy cannot view (requiring grad, on a
    GPU) are refused, naming what was given. A masked ``x`` gives a masked array with a copy of its mask (and the
    output dtype's default fill value); the masked slots hold the data under the mask, converted; ``out`` for a
    masked ``x`` must be masked too (it gets the mask). A masked scale or zero point with masked entries is refused.

    A ``dask.array.Array`` ``x`` gives a lazy one of the same chunks, per-axis values cut to each chunk (``device``
    None or an index; no ``out``); ``devices=[...]`` splits a host array across devices (see ``dml.round``).

    Every argument is checked before any OpenCL work; an ill-typed one raises InvalidArgumentError naming it.
    """
    inputs = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32))
    takes = "quantize_linear takes float32, float16 or int32 input"
    if is_dask_array(x):
        output_dtype = _output_dtype(dtype, zero_point)
        x_dtype = np.dtype(getattr(x, "dtype", None))
        scale_dtype = np.dtype(np.float32) if x_dtype == np.int32 else x_dtype
        compact = _dask_parameters(x, inputs, takes, scale, zero_point, axis, (scale_dtype, output_dtype), out)
        lazy: npt.NDArray[Any] = quantize_blocks(x, *compact, output_dtype, resolve_mode(mode), device)
        return lazy
    data, mask = unmask(x)
    array = input_array(data, inputs.__contains__, takes)
    output_dtype = _output_dtype(dtype, zero_point)
    scale_dtype = np.dtype(np.float32) if array.dtype == np.int32 else array.dtype
    resolved_axis = _axis(axis)
    parameters = (
        _parameter("scale", scale, array.shape, resolved_axis, scale_dtype),
        None if zero_point is None else _parameter("zero_point", zero_point, array.shape, resolved_axis, output_dtype),
    )
    rounding_mode = resolve_mode(mode)
    check_out(out_data(out, mask), array.shape, output_dtype, what="the output's", x=array)
    on = _devices_or_device(device, devices, array)
    if rounding_mode in (RoundingMode.HALVES_TO_NEAREST_EVEN, ExtRoundingMode.NEAREST_TOWARD_EVEN):
        return _run(ElementWiseQuantizeLinearOperatorDesc, array, parameters, out, mask, output_dtype, on)
    extension_mode = (
        rounding_mode if isinstance(rounding_mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[rounding_mode]
    )
    fields = (("rounding_mode", extension_mode),)
    return _run(ExtElementWiseQuantizeLinearOperatorDesc, array, parameters, out, mask, output_dtype, on, fields)


@overload
def dequantize_linear(
    x: cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    out: cl_array.Array | None = None,
    device: Device | None = None,
    devices: Sequence[Device] | None = None,
) -> cl_array.Array: ...


@overload
def dequantize_linear(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    out: npt.NDArray[Any] | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any]: ...


def dequantize_linear(
    x: npt.ArrayLike | cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    out: npt.NDArray[Any] | cl_array.Array | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any] | cl_array.Array:
    """(x - zero_point) * scale, like ONNX DequantizeLinear; the output has the scale's dtype (float32 or
    float16). ``x``: int8, uint8, int16, uint16, int32 or uint32. ``axis``: an int or None. It runs
    DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR.

    ``x``, ``scale``, ``zero_point`` and ``axis`` may be positional, in ONNX's order; ``out`` and ``device`` are
    keyword-only. There is no ``mode``: dequantizing rounds nothing but the float result.

    ``x`` may be a NumPy array, number or nested lists, or anything NumPy views without a copy through
    ``__array__`` or ``__dlpack__`` (a torch CPU tensor; the result is a NumPy array), or a pyopencl array (the
    result is one on ``x``'s queue, enqueued without waiting; scale and zero point stay host values; see
    docs/gpu.md); other device memory, iterators, None and torch tensors NumPy cannot view (requiring grad, on a
    GPU) are refused, naming what was given. A masked ``x`` gives a masked array with a copy of its mask (and the
    output dtype's default fill value); the masked slots hold the data under the mask, converted; ``out`` for a
    masked ``x`` must be masked too (it gets the mask). A masked scale or zero point with masked entries is refused.

    A ``dask.array.Array`` ``x`` gives a lazy one of the same chunks, per-axis values cut to each chunk (``device``
    None or an index; no ``out``); ``devices=[...]`` splits a host array across devices (see ``dml.round``).

    Every argument is checked before any OpenCL work; an ill-typed one raises InvalidArgumentError naming it."""
    integers = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32))
    takes = "dequantize_linear takes 8-, 16- or 32-bit integer input"
    given = _numbers("scale", scale).dtype
    output_dtype = given if given in (np.dtype(np.float32), np.dtype(np.float16)) else np.dtype(np.float32)
    if is_dask_array(x):
        dtypes = (output_dtype, np.dtype(getattr(x, "dtype", None)))
        compact = _dask_parameters(x, integers, takes, scale, zero_point, axis, dtypes, out)
        lazy: npt.NDArray[Any] = dequantize_blocks(x, *compact, output_dtype, device)
        return lazy
    data, mask = unmask(x)
    array = input_array(data, integers.__contains__, takes)
    resolved_axis = _axis(axis)
    parameters = (
        _parameter("scale", scale, array.shape, resolved_axis, output_dtype),
        None if zero_point is None else _parameter("zero_point", zero_point, array.shape, resolved_axis, array.dtype),
    )
    check_out(out_data(out, mask), array.shape, output_dtype, what="the output's", x=array)
    on = _devices_or_device(device, devices, array)
    return _run(ElementWiseDequantizeLinearOperatorDesc, array, parameters, out, mask, output_dtype, on)
