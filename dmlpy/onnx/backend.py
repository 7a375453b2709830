"""The ONNX backend proper: DmlBackend (``prepare``, ``run_node``, ``supports_device``) and DmlBackendRep, a
prepared model that checks its inputs and keeps a compiled graph per set of input shapes, least recently used
dropped first."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

from dmlpy.errors import DmlError, InvalidArgumentError, OutOfMemoryError, UnsupportedError, argument_error
from dmlpy.graph import Expression, Graph
from dmlpy.graph.desc import GraphDesc
from dmlpy.lru import LruCache
from dmlpy.onnx.branches import Branches, run_conditions
from dmlpy.onnx.elements import (
    NodeRefused,
    value_type,
)
from dmlpy.onnx.folding import FOLDED_AT_RUN, folded_for
from dmlpy.onnx.given import check_initializer_declaration, declared_shape, given_arrays, host_array
from dmlpy.onnx.initializers import initializer_types, upload_initializers
from dmlpy.onnx.loading import check_with_onnx, model_and_folder, node_model
from dmlpy.onnx.lowering import lower
from dmlpy.onnx.nodes import ONNX_DOMAINS, check_op_types, node_attributes, node_name
from dmlpy.runtime import Device, default_device, devices
from dmlpy.runtime.platforms import usable_devices
from dmlpy.tensor import BufferTensorDesc

MAX_COMPILED_GRAPHS = 64
"""How many compiled graphs (one per set of input shapes) a prepared model keeps by default (each takes tens of
KB); the least recently used is dropped when a new set of shapes compiles."""


def _opset(model: onnx.ModelProto) -> int:
    """The version of the ONNX operator set (domain '' or 'ai.onnx') the model imports."""
    for entry in model.opset_import:
        if entry.domain in ONNX_DOMAINS:
            return int(entry.version)
    return int(onnx.defs.onnx_opset_version())


class DmlBackendRep(BackendRep):
    """A prepared ONNX model: ``run(inputs)`` binds, dispatches and returns the outputs as NumPy arrays.

    ``max_compiled_graphs`` bounds the graphs compiled for sets of input shapes (MAX_COMPILED_GRAPHS unless
    set); the least recently used goes first. ``run`` may be called from several threads at once."""

    def __init__(self, model: onnx.ModelProto, device: Device, base_dir: str | None = None) -> None:
        self.model = model
        self.device = device
        self.opset = _opset(model)
        graph = model.graph
        if len(graph.sparse_initializer):
            raise NodeRefused(
                f"ONNX sparse initializer {graph.sparse_initializer[0].values.name!r}: DirectML has no sparse "
                "tensors; store it as a dense initializer"
            )
        self.initializer_types = initializer_types(graph)
        """Each initializer's dims and data type (dmlpy keeps no host copy of its data)."""
        self.input_names = [value.name for value in graph.input if value.name not in self.initializer_types]
        self.output_names = [value.name for value in graph.output]
        self.input_types: dict[str, int] = {v.name: v.type.tensor_type.elem_type for v in graph.input}
        self.input_shapes = {value.name: declared_shape(value) for value in graph.input}
        """Each graph input's declared shape (None: none declared); ``run`` refuses arrays of another."""
        self.output_types: dict[str, int] = {v.name: v.type.tensor_type.elem_type for v in graph.output}
        for value in graph.input:
            if not value.type.HasField("tensor_type"):
                raise NodeRefused(
                    f"ONNX graph input {value.name!r} is a {value.type.WhichOneof('value')}; dmlpy runs tensors only "
                    "(DirectML has no sequences or optionals)"
                )
            data_type = value_type(value.type.tensor_type.elem_type, f"ONNX graph input {value.name!r}")
            if value.name in self.initializer_types:
                check_initializer_declaration(
                    value.name, data_type, self.input_shapes[value.name], self.initializer_types[value.name]
                )
        # Shape arithmetic folds on the host once the shapes are known (dmlpy.onnx.folding): checked here on the
        # declared shapes, an open dimension taken as 1.
        checked = folded_for(self, _stand_in_shapes(self))
        # An If whose condition the inputs' values decide is decided at each run (dmlpy.onnx.branches), and shape
        # arithmetic on values whose shapes the stand-ins do not decide folds at the first run, with the real
        # shapes: their nodes are checked then, and the graph's rules with them.
        self._branches = Branches(run_conditions(checked.model, self.input_names, True), self._folded_model)
        at_run = [node for node in checked.model.graph.node if node.op_type in (*FOLDED_AT_RUN, "If")]
        nodes = [node for node in checked.model.graph.node if node.op_type not in (*FOLDED_AT_RUN, "If")]
        check_op_types(nodes, self.opset)
        for node in nodes:
            node_attributes(node, self.opset, node_name(node, self.opset))
        if not at_run:
            # Every rule but the shape-dependent ones, now: a graph of one-element values at the device's level.
            lower(checked, Graph(device.feature_level), None)
        self._uploaded = upload_initializers(device, graph, self.initializer_types, base_dir)
        self._compiled: LruCache[tuple[tuple[int, ...], ...], _Compiled] = LruCache(MAX_COMPILED_GRAPHS)
        """One compiled graph per set of input shapes (thread-safe; a graph compiles outside its lock)."""

    @property
    def max_compiled_graphs(self) -> int:
        """How many compiled graphs (one per set of input shapes) the model keeps: MAX_COMPILED_GRAPHS unless
        set; an int of at least 1. Setting a smaller bound drops the least recently used at once."""
        return self._compiled.capacity

    @max_compiled_graphs.setter
    def max_compiled_graphs(self, bound: int) -> None:
        if not isinstance(bound, int | np.integer) or isinstance(bound, bool) or bound < 1:
            raise argument_error(
                "DmlBackendRep", "max_compiled_graphs", bound, "an int of at least 1 (how many compiled graphs to keep)"
            )
        self._compiled.capacity = int(bound)

    @property
    def compiled_graphs(self) -> list[Any]:
        """The dmlpy graphs compiled and kept, one per set of input shapes (``.kernel_count``, ``.source``),
        least recently used first."""
        return [entry.compiled for entry in self._compiled.values()]

    # ------------------------------------------------------------------------------------------------- run
    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray[Any, Any], ...]:
        """The model's outputs for ``inputs`` (a list in graph input order, or a dict by name)."""
        arrays = self._inputs(inputs)
        decided = self._branches.decided(self.input_names, arrays)  # None: no If the inputs' values decide
        key = tuple(array.shape for array in arrays.values()) + ((tuple(decided.values()),) if decided else ())
        compiled = self._compiled.get(key)
        if compiled is None:
            # Compiled outside the lock, so that runs of shapes already compiled never wait behind it; two
            # threads may compile one new shape at once, and the first kept is the one both use.
            shapes = {n: a.shape for n, a in arrays.items()}
            compiled = self._compiled.put(key, _Compiled.build(self, shapes, decided))
        return compiled.run(arrays)

    def _folded_model(self, shapes: Mapping[str, tuple[int, ...]]) -> onnx.ModelProto:
        return folded_for(self, shapes).model

    def _inputs(self, inputs: Any) -> dict[str, np.ndarray[Any, Any]]:
        return given_arrays(inputs, self.input_names, self.input_types, self.input_shapes)


@dataclass(frozen=True)
class LoweredModel:
    """A prepared model as the DML_GRAPH_DESC it becomes for one set of input shapes (``lower_for``)."""

    desc: GraphDesc
    expressions: list[Expression]
    """The graph outputs' expressions, in the model's output order."""
    bound_names: list[str]
    """The ONNX value each graph input of ``desc`` binds, in graph input order."""
    outputs: list[tuple[str, int, tuple[int, ...]]]
    """Each output's name, ONNX element type and shape."""
    folded: dict[str, np.ndarray[Any, Any]]
    """The values folding computed on the host for these shapes, bound as graph inputs."""


def lower_for(
    rep: Any, graph: Graph, shapes: Mapping[str, tuple[int, ...]], decided: Mapping[str, bool] | None = None
) -> LoweredModel:
    """``rep`` folded (dmlpy.onnx.folding; each If whose condition ``decided`` holds taken) and lowered into
    ``graph`` for graph inputs of ``shapes``: what a run compiles, ``dmlpy explain model.onnx`` shows and
    ``run_dask`` reads its output shapes from."""
    model = folded_for(rep, shapes, decided)
    # What the stand-ins left to the first run and the real shapes could not fold either is refused here.
    check_op_types(model.model.graph.node, rep.opset)
    lowered = lower(model, graph, shapes)
    # A view of a graph input or initializer that only another view read leaves its own binding unread.
    desc = graph.desc_for(lowered.expressions, drop_unread_inputs=True)
    bound = [lowered.bound_names[k] for k in graph.inputs_read(lowered.expressions)]
    return LoweredModel(desc, lowered.expressions, bound, lowered.outputs, model.folded)


@dataclass
class _Compiled:
    """The model compiled for one set of input shapes."""

    rep: DmlBackendRep
    compiled: Any
    bound_names: list[str]
    outputs: list[tuple[str, int, tuple[int, ...]]]
    folded: dict[str, np.ndarray[Any, Any]]
    """The values folding computed on the host for these shapes, bound as graph inputs."""

    @classmethod
    def build(
        cls, rep: DmlBackendRep, shapes: Mapping[str, tuple[int, ...]], decided: Mapping[str, bool] | None
    ) -> _Compiled:
        lowered = lower_for(rep, Graph(rep.device), shapes, decided)
        compiled = rep.device.compile_graph(lowered.desc)
        return cls(rep, compiled, lowered.bound_names, lowered.outputs, lowered.folded)

    def run(self, arrays: Mapping[str, np.ndarray[Any, Any]]) -> tuple[np.ndarray[Any, Any], ...]:
        """The compiled graph called on the initializers' buffers and ``arrays``, each graph input given the
        elements it reads (``_as_read``), the outputs in the model's shapes."""
        uploaded = self.rep._uploaded
        inputs = [
            uploaded[name]
            if name in uploaded
            else _as_read(self.folded[name] if name in self.folded else arrays[name], desc)
            for name, desc in zip(self.bound_names, self.compiled.input_descs(), strict=True)
        ]
        results = self.compiled(*inputs)
        if not isinstance(results, tuple):
            results = (results,)
        return tuple(
            _as_onnx(result.reshape(shape), elem_type)
            for result, (_, elem_type, shape) in zip(results, self.outputs, strict=True)
        )


def _stand_in_shapes(rep: DmlBackendRep) -> dict[str, tuple[int, ...]]:
    """Each graph input's declared shape, an open dimension as 1 (prepare's check of what folding leaves)."""
    return {
        name: tuple(size if isinstance(size, int) else 1 for size in declared)
        for name in rep.input_names
        if (declared := rep.input_shapes.get(name)) is not None
    }


def _as_onnx(array: np.ndarray[Any, Any], elem_type: int) -> np.ndarray[Any, Any]:
    """A graph output as ONNX types it: a bool value's UINT8 1s and 0s viewed as NumPy bools (the same bytes)."""
    return array.view(np.bool_) if elem_type == onnx.TensorProto.BOOL else array


def _as_read(array: np.ndarray[Any, Any], desc: BufferTensorDesc) -> np.ndarray[Any, Any]:
    """``array``, whose elements in C order are the bytes the lowering binds, as a call on a compiled graph takes
    them: the elements ``desc`` reads there (its Strides count the array's elements: a reshape, a transpose, a
    broadcast), of its Sizes, 1 where it broadcasts (Strides 0), so that the call lays them back where they were.
    A masked array's mask is read the same way."""
    if isinstance(array, np.ma.MaskedArray):
        return np.ma.MaskedArray(_as_read(np.ma.getdata(array), desc), _as_read(np.ma.getmaskarray(array), desc))
    if desc.strides is None and array.flags.c_contiguous and array.size == math.prod(desc.sizes):
        return array.reshape(desc.sizes)  # packed: one view, for a tenth of the strided view's cost below
    flat = np.ascontiguousarray(array).reshape(-1)
    strides = desc.effective_strides
    assert sum((n - 1) * s for n, s in zip(desc.sizes, strides, strict=True)) < max(flat.size, 1)
    # As writeable as the array: the call only reads it.
    byte_strides = [s * flat.itemsize for s in strides]
    read = np.lib.stride_tricks.as_strided(flat, desc.sizes, byte_strides, writeable=flat.flags.writeable)
    return read[tuple(slice(None) if stride else slice(0, 1) for stride in strides)]


DEVICE_KINDS = ("CPU", "GPU")
"""The ``device`` names the backend answers for: the kinds of OpenCL device (``dml.devices()``'s ``kind``)."""


class DmlBackend(Backend):
    """onnx.backend.base.Backend over dmlpy (see dmlpy.onnx's docstring)."""

    @classmethod
    def prepare(cls, model: Any, device: str | None = None, **kwargs: Any) -> DmlBackendRep:
        """Check and lower ``model`` (an onnx.ModelProto, the path of a .onnx file, or its bytes) and upload its
        initializers; NodeRefused (an UnsupportedError) names any node dmlpy cannot run, InvalidArgumentError any
        malformed part.

        ``dml_device`` is the dml.Device the model runs on (``dml.create_device(cl_device=dml.devices()[i].cl_device)``
        for the device ``dmlpy devices`` lists as i); without it, dmlpy's default device (``dml.default_device()``:
        the first GPU whose compiler builds kernels, else a CPU device; ``DMLPY_DEVICE`` picks another). ``device``
        ("CPU" or "GPU", onnx.backend's argument) chooses nothing: given, it is checked as onnxruntime's backend
        checks it, with ``supports_device`` (UnsupportedError where dmlpy sees no such device that builds kernels).
        ``base_dir`` names the folder of the model's external data (by default the .onnx file's folder; a
        ModelProto or bytes with external data need it); ``rtol`` and ``atol`` (which onnx's test runner passes
        along) are ignored."""
        dml_device = kwargs.pop("dml_device", None)
        base_dir = kwargs.pop("base_dir", None)
        for tolerance in ("rtol", "atol"):
            kwargs.pop(tolerance, None)
        if kwargs:
            raise InvalidArgumentError(
                f"prepare got unknown options {sorted(kwargs)}; it takes dml_device and base_dir"
            )
        if dml_device is not None and not isinstance(dml_device, Device):
            raise argument_error(
                "prepare", "dml_device", dml_device, "a dml.Device (dml.create_device(...)), or None for the default"
            )
        if device is not None and not cls.supports_device(device):
            kind = str(device).strip().upper()
            why = (
                f"dmlpy sees no OpenCL {kind} device that builds kernels (usable: {usable_devices(devices())})"
                if kind in DEVICE_KINDS
                else f"the backend answers for {' and '.join(map(repr, DEVICE_KINDS))}, the kinds of OpenCL device"
            )
            raise UnsupportedError(
                f"prepare: device {device!r}: {why}; leave device out to run on dmlpy's default device, or pick one "
                "with dml_device=dml.create_device(cl_device=...)"
            )
        # Every stage raises a DmlError naming what it refuses; anything else is a bug of dmlpy's, left to show.
        try:
            proto, folder = model_and_folder(model, base_dir)
            check_with_onnx(proto)
            return DmlBackendRep(proto, dml_device if dml_device is not None else default_device(), folder)
        except MemoryError as error:
            if isinstance(error, DmlError):
                raise
            raise OutOfMemoryError(
                f"prepare: the host ran out of memory while reading the model ({error!r})"
            ) from error

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str | None = None, **kwargs: Any) -> tuple[Any, ...]:
        """``prepare(model, device, **kwargs).run(inputs)``: onnx.backend's, with ``device`` left out by default
        (onnx.backend's "CPU" would refuse a machine whose only usable device is a GPU)."""
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls, node: onnx.NodeProto, inputs: Any, device: str | None = None, outputs_info: Any = None, **kwargs: Any
    ) -> tuple[np.ndarray[Any, Any], ...]:
        """Run one node on ``inputs`` (NumPy arrays in the node's input order); ``device`` and ``kwargs`` as
        ``prepare`` takes them."""
        arrays = [
            host_array("run_node", f"the node's input {index}", value, "a NumPy array of numbers")
            for index, value in enumerate(inputs)
        ]
        try:
            model = node_model(node, arrays)
        except MemoryError:
            raise
        except Exception as error:  # a malformed node, or arrays of a dtype ONNX has no element type for
            raise InvalidArgumentError(f"run_node: the node cannot be made a model: {error}") from error
        return cls.prepare(model, device, **kwargs).run(
            [a for name, a in zip(node.input, arrays, strict=False) if name]
        )

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """Whether dmlpy sees an OpenCL device of the kind ``device`` names ("CPU" or "GPU", case aside) whose
        compiler builds kernels (``dml.devices()``); False for any other name (ONNX's "CUDA": dmlpy runs OpenCL).
        It answers for the machine, not for the device ``prepare`` runs on, which ``dml_device`` chooses."""
        kind = str(device).strip().upper()
        return kind in DEVICE_KINDS and any(entry.kind == kind and entry.compiler_error is None for entry in devices())
