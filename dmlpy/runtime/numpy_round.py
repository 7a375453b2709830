"""``dml.round``: NumPy in, NumPy out, through the same descriptors, validation and kernels as the object
model, with the per-call work cut to a dictionary lookup and a kernel launch.

NumPy strides become DirectML strides, so views, transposes and broadcasts run without a gather copy; memory
is shared with the device as ``host_arrays`` describes. DirectML's Round runs float32 and float16 in its three
modes; everything else the one-liner accepts (nGraph's other modes, float64, bfloat16, integers) runs the
Round extension (``dmlpy.extensions``, not DirectML) on a device with extensions enabled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.dtypes import data_type_of
from dmlpy.errors import InvalidArgumentError
from dmlpy.extensions import ExtRoundingMode
from dmlpy.extensions.operators import SUPPORTED_TYPES, ExtElementWiseRoundOperatorDesc
from dmlpy.modes import DIRECTML_EQUIVALENT, EXTENSION_EQUIVALENT, AnyRoundingMode, resolve_mode
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.runtime.device import Device, default_device
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.runtime.host_arrays import CompiledCache, compile_initialized, element_strides, run_on_arrays, span
from dmlpy.tensor import BufferTensorDesc, packed_strides

DIRECTML_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))
MAX_DIMENSIONS = 8
_cache = CompiledCache()


def _supported(dtype: np.dtype[Any]) -> bool:
    try:
        return data_type_of(dtype) in SUPPORTED_TYPES
    except ValueError:
        return False


def _check_arguments(x: npt.NDArray[Any], out: Any) -> None:
    if not _supported(x.dtype):
        raise InvalidArgumentError(
            "dml.round takes float32 or float16 arrays (DirectML's FLOAT32, FLOAT16), or float64, bfloat16 and "
            f"integer arrays (dmlpy extensions); got {x.dtype}"
        )
    if x.ndim > MAX_DIMENSIONS:
        raise InvalidArgumentError(f"the array has {x.ndim} dimensions; DirectML tensors have at most {MAX_DIMENSIONS}")
    if out is None:
        return
    if not isinstance(out, np.ndarray):
        raise InvalidArgumentError(f"out must be a NumPy array, not {type(out).__name__}")
    if out.shape != x.shape or out.dtype != x.dtype:
        raise InvalidArgumentError(
            f"out has shape {out.shape} and dtype {out.dtype}; it must match the input's {x.shape} {x.dtype}"
        )
    if not out.flags.writeable:
        raise InvalidArgumentError("out is read-only")


def _operator(dtype: np.dtype[Any], mode: AnyRoundingMode) -> tuple[type[Any], Any, bool]:
    """(descriptor class, its mode, whether it is the extension) for a dtype and a resolved mode: DirectML's
    Round wherever DirectML can do it, else the extension."""
    directml_mode = DIRECTML_EQUIVALENT.get(mode) if isinstance(mode, ExtRoundingMode) else mode
    if dtype in DIRECTML_DTYPES and directml_mode is not None:
        return ElementWiseRoundOperatorDesc, directml_mode, False
    extension_mode = mode if isinstance(mode, ExtRoundingMode) else EXTENSION_EQUIVALENT[mode]
    return ExtElementWiseRoundOperatorDesc, extension_mode, True


def round(
    x: npt.ArrayLike,
    mode: AnyRoundingMode | str | int = "half_to_even",
    *,
    out: npt.NDArray[Any] | None = None,
    device: Device | None = None,
) -> npt.NDArray[Any]:
    """Round every element of an array on an OpenCL device; ``out=x`` rounds in place. Returns ``out`` (a new
    array when None).

    ``mode``: a RoundingMode, its C or short name or number; "half_to_even" (ONNX, OpenVINO),
    "half_away_from_zero" (OpenVINO; DirectML's TOWARD_INFINITY) or "toward_zero"; or one of nGraph's nine
    names ("ROUND_NEAREST_UPWARD", ..., see ``dmlpy.modes``). float32 and float16 in DirectML's three modes run
    DirectML's Round; other modes and float64, bfloat16 and integer arrays (returned unchanged) run the
    extension, on ``device`` if it has extensions enabled (else UnsupportedError) or a default one that has.
    """
    array = np.asarray(x)
    if not array.dtype.isnative:  # big-endian data on a little-endian host: the device reads native order
        array = array.astype(array.dtype.newbyteorder("="))
    rounding_mode = resolve_mode(mode)
    _check_arguments(array, out)
    result = out if out is not None else np.empty(array.shape, array.dtype)
    if array.size == 0:
        return result
    desc_class, operator_mode, extension = _operator(array.dtype, rounding_mode)
    if device is None:
        device = default_device(extensions=extension)

    # DirectML has no 0-d tensors: a scalar runs as one element, through views of the same memory.
    array = array.reshape(array.shape or (1,))
    target = result.reshape(array.shape)
    output_strides = element_strides(target)
    copy_back = output_strides is None
    if output_strides is None:  # e.g. a reversed view: compute into a fresh array, then copy into out
        target = np.empty(array.shape, array.dtype)
        output_strides = packed_strides(array.shape)
    in_place = (
        array.ctypes.data == target.ctypes.data and array.strides == target.strides and array.shape == target.shape
    )
    if not in_place and np.may_share_memory(array, target):
        array = array.copy()  # partial overlap: read from a snapshot, as NumPy ufuncs do
    input_strides = element_strides(array)
    if input_strides is None:
        array = np.ascontiguousarray(array)
        input_strides = packed_strides(array.shape)

    limit = device.cl_device.max_mem_alloc_size
    if array.nbytes > limit and array.flags.c_contiguous and target.flags.c_contiguous:
        _round_in_chunks(array.reshape(-1), target.reshape(-1), rounding_mode, device, limit)
        if copy_back:
            result[...] = target.reshape(result.shape)
        return result
    sizes = array.shape

    def make() -> CompiledOperator:
        data_type = data_type_of(array.dtype)
        desc = desc_class(
            input_tensor=BufferTensorDesc(data_type=data_type, sizes=sizes, strides=input_strides),
            output_tensor=BufferTensorDesc(data_type=data_type, sizes=sizes, strides=output_strides),
            rounding_mode=operator_mode,
        )
        return compile_initialized(device, desc)

    key = (desc_class, array.dtype.char, sizes, input_strides, output_strides, operator_mode)
    compiled = _cache.get(device, key, make)
    destination = span(target, output_strides)
    run_on_arrays(
        device,
        compiled,
        [span(array, input_strides)],
        destination,
        in_place=in_place,
        output_has_gaps=destination.size != target.size,
    )
    if copy_back:
        result[...] = target.reshape(result.shape)
    return result


def _round_in_chunks(
    source: npt.NDArray[Any], target: npt.NDArray[Any], mode: AnyRoundingMode, device: Device, limit: int
) -> None:
    """Round a packed array larger than one device buffer may be (CL_DEVICE_MAX_MEM_ALLOC_SIZE) piece by piece;
    element-wise rounding does not care where the pieces end."""
    step = max(1, limit // source.itemsize // 4096 * 4096)  # whole pages, so every piece stays aligned
    for start in range(0, source.size, step):
        round(source[start : start + step], mode, out=target[start : start + step], device=device)
