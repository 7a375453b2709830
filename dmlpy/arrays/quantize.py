"""QuantizeLinear's and DequantizeLinear's plans: what ``dml.quantize_linear`` and ``dml.dequantize_linear`` run,
ONNX-style, over DirectML's ELEMENT_WISE_QUANTIZE_LINEAR / DEQUANTIZE_LINEAR (a mode other than halves to even
runs the QuantizeLinear extension, not DirectML). A scalar scale (and zero point) applies to the whole tensor; a
1-D one applies along ``axis`` (ONNX's default axis 1), expressed as 0-strides, never materialised; one per block
of elements (ONNX's ``block_size``, or WebNN's scale of the input's rank) runs over split views (``blocked``).
``quantize_call`` and ``dequantize_call`` are the plans: the one call the runner runs, for a whole array, for
each ``devices=`` piece and for each Dask block (``dask``). ``quantize_array`` and ``dequantize_array`` check a
call on a host or device array and run its plan (``devices=`` included); ``one_liners`` adds Dask."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy import nibbles
from dmlpy.arrays import runner
from dmlpy.arrays.blocked import BlockedRun, apart_from, blocked_runs, is_blocked, split_parameter, split_view
from dmlpy.arrays.checks import (
    InputTypes,
    Mask,
    check_device,
    check_out,
    input_array,
    is_device_array,
    out_data,
    unmask,
    with_mask,
)
from dmlpy.arrays.dispatch import ArrayCall
from dmlpy.arrays.parameters import (
    axis_argument,
    block_size_argument,
    numbers,
    parameter_values,
    parameter_view,
    scale_values,
)
from dmlpy.arrays.split import Piece, check_devices, run_split
from dmlpy.enums import ExtRoundingMode, RoundingMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.modes import EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
)
from dmlpy.ops.ext_element_wise_quantize_linear import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.ops.quantize import DequantizeOperatorDesc, QuantizeOperatorDesc
from dmlpy.problems import show
from dmlpy.runtime.device import Device


def is_quantized_dtype(dtype: np.dtype[Any]) -> bool:
    """Whether quantize_linear produces ``dtype``: uint8 and int8 through ELEMENT_WISE_QUANTIZE_LINEAR, ml_dtypes'
    uint4 and int4 through FL 6_3's QUANTIZE."""
    return dtype in (np.dtype(np.uint8), np.dtype(np.int8)) or nibbles.is_nibble_dtype(dtype)


_DEQUANTIZED_NUMPY_TYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32))


def _takes_to_dequantize(dtype: np.dtype[Any]) -> bool:
    """dequantize_linear's inputs: NumPy's 8- to 32-bit integers (native byte order) and ml_dtypes' int4, uint4."""
    return dtype in _DEQUANTIZED_NUMPY_TYPES or nibbles.is_nibble_dtype(dtype)


PRODUCES = (
    "quantize_linear produces uint8 or int8 (ELEMENT_WISE_QUANTIZE_LINEAR), or ml_dtypes.uint4 or ml_dtypes.int4 "
    "(DML_OPERATOR_QUANTIZE, DML_FEATURE_LEVEL_6_3)"
)


def quantize_call(
    array: Any,
    scales: npt.NDArray[Any],
    zero_points: npt.NDArray[Any] | None,
    out: Any,
    output_dtype: np.dtype[Any],
    mode: AnyRoundingMode,
) -> ArrayCall:
    """The call that quantizes ``array`` (checked) with the scale and zero point (or None) views of its shape into
    ``out`` (None: a new array of ``output_dtype``): DirectML's QuantizeLinear where the resolved ``mode`` halves
    to even (FL 6_3's QUANTIZE into 4 bits), else the extension in ``mode``."""
    tensors = [array, scales, zero_points]
    halves_to_even = mode in (RoundingMode.HALVES_TO_NEAREST_EVEN, ExtRoundingMode.NEAREST_TOWARD_EVEN)
    if nibbles.is_nibble_dtype(output_dtype):
        if not halves_to_even:
            raise InvalidArgumentError(
                f"mode {show(mode)} for {output_dtype} output: DirectML's QUANTIZE rounds halves to even, and the "
                "QuantizeLinear extension that rounds in other modes writes uint8 or int8 only"
            )
        return ArrayCall(QuantizeOperatorDesc, (), _explicit_zero_point(tensors, output_dtype), out, output_dtype)
    if halves_to_even:
        return ArrayCall(ElementWiseQuantizeLinearOperatorDesc, (), tensors, out, output_dtype)
    extension_mode = mode if isinstance(mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[mode]
    fields = (("rounding_mode", extension_mode),)
    return ArrayCall(ExtElementWiseQuantizeLinearOperatorDesc, fields, tensors, out, output_dtype)


def dequantize_call(
    array: Any,
    scales: npt.NDArray[Any],
    zero_points: npt.NDArray[Any] | None,
    out: Any,
    output_dtype: np.dtype[Any],
) -> ArrayCall:
    """The call that dequantizes ``array`` (checked) with the scale and zero point (or None) views of its shape
    into ``out`` (None: a new array of ``output_dtype``): FL 6_3's DEQUANTIZE for 4-bit input."""
    tensors = [array, scales, zero_points]
    if nibbles.is_nibble_dtype(array.dtype):
        return ArrayCall(DequantizeOperatorDesc, (), _explicit_zero_point(tensors, array.dtype), out, output_dtype)
    return ArrayCall(ElementWiseDequantizeLinearOperatorDesc, (), tensors, out, output_dtype)


def _explicit_zero_point(tensors: list[Any], dtype: np.dtype[Any]) -> list[Any]:
    """QUANTIZE's and DEQUANTIZE's tensors with a zero point: ONNX's missing one is 0, where DirectML's
    QuantizationType SCALE would mean an unsigned type's midpoint (docs/quantization.md)."""
    array, scales, zero_points = tensors
    if zero_points is None:
        zero_points = np.broadcast_to(np.zeros((), dtype), scales.shape)
    return [array, scales, zero_points]


LinearPlan = Callable[[Any, npt.NDArray[Any], npt.NDArray[Any] | None, Any, np.dtype[Any]], ArrayCall]
"""quantize_call with its mode given, or dequantize_call: (array, scales, zero points, out, output dtype)."""


def _run(
    plan: LinearPlan,
    array: npt.NDArray[Any],
    parameters: tuple[npt.NDArray[Any], npt.NDArray[Any] | None],
    out: object,
    mask: Mask | None,
    output_dtype: np.dtype[Any],
    device: Device | list[Device] | None,
) -> Any:
    """Run ``plan``'s call over ``array`` into ``out`` (a new array of ``output_dtype`` when None; a masked one's
    data) with the scale and zero point (or None) views; ``mask`` is a masked ``x``'s; ``device`` a list splits
    the call across those devices. Every argument has been checked."""
    target = out_data(out, mask)
    scales, zero_points = parameters
    if isinstance(device, list):
        whole: Any = target if target is not None else np.empty(array.shape, output_dtype)

        def piece(index: Piece, axis: int, on: Device, into: npt.NDArray[Any]) -> None:
            zero_piece = None if zero_points is None else zero_points[index]
            runner.run(plan(array[index], scales[index], zero_piece, into[index], output_dtype), on)

        run_split(array, whole, device, piece, fresh=target is None)
        return with_mask(whole, out, mask, keep_fill_value=False)
    result = runner.run(plan(array, scales, zero_points, target, output_dtype), device)
    return with_mask(result, out, mask, keep_fill_value=False)


def _devices_or_device(device: object, devices: object, array: object) -> Device | list[Device] | None:
    """The device to run on, or the devices to split across (``devices=``), checked."""
    if devices is not None:
        return check_devices(devices, device, array)
    check_device(device)
    return device  # type: ignore[return-value]  # checked: a Device or None


def refuse_device_nibbles(dtype: np.dtype[Any], x: object, out: object) -> None:
    """4-bit values come and go as NumPy arrays, packed two a byte at the boundary (``dmlpy.nibbles``); a
    pyopencl array holds one a byte, which the kernels would misread: refused."""
    if nibbles.is_nibble_dtype(dtype) and (is_device_array(x) or is_device_array(out)):
        raise InvalidArgumentError(
            f"{dtype} values on the device: a pyopencl array holds one a byte, and DirectML's 4-bit tensors hold "
            "two; pass NumPy arrays (packed and unpacked on the way), or bind packed buffers through the object "
            "model (Device.upload and Buffer.read pack and unpack ml_dtypes arrays)"
        )


def quantize_output_dtype(dtype: object, zero_point: object) -> np.dtype[Any]:
    """quantize_linear's output dtype: ``dtype``, else a NumPy zero point's dtype (ONNX's rule), else uint8. A
    plain Python int zero point leaves it to ``dtype``."""
    if dtype is not None:
        given = dtype.__name__ if isinstance(dtype, type) else repr(dtype)
        try:
            output_dtype: np.dtype[Any] = np.dtype(dtype)  # type: ignore[call-overload]  # anything: checked here
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"dtype {given} ({type(dtype).__name__}) is not a NumPy dtype; {PRODUCES}: pass one of them as dtype= "
                "(or None)"
            ) from None
        if not is_quantized_dtype(output_dtype):
            raise InvalidArgumentError(
                f"dtype {given} means {output_dtype}; {PRODUCES}: pass one of them as dtype= (or None)"
            )
        return output_dtype
    if zero_point is None or isinstance(zero_point, int):  # a bool is refused as a zero point later
        return np.dtype(np.uint8)
    zero_point_dtype = numbers("zero_point", zero_point).dtype
    if not is_quantized_dtype(zero_point_dtype):
        raise InvalidArgumentError(
            f"zero_point is {zero_point_dtype}; with no dtype= the zero point's dtype is the output's, and "
            f"{PRODUCES}: pass a zero point of one of them, or dtype="
        )
    return zero_point_dtype


QUANTIZE_INPUTS = InputTypes(
    (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32)).__contains__,
    "quantize_linear takes float32, float16 or int32 input",
    converts_to=dict.fromkeys("fiub", "np.float32"),
)
DEQUANTIZE_INPUTS = InputTypes(
    _takes_to_dequantize,
    "dequantize_linear takes 8-, 16- or 32-bit integer input, or ml_dtypes.int4 or uint4",
    converts_to=dict.fromkeys("fiub", "np.uint8"),
    note=", or the integer type x was quantized to",
)


def quantize_array(
    x: object,
    scale: object,
    zero_point: object,
    axis: object,
    block_size: object,
    dtype: object,
    mode: object,
    out: object,
    device: object,
    devices: object,
) -> Any:
    """dml.quantize_linear of anything but a dask array; see ``one_liners.quantize_linear``."""
    data, mask = unmask(x)
    array = input_array(data, QUANTIZE_INPUTS)
    output_dtype = quantize_output_dtype(dtype, zero_point)
    refuse_device_nibbles(output_dtype, array, out)
    scale_dtype = np.dtype(np.float32) if array.dtype == np.int32 else array.dtype
    values = _values("quantize_linear", scale, zero_point, (scale_dtype, output_dtype))
    plan = partial(quantize_call, mode=resolve_mode(mode))  # type: ignore[arg-type]  # resolve_mode refuses junk
    return _checked_run(plan, array, values, axis, block_size, out, mask, output_dtype, device, devices)


def dequantize_output_dtype(scale: object) -> np.dtype[Any]:
    """dequantize_linear's output dtype: the scale's, where it is float32 or float16, else float32."""
    given = numbers("scale", scale).dtype
    return given if given in (np.dtype(np.float32), np.dtype(np.float16)) else np.dtype(np.float32)


def dequantize_array(
    x: object,
    scale: object,
    zero_point: object,
    axis: object,
    block_size: object,
    out: object,
    device: object,
    devices: object,
) -> Any:
    """dml.dequantize_linear of anything but a dask array; see ``one_liners.dequantize_linear``."""
    output_dtype = dequantize_output_dtype(scale)
    data, mask = unmask(x)
    array = input_array(data, DEQUANTIZE_INPUTS)
    refuse_device_nibbles(array.dtype, array, out)
    values = _values("dequantize_linear", scale, zero_point, (output_dtype, array.dtype))
    return _checked_run(dequantize_call, array, values, axis, block_size, out, mask, output_dtype, device, devices)


def _values(
    call: str, scale: object, zero_point: object, dtypes: tuple[np.dtype[Any], np.dtype[Any]]
) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None]:
    """The scale's and zero point's (or None's) checked values as the scale's and zero point's ``dtypes``, for
    ``call`` (a one-liner's name, which a ScaleWarning names)."""
    scales = scale_values(call, scale, dtypes[0])
    return scales, None if zero_point is None else parameter_values("zero_point", zero_point, dtypes[1])


def _checked_run(
    plan: LinearPlan,
    array: npt.NDArray[Any],
    values: tuple[npt.NDArray[Any], npt.NDArray[Any] | None],
    axis: object,
    block_size: object,
    out: object,
    mask: Mask | None,
    output_dtype: np.dtype[Any],
    device: object,
    devices: object,
) -> Any:
    """Check the rest of a call on ``array`` (checked) with the scale's and zero point's checked ``values`` (per
    tensor, per axis or per block), and run ``plan``'s call, or its blocked runs."""
    resolved_axis = axis_argument(axis)
    resolved_block_size = block_size_argument(block_size)
    scales, zero_points = values
    if is_blocked(array.ndim, scales, zero_points, resolved_axis, resolved_block_size):
        runs = blocked_runs(array.shape, scales, zero_points, resolved_axis, resolved_block_size)
        check_out(out_data(out, mask), array.shape, output_dtype, what="the output's", x=array)
        on = _devices_or_device(device, devices, array)
        return _run_blocked(plan, array, runs, out, mask, output_dtype, on)
    parameters = (
        parameter_view("scale", scales, array.shape, resolved_axis),
        None if zero_points is None else parameter_view("zero_point", zero_points, array.shape, resolved_axis),
    )
    check_out(out_data(out, mask), array.shape, output_dtype, what="the output's", x=array)
    on = _devices_or_device(device, devices, array)
    return _run(plan, array, parameters, out, mask, output_dtype, on)


def _run_blocked(
    plan: LinearPlan,
    array: Any,
    runs: list[BlockedRun],
    out: object,
    mask: Mask | None,
    output_dtype: np.dtype[Any],
    device: Device | list[Device] | None,
) -> Any:
    """Run ``plan``'s call over each of the blocked ``runs`` of ``array`` (checked), split (``blocked``), into
    ``out`` (a new array of ``output_dtype`` when None; a masked one's data); arguments as ``_run``'s."""
    target: Any = out_data(out, mask)
    # Split across devices, out is written only when every device succeeded in every run: the runs fill a new
    # array first.
    fresh = target is None or isinstance(device, list)
    whole: Any = runner.new_output(array, output_dtype) if fresh else target
    if len(runs) > 1 and not fresh:
        array = apart_from(array, target)
    for run in runs:
        parameters = (
            split_parameter(run.scales, run.split),
            None if run.zero_points is None else split_parameter(run.zero_points, run.split),
        )
        into = split_view(whole[run.index], run.split)
        _run(plan, split_view(array[run.index], run.split), parameters, into, None, output_dtype, device)
    if target is not None and whole is not target:
        np.copyto(target, whole)
        whole = target
    return with_mask(whole, out, mask, keep_fill_value=False)
