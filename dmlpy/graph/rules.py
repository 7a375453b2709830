"""The rules IDMLDevice1::CompileGraph applies to a DML_GRAPH_DESC that need no feature level (docs/graphs.md
lists each with its source), and the analysis compilation reads: the operator nodes in an order that computes
each before its readers, where each node input comes from, the tensors graph inputs and outputs bind. Messages
name the node (index, operator, Name), the edge and the rule."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dmlpy.dtypes import element_size_in_bits
from dmlpy.enums import TensorFlags
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph.nodes import (
    GRAPH,
    ConstantDataGraphNodeDesc,
    EdgeDesc,
    GraphStructure,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
)
from dmlpy.ops._base import OperatorDescBase
from dmlpy.problems import quoted
from dmlpy.tensor import BufferTensorDesc


@dataclass(frozen=True)
class Source:
    """Where the values of a node input come from."""

    kind: Literal["input", "node", "constant"]
    index: int
    """The graph input, the producing node, or the constant node."""
    output: int = 0
    """The producing node's output (``kind == "node"``)."""


@dataclass(frozen=True)
class GraphAnalysis:
    """A graph that passed every structural rule, in the terms compilation needs."""

    order: tuple[int, ...]
    """The operator nodes, each after every node it reads from."""
    sources: dict[tuple[int, int], Source]
    """(node, input) -> where its values come from, for every connected input."""
    input_descs: tuple[BufferTensorDesc, ...]
    """Per graph input, the tensor its consumers read (they agree)."""
    outputs: tuple[tuple[int, int], ...]
    """Per graph output, the (node, output) that computes it."""
    output_descs: tuple[BufferTensorDesc, ...]
    """Per graph output, the producing node's output tensor."""
    consumers: dict[Source, tuple[tuple[int, int], ...]]
    """Every source read by an operator node -> the (node, input) pairs reading it."""


def node_tensor(graph: GraphStructure, node: int, slot: int, output: bool) -> BufferTensorDesc | None:
    """The tensor of an operator node's input or output ``slot`` (None where its descriptor leaves it null)."""
    op = node_operator(graph, node)
    tensors = op.output_tensors() if output else op.input_tensors()
    tensor = tensors[slot]
    return tensor.desc if tensor is not None else None


def node_operator(graph: GraphStructure, node: int) -> OperatorDescBase:
    """The descriptor of operator node ``node``."""
    desc = graph.nodes[node].desc
    assert isinstance(desc, OperatorGraphNodeDesc)
    return desc.op


def _slot_name(graph: GraphStructure, node: int, slot: int, output: bool) -> str:
    op = node_operator(graph, node)
    field = (op.output_fields() if output else op.input_fields())[slot]
    return op.c_field(field)


def _check_node_index(graph: GraphStructure, where: str, field: str, index: int, *, operator: bool) -> None:
    if index >= len(graph.nodes):
        raise InvalidArgumentError(
            f"{where}.{field} is {index}; the graph has {_counted(len(graph.nodes), 'node')} (Nodes[0] to "
            f"Nodes[{len(graph.nodes) - 1}])"
        )
    if operator and not isinstance(graph.nodes[index].desc, OperatorGraphNodeDesc):
        raise InvalidArgumentError(
            f"{where}.{field} is {index}, {graph.node_label(index)}; only operator nodes have inputs, and a constant "
            "node's data reaches operators through intermediate edges only"
        )


def _check_slot(graph: GraphStructure, where: str, field: str, node: int, slot: int, *, output: bool) -> None:
    op = node_operator(graph, node)
    names = op.output_fields() if output else op.input_fields()
    if slot >= len(names):
        listed = ", ".join(f"{i} {op.c_field(n)}" for i, n in enumerate(names))
        raise InvalidArgumentError(
            f"{where}.{field} is {slot}; {graph.node_label(node)} has "
            f"{_counted(len(names), 'output' if output else 'input')} ({listed})"
        )


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _edge_where(list_name: str, index: int, edge: EdgeDesc) -> str:
    name = f" {quoted(edge.name)}" if edge.name else ""
    return f"{GRAPH}.{list_name}[{index}]{name}"


def analyse(graph: GraphStructure) -> GraphAnalysis:
    """Every rule of IDMLDevice1::CompileGraph that needs no feature level (docs/graphs.md), and where each node
    input comes from."""
    if not graph.nodes:
        raise InvalidArgumentError(f"{GRAPH}.NodeCount is 0; a graph has at least one node")
    sources: dict[tuple[int, int], Source] = {}
    feeds: dict[tuple[int, int], str] = {}  # (node, input) -> the edge that feeds it, for messages

    def connect(where: str, node: int, slot: int, source: Source) -> None:
        field = "ToNodeInputIndex"
        _check_slot(graph, where, field, node, slot, output=False)
        if node_tensor(graph, node, slot, output=False) is None:
            raise InvalidArgumentError(
                f"{where} feeds {graph.node_label(node)}.{_slot_name(graph, node, slot, False)}, which the "
                "operator's descriptor leaves null: connect only the tensors the descriptor has"
            )
        if (node, slot) in sources:
            raise InvalidArgumentError(
                f"{where} feeds {graph.node_label(node)}.{_slot_name(graph, node, slot, False)}, which "
                f"{feeds[(node, slot)]} feeds already; every node input is connected exactly once"
            )
        sources[(node, slot)] = source
        feeds[(node, slot)] = where

    for index, edge in enumerate(graph.input_edges):
        desc = edge.desc
        assert isinstance(desc, InputGraphEdgeDesc)
        where = _edge_where("InputEdges", index, desc)
        if desc.graph_input_index >= graph.input_count:
            raise InvalidArgumentError(
                f"{where}.GraphInputIndex is {desc.graph_input_index}; InputCount is {graph.input_count}, so graph "
                f"inputs are numbered 0 to {graph.input_count - 1}"
            )
        _check_node_index(graph, where, "ToNodeIndex", desc.to_node_index, operator=True)
        connect(where, desc.to_node_index, desc.to_node_input_index, Source("input", desc.graph_input_index))

    for index, edge in enumerate(graph.intermediate_edges):
        desc = edge.desc
        assert isinstance(desc, IntermediateGraphEdgeDesc)
        where = _edge_where("IntermediateEdges", index, desc)
        _check_node_index(graph, where, "FromNodeIndex", desc.from_node_index, operator=False)
        _check_node_index(graph, where, "ToNodeIndex", desc.to_node_index, operator=True)
        producer = graph.nodes[desc.from_node_index].desc
        if isinstance(producer, ConstantDataGraphNodeDesc):
            if desc.from_node_output_index != 0:
                raise InvalidArgumentError(
                    f"{where}.FromNodeOutputIndex is {desc.from_node_output_index}; "
                    f"{graph.node_label(desc.from_node_index)} has one output, 0"
                )
            source = Source("constant", desc.from_node_index)
        else:
            _check_slot(
                graph, where, "FromNodeOutputIndex", desc.from_node_index, desc.from_node_output_index, output=True
            )
            source = Source("node", desc.from_node_index, desc.from_node_output_index)
        connect(where, desc.to_node_index, desc.to_node_input_index, source)
        _check_intermediate(graph, where, source, desc.to_node_index, desc.to_node_input_index)

    outputs: dict[int, tuple[int, int]] = {}
    output_of: dict[tuple[int, int], int] = {}  # the reverse of outputs: a node output to its graph output
    output_edges: dict[int, str] = {}
    for index, edge in enumerate(graph.output_edges):
        desc = edge.desc
        assert isinstance(desc, OutputGraphEdgeDesc)
        where = _edge_where("OutputEdges", index, desc)
        _check_node_index(graph, where, "FromNodeIndex", desc.from_node_index, operator=False)
        if isinstance(graph.nodes[desc.from_node_index].desc, ConstantDataGraphNodeDesc):
            raise InvalidArgumentError(
                f"{where}.FromNodeIndex is {desc.from_node_index}, {graph.node_label(desc.from_node_index)}; a graph "
                "output is computed by an operator node (a constant feeds operator inputs only)"
            )
        _check_slot(graph, where, "FromNodeOutputIndex", desc.from_node_index, desc.from_node_output_index, output=True)
        if desc.graph_output_index >= graph.output_count:
            raise InvalidArgumentError(
                f"{where}.GraphOutputIndex is {desc.graph_output_index}; OutputCount is {graph.output_count}, so "
                f"graph outputs are numbered 0 to {graph.output_count - 1}"
            )
        if desc.graph_output_index in outputs:
            raise InvalidArgumentError(
                f"{where}.GraphOutputIndex is {desc.graph_output_index}, which {output_edges[desc.graph_output_index]} "
                "computes already; every graph output comes from exactly one node output"
            )
        produced = (desc.from_node_index, desc.from_node_output_index)
        already = output_of.get(produced)
        if already is not None:
            raise InvalidArgumentError(
                f"{where} sends {graph.node_label(desc.from_node_index)}."
                f"{_slot_name(graph, desc.from_node_index, desc.from_node_output_index, True)} to graph output "
                f"{desc.graph_output_index}, which {output_edges[already]} sends to graph output {already} already; "
                "a node output is written to one graph output: bind one output and copy it, or add an "
                "ELEMENT_WISE_IDENTITY node for the second"
            )
        outputs[desc.graph_output_index] = produced
        output_of[produced] = desc.graph_output_index
        output_edges[desc.graph_output_index] = where

    for output in range(graph.output_count):
        if output not in outputs:
            raise InvalidArgumentError(
                f"{GRAPH}: graph output {output} has no output edge (OutputCount is {graph.output_count}); every "
                "graph output comes from exactly one node output"
            )

    operators = [i for i, node in enumerate(graph.nodes) if isinstance(node.desc, OperatorGraphNodeDesc)]
    for node in operators:
        op = node_operator(graph, node)
        for slot, tensor in enumerate(op.input_tensors()):
            if tensor is not None and (node, slot) not in sources:
                raise InvalidArgumentError(
                    f"{GRAPH}.{graph.node_label(node)}.{_slot_name(graph, node, slot, False)} is connected to nothing; "
                    "every tensor an operator's descriptor has is fed by exactly one input or intermediate edge"
                )

    for (node, slot), source in sources.items():
        owned = node_tensor(graph, node, slot, output=False)
        if source.kind != "input" and owned is not None and TensorFlags.OWNED_BY_DML in owned.flags:
            raise InvalidArgumentError(
                f"{feeds[(node, slot)]} feeds {graph.node_label(node)}.{_slot_name(graph, node, slot, False)}, which "
                'has DML_TENSOR_FLAG_OWNED_BY_DML; "Any operator inputs using this flag must be connected to graph '
                'inputs" (DML_GRAPH_DESC)'
            )
    consumers: dict[Source, list[tuple[int, int]]] = {}
    for target, source in sources.items():
        consumers.setdefault(source, []).append(target)
    input_descs = _graph_input_descs(graph, consumers)
    _check_constants(graph, consumers)
    used = {source.index for source in consumers if source.kind != "input"} | {node for node, _ in outputs.values()}
    for index in range(len(graph.nodes)):
        if index not in used:
            raise InvalidArgumentError(
                f"{GRAPH}.{graph.node_label(index)} is used by nothing: no edge leaves it. Connect one of its outputs "
                "or remove the node"
            )
    order = _topological_order(graph, operators, sources)
    output_sources = tuple(outputs[k] for k in range(graph.output_count))
    output_descs = tuple(node_tensor(graph, node, slot, output=True) for node, slot in output_sources)
    return GraphAnalysis(
        order=order,
        sources=sources,
        input_descs=input_descs,
        outputs=output_sources,
        output_descs=tuple(d for d in output_descs if d is not None),
        consumers={source: tuple(targets) for source, targets in consumers.items()},
    )


def _check_intermediate(graph: GraphStructure, where: str, source: Source, node: int, slot: int) -> None:
    """The two ends of an intermediate edge are one buffer: the same TotalTensorSizeInBytes (DirectML's rule) and,
    dmlpy's, the same DataType. Sizes and Strides may differ: the consumer reads the buffer through its own view
    (a transpose, a reshape, a broadcast), as DirectMLX's Reinterpret and onnxruntime's Transpose write it."""
    if source.kind != "node":
        return
    produced = node_tensor(graph, source.index, source.output, output=True)
    consumed = node_tensor(graph, node, slot, output=False)
    assert produced is not None and consumed is not None
    for field, given, wanted in (
        ("TotalTensorSizeInBytes", consumed.total_tensor_size_in_bytes, produced.total_tensor_size_in_bytes),
        ("DataType", consumed.data_type, produced.data_type),
    ):
        if given != wanted:
            from_end = f"{graph.node_label(source.index)}.{_slot_name(graph, source.index, source.output, True)}"
            to_end = f"{graph.node_label(node)}.{_slot_name(graph, node, slot, False)}"
            raise InvalidArgumentError(
                f"{where} joins {from_end} to {to_end}, whose {field} is {_shown(given)}; it must equal the producing "
                f"tensor's {field} ({_shown(wanted)}): both ends of an intermediate edge are one buffer (its Sizes "
                "and Strides may read it another way)"
            )


def _shown(value: Any) -> str:
    return value.name if hasattr(value, "name") else str(tuple(value) if isinstance(value, Sequence) else value)


def _graph_input_descs(
    graph: GraphStructure, consumers: dict[Source, list[tuple[int, int]]]
) -> tuple[BufferTensorDesc, ...]:
    """Each graph input's tensor: every node input it feeds describes the same tensor (it is bound once)."""
    descs: list[BufferTensorDesc] = []
    for graph_input in range(graph.input_count):
        readers = consumers.get(Source("input", graph_input))
        if not readers:
            raise InvalidArgumentError(
                f"{GRAPH}: graph input {graph_input} has no input edge (InputCount is {graph.input_count}); every "
                "graph input feeds at least one node input"
            )
        (first_node, first_slot), *others = readers
        first = node_tensor(graph, first_node, first_slot, output=False)
        assert first is not None
        for node, slot in others:
            other = node_tensor(graph, node, slot, output=False)
            assert other is not None
            difference = _first_difference(first, other)
            if difference is not None:
                field, one, two = difference
                raise InvalidArgumentError(
                    f"{GRAPH}: graph input {graph_input} feeds {graph.node_label(first_node)}."
                    f"{_slot_name(graph, first_node, first_slot, False)} ({field} {one}) and "
                    f"{graph.node_label(node)}.{_slot_name(graph, node, slot, False)} ({field} {two}); a graph "
                    "input is one tensor, bound once, so every node input it feeds must describe it alike (to read "
                    "it another way too, a transpose or a reshape, read a copy of it: dml.graph.identity)"
                )
        descs.append(first)
    return tuple(descs)


def _first_difference(a: BufferTensorDesc, b: BufferTensorDesc) -> tuple[str, str, str] | None:
    """The first field (C name) where two tensor descs differ, and its two values; None when they are equal."""
    for name, field in BufferTensorDesc.model_fields.items():
        one, two = getattr(a, name), getattr(b, name)
        if name == "strides":
            one, two = a.effective_strides, b.effective_strides
        if one != two:
            return field.alias or name, _shown(one), _shown(two)
    return None


def _check_constants(graph: GraphStructure, consumers: dict[Source, list[tuple[int, int]]]) -> None:
    """A constant's bytes are what each consuming tensor reads: from the first element's byte to the last's, at
    most its TotalTensorSizeInBytes."""
    for index, node in enumerate(graph.nodes):
        data = node.desc
        if not isinstance(data, ConstantDataGraphNodeDesc):
            continue
        for consumer, slot in consumers.get(Source("constant", index), ()):
            tensor = node_tensor(graph, consumer, slot, output=False)
            assert tensor is not None
            reads, total = tensor_extent_bytes(tensor), tensor.total_tensor_size_in_bytes
            if not reads <= len(data.data) <= tensor.total_tensor_size_in_bytes:
                raise InvalidArgumentError(
                    f"{GRAPH}.{graph.node_label(index)}.DataSize is {len(data.data)}; "
                    f"{graph.node_label(consumer)}.{_slot_name(graph, consumer, slot, False)} ({tensor.describe()}) "
                    f"reads {_counted(reads, 'byte')} and spans TotalTensorSizeInBytes {total}, so the data holds from "
                    f"{reads} to {total} bytes"
                )


def tensor_extent_bytes(tensor: BufferTensorDesc) -> int:
    """The bytes from a tensor's first element to the end of its last: what it reads of a buffer."""
    span = sum((size - 1) * stride for size, stride in zip(tensor.sizes, tensor.effective_strides, strict=True))
    return ((span + 1) * element_size_in_bits(tensor.data_type) + 7) // 8  # 4-bit: a half-filled last byte counts


def _topological_order(
    graph: GraphStructure, operators: list[int], sources: dict[tuple[int, int], Source]
) -> tuple[int, ...]:
    """Kahn's algorithm, lowest index first among the ready nodes (a heap, so a graph of n nodes and e edges
    takes O((n + e) log n)); a cycle is refused naming its nodes."""
    waits_on = dict.fromkeys(operators, 0)
    readers: dict[int, set[int]] = {node: set() for node in operators}
    for (node, _), source in sources.items():
        if source.kind == "node" and node not in readers[source.index]:
            readers[source.index].add(node)
            waits_on[node] += 1
    ready = [node for node, before in waits_on.items() if not before]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for reader in readers[node]:
            waits_on[reader] -= 1
            if not waits_on[reader]:
                heapq.heappush(ready, reader)
    if len(order) != len(operators):
        done = set(order)
        stuck = [graph.node_label(node) for node in operators if node not in done]
        raise InvalidArgumentError(
            f"{GRAPH}: the intermediate edges make a cycle through {', '.join(stuck)}; a graph is acyclic, each node "
            "reading only what earlier nodes computed"
        )
    return tuple(order)
