"""The public one-liners: ``dml.round``, ``dml.quantize_linear``, ``dml.dequantize_linear``. Each hands a dask
array to ``dask`` (lazy, per block) and anything else to its plan (``round``, ``quantize``), which checks it and
runs it through the one runner (``runner``: host or device memory). NumPy in, NumPy out; pyopencl arrays in,
pyopencl arrays out; the same descriptors, validation, binding rules and kernels as the object model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy.typing as npt

from dmlpy.arrays.checks import is_dask_array, keyword_only_explained
from dmlpy.arrays.dask import dequantize_dask, quantize_dask, round_dask
from dmlpy.arrays.quantize import dequantize_array, quantize_array
from dmlpy.arrays.round import round_array
from dmlpy.modes import AnyRoundingMode
from dmlpy.runtime.device import Device

if TYPE_CHECKING:
    from pyopencl import array as cl_array  # for the signatures only


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


@keyword_only_explained(
    "dml.round",
    "dml.round(x, 2) would read like np.round(x, 2), two decimals, but dml.round rounds to integral values, in a "
    "rounding mode: pass the mode by name, dml.round(x, mode=...)",
)
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
    not, so it raises KeywordOnlyArgumentError (a TypeError) saying so. ``mode``: a RoundingMode, its C or short
    name or number; "half_to_even" (ONNX, OpenVINO), "half_away_from_zero" (OpenVINO; DirectML's
    TOWARD_INFINITY) or "toward_zero"; or one of nGraph's nine names ("ROUND_NEAREST_UPWARD", ..., see
    ``dmlpy.modes``). float32 and float16 in DirectML's three modes run DirectML's Round; other modes and float64,
    bfloat16 and integer arrays (returned unchanged) run the extension, on ``device`` if it has extensions
    enabled (else UnsupportedError) or a default one that has.

    ``x``: a NumPy array, number or nested lists (read as NumPy reads them: float64, int64), or anything NumPy
    views without a copy through ``__array__`` or ``__dlpack__`` (a torch CPU tensor; the result is a NumPy
    array). No one-liner converts ``x``: a dtype it does not take is refused naming the conversion. A masked
    array gives a masked array with a copy of its mask and its fill value; the masked slots hold the data under
    the mask, rounded (as ``np.round`` does); ``out`` for a masked ``x`` must be masked too (it gets the mask).
    Device memory other than a pyopencl array, iterators, None, and torch tensors that NumPy cannot view (requiring
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
        lazy: npt.NDArray[Any] = round_dask(x, mode, out, device, devices)
        return lazy
    result: npt.NDArray[Any] | cl_array.Array = round_array(x, mode, out, device, devices)
    return result


@overload
def quantize_linear(
    x: cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    block_size: int | None = None,
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
    block_size: int | None = None,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any]: ...


@keyword_only_explained(
    "dml.quantize_linear",
    "the positional ones are ONNX QuantizeLinear's inputs and attributes, in its order, so that a mode or an "
    "output is never taken for one of them: pass the others by name, mode=...",
)
def quantize_linear(
    x: npt.ArrayLike | cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    dtype: npt.DTypeLike | None = None,
    *,
    block_size: int | None = None,
    mode: AnyRoundingMode | str | int = "half_to_even",
    out: npt.NDArray[Any] | cl_array.Array | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any] | cl_array.Array:
    """saturate(round_half_to_even(x / scale) + zero_point) as uint8 or int8, like ONNX QuantizeLinear.

    ``x``, ``scale``, ``zero_point``, ``axis`` and ``dtype`` may be positional, in ONNX's order (its inputs,
    then its ``axis`` and ``output_dtype`` attributes); ``mode``, ``out`` and ``device`` are keyword-only, so a
    mode is never taken for one of those (``quantize_linear(x, s, z, 1, np.uint8, "ROUND_UP")`` raises
    KeywordOnlyArgumentError, a TypeError, saying so).

    ``mode`` other than halves to even (nGraph's "ROUND_NEAREST_UPWARD", ... see ``dmlpy.modes``) runs the
    QuantizeLinear extension (not DirectML) on a device with extensions enabled.

    ``x``: float32, float16 or int32. ``scale``: a scalar, or 1-D along ``axis`` (default 1, ONNX's: a length
    that does not match is refused naming the axes that match), float32 (or float16 for a float16 ``x``); one
    that is zero, negative, infinite or NaN runs, as in DirectML and ONNX, with a ScaleWarning.
    ``zero_point``: same shape as ``scale`` (or one number); its dtype is the output's, else ``dtype`` (default
    uint8). ``axis``: an int or None. NaN quantizes to 0, +inf and -inf saturate.

    A scale per block of elements, two ways: ONNX's, ``axis`` with ``block_size`` (the scale of ``x``'s rank,
    ``ceil(x.shape[axis] / block_size)`` along ``axis``, ``x``'s elsewhere; a partial last block takes its own
    scale, as onnx.reference does; a single-number scale with a ``block_size`` is refused, as ONNX reads
    block_size only in this form), or WebNN's, a scale of ``x``'s rank (two or more dimensions, or a 1-D ``x``'s
    1-D scale with no ``axis``, where ONNX's axis 1 does not exist) and no ``axis``, each dimension 1
    (broadcast), ``x``'s (per element) or a divisor of it (blocks). Either runs DirectML's
    operator on ``x`` and the output viewed split, (blocks, block) per blocked axis, with the scale broadcast over
    each block by a 0 stride: nothing is materialised, up to 8 dimensions once split (dmlpy.quantization_blocks).

    ``x`` may be a NumPy array, number or nested lists (read as NumPy reads them: float64, int64; never converted:
    another dtype is refused naming the conversion, ``np.asarray(x, np.float32)`` here), or anything NumPy views
    without a copy through ``__array__`` or ``__dlpack__`` (a torch CPU tensor; the result is a NumPy array), or
    a pyopencl array (the
    result is one on ``x``'s queue, enqueued without waiting; scale and zero point stay host values; see
    docs/gpu.md); other device memory, iterators, None and torch tensors NumPy cannot view (requiring grad, on a
    GPU) are refused, naming what was given. A masked ``x`` gives a masked array with a copy of its mask (and the
    output dtype's default fill value); the masked slots hold the data under the mask, converted; ``out`` for a
    masked ``x`` must be masked too (it gets the mask). A masked scale or zero point with masked entries is refused.

    A ``dask.array.Array`` ``x`` gives a lazy one of the same chunks, per-axis values cut to each chunk (``device``
    None or an index; no ``out``; per-block values refused); ``devices=[...]`` splits a host array across devices
    (see ``dml.round``).

    Every argument is checked before any OpenCL work; an ill-typed one raises InvalidArgumentError naming it.
    """
    if is_dask_array(x):
        lazy: npt.NDArray[Any] = quantize_dask(x, scale, zero_point, axis, block_size, dtype, mode, out, device)
        return lazy
    result: npt.NDArray[Any] | cl_array.Array = quantize_array(
        x, scale, zero_point, axis, block_size, dtype, mode, out, device, devices
    )
    return result


@overload
def dequantize_linear(
    x: cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    block_size: int | None = None,
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
    block_size: int | None = None,
    out: npt.NDArray[Any] | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any]: ...


@keyword_only_explained(
    "dml.dequantize_linear",
    "the positional ones are ONNX DequantizeLinear's inputs and attribute, in its order: pass the others by "
    "name, out=... (there is no mode or dtype: dequantizing rounds nothing, and the output has the scale's type)",
)
def dequantize_linear(
    x: npt.ArrayLike | cl_array.Array,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    *,
    block_size: int | None = None,
    out: npt.NDArray[Any] | cl_array.Array | None = None,
    device: Device | int | None = None,
    devices: Sequence[Device] | None = None,
) -> npt.NDArray[Any] | cl_array.Array:
    """(x - zero_point) * scale, like ONNX DequantizeLinear; the output has the scale's dtype (float32 or
    float16). ``x``: int8, uint8, int16, uint16, int32 or uint32. ``axis``: an int or None. It runs
    DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR. ``scale`` and ``zero_point`` take the forms
    ``quantize_linear``'s do: a scalar, 1-D along ``axis``, or per block (``axis`` with ``block_size``, ONNX's;
    a scale of ``x``'s rank, WebNN's).

    ``x``, ``scale``, ``zero_point`` and ``axis`` may be positional, in ONNX's order; ``out`` and ``device`` are
    keyword-only (KeywordOnlyArgumentError, a TypeError, says so). There is no ``mode``: dequantizing rounds
    nothing but the float result. A scale that is zero, negative, infinite or NaN runs with a ScaleWarning.

    ``x`` may be a NumPy array, number or nested lists (read as NumPy reads them: float64, int64; never converted:
    another dtype is refused naming the conversion, ``np.asarray(x, np.uint8)`` here), or anything NumPy views
    without a copy through ``__array__`` or ``__dlpack__`` (a torch CPU tensor; the result is a NumPy array), or
    a pyopencl array (the
    result is one on ``x``'s queue, enqueued without waiting; scale and zero point stay host values; see
    docs/gpu.md); other device memory, iterators, None and torch tensors NumPy cannot view (requiring grad, on a
    GPU) are refused, naming what was given. A masked ``x`` gives a masked array with a copy of its mask (and the
    output dtype's default fill value); the masked slots hold the data under the mask, converted; ``out`` for a
    masked ``x`` must be masked too (it gets the mask). A masked scale or zero point with masked entries is refused.

    A ``dask.array.Array`` ``x`` gives a lazy one of the same chunks, per-axis values cut to each chunk (``device``
    None or an index; no ``out``; per-block values refused); ``devices=[...]`` splits a host array across devices
    (see ``dml.round``).

    Every argument is checked before any OpenCL work; an ill-typed one raises InvalidArgumentError naming it."""
    if is_dask_array(x):
        lazy: npt.NDArray[Any] = dequantize_dask(x, scale, zero_point, axis, block_size, out, device)
        return lazy
    result: npt.NDArray[Any] | cl_array.Array = dequantize_array(
        x, scale, zero_point, axis, block_size, out, device, devices
    )
    return result
