"""The structs of DML_GRAPH_DESC (DirectML.h, DML_TARGET_VERSION >= 0x2100): its nodes (an operator, and from
DML_FEATURE_LEVEL_6_2 constant data) and edges (input, intermediate, output), each a frozen model with C names
as aliases, a wrapper's Type derived from its Desc; and ``GraphStructure``, what the rules and the picture read
of the graph that holds them (``dmlpy.graph.desc.GraphDesc``).

One departure from C, where a node holds an ``IDMLOperator*``: the pure layer has no device, so a node holds the
operator's descriptor (``DML_OPERATOR_DESC``), and ``device.compile_graph`` creates the operators.
"""

from __future__ import annotations

import builtins
from typing import Annotated, Any, Protocol

from pydantic import ConfigDict, Discriminator, Field, Tag, model_validator

from dmlpy.enums import FeatureLevel, GraphEdgeType, GraphNodeType
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import CString, DmlModel, UInt32, UInt64
from dmlpy.ops import OperatorDesc
from dmlpy.ops._base import OperatorDescBase

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
    return c_name in value or snake_name(c_name) in value


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


def snake_name(c_name: str) -> str:
    """A C field name in snake_case: ``NodeCount`` -> ``node_count``."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in c_name).lstrip("_")


class GraphStructure(Protocol):
    """What the rules and the picture read of a DML_GRAPH_DESC (``dmlpy.graph.desc.GraphDesc``)."""

    @property
    def input_count(self) -> int: ...
    @property
    def output_count(self) -> int: ...
    @property
    def nodes(self) -> tuple[GraphNodeDesc, ...]: ...
    @property
    def input_edges(self) -> tuple[GraphEdgeDesc, ...]: ...
    @property
    def output_edges(self) -> tuple[GraphEdgeDesc, ...]: ...
    @property
    def intermediate_edges(self) -> tuple[GraphEdgeDesc, ...]: ...
    def node_label(self, index: int) -> str: ...
    def describe(self) -> str: ...
