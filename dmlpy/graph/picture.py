"""The picture of a DML_GRAPH_DESC: graph inputs, nodes and graph outputs, each edge labelled with the tensor it
carries, a compiled graph's kernels outlined and a refusal's nodes and edges flagged (drawn by dmlpy.drawing)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from dmlpy.drawing import DrawnEdge, DrawnKernel, DrawnNode, Picture, graph_picture
from dmlpy.graph.nodes import (
    GRAPH,
    ConstantDataGraphNodeDesc,
    GraphStructure,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
)
from dmlpy.graph.rules import node_operator, node_tensor
from dmlpy.problems import quoted
from dmlpy.tensor import BufferTensorDesc


def graph_desc_picture(
    graph: GraphStructure, kernels: Sequence[DrawnKernel] = (), problem: str | None = None, title: str = ""
) -> Picture:
    """Graph inputs, nodes and graph outputs, each edge labelled with the tensor it carries; ``kernels`` (a
    compiled graph's) outlined; ``problem``, a refusal's message, drawn under it with the nodes and edges it
    names in red (dmlpy.drawing.graph). Draws a refused graph too: an edge whose index is out of range is
    left out."""
    named = set(re.findall(r"\b((?:Nodes|InputEdges|OutputEdges|IntermediateEdges)\[\d+\])", problem or ""))
    nodes = []
    for index, graph_node in enumerate(graph.nodes):
        node = graph_node.desc
        constant = isinstance(node, ConstantDataGraphNodeDesc)
        title_words = "constant data" if constant else node.op.operator_name()  # type: ignore[union-attr]
        subtitle = f"{quoted(node.name)} (Nodes[{index}])" if node.name else f"Nodes[{index}]"
        inputs = () if constant else tuple(node.op.c_field(f) for f in node.op.input_fields())  # type: ignore[union-attr]
        flagged = f"Nodes[{index}]" in named
        nodes.append(DrawnNode(title_words, subtitle, inputs, constant=constant, flagged=flagged))
    edges = []
    for list_name, kind, listed in (
        ("InputEdges", "input", graph.input_edges),
        ("IntermediateEdges", "intermediate", graph.intermediate_edges),
        ("OutputEdges", "output", graph.output_edges),
    ):
        for index, edge in enumerate(listed):
            e = edge.desc
            if isinstance(e, InputGraphEdgeDesc):
                source, target = e.graph_input_index, e.to_node_index
            elif isinstance(e, IntermediateGraphEdgeDesc):
                source, target = e.from_node_index, e.to_node_index
            else:
                source, target = e.from_node_index, e.graph_output_index
            carried = (
                _port(graph, e.from_node_index, e.from_node_output_index, output=True)
                if not isinstance(e, InputGraphEdgeDesc)
                else None
            )
            fed = (
                _port(graph, e.to_node_index, e.to_node_input_index, output=False)
                if not isinstance(e, OutputGraphEdgeDesc)
                else None
            )
            tensor = (carried or fed or ("", None))[1]
            label = f"{tensor.data_type.name} {list(tensor.sizes)}" if tensor is not None else ""
            edges.append(
                DrawnEdge(
                    kind,  # type: ignore[arg-type]
                    source,
                    target,
                    label,
                    port=0 if isinstance(e, OutputGraphEdgeDesc) else e.to_node_input_index,
                    flagged=f"{list_name}[{index}]" in named,
                )
            )
    return graph_picture(
        title or f"{GRAPH}: {graph.describe()}, {graph.input_count} input(s), {graph.output_count} output(s)",
        graph.input_count,
        graph.output_count,
        nodes,
        edges,
        kernels=kernels,
        problem=problem,
    )


def _port(graph: GraphStructure, node: int, slot: int, *, output: bool) -> tuple[str, BufferTensorDesc | None] | None:
    """A node's input or output field and its tensor, or None where the indices lead nowhere (a refused
    graph) or to a constant node."""
    if node >= len(graph.nodes) or not isinstance(graph.nodes[node].desc, OperatorGraphNodeDesc):
        return None
    op = node_operator(graph, node)
    fields = op.output_fields() if output else op.input_fields()
    if slot >= len(fields):
        return None
    return op.c_field(fields[slot]), node_tensor(graph, node, slot, output)
