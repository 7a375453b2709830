"""Shape arithmetic folded on the host, once the graph inputs' shapes are known, as onnxruntime does before its
DirectML provider sees a graph: DirectML's tensors have Sizes fixed when a graph is built, and exported models
compute the Sizes of their reshapes, expands and slices at run time (Shape, Gather on the shape, Concat, Cast, ...).

``fold(model, shapes)`` gives the model with every node it can compute on the host replaced by initializers:
Constant and ConstantOfShape of a known shape (a mask, whatever its size); Shape and Size of a value whose shape
ONNX's shape inference knows for these input shapes; and any node whose inputs are all known values of at most
``SMALL`` elements and whose outputs are that small too: integers or bools, or any type where an input is itself
folded (shape arithmetic: Gather, Concat, Slice, Unsqueeze, Cast, Add, Mul, Range, Equal, Where, ...; a float result
of the model's own initializers alone is its arithmetic, left to the device to compute as DirectML does; a computed
empty result is left to the device node, which refuses it saying why). An If whose condition is known takes the
branch it names (``inline_branch``), and so does one whose condition the graph inputs' values decide, given as
``decided`` (``dmlpy.onnx.branches``). Folding repeats, inferring shapes again, until nothing more folds; each node
is computed by onnx.reference, the ONNX specification's own implementation, at the model's opset. What
is left runs on the device; a node that reads a graph input's values is never folded, and a model's weights (an
initializer of more than SMALL elements, or of external data) are never read on the host."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference
from onnx.reference import ReferenceEvaluator

from dmlpy.enums import TensorDataType
from dmlpy.onnx.initializers import initializer_types

SMALL = 4096
"""The most elements a computed value folded on the host may have (a shape, an index, a small table); a node of
larger ones stays a device node, so a model's real work is never computed on the host."""
FOLDED_AT_RUN = ("Shape", "Size", "ConstantOfShape")
"""Op types that fold once the shapes they read are known: a prepared model may hold them where its declared
shapes leave a dimension open (the stand-in 1s can make an image too small to infer a shape from)."""
RANDOM_OPS = ("RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli")
"""Op types whose every run gives other values: never folded."""


@dataclass
class FoldedModel:
    """A prepared model as folding leaves it for one set of input shapes: what lowering reads of a prepared model
    (``dmlpy.onnx.lowering.PreparedModel``), the folded graph's, and the values folding computed, which the
    compiled graph binds as inputs (an ONNX bool as its UINT8 bytes, as DirectML holds it)."""

    model: onnx.ModelProto
    opset: int
    input_names: list[str]
    input_types: dict[str, int]
    initializer_types: dict[str, tuple[tuple[int, ...], TensorDataType]]
    output_names: list[str]
    output_types: dict[str, int]
    input_shapes: dict[str, list[int | str | None] | None]
    folded: dict[str, np.ndarray[Any, Any]]


def folded_for(
    rep: Any, shapes: Mapping[str, tuple[int, ...]], decided: Mapping[str, bool] | None = None
) -> FoldedModel:
    """``rep`` (a prepared model) with its shape arithmetic folded for graph inputs of ``shapes``, and each If whose
    condition ``decided`` holds (computed by ``dmlpy.onnx.branches`` from the inputs' values) taken."""
    model = fold(rep.model, shapes, decided)
    new = [tensor for tensor in model.graph.initializer if tensor.name not in rep.initializer_types]
    types = dict(rep.initializer_types)
    types.update(initializer_types(onnx.helper.make_graph([], "folded", [], [], new)))
    values = {tensor.name: numpy_helper.to_array(tensor) for tensor in new}
    held = {name: value.view(np.uint8) if value.dtype == np.bool_ else value for name, value in values.items()}
    return FoldedModel(
        model,
        rep.opset,
        rep.input_names,
        rep.input_types,
        types,
        rep.output_names,
        rep.output_types,
        rep.input_shapes,
        held,
    )


def fold(
    model: onnx.ModelProto, shapes: Mapping[str, tuple[int, ...]], decided: Mapping[str, bool] | None = None
) -> onnx.ModelProto:
    """``model`` with what its graph computes from known values folded into initializers, for graph inputs of
    ``shapes`` (module docstring), each If whose condition ``decided`` holds taken; ``model`` itself is left as
    it is."""
    folded = _without_large_data(model)
    graph = folded.graph
    # A declared intermediate shape with an open dimension (Paddle's -1, a symbol) only hides what inference finds
    # for the real input shapes (it keeps the declared -1 over the inferred size): left out.
    open_shapes = [value for value in graph.value_info if not _all_known(value)]
    for value in open_shapes:
        graph.value_info.remove(value)
    if decided:
        take_branches(graph, decided)
    for value in graph.input:
        if value.name in shapes and value.type.HasField("tensor_type"):
            dims = value.type.tensor_type.shape
            dims.ClearField("dim")
            for size in shapes[value.name]:
                dims.dim.add().dim_value = int(size)
    opset = next((o.version for o in folded.opset_import if o.domain in ("", "ai.onnx")), 21)
    known = _Known(graph)
    while True:
        inferred = _shapes(folded)
        done: list[int] = []
        for index, node in enumerate(graph.node):
            values = _folded(node, known, inferred, opset)
            if values is not None:
                known.add(dict(zip(node.output, values, strict=True)))
                done.append(index)
        if not done:
            return folded
        for index in reversed(done):
            del graph.node[index]
        _inline_known_branches(graph, known)


def _all_known(value: onnx.ValueInfoProto) -> bool:
    """Whether a declared value's every dimension is a size above 0."""
    tensor = value.type.tensor_type
    return tensor.HasField("shape") and all(d.HasField("dim_value") and d.dim_value > 0 for d in tensor.shape.dim)


def _without_large_data(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` whose initializers of more than SMALL elements keep their name, dims and type but not
    their data: folding never reads them, lowering reads their types only (the device holds their data), and a
    model's weights are not copied on the host for every set of shapes."""
    graph = onnx.GraphProto()
    for field in ("node", "input", "output", "value_info", "sparse_initializer", "quantization_annotation"):
        getattr(graph, field).extend(getattr(model.graph, field))
    graph.name = model.graph.name
    for tensor in model.graph.initializer:
        if int(np.prod(tensor.dims, dtype=np.int64)) <= SMALL:
            graph.initializer.append(tensor)
        else:
            graph.initializer.append(onnx.TensorProto(name=tensor.name, dims=tensor.dims, data_type=tensor.data_type))
    folded = onnx.ModelProto(ir_version=model.ir_version, graph=graph)
    folded.opset_import.extend(model.opset_import)
    folded.functions.extend(model.functions)
    return folded


class _Known:
    """The values known on the host: initializers (read when a node needs them) and what folding computed, which
    it writes into the graph as initializers."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        self.initializers = {tensor.name: tensor for tensor in graph.initializer}
        self.values: dict[str, np.ndarray[Any, Any]] = {}
        self.derived: set[str] = set()
        """The values folding computed (not the model's initializers): what derives from them is shape arithmetic,
        folded whatever its type (a float grid from a shape, YOLO's anchors)."""

    def __contains__(self, name: str) -> bool:
        """Known: computed here, or an initializer held in the model (not one of external data, read at upload)."""
        if name in self.values:
            return True
        tensor = self.initializers.get(name)
        return tensor is not None and tensor.data_location != onnx.TensorProto.EXTERNAL

    def size(self, name: str) -> int:
        if name in self.values:
            return int(self.values[name].size)
        return int(np.prod(self.initializers[name].dims, dtype=np.int64))

    def __getitem__(self, name: str) -> np.ndarray[Any, Any]:
        if name not in self.values:
            self.values[name] = numpy_helper.to_array(self.initializers[name])
        return self.values[name]

    def add(self, values: Mapping[str, np.ndarray[Any, Any]]) -> None:
        for name, value in values.items():
            self.values[name] = value
            self.derived.add(name)
            tensor = numpy_helper.from_array(np.asarray(value), name)
            self.graph.initializer.append(tensor)
            self.initializers[name] = tensor


def _shapes(model: onnx.ModelProto) -> dict[str, tuple[int, ...]]:
    """The values whose every dimension shape inference knows, for the model as it is now."""
    try:
        inferred = shape_inference.infer_shapes(model, data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError):
        return {}
    found: dict[str, tuple[int, ...]] = {}
    for value in (*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output):
        tensor = value.type.tensor_type
        if value.type.HasField("tensor_type") and tensor.HasField("shape"):
            dims = tensor.shape.dim
            if all(d.HasField("dim_value") and d.dim_value > 0 for d in dims):
                found[value.name] = tuple(int(d.dim_value) for d in dims)
    for tensor in model.graph.initializer:
        found[tensor.name] = tuple(tensor.dims)
    return found


def _folded(
    node: onnx.NodeProto, known: _Known, shapes: Mapping[str, tuple[int, ...]], opset: int
) -> list[np.ndarray[Any, Any]] | None:
    """The node's outputs computed on the host, or None where it stays a device node."""
    if node.domain not in ("", "ai.onnx") or node.op_type in RANDOM_OPS or node.op_type in ("If", "Loop", "Scan"):
        return None
    if node.op_type in ("Shape", "Size"):
        if not node.input or node.input[0] not in shapes:
            return None
        shape = shapes[node.input[0]]
        stand_in = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape, (0,) * len(shape))  # no memory
        return _evaluated(node, {node.input[0]: stand_in}, opset)
    inputs = [name for name in node.input if name]
    if not all(name in known for name in inputs):
        return None
    constant = node.op_type in ("Constant", "ConstantOfShape")
    if not constant and any(known.size(name) > SMALL for name in inputs):
        return None
    outputs = _evaluated(node, {name: known[name] for name in inputs}, opset)
    if outputs is None or (not constant and any(value.size == 0 for value in outputs)):
        return None  # a computed empty tensor: the device node refuses it, saying so (a Constant may be empty)
    if not constant and any(value.size > SMALL for value in outputs):
        return None
    own = not constant and not any(name in known.derived for name in inputs)
    if own and any(value.dtype.kind not in "iub" for value in outputs):
        return None  # the model's own float arithmetic on its weights stays on the device, as DirectML computes it
    return outputs


def _evaluated(
    node: onnx.NodeProto, feeds: Mapping[str, np.ndarray[Any, Any]], opset: int
) -> list[np.ndarray[Any, Any]] | None:
    """The node's outputs from onnx.reference; None where its schema refuses its inputs' types (a malformed node,
    left to the device lowering, which says what is wrong) or onnx.reference cannot compute it."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
        types = {
            name: onnx.helper.make_tensor_type_proto(onnx.helper.np_dtype_to_tensor_dtype(value.dtype), value.shape)
            for name, value in feeds.items()
        }
        shape_inference.infer_node_outputs(schema, node, types)
        # A model of the node, not the node itself: onnx.reference evaluates a bare NodeProto at the latest opset
        # whatever ``opsets`` says (Unsqueeze-11's axes attribute then fails as Unsqueeze-13's).
        values = [onnx.helper.make_value_info(name, proto) for name, proto in types.items()]
        outputs_info = [onnx.helper.make_empty_tensor_value_info(name) for name in node.output]
        graph = onnx.helper.make_graph([node], "folded", values, outputs_info)
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
        outputs = ReferenceEvaluator(model).run(None, dict(feeds))
    except Exception:  # onnx.reference raises what its op code raises: the node stays a device node
        return None
    return [np.asarray(value) for value in outputs]


def _inline_known_branches(graph: onnx.GraphProto, known: _Known) -> None:
    """Each If whose condition is known replaced by the nodes of the branch it takes."""
    for index in reversed(range(len(graph.node))):
        node = graph.node[index]
        if node.op_type == "If" and node.input[0] in known:
            inline_branch(graph, index, bool(np.asarray(known[node.input[0]]).reshape(-1)[0]))


def _branch_of(node: onnx.NodeProto, taken: bool) -> onnx.GraphProto:
    name = "then_branch" if taken else "else_branch"
    branch: onnx.GraphProto = next(a.g for a in node.attribute if a.name == name)
    return branch


def inline_branch(graph: onnx.GraphProto, index: int, taken: bool) -> None:
    """The If ``graph.node[index]`` replaced by the nodes of the branch ``taken`` names, its outputs renamed to
    the If's through Identity nodes (an output the branch takes from outside stays itself), its initializers
    the graph's."""
    node = graph.node[index]
    branch = _branch_of(node, taken)
    nodes = [*branch.node]
    nodes += [
        onnx.helper.make_node("Identity", [inner.name], [outer])
        for inner, outer in zip(branch.output, node.output, strict=True)
    ]
    graph.initializer.extend(branch.initializer)
    del graph.node[index]
    for offset, inner_node in enumerate(nodes):
        graph.node.insert(index + offset, inner_node)


def take_branches(graph: onnx.GraphProto, decided: Mapping[str, bool]) -> None:
    """Each If whose condition ``decided`` holds replaced by its taken branch; the nodes that computed the
    conditions and nothing else read are left out (the host computed them)."""
    producer = {output: node for node in graph.node for output in node.output}
    ancestry: set[tuple[str, ...]] = set()
    stack = list(decided)
    while stack:
        node = producer.get(stack.pop())
        if node is not None and tuple(node.output) not in ancestry:
            ancestry.add(tuple(node.output))
            stack.extend(node.input)
    for index in reversed(range(len(graph.node))):
        node = graph.node[index]
        if node.op_type == "If" and node.input[0] in decided:
            inline_branch(graph, index, decided[node.input[0]])
    while True:
        read = {value.name for value in graph.output}
        for node in graph.node:
            read.update(node.input)
            read |= _captured(node)
        unread = [
            index
            for index, node in enumerate(graph.node)
            if tuple(node.output) in ancestry and not set(node.output) & read
        ]
        if not unread:
            return
        for index in reversed(unread):
            del graph.node[index]


def _captured(node: onnx.NodeProto) -> set[str]:
    """The outer values a node's subgraphs (an If's branches, a Loop's body) read."""
    names: set[str] = set()
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.GRAPH:
            for inner in attribute.g.node:
                names.update(inner.input)
                names |= _captured(inner)
    return names
