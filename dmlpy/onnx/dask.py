"""A prepared model run over Dask arrays, the batch dimension in chunks (``run_dask``): each chunk of the graph
inputs' first dimension is one task, run by ``dmlpy.onnx`` in the process that runs it (a Dask worker, on its own
device, or this process under the threaded scheduler), lazily; the outputs are Dask arrays chunked the same way
along their first dimension, the same values as one ``rep.run`` on the whole batch.

What travels to a worker is the model's bytes (one task every chunk's task reads), the chunk and a device index
(``dmlpy.arrays.dask.device_spec``: a ``dml.Device`` holds an OpenCL context and cannot travel); a worker prepares
the model once per process and device, and keeps it. The outputs' shapes and types come from lowering the model
here, once per chunk length, so nothing is computed before ``compute``."""

from __future__ import annotations

import hashlib
import importlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx

from dmlpy.arrays.dask import device_spec, worker_device
from dmlpy.dtypes import DATA_TYPES
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.graph import Graph
from dmlpy.onnx.backend import lower_for

_prepared: dict[tuple[str, int | None], Any] = {}
_prepared_lock = threading.Lock()


def run_dask(rep: Any, inputs: Sequence[Any] | Mapping[str, Any], device: object = None) -> tuple[Any, ...]:
    """``rep``'s outputs (a prepared model, ``dmlpy.onnx.prepare``) for Dask arrays ``inputs`` (in graph input
    order, or by name), as lazy Dask arrays; every input chunked along its first dimension alike (the batch), and
    whole along the others (rechunked so). ``device``: None (each process's default device) or an index of
    ``dml.devices()``."""
    try:
        dask: Any = importlib.import_module("dask")
        da: Any = importlib.import_module("dask.array")
    except ImportError:
        raise UnsupportedError("run_dask needs dask's array module: pip install 'dmlpy[dask]'") from None
    spec = device_spec(device)
    arrays = _by_name(rep, inputs)
    chunks = {name: array.chunks[0] for name, array in arrays.items()}
    if len(set(chunks.values())) != 1:
        raise InvalidArgumentError(
            f"run_dask: the inputs' first dimensions are chunked differently ({chunks}); chunk every input's batch "
            "dimension alike (x.rechunk({0: n}))"
        )
    batches = next(iter(chunks.values()))
    whole = {name: array.rechunk({axis: -1 for axis in range(1, array.ndim)}) for name, array in arrays.items()}
    serialised = rep.model.SerializeToString()
    model = dask.delayed(serialised, pure=True)
    key = hashlib.sha256(serialised).hexdigest()
    shapes = {length: _output_shapes(rep, arrays, length) for length in set(batches)}
    parts: list[list[Any]] = [[] for _ in rep.output_names]
    for index, length in enumerate(batches):
        blocks = [whole[name].blocks[index] for name in rep.input_names]
        task = dask.delayed(_run_chunk, nout=len(rep.output_names), pure=True)(model, key, spec, *blocks)
        for k, (shape, dtype) in enumerate(shapes[length]):
            parts[k].append(da.from_delayed(task[k], shape, dtype))
    return tuple(da.concatenate(part, axis=0) for part in parts)


def _by_name(rep: Any, inputs: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
    given = dict(inputs) if isinstance(inputs, Mapping) else dict(zip(rep.input_names, inputs, strict=False))
    if sorted(given) != sorted(rep.input_names) or (not isinstance(inputs, Mapping) and len(inputs) != len(given)):
        raise InvalidArgumentError(
            f"run_dask: the model's graph inputs are {rep.input_names}; give one Dask array for each, in that order "
            "or by name"
        )
    for name, value in given.items():
        if not hasattr(value, "chunks") or not hasattr(value, "blocks") or value.ndim < 1:
            raise InvalidArgumentError(
                f"run_dask: input {name!r} is {type(value).__name__}; give a dask.array.Array whose first dimension "
                "is the batch"
            )
    return given


def _output_shapes(rep: Any, arrays: Mapping[str, Any], length: int) -> list[tuple[tuple[int, ...], np.dtype[Any]]]:
    """Each output's shape and dtype for a chunk of ``length`` batch rows, from lowering the model for it."""
    shapes = {name: (length, *(int(n) for n in array.shape[1:])) for name, array in arrays.items()}
    lowered = lower_for(rep, Graph(rep.device.feature_level), shapes)
    outputs = []
    for (_, elem_type, shape), expression in zip(lowered.outputs, lowered.expressions, strict=True):
        numpy_type = DATA_TYPES[expression.desc.data_type].numpy
        dtype = np.dtype(np.bool_ if elem_type == onnx.TensorProto.BOOL else numpy_type)
        outputs.append((tuple(shape), dtype))
    return outputs


def _run_chunk(model: bytes, key: str, spec: int | None, *blocks: Any) -> tuple[Any, ...]:
    """One chunk run in the process that runs the task, its prepared model made once per process and device."""
    from dmlpy.onnx.backend import DmlBackend

    with _prepared_lock:
        rep = _prepared.get((key, spec))
        if rep is None:
            rep = DmlBackend.prepare(model, dml_device=worker_device(spec))
            _prepared[(key, spec)] = rep
    return tuple(rep.run(list(blocks)))
