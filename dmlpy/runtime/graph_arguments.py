"""A graph call's arguments checked against its graph inputs (dmlpy/runtime/graph_calls.py): each a NumPy array,
a pyopencl array of the device's context or a dmlpy Buffer, of the input's data type and Sizes (leading 1s
aside; 1 where its Strides are 0). Every call checks its arguments here before anything is bound or written; a
refusal explains the binding order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dmlpy.dtypes import DATA_TYPES, is_nibble
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.kernels import coalesce
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.dispatchables import CompiledGraph
from dmlpy.runtime.graph_masks import at_rank
from dmlpy.tensor import BufferTensorDesc


def is_device_array(value: object) -> bool:
    # pyopencl.array loads pyopencl's kernel machinery: test by type name before importing it.
    return type(value).__module__.startswith("pyopencl") and type(value).__name__ == "Array"


def numpy_type(desc: BufferTensorDesc) -> np.dtype[Any]:
    held = DATA_TYPES[desc.data_type].numpy
    assert held is not None, "graphs hold DirectML's data types, each of which has a NumPy dtype"
    return np.dtype(held)


def packed(desc: BufferTensorDesc) -> bool:
    return coalesce(desc.sizes, (desc.effective_strides,)).packed  # a size-1 dimension's stride moves nothing


def check_arguments(compiled: CompiledGraph, descs: list[BufferTensorDesc], arguments: Sequence[Any]) -> None:
    """InvalidArgumentError, explaining the binding order, unless each argument fits its graph input."""
    wrong = (
        None
        if len(arguments) == len(descs)
        else f"{len(arguments)} {'argument was' if len(arguments) == 1 else 'arguments were'} given"
    )
    for index, (value, desc) in enumerate(zip(arguments, descs, strict=False)):
        if wrong is not None:
            break
        wrong = _misfit(value, desc, compiled)
        if wrong is not None:
            wrong = f"argument {index} is {_given(value)}: {wrong}"
    if wrong is None:
        return
    order = "; ".join(
        f"{index}: {_described(desc)} (given: {_given(arguments[index]) if index < len(arguments) else 'nothing'})"
        for index, desc in enumerate(descs)
    )
    raise InvalidArgumentError(
        f"{compiled.describe()}: {wrong}. It takes its {len(descs)} graph inputs in binding order (the order "
        f"of g.input): {order}. Give a NumPy array (ml_dtypes' int4 or uint4 for 4-bit inputs), a pyopencl "
        "array or a dmlpy Buffer per input, of its data type and Sizes (leading 1s aside; 1 where its Strides "
        "are 0)"
    )


def refuse_4_bit_device_outputs(compiled: CompiledGraph, output_descs: list[BufferTensorDesc]) -> None:
    for index, desc in enumerate(output_descs):
        if is_nibble(desc.data_type):
            raise UnsupportedError(
                f"{compiled.describe()}: graph output {index} is {desc.data_type.name}, which a pyopencl array "
                "cannot hold (two elements a byte); call it with NumPy arrays to get an ml_dtypes array"
            )


def _fits(shape: tuple[int, ...], desc: BufferTensorDesc) -> bool:
    """Whether an array of ``shape`` holds the elements of ``desc``: its Sizes, leading 1s aside, with 1 where
    ``desc`` broadcasts (Strides 0: one value there, never several of which only one would be read)."""
    sizes, strides = desc.sizes, desc.effective_strides
    given = at_rank(shape, len(sizes))
    return given is not None and all(
        length == (size if stride else 1) for length, size, stride in zip(given, sizes, strides, strict=True)
    )


def _given(value: object) -> str:
    if isinstance(value, Buffer):
        return f"a dmlpy Buffer of {value.size} bytes" if not value.released else "a released dmlpy Buffer"
    if isinstance(value, np.ndarray | np.generic) or is_device_array(value):
        kind = "pyopencl" if is_device_array(value) else "NumPy"
        return f"a {kind} array of {value.dtype} and shape {tuple(value.shape)}"  # type: ignore[attr-defined]
    return f"{type(value).__name__} {value!r:.40}"


def _described(desc: BufferTensorDesc) -> str:
    strides = "" if desc.strides is None else f", Strides {list(desc.strides)}"
    return f"{desc.data_type.name} of Sizes {list(desc.sizes)}{strides}"


def _wanted(desc: BufferTensorDesc) -> str:
    return f"the input is {_described(desc)}"  # written only for a refusal: a call that fits spends nothing on it


def _misfit(value: object, desc: BufferTensorDesc, compiled: CompiledGraph) -> str | None:
    """Why ``value`` cannot be bound as a graph input of ``desc``; None when it can."""
    if isinstance(value, Buffer):
        return "it was released" if value.released else None  # the binding table checks its size and device
    if is_device_array(value):
        if is_nibble(desc.data_type):
            return (
                f"{_wanted(desc)}; a pyopencl array holds one element a byte, and the input two: give a NumPy array of "
                "ml_dtypes' 4-bit type"
            )
        if value.context != compiled.device.context:  # type: ignore[attr-defined]
            return "it lives in another OpenCL context than the graph's device; make it on device.queue"
        if not packed(desc) or not value.flags.c_contiguous:  # type: ignore[attr-defined]
            return (
                f"{_wanted(desc)}; a pyopencl array is bound where it lies, so it must be C-contiguous and the input "
                "packed (no Strides): give a NumPy array instead"
            )
    elif not isinstance(value, np.ndarray | np.generic):
        return f"{_wanted(desc)}; give an array"
    if value.dtype != numpy_type(desc):  # type: ignore[attr-defined]
        return f"{_wanted(desc)}, whose NumPy dtype is {numpy_type(desc)}; convert it (x.astype(np.{numpy_type(desc)}))"
    if not _fits(tuple(value.shape), desc):  # type: ignore[attr-defined]
        return f"{_wanted(desc)}; give an array of that shape"
    return None
