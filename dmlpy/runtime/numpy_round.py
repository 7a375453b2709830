"""``dml.round``: NumPy in, NumPy out, on the one-liners' run path (``array_runner``): the same descriptors,
validation, binding rules and kernels as the object model. DirectML's Round runs float32 and float16 in its three
modes; everything else the one-liner accepts (nGraph's other modes, float64, bfloat16, integers) runs the
Round extension (``dmlpy.extensions``, not DirectML) on a device with extensions enabled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pyopencl import array as cl_array

from dmlpy.dtypes import data_type_of
from dmlpy.enums import ExtRoundingMode
from dmlpy.modes import DIRECTML_EQUIVALENT, EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.ops.ext_element_wise_round import SUPPORTED_TYPES, ExtElementWiseRoundOperatorDesc
from dmlpy.runtime.arguments import (
    check_device,
    check_out,
    input_array,
    new_output,
    out_data,
    resolve_device,
    unmask,
    with_mask,
)
from dmlpy.runtime.array_runner import ArrayCall
from dmlpy.runtime.dask_arrays import check_dask_input, is_dask_array, round_blocks
from dmlpy.runtime.device import Device
from dmlpy.runtime.device_array_runner import run_call
from dmlpy.runtime.split_runner import Piece, check_devices, run_split

DIRECTML_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))


def _supported(dtype: np.dtype[Any]) -> bool:
    try:
        return data_type_of(dtype) in SUPPORTED_TYPES
    except ValueError:
        return False


TAKES = (
    "dml.round takes float32 or float16 arrays (DirectML's FLOAT32, FLOAT16), or float64, bfloat16 and integer "
    "arrays (dmlpy extensions)"
)


def _operator(dtype: np.dtype[Any], mode: AnyRoundingMode) -> tuple[type[Any], Any, bool]:
    """(descriptor class, its mode, whether it is the extension) for a dtype and a resolved mode: DirectML's
    Round wherever DirectML can do it, else the extension."""
    directml_mode = DIRECTML_EQUIVALENT.get(mode) if isinstance(mode, ExtRoundingMode) else mode
    if dtype in DIRECTML_DTYPES and directml_mode is not None:
        return ElementWiseRoundOperatorDesc, directml_mode, False
    extension_mode = mode if isinstance(mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[mode]
    return ExtElementWiseRoundOperatorDesc, extension_mode, True


@overload
def round(
    x: cl_array.Array,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: cl_array.Array | None = None,
    device: Device | None = None,
    devices: Sequence[Device] | None = None,
) -> cl_array.Array: ...


@overload
def round(
    x: npt.ArrayLike,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any]: ...


def round(
    x: npt.ArrayLike | cl_array.Array,
    *,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | cl_array.Array | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any] | cl_array.Array:
    """Round every element of an array to an integral value on an OpenCL device; ``out=x`` rounds in place.
    Returns ``out`` (a new array when None). It runs DML_OPERATOR_ELEMENT_WISE_ROUND (or its extension).

    ``mode`` is keyword-only: ``dml.round(x, 2)`` reads like ``np.round(x, 2)`` (two decimals), which this is
    not, so it is Python's TypeError. ``mode``: a RoundingMode, its C or short name or number; "half_to_even"
    (ONNX, OpenVINO), "half_away_from_zero" (OpenVINO; DirectML's TOWARD_INFINITY) or "toward_zero"; or one of
    nGraph's nine names ("ROUND_NEAREST_UPWARD", ..., see ``dmlpy.modes``). float32 and float16 in DirectML's
    three modes run DirectML's Round; other modes and float64, bfloat16 and integer arrays (returned unchanged)
    run the extension, on ``device`` if it has extensions enabled (else UnsupportedError) or a default one that
    has.

    ``x``: a NumPy array, number or nested lists, or anything NumPy views without a copy through ``__array__``
    or ``__dlpack__`` (a torch CPU tensor; the result is a NumPy array). A masked array gives a masked array
    with a copy of its mask and its fill value; the masked slots hold the data under the mask, rounded (as
    ``np.round`` does); ``out`` for a masked ``x`` must be masked too (it gets the mask). Device
    memory other than a pyopencl array, iterators, None, and torch tensors that NumPy cannot view (requiring
    grad, on a GPU, bfloat16) are refused, naming what was given.

    ``x`` may also be a ``pyopencl.array.Array`` (views and offsets included): the result is then one on ``x``'s
    queue (``out`` must be one too), enqueued without waiting (its event joins ``result.events``), and nothing
    touches host memory; without ``device=`` it runs on ``x``'s queue. See docs/gpu.md.

    ``x`` may also be a ``dask.array.Array``: the result is a lazy one of the same chunks, each block rounded
    where Dask runs it (``pip install dmlpy[dask]``); ``device`` is then None (each worker's default device) or an
    index from ``dml.devices()``, and ``out`` is not taken. See docs/scaling.md.

    ``devices=[d0, d1, ...]`` (instead of ``device``) splits a host array across those devices, in pieces sized
    by their compute units, run at once; with ``out=``, nothing is written unless every device succeeded.

    Every argument is checked before any OpenCL work: an ill-typed one (a ragged list, a mode that is neither a
    name nor a number, a ``device`` that is not a dml.Device, ...) raises InvalidArgumentError naming it.
    """
    if is_dask_array(x):
        lazy: npt.NDArray[Any] = _round_dask(x, mode, out, device, devices)
        return lazy
    data, mask = unmask(x)
    array = input_array(data, _supported, TAKES)
    rounding_mode = resolve_mode(mode)
    target = out_data(out, mask)
    check_out(target, array.shape, array.dtype, what="the input's", x=array)
    if devices is not None:
        split = check_devices(devices, device, array)
        whole: npt.NDArray[Any] = cast("npt.NDArray[Any]", target) if target is not None else np.empty_like(array)

        def piece(index: Piece, axis: int, on: Device, into: npt.NDArray[Any]) -> None:
            round(array[index], mode=rounding_mode, out=into[index], device=on)

        run_split(array, whole, split, piece, fresh=target is None)
        split_result: npt.NDArray[Any] = with_mask(whole, out, mask, keep_fill_value=True)
        return split_result
    check_device(device)
    assert not isinstance(device, int)  # check_device refused an index: only a dask x takes one
    desc_class, operator_mode, extension = _operator(array.dtype, rounding_mode)
    run_on = resolve_device(device, array, extensions=extension) if array.size else None
    result = target if target is not None else new_output(array, array.shape, array.dtype)
    if run_on is not None:
        run_call(ArrayCall(desc_class, (("rounding_mode", operator_mode),), [array], result), run_on)
    returned: npt.NDArray[Any] | cl_array.Array = with_mask(result, out, mask, keep_fill_value=True)
    return returned


def _round_dask(x: Any, mode: object, out: object, device: object, devices: object) -> Any:
    """dml.round of a dask array: checked here, computed lazily (dask_arrays)."""
    if devices is not None:
        check_devices(devices, device, x)
    check_dask_input(x, _supported, TAKES, out)
    return round_blocks(x, resolve_mode(mode), device)  # type: ignore[arg-type]
