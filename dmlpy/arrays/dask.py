"""The one-liners on Dask arrays: ``dml.round``, ``dml.quantize_linear`` and ``dml.dequantize_linear`` given a
``dask.array.Array`` return a lazy one of the same chunks, each block computed in the process that runs the task
(a Dask worker, or this process under the threaded scheduler) by the one-liner's plan (``round_call``,
``quantize_call``, ``dequantize_call``) run through the runner, as a ``devices=`` piece is: the block's arguments
were checked when the graph was built, so a task neither checks them again nor goes through the public call.

Nothing unpicklable enters the task graph: a block's task holds the block function (a module-level function of
this module), the resolved mode, the output dtype, the scale and zero point (NumPy arrays, small) and a device
*index*. A ``dml.Device`` holds an OpenCL context, which cannot travel to a worker, so it is refused;
``device=None`` runs each task on its process's default device (created once per process, like every compiled
kernel reused across tasks), ``device=<int>`` on the OpenCL device of that index in ``dml.devices()`` as the
worker process sees it. Tasks in threads of one worker share the device: the one-liners are thread-safe.

Dask is an optional dependency (``pip install dmlpy[dask]``); a dask array given without it installed is
refused with what to install. Every argument is checked here, once, before any task exists; nothing is computed.
A masked block (``dask.array.ma``) gives a masked result block, as the NumPy one-liner gives a masked array.
"""

from __future__ import annotations

import math
import threading
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from dmlpy.arrays import runner
from dmlpy.arrays.checks import InputTypes, check_dimensions, described, unmask, with_mask
from dmlpy.arrays.parameters import (
    axis_argument,
    block_size_argument,
    check_axis_length,
    parameter_values,
    parameter_view,
    scale_values,
    values_view,
)
from dmlpy.arrays.quantize import (
    DEQUANTIZE_INPUTS,
    QUANTIZE_INPUTS,
    dequantize_call,
    dequantize_output_dtype,
    quantize_call,
    quantize_output_dtype,
)
from dmlpy.arrays.round import ROUND_INPUTS, round_call
from dmlpy.arrays.split import check_devices
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.modes import AnyRoundingMode, resolve_mode
from dmlpy.runtime.device import Device, create_device
from dmlpy.runtime.device_choice import default_device
from dmlpy.runtime.platforms import device_by_index

INSTALL = "pip install 'dmlpy[dask]'"


def _dask_array() -> Any:
    try:
        import dask.array as da  # an optional dependency: imported only for a dask array
    except ImportError:
        raise UnsupportedError(f"x is a dask array, and running it needs dask's array module: {INSTALL}") from None
    return da


def device_spec(device: object) -> int | None:
    """What a task carries to find its device: None (its process's default device) or a device index."""
    if device is None:
        return None
    if isinstance(device, Device):
        raise InvalidArgumentError(
            "device is a dml.Device, which holds an OpenCL context and cannot travel to Dask workers; pass "
            "device=None (each worker process uses its default device) or an index from dml.devices() (each worker "
            "opens that device once)"
        )
    if isinstance(device, bool) or not isinstance(device, int | np.integer) or int(device) < 0:
        raise InvalidArgumentError(
            f"device for a dask array must be None or a device index from dml.devices(), not {described(device)}"
        )
    return int(device)


_devices: dict[int, Device] = {}
_devices_lock = threading.Lock()


def worker_device(spec: int | None) -> Device:
    """The device a task runs on, opened once per process: the default (extensions on, so every one-liner's
    operator runs on it), or the device of index ``spec``."""
    if spec is None:
        return default_device(extensions=True)
    with _devices_lock:
        device = _devices.get(spec)
        if device is None:
            device = create_device(cl_device=device_by_index(spec).cl_device, extensions=True)
            _devices[spec] = device
        return device


def _meta(ndim: int, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    return np.empty((0,) * ndim, dtype)


def check_dask_input(x: Any, types: InputTypes, out: object) -> None:
    """A dask ``x`` checked as the NumPy path checks an array, from its dtype and dimensions (no data), and
    ``out`` refused."""
    refuse_out(out)
    dtype = np.dtype(x.dtype)
    if not types.accepts(dtype):
        raise types.refusal(x, f"a dask array of {dtype}", dtype)
    check_dimensions(x)


def refuse_out(out: object) -> None:
    if out is not None:
        raise InvalidArgumentError(
            "out= is not taken with a dask array: dask arrays are immutable, and the result is a new lazy one "
            "(store it with dask.array.store or .to_zarr)"
        )


def axis_of_per_axis_values(x: Any, axis: int | None, counts: dict[str, int]) -> int | None:
    """The axis, non-negative, that a dask ``x``'s per-axis scale or zero point run along (``counts``: each
    one's number of values; any other than one makes it per-axis), or None: every value is one number, or the
    axis is out of range (which the argument checks then refuse). Per-axis values are cut to the chunks of that
    axis, so their sizes must be known: a dask array's are nan after boolean indexing (``x[x > 0]``)."""
    rank = int(x.ndim)
    along = 1 if axis is None else axis
    per_axis = {name: count for name, count in counts.items() if count != 1}
    if not per_axis or not -rank <= along < rank:  # a 0-d x's one element takes one value: the checks say so
        return None
    along %= rank
    if math.isnan(x.shape[along]):
        name, count = next(iter(per_axis.items()))
        raise InvalidArgumentError(
            f"{name} has {count} values along axis {along}, but x is a dask array whose chunks along axis {along} "
            f"have unknown sizes ({x.chunks[along]}, as after boolean indexing such as x[x > 0]), so the values "
            "cannot be cut to its chunks: call x = x.compute_chunk_sizes() first (it computes x once), or pass "
            f"a single {name}"
        )
    return along


def parameter_shape(x: Any, along: int | None) -> tuple[int, ...]:
    """The shape a dask ``x``'s scale and zero point are checked against and broadcast to: ``x``'s rank, every
    length 1 but that of ``along`` (axis_of_per_axis_values), the one length the checks compare values with. A view of
    it is one value or the values along ``along``, whatever ``x``'s other lengths (unknown, or 0)."""
    return tuple(int(x.shape[d]) if d == along else 1 for d in range(x.ndim))


def as_task_value(view: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A scale or zero point broadcast to parameter_shape as a task takes it: 0-d where it is one value, else
    1-D along its axis."""
    return np.ascontiguousarray(view.reshape(() if view.size == 1 else -1))


# ------------------------------------------------------------------------------------------- block functions
def _round_block(block: npt.NDArray[Any], mode: AnyRoundingMode, spec: int | None) -> npt.NDArray[Any]:
    data, mask = unmask(block)
    result = runner.run(round_call(data, mode, None), worker_device(spec))
    return cast("npt.NDArray[Any]", with_mask(result, None, mask, keep_fill_value=True))


def _block_view(
    parameter: npt.NDArray[Any] | None, axis: int | None, block: npt.NDArray[Any], block_info: Any
) -> npt.NDArray[Any] | None:
    """A scale or zero point as a task holds it (as_task_value) as a view of the block's shape: a per-axis one
    cut to the block's range along its axis first."""
    if parameter is None:
        return None
    if axis is not None and parameter.ndim == 1:
        start, stop = block_info[0]["array-location"][axis]
        parameter = parameter[start:stop]
    return values_view(parameter, block.shape, axis)


def _quantize_block(
    block: npt.NDArray[Any],
    scale: npt.NDArray[Any],
    zero_point: npt.NDArray[Any] | None,
    axis: int | None,
    dtype: np.dtype[Any],
    mode: AnyRoundingMode,
    spec: int | None,
    block_info: Any = None,
) -> npt.NDArray[Any]:
    data, mask = unmask(block)
    scales = cast("npt.NDArray[Any]", _block_view(scale, axis, block, block_info))
    call = quantize_call(data, scales, _block_view(zero_point, axis, block, block_info), None, dtype, mode)
    result = runner.run(call, worker_device(spec))
    return cast("npt.NDArray[Any]", with_mask(result, None, mask, keep_fill_value=False))


def _dequantize_block(
    block: npt.NDArray[Any],
    scale: npt.NDArray[Any],
    zero_point: npt.NDArray[Any] | None,
    axis: int | None,
    dtype: np.dtype[Any],
    spec: int | None,
    block_info: Any = None,
) -> npt.NDArray[Any]:
    data, mask = unmask(block)
    scales = cast("npt.NDArray[Any]", _block_view(scale, axis, block, block_info))
    call = dequantize_call(data, scales, _block_view(zero_point, axis, block, block_info), None, dtype)
    result = runner.run(call, worker_device(spec))
    return cast("npt.NDArray[Any]", with_mask(result, None, mask, keep_fill_value=False))


# --------------------------------------------------------------------------------------- checks and graphs
def round_dask(x: Any, mode: object, out: object, device: object, devices: object) -> Any:
    """``dml.round`` of a dask array: checked here, lazy, the same chunks."""
    if devices is not None:
        check_devices(devices, device, x)
    check_dask_input(x, ROUND_INPUTS, out)
    rounding_mode = resolve_mode(mode)  # type: ignore[arg-type]  # resolve_mode refuses junk
    da = _dask_array()
    spec = device_spec(device)
    return da.map_blocks(_round_block, x, rounding_mode, spec, dtype=x.dtype, meta=_meta(x.ndim, x.dtype))


def _parameters(
    call: str,
    x: Any,
    types: InputTypes,
    scale: object,
    zero_point: object,
    axis: object,
    block_size: object,
    dtypes: tuple[np.dtype[Any], np.dtype[Any]],
    out: object,
) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None, int | None]:
    """A dask ``x``'s ``call`` (a one-liner's name) checked as NumPy's is (from its dtype and shape, no data), and
    its scale and zero point as the block tasks take them (as_task_value: a scalar, or 1-D along the returned
    non-negative axis)."""
    check_dask_input(x, types, out)
    resolved = axis_argument(axis)
    values = {"scale": scale_values(call, scale, dtypes[0])}
    if zero_point is not None:
        values["zero_point"] = parameter_values("zero_point", zero_point, dtypes[1])
    refuse_blocks(values, block_size_argument(block_size))
    along = axis_of_per_axis_values(x, resolved, {name: value.size for name, value in values.items()})
    for name, value in values.items():
        if along is not None and value.size != 1:  # checked against the whole shape, for the suggestion
            check_axis_length(name, value.size, x.shape, resolved)
    shape = parameter_shape(x, along)
    scale_view = parameter_view("scale", values["scale"], shape, resolved)
    zero_view = None if zero_point is None else parameter_view("zero_point", values["zero_point"], shape, resolved)
    return as_task_value(scale_view), None if zero_view is None else as_task_value(zero_view), along


def refuse_blocks(values: dict[str, npt.NDArray[Any]], block_size: int | None) -> None:
    """A dask array's blocks take a scale per tensor or per axis: per-block values are refused, saying why."""
    shaped = [f"{name} has shape {value.shape}" for name, value in values.items() if value.ndim > 1]
    if block_size is not None or shaped:
        given = f"block_size is {block_size}" if block_size is not None else shaped[0]
        raise InvalidArgumentError(
            f"{given}: a scale per block of elements, which dmlpy does not run over a dask array (its chunks would "
            "have to hold whole blocks); dask arrays take a scalar (per tensor) or a 1-D scale along axis (per "
            "axis): compute the dask array first, or quantize its blocks with dask.array.map_blocks"
        )


def quantize_dask(
    x: Any,
    scale: object,
    zero_point: object,
    axis: object,
    block_size: object,
    dtype: object,
    mode: object,
    out: object,
    device: object,
) -> Any:
    """``dml.quantize_linear`` of a dask array: checked here, lazy; ``scale`` and ``zero_point`` scalars or 1-D
    along the axis, cut to each block's chunk of that axis."""
    output_dtype = quantize_output_dtype(dtype, zero_point)
    x_dtype = np.dtype(getattr(x, "dtype", None))
    dtypes = (np.dtype(np.float32) if x_dtype == np.int32 else x_dtype, output_dtype)
    scales, zero_points, along = _parameters(
        "quantize_linear", x, QUANTIZE_INPUTS, scale, zero_point, axis, block_size, dtypes, out
    )
    rounding_mode = resolve_mode(mode)  # type: ignore[arg-type]  # resolve_mode refuses junk
    da = _dask_array()
    spec = device_spec(device)
    return da.map_blocks(
        _quantize_block,
        x,
        scales,
        zero_points,
        along,
        output_dtype,
        rounding_mode,
        spec,
        dtype=output_dtype,
        meta=_meta(x.ndim, output_dtype),
    )


def dequantize_dask(
    x: Any, scale: object, zero_point: object, axis: object, block_size: object, out: object, device: object
) -> Any:
    """``dml.dequantize_linear`` of a dask array, as quantize_dask; the output dtype is the scale's."""
    output_dtype = dequantize_output_dtype(scale)
    dtypes = (output_dtype, np.dtype(getattr(x, "dtype", None)))
    scales, zero_points, along = _parameters(
        "dequantize_linear", x, DEQUANTIZE_INPUTS, scale, zero_point, axis, block_size, dtypes, out
    )
    da = _dask_array()
    spec = device_spec(device)
    return da.map_blocks(
        _dequantize_block,
        x,
        scales,
        zero_points,
        along,
        output_dtype,
        spec,
        dtype=output_dtype,
        meta=_meta(x.ndim, output_dtype),
    )
