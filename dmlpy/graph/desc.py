"""DML_GRAPH_DESC (DirectML.h, DML_TARGET_VERSION >= 0x2100): the nodes of a graph and the edges between them,
for IDMLDevice1::CompileGraph (docs/graphs.md lists its rules with their sources).

A graph is nodes (operators, and from DML_FEATURE_LEVEL_6_2 constant data) joined by edges: an input edge
carries graph input k to a node's input, an intermediate edge one node's output to another's input, an output
edge a node's output to graph output k. GraphDesc is a frozen model like every descriptor, C names as aliases,
counts derived when left out and checked when given. Its node and edge structs are ``dmlpy.graph.nodes``, its
structural rules ``dmlpy.graph.rules``, its picture ``dmlpy.graph.picture``; this module offers their names too.

:meth:`GraphDesc.analyse` applies every rule that needs no feature level and answers where each node input
comes from; :meth:`GraphDesc.validate_on` adds the feature level's rules (every node valid at it, constant nodes
from 6_2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from pydantic import Field, model_validator

from dmlpy.drawing import DrawnKernel, Picture
from dmlpy.enums import FeatureLevel, GraphEdgeType
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.graph.nodes import CONSTANT_LEVEL as CONSTANT_LEVEL
from dmlpy.graph.nodes import GRAPH, GRAPH_LEVEL, snake_name
from dmlpy.graph.nodes import ConstantDataGraphNodeDesc as ConstantDataGraphNodeDesc
from dmlpy.graph.nodes import GraphEdgeDesc as GraphEdgeDesc
from dmlpy.graph.nodes import GraphNodeDesc as GraphNodeDesc
from dmlpy.graph.nodes import InputGraphEdgeDesc as InputGraphEdgeDesc
from dmlpy.graph.nodes import IntermediateGraphEdgeDesc as IntermediateGraphEdgeDesc
from dmlpy.graph.nodes import OperatorGraphNodeDesc as OperatorGraphNodeDesc
from dmlpy.graph.nodes import OutputGraphEdgeDesc as OutputGraphEdgeDesc
from dmlpy.graph.picture import graph_desc_picture
from dmlpy.graph.rules import GraphAnalysis as GraphAnalysis
from dmlpy.graph.rules import Source as Source
from dmlpy.graph.rules import analyse
from dmlpy.model import DmlModel, UInt32
from dmlpy.ops._base import NO_CAPABILITIES, DeviceCapabilities, OperatorDescBase
from dmlpy.problems import quoted


def _count(data: dict[str, Any], count: str, items: str) -> None:
    """Fill ``count`` (C name) from the length of ``items`` when left out; refuse a count that disagrees."""
    snake = {"NodeCount": "node_count"}.get(count, "")
    given = data.get(count, data.get(snake_name(count), data.get(snake)))
    listed = data.get(items, data.get(snake_name(items)))
    length = len(listed) if _is_list(listed) else None
    if given is None and length is not None:
        data[count] = length
        data.pop(snake_name(count), None)
    elif given is not None and length is not None and given != length:
        raise ValueError(f"{count} is {given} but {items} holds {length}")


def _is_list(value: Any) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


class GraphDesc(DmlModel):
    """DML_GRAPH_DESC: the nodes of a graph and the edges between them, for IDMLDevice1::CompileGraph.

    Counts are derived from the lists when left out (InputCount and OutputCount from the highest index an edge
    names, plus one) and refused when they disagree with them. Edges may be given bare (their Type derived)."""

    input_count: UInt32 = Field(default=0, alias="InputCount")
    """InputCount: the graph inputs, bound in this order."""
    output_count: UInt32 = Field(default=0, alias="OutputCount")
    """OutputCount: the graph outputs, bound in this order."""
    node_count: UInt32 = Field(default=0, alias="NodeCount")
    """NodeCount."""
    nodes: tuple[GraphNodeDesc, ...] = Field(default=(), alias="Nodes")
    """Nodes (DML_GRAPH_NODE_DESC)."""
    input_edge_count: UInt32 = Field(default=0, alias="InputEdgeCount")
    """InputEdgeCount."""
    input_edges: tuple[GraphEdgeDesc, ...] = Field(default=(), alias="InputEdges")
    """InputEdges: edges of Type INPUT."""
    output_edge_count: UInt32 = Field(default=0, alias="OutputEdgeCount")
    """OutputEdgeCount."""
    output_edges: tuple[GraphEdgeDesc, ...] = Field(default=(), alias="OutputEdges")
    """OutputEdges: edges of Type OUTPUT."""
    intermediate_edge_count: UInt32 = Field(default=0, alias="IntermediateEdgeCount")
    """IntermediateEdgeCount."""
    intermediate_edges: tuple[GraphEdgeDesc, ...] = Field(default=(), alias="IntermediateEdges")
    """IntermediateEdges: edges of Type INTERMEDIATE."""

    @model_validator(mode="before")
    @classmethod
    def _derive_counts(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for count, items in (
            ("NodeCount", "Nodes"),
            ("InputEdgeCount", "InputEdges"),
            ("OutputEdgeCount", "OutputEdges"),
            ("IntermediateEdgeCount", "IntermediateEdges"),
        ):
            _count(data, count, items)
        for count, items, index in (
            ("InputCount", "InputEdges", "graph_input_index"),
            ("OutputCount", "OutputEdges", "graph_output_index"),
        ):
            if count in data or snake_name(count) in data:
                continue
            edges = data.get(items, data.get(snake_name(items)))
            if _is_list(edges):  # anything else is refused by the field's own check, in C terms
                data[count] = 1 + max((_edge_field(edge, index) for edge in edges), default=-1)
        return data

    @model_validator(mode="after")
    def _edges_in_their_lists(self) -> GraphDesc:
        for field, wanted in (
            ("input_edges", GraphEdgeType.INPUT),
            ("output_edges", GraphEdgeType.OUTPUT),
            ("intermediate_edges", GraphEdgeType.INTERMEDIATE),
        ):
            for index, edge in enumerate(getattr(self, field)):
                if edge.type != wanted:
                    c_field = type(self).model_fields[field].alias
                    raise ValueError(
                        f"{c_field}[{index}].Type is {edge.type.c_name}; {c_field} holds {wanted.c_name} edges"
                    )
        return self

    def describe(self) -> str:
        operators = [n for n in self.nodes if isinstance(n.desc, OperatorGraphNodeDesc)]
        return f"graph of {len(operators)} operator node{'s' if len(operators) != 1 else ''}"

    def node_label(self, index: int) -> str:
        """How messages name node ``index``: ``Nodes[1] (ELEMENT_WISE_ROUND "round")``."""
        node = self.nodes[index].desc
        what = node.op.operator_name() if isinstance(node, OperatorGraphNodeDesc) else "constant data"
        name = f" {quoted(node.name)}" if node.name else ""
        return f"Nodes[{index}] ({what}{name})"

    def picture(self, kernels: Sequence[DrawnKernel] = (), problem: str | None = None, title: str = "") -> Picture:
        """Graph inputs, nodes and graph outputs, each edge labelled with the tensor it carries; ``kernels`` (a
        compiled graph's) outlined; ``problem``, a refusal's message, drawn under it with the nodes and edges it
        names in red (dmlpy.graph.picture). Draws a refused graph too: an edge whose index is out of range is
        left out."""
        return graph_desc_picture(self, kernels, problem, title)

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def analyse(self) -> GraphAnalysis:
        """Every rule that needs no feature level (docs/graphs.md), and where each node input comes from."""
        return analyse(self)

    def validate_on(
        self,
        level: FeatureLevel,
        *,
        extensions: bool = False,
        capabilities: DeviceCapabilities = NO_CAPABILITIES,
    ) -> GraphAnalysis:
        """Raise UnsupportedError or InvalidArgumentError for the first rule the graph breaks on a device at
        ``level``; return its analysis when IDMLDevice1::CompileGraph would accept it."""
        if level < GRAPH_LEVEL:
            raise UnsupportedError(
                f"{GRAPH} needs IDMLDevice1::CompileGraph, which arrived at {GRAPH_LEVEL.c_name}; this device is at "
                f"{level.c_name}"
            )
        for index, graph_node in enumerate(self.nodes):
            if isinstance(graph_node.desc, ConstantDataGraphNodeDesc) and level < CONSTANT_LEVEL:
                raise UnsupportedError(
                    f"{GRAPH}.{self.node_label(index)}: constant data nodes (DML_GRAPH_NODE_TYPE_CONSTANT) arrived at "
                    f"{CONSTANT_LEVEL.c_name}; this device is at {level.c_name}. Make the constant a graph input"
                )
        analysis = self.analyse()
        valid: set[OperatorDescBase] = set()  # equal descriptors validate alike: each is checked once
        for index in analysis.order:
            node = self.nodes[index].desc
            assert isinstance(node, OperatorGraphNodeDesc)
            if node.op in valid:
                continue
            try:
                node.op.validate_on(level, extensions=extensions, capabilities=capabilities)
            except (InvalidArgumentError, UnsupportedError) as error:
                raise type(error)(f"{GRAPH}.{self.node_label(index)}: {error}") from error
            valid.add(node.op)
        return analysis


def _edge_field(edge: Any, name: str) -> int:
    """A field of a raw edge (a model, or a dict with or without the Type/Desc wrapper), for deriving counts."""
    desc = edge.desc if isinstance(edge, GraphEdgeDesc) else edge
    if isinstance(desc, dict):
        desc = desc.get("Desc", desc.get("desc", desc))
        c_name = "".join(part.capitalize() for part in name.split("_"))
        value = desc.get(c_name, desc.get(name)) if isinstance(desc, dict) else None
    else:
        value = getattr(desc, name, None)
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


__all__ = [
    "ConstantDataGraphNodeDesc",
    "GraphAnalysis",
    "GraphDesc",
    "GraphEdgeDesc",
    "GraphNodeDesc",
    "InputGraphEdgeDesc",
    "IntermediateGraphEdgeDesc",
    "OperatorGraphNodeDesc",
    "OutputGraphEdgeDesc",
    "Source",
]
