"""DML_GRAPH_DESC and its node and edge structs (DirectML.h, DML_TARGET_VERSION >= 0x2100), and the rules
IDMLDevice1::CompileGraph applies to them (docs/graphs.md lists each with its source).

A graph is nodes (operators, and from DML_FEATURE_LEVEL_6_2 constant data) joined by edges: an input edge
carries graph input k to a node's input, an intermediate edge one node's output to another's input, an output
edge a node's output to graph output k. The structs are frozen models like every descriptor, C names as
aliases, counts derived when left out and checked when given. One departure from C, where a node holds an
``IDMLOperator*``: the pure layer has no device, so a node holds the operator's descriptor
(``DML_OPERATOR_DESC``), and ``device.compile_graph`` creates the operators.

:meth:`GraphDesc.analyse` applies every rule that needs no feature level and answers where each node input
comes from; :meth:`GraphDesc.validate_on` adds the feature level's rules (every node valid at it, constant nodes
from 6_2). Messages name the node (index, operator, Name), the edge and the rule.
"""

from __future__ import annotations

import builtins
import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeGuard

from pydantic import ConfigDict, Discriminator, Field, Tag, model_validator

from dmlpy.drawing import DrawnEdge, DrawnKernel, DrawnNode, Picture, graph_picture
from dmlpy.dtypes import element_size
from dmlpy.enums import FeatureLevel, GraphEdgeType, GraphNodeType, TensorFlags
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.model import CString, DmlModel, UInt32, UInt64
from dmlpy.ops import OperatorDesc
from dmlpy.ops import validate as validate_operator
from dmlpy.ops._base import NO_CAPABILITIES, DeviceCapabilities, OperatorDescBase
from dmlpy.problems import quoted
from dmlpy.tensor import BufferTensorDesc

GRAPH = "DML_GRAPH_DESC"
GRAPH_LEVEL = FeatureLevel.FL_2_1
"""IDMLDevice1::CompileGraph arrived with DirectML 1.1, whose highest level is DML_FEATURE_LEVEL_2_1."""
CONSTANT_LEVEL = FeatureLevel.FL_6_2
"""DML_GRAPH_NODE_TYPE_CONSTANT and DML_CONSTANT_DATA_GRAPH_NODE_DESC: DML_TARGET_VERSION >= 0x6200."""


class OperatorGraphNodeDesc(DmlModel):
    """DML_OPERATOR_GRAPH_NODE_DESC: a node that runs one operator. ``Operator`` holds the operator's descriptor
    (DirectML holds the IDMLOperator created from it)."""

    operator: OperatorDesc = Field(alias="Operator")
    """Operator: the DML_OPERATOR_DESC of the operator this node runs (a bare DML_*_OPERATOR_DESC is accepted)."""
    name: CString | None = Field(default=None, alias="Name")
    """Name (may be null): for messages and debugging only."""

    @property
    def op(self) -> OperatorDescBase:
        """The operator's type-specific descriptor."""
        return self.operator.desc


class ConstantDataGraphNodeDesc(DmlModel):
    """DML_CONSTANT_DATA_GRAPH_NODE_DESC (from DML_FEATURE_LEVEL_6_2): a node whose one output is the bytes of
    ``Data``, read by the operator inputs it is connected to. JSON holds Data as base64."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    data: bytes = Field(alias="Data")
    """Data: the constant's bytes, laid out as the consuming tensor reads them."""
    data_size: UInt64 | None = Field(default=None, alias="DataSize")
    """DataSize: the length of Data in bytes; derived when left out."""
    name: CString | None = Field(default=None, alias="Name")
    """Name (may be null)."""

    @model_validator(mode="after")
    def _size_is_data_length(self) -> ConstantDataGraphNodeDesc:
        if self.data_size is None:
            object.__setattr__(self, "data_size", len(self.data))
        elif self.data_size != len(self.data):
            raise ValueError(f"DataSize is {self.data_size} but Data holds {len(self.data)} bytes")
        return self


def _has(value: dict[str, Any], c_name: str) -> bool:
    return c_name in value or _snake(c_name) in value


class _TypedDesc(dict[str, Any]):
    """A Desc given as JSON beside its wrapper's Type: the struct Type names, which the union's discriminator reads
    (a discriminator sees only the value, not the wrapper around it)."""

    def __init__(self, fields: dict[str, Any], kind: str) -> None:
        super().__init__(fields)
        self.kind = kind


def _typed(data: Any, types: builtins.type[GraphNodeType] | builtins.type[GraphEdgeType]) -> Any:
    """A wrapper's JSON with its Desc marked by the struct its Type names, when Type is one; else as given."""
    if not isinstance(data, dict):
        return data
    key = next((k for k in ("Desc", "desc") if k in data), None)
    given = data.get("Type", data.get("type"))
    if key is None or given is None or type(data[key]) is not dict:
        return data
    try:
        kind = types.parse(given)
    except (InvalidArgumentError, TypeError):
        return data  # the Type field's own check says what is wrong
    return {**data, key: _TypedDesc(data[key], f"Desc[{kind.name}]")} if kind.name != "INVALID" else data


def _node_kind(value: Any) -> str:
    """Which node struct a value is: the one its wrapper's Type names, else a model by its class, JSON by Data,
    which only a constant has. Choosing before validating reports a mistake inside a node once, in that struct's
    terms, not once per struct tried."""
    if isinstance(value, _TypedDesc):
        return value.kind
    constant = isinstance(value, ConstantDataGraphNodeDesc) or (isinstance(value, dict) and _has(value, "Data"))
    return "Desc[CONSTANT]" if constant else "Desc[OPERATOR]"


NodeDesc = Annotated[
    Annotated[OperatorGraphNodeDesc, Tag("Desc[OPERATOR]")]
    | Annotated[ConstantDataGraphNodeDesc, Tag("Desc[CONSTANT]")],
    Discriminator(_node_kind),
]
_NODE_TYPES: dict[builtins.type[DmlModel], GraphNodeType] = {
    OperatorGraphNodeDesc: GraphNodeType.OPERATOR,
    ConstantDataGraphNodeDesc: GraphNodeType.CONSTANT,
}


class GraphNodeDesc(DmlModel):
    """DML_GRAPH_NODE_DESC: the node's type and its type-specific descriptor. Type is derived from Desc when
    left out; a bare DML_OPERATOR_GRAPH_NODE_DESC or DML_CONSTANT_DATA_GRAPH_NODE_DESC is accepted."""

    type: GraphNodeType | None = Field(default=None, alias="Type")
    """Type (DML_GRAPH_NODE_TYPE): OPERATOR or CONSTANT."""
    desc: NodeDesc = Field(alias="Desc")
    """Desc: a DML_OPERATOR_GRAPH_NODE_DESC for OPERATOR, a DML_CONSTANT_DATA_GRAPH_NODE_DESC for CONSTANT."""

    @model_validator(mode="before")
    @classmethod
    def _bare_node(cls, data: Any) -> Any:
        if isinstance(data, OperatorGraphNodeDesc | ConstantDataGraphNodeDesc):
            return {"desc": data}
        return _typed(data, GraphNodeType)

    @model_validator(mode="after")
    def _type_matches_desc(self) -> GraphNodeDesc:
        wanted = _NODE_TYPES[builtins.type(self.desc)]
        if self.type is None:
            object.__setattr__(self, "type", wanted)
        elif self.type != wanted:
            raise ValueError(f"Type is {self.type.c_name} but Desc is a {self.desc.struct_name()}")
        return self

    @property
    def name(self) -> str | None:
        return self.desc.name


class InputGraphEdgeDesc(DmlModel):
    """DML_INPUT_GRAPH_EDGE_DESC: graph input GraphInputIndex feeds input ToNodeInputIndex of node ToNodeIndex."""

    graph_input_index: UInt32 = Field(alias="GraphInputIndex")
    """GraphInputIndex."""
    to_node_index: UInt32 = Field(alias="ToNodeIndex")
    """ToNodeIndex."""
    to_node_input_index: UInt32 = Field(alias="ToNodeInputIndex")
    """ToNodeInputIndex: the input in the operator's binding order (InputTensor 0, ScaleTensor 1, ...)."""
    name: CString | None = Field(default=None, alias="Name")
    """Name (may be null)."""


class OutputGraphEdgeDesc(DmlModel):
    """DML_OUTPUT_GRAPH_EDGE_DESC: output FromNodeOutputIndex of node FromNodeIndex is graph output
    GraphOutputIndex."""

    from_node_index: UInt32 = Field(alias="FromNodeIndex")
    """FromNodeIndex."""
    from_node_output_index: UInt32 = Field(alias="FromNodeOutputIndex")
    """FromNodeOutputIndex: the output in the operator's binding order."""
    graph_output_index: UInt32 = Field(alias="GraphOutputIndex")
    """GraphOutputIndex."""
    name: CString | None = Field(default=None, alias="Name")
    """Name (may be null)."""


class IntermediateGraphEdgeDesc(DmlModel):
    """DML_INTERMEDIATE_GRAPH_EDGE_DESC: output FromNodeOutputIndex of node FromNodeIndex feeds input
    ToNodeInputIndex of node ToNodeIndex."""

    from_node_index: UInt32 = Field(alias="FromNodeIndex")
    """FromNodeIndex."""
    from_node_output_index: UInt32 = Field(alias="FromNodeOutputIndex")
    """FromNodeOutputIndex."""
    to_node_index: UInt32 = Field(alias="ToNodeIndex")
    """ToNodeIndex."""
    to_node_input_index: UInt32 = Field(alias="ToNodeInputIndex")
    """ToNodeInputIndex."""
    name: CString | None = Field(default=None, alias="Name")
    """Name (may be null)."""


def _edge_kind(value: Any) -> str:
    """Which edge struct a value is: the one its wrapper's Type names, else a model by its class, JSON by the
    indices it names (GraphInputIndex or a ToNodeIndex alone: INPUT; GraphOutputIndex or a FromNodeIndex alone:
    OUTPUT; else INTERMEDIATE)."""
    if isinstance(value, _TypedDesc):
        return value.kind
    if not isinstance(value, dict):
        kinds: dict[builtins.type[Any], str] = {InputGraphEdgeDesc: "INPUT", OutputGraphEdgeDesc: "OUTPUT"}
        return f"Desc[{kinds.get(type(value), 'INTERMEDIATE')}]"
    if _has(value, "GraphInputIndex") or (_has(value, "ToNodeIndex") and not _has(value, "FromNodeIndex")):
        return "Desc[INPUT]"
    if _has(value, "GraphOutputIndex") or (_has(value, "FromNodeIndex") and not _has(value, "ToNodeIndex")):
        return "Desc[OUTPUT]"
    return "Desc[INTERMEDIATE]"


EdgeDesc = Annotated[
    Annotated[InputGraphEdgeDesc, Tag("Desc[INPUT]")]
    | Annotated[OutputGraphEdgeDesc, Tag("Desc[OUTPUT]")]
    | Annotated[IntermediateGraphEdgeDesc, Tag("Desc[INTERMEDIATE]")],
    Discriminator(_edge_kind),
]
_EDGE_TYPES: dict[builtins.type[DmlModel], GraphEdgeType] = {
    InputGraphEdgeDesc: GraphEdgeType.INPUT,
    OutputGraphEdgeDesc: GraphEdgeType.OUTPUT,
    IntermediateGraphEdgeDesc: GraphEdgeType.INTERMEDIATE,
}


class GraphEdgeDesc(DmlModel):
    """DML_GRAPH_EDGE_DESC: the edge's type and its type-specific descriptor. Type is derived from Desc when left
    out; a bare DML_*_GRAPH_EDGE_DESC is accepted."""

    type: GraphEdgeType | None = Field(default=None, alias="Type")
    """Type (DML_GRAPH_EDGE_TYPE): INPUT, OUTPUT or INTERMEDIATE."""
    desc: EdgeDesc = Field(alias="Desc")
    """Desc: the DML_INPUT_/DML_OUTPUT_/DML_INTERMEDIATE_GRAPH_EDGE_DESC for Type."""

    @model_validator(mode="before")
    @classmethod
    def _bare_edge(cls, data: Any) -> Any:
        return {"desc": data} if isinstance(data, tuple(_EDGE_TYPES)) else _typed(data, GraphEdgeType)

    @model_validator(mode="after")
    def _type_matches_desc(self) -> GraphEdgeDesc:
        wanted = _EDGE_TYPES[builtins.type(self.desc)]
        if self.type is None:
            object.__setattr__(self, "type", wanted)
        elif self.type != wanted:
            raise ValueError(f"Type is {self.type.c_name} but Desc is a {self.desc.struct_name()}")
        return self


def _count(data: dict[str, Any], count: str, items: str) -> None:
    """Fill ``count`` (C name) from the length of ``items`` when left out; refuse a count that disagrees."""
    snake = {"NodeCount": "node_count"}.get(count, "")
    given = data.get(count, data.get(_snake(count), data.get(snake)))
    listed = data.get(items, data.get(_snake(items)))
    length = len(listed) if _is_list(listed) else None
    if given is None and length is not None:
        data[count] = length
        data.pop(_snake(count), None)
    elif given is not None and length is not None and given != length:
        raise ValueError(f"{count} is {given} but {items} holds {length}")


def _is_list(value: Any) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _snake(c_name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in c_name).lstrip("_")


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
            if count in data or _snake(count) in data:
                continue
            edges = data.get(items, data.get(_snake(items)))
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
        names in red (dmlpy.drawing.graph). Draws a refused graph too: an edge whose index is out of range is
        left out."""
        named = set(re.findall(r"\b((?:Nodes|InputEdges|OutputEdges|IntermediateEdges)\[\d+\])", problem or ""))
        nodes = []
        for index, graph_node in enumerate(self.nodes):
            node = graph_node.desc
            constant = isinstance(node, ConstantDataGraphNodeDesc)
            title_words = "constant data" if constant else node.op.operator_name()  # type: ignore[union-attr]
            subtitle = f"{quoted(node.name)} (Nodes[{index}])" if node.name else f"Nodes[{index}]"
            inputs = () if constant else tuple(node.op.c_field(f) for f in node.op.INPUTS)  # type: ignore[union-attr]
            flagged = f"Nodes[{index}]" in named
            nodes.append(DrawnNode(title_words, subtitle, inputs, constant=constant, flagged=flagged))
        edges = []
        for list_name, kind, listed in (
            ("InputEdges", "input", self.input_edges),
            ("IntermediateEdges", "intermediate", self.intermediate_edges),
            ("OutputEdges", "output", self.output_edges),
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
                    self._port(e.from_node_index, e.from_node_output_index, output=True)
                    if not isinstance(e, InputGraphEdgeDesc)
                    else None
                )
                fed = (
                    self._port(e.to_node_index, e.to_node_input_index, output=False)
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
            title or f"{GRAPH}: {self.describe()}, {self.input_count} input(s), {self.output_count} output(s)",
            self.input_count,
            self.output_count,
            nodes,
            edges,
            kernels=kernels,
            problem=problem,
        )

    def _port(self, node: int, slot: int, *, output: bool) -> tuple[str, BufferTensorDesc | None] | None:
        """A node's input or output field and its tensor, or None where the indices lead nowhere (a refused
        graph) or to a constant node."""
        if node >= len(self.nodes) or not isinstance(self.nodes[node].desc, OperatorGraphNodeDesc):
            return None
        op = _operator(self, node)
        fields = op.OUTPUTS if output else op.INPUTS
        if slot >= len(fields):
            return None
        return op.c_field(fields[slot]), _tensor(self, node, slot, output)

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def analyse(self) -> GraphAnalysis:
        """Every rule that needs no feature level (docs/graphs.md), and where each node input comes from."""
        return _analyse(self)

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


def validate(desc: GraphDesc | OperatorDesc | OperatorDescBase, feature_level: FeatureLevel | int | str) -> None:
    """``dml.validate``: check an operator descriptor (as IDMLDevice::CreateOperator would) or a DML_GRAPH_DESC
    (as IDMLDevice1::CompileGraph would) against a feature level, without a device; None when valid."""
    if isinstance(desc, GraphDesc):
        desc.validate_on(FeatureLevel.parse(feature_level))
        return
    validate_operator(desc, feature_level)


# ------------------------------------------------------------------------------------------------ analysis
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


def _tensor(graph: GraphDesc, node: int, slot: int, output: bool) -> BufferTensorDesc | None:
    op = _operator(graph, node)
    tensors = op.output_tensors() if output else op.input_tensors()
    tensor = tensors[slot]
    return tensor.desc if tensor is not None else None


def _operator(graph: GraphDesc, node: int) -> OperatorDescBase:
    desc = graph.nodes[node].desc
    assert isinstance(desc, OperatorGraphNodeDesc)
    return desc.op


def _slot_name(graph: GraphDesc, node: int, slot: int, output: bool) -> str:
    op = _operator(graph, node)
    field = (op.OUTPUTS if output else op.INPUTS)[slot]
    return op.c_field(field)


def _check_node_index(graph: GraphDesc, where: str, field: str, index: int, *, operator: bool) -> None:
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


def _check_slot(graph: GraphDesc, where: str, field: str, node: int, slot: int, *, output: bool) -> None:
    op = _operator(graph, node)
    names = op.OUTPUTS if output else op.INPUTS
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


def _analyse(graph: GraphDesc) -> GraphAnalysis:
    if not graph.nodes:
        raise InvalidArgumentError(f"{GRAPH}.NodeCount is 0; a graph has at least one node")
    sources: dict[tuple[int, int], Source] = {}
    feeds: dict[tuple[int, int], str] = {}  # (node, input) -> the edge that feeds it, for messages

    def connect(where: str, node: int, slot: int, source: Source) -> None:
        field = "ToNodeInputIndex"
        _check_slot(graph, where, field, node, slot, output=False)
        if _tensor(graph, node, slot, output=False) is None:
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
        op = _operator(graph, node)
        for slot, tensor in enumerate(op.input_tensors()):
            if tensor is not None and (node, slot) not in sources:
                raise InvalidArgumentError(
                    f"{GRAPH}.{graph.node_label(node)}.{_slot_name(graph, node, slot, False)} is connected to nothing; "
                    "every tensor an operator's descriptor has is fed by exactly one input or intermediate edge"
                )

    for (node, slot), source in sources.items():
        owned = _tensor(graph, node, slot, output=False)
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
    output_descs = tuple(_tensor(graph, node, slot, output=True) for node, slot in output_sources)
    return GraphAnalysis(
        order=order,
        sources=sources,
        input_descs=input_descs,
        outputs=output_sources,
        output_descs=tuple(d for d in output_descs if d is not None),
        consumers={source: tuple(targets) for source, targets in consumers.items()},
    )


def _check_intermediate(graph: GraphDesc, where: str, source: Source, node: int, slot: int) -> None:
    """The two ends of an intermediate edge describe one tensor: the same TotalTensorSizeInBytes (DirectML's
    rule), and dmlpy's: the same DataType, Sizes and Strides."""
    if source.kind != "node":
        return
    produced = _tensor(graph, source.index, source.output, output=True)
    consumed = _tensor(graph, node, slot, output=False)
    assert produced is not None and consumed is not None
    for field, given, wanted in (
        ("TotalTensorSizeInBytes", consumed.total_tensor_size_in_bytes, produced.total_tensor_size_in_bytes),
        ("DataType", consumed.data_type, produced.data_type),
        ("Sizes", consumed.sizes, produced.sizes),
        ("Strides", consumed.effective_strides, produced.effective_strides),
    ):
        if given != wanted:
            why = (
                "; dmlpy asks for the same Strides too, so each element reaches its consumer at the coordinates it was "
                "computed at, fused or not"
                if field == "Strides"
                else ""
            )
            from_end = f"{graph.node_label(source.index)}.{_slot_name(graph, source.index, source.output, True)}"
            to_end = f"{graph.node_label(node)}.{_slot_name(graph, node, slot, False)}"
            raise InvalidArgumentError(
                f"{where} joins {from_end} to {to_end}, whose {field} is {_shown(given)}; it must equal the producing "
                f"tensor's {field} ({_shown(wanted)}): both ends of an intermediate edge describe one tensor{why}"
            )


def _shown(value: Any) -> str:
    return value.name if hasattr(value, "name") else str(tuple(value) if isinstance(value, Sequence) else value)


def _graph_input_descs(
    graph: GraphDesc, consumers: dict[Source, list[tuple[int, int]]]
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
        first = _tensor(graph, first_node, first_slot, output=False)
        assert first is not None
        for node, slot in others:
            other = _tensor(graph, node, slot, output=False)
            assert other is not None
            difference = _first_difference(first, other)
            if difference is not None:
                field, one, two = difference
                raise InvalidArgumentError(
                    f"{GRAPH}: graph input {graph_input} feeds {graph.node_label(first_node)}."
                    f"{_slot_name(graph, first_node, first_slot, False)} ({field} {one}) and "
                    f"{graph.node_label(node)}.{_slot_name(graph, node, slot, False)} ({field} {two}); a graph "
                    "input is one tensor, bound once, so every node input it feeds must describe it alike"
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


def _check_constants(graph: GraphDesc, consumers: dict[Source, list[tuple[int, int]]]) -> None:
    """A constant's bytes are what each consuming tensor reads: from the first element's byte to the last's, at
    most its TotalTensorSizeInBytes."""
    for index, node in enumerate(graph.nodes):
        data = node.desc
        if not isinstance(data, ConstantDataGraphNodeDesc):
            continue
        for consumer, slot in consumers.get(Source("constant", index), ()):
            tensor = _tensor(graph, consumer, slot, output=False)
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
    return (span + 1) * element_size(tensor.data_type)


def _topological_order(
    graph: GraphDesc, operators: list[int], sources: dict[tuple[int, int], Source]
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
    "validate",
]
