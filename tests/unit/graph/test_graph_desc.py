"""DML_GRAPH_DESC without a device: the node and edge structs, their JSON, every CompileGraph rule of
dmlpy/graph/ (one graph it accepts and one it refuses, with the message), the analysis, and the dml.Graph builder
built at a feature level.

The expected values are written out here: DirectML.h's enum numbers, the edges of each graph, the bytes of a
constant, the messages' key parts. Nothing here needs OpenCL.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.graph.desc import Source

FL = dml.FeatureLevel
T = dml.TensorDataType
GRAPH_LEVELS = [level for level in FL if level >= FL.FL_2_1]
PRE_GRAPH_LEVELS = [level for level in FL if level < FL.FL_2_1]

SIZES = (1, 1, 2, 4)
BROADCAST = (0, 0, 0, 0)
INT8 = dml.BufferTensorDesc(data_type="INT8", sizes=SIZES)
UINT8 = dml.BufferTensorDesc(data_type="UINT8", sizes=SIZES)
FLOAT = dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES)
SCALE = dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES, strides=BROADCAST)
ZERO_POINT = dml.BufferTensorDesc(data_type="UINT8", sizes=SIZES, strides=BROADCAST)
"""A broadcast UINT8 zero point: it reads 1 byte, and its TotalTensorSizeInBytes is 4 (rounded up to a DWORD)."""


# ------------------------------------------------------------------------------------------------------ helpers


def round_node(
    name: str | None = "r",
    input_tensor: dml.BufferTensorDesc = FLOAT,
    output_tensor: dml.BufferTensorDesc | None = None,
) -> dml.OperatorGraphNodeDesc:
    op = dml.ElementWiseRoundOperatorDesc(
        input_tensor=input_tensor, output_tensor=output_tensor or input_tensor, rounding_mode="TOWARD_ZERO"
    )
    return dml.OperatorGraphNodeDesc(operator=op, name=name)


def dequantize_node(
    name: str | None = "d",
    input_tensor: dml.BufferTensorDesc = INT8,
    zero_point: dml.BufferTensorDesc | None = None,
) -> dml.OperatorGraphNodeDesc:
    op = dml.ElementWiseDequantizeLinearOperatorDesc(
        input_tensor=input_tensor, scale_tensor=SCALE, zero_point_tensor=zero_point, output_tensor=FLOAT
    )
    return dml.OperatorGraphNodeDesc(operator=op, name=name)


def quantize_node(name: str | None = "q") -> dml.OperatorGraphNodeDesc:
    op = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=FLOAT, scale_tensor=SCALE, zero_point_tensor=None, output_tensor=UINT8
    )
    return dml.OperatorGraphNodeDesc(operator=op, name=name)


def zero_point_constant(size: int = 1) -> dml.ConstantDataGraphNodeDesc:
    return dml.ConstantDataGraphNodeDesc(data=bytes(range(7, 7 + size)), name="zp")


def inp(graph_input: int, node: int, slot: int) -> dml.InputGraphEdgeDesc:
    return dml.InputGraphEdgeDesc(graph_input_index=graph_input, to_node_index=node, to_node_input_index=slot)


def out(node: int, output: int, graph_output: int) -> dml.OutputGraphEdgeDesc:
    return dml.OutputGraphEdgeDesc(from_node_index=node, from_node_output_index=output, graph_output_index=graph_output)


def mid(from_node: int, output: int, to_node: int, slot: int) -> dml.IntermediateGraphEdgeDesc:
    return dml.IntermediateGraphEdgeDesc(
        from_node_index=from_node, from_node_output_index=output, to_node_index=to_node, to_node_input_index=slot
    )


def pipeline(**changes: Any) -> dml.GraphDesc:
    """INT8 x (input 0) -> DequantizeLinear "d" (scale: input 1) -> Round "r" -> QuantizeLinear "q" (scale: input 1)
    -> UINT8 output 0; no zero points (optional from 6_2). ``changes`` replace GraphDesc fields."""
    fields: dict[str, Any] = {
        "nodes": [dequantize_node(), round_node(), quantize_node()],
        "input_edges": [inp(0, 0, 0), inp(1, 0, 1), inp(1, 2, 1)],
        "intermediate_edges": [mid(0, 0, 1, 0), mid(1, 0, 2, 0)],
        "output_edges": [out(2, 0, 0)],
    }
    fields.update(changes)
    return dml.GraphDesc(**fields)


def one_round(**changes: Any) -> dml.GraphDesc:
    """Input 0 -> Round "r" -> output 0."""
    fields: dict[str, Any] = {
        "nodes": [round_node()],
        "input_edges": [inp(0, 0, 0)],
        "output_edges": [out(0, 0, 0)],
    }
    fields.update(changes)
    return dml.GraphDesc(**fields)


def two_rounds(second: dml.OperatorGraphNodeDesc, **changes: Any) -> dml.GraphDesc:
    """Input 0 -> Round "r" -> ``second`` -> output 0."""
    fields: dict[str, Any] = {
        "nodes": [round_node(), second],
        "input_edges": [inp(0, 0, 0)],
        "intermediate_edges": [mid(0, 0, 1, 0)],
        "output_edges": [out(1, 0, 0)],
    }
    fields.update(changes)
    return dml.GraphDesc(**fields)


def with_constant(size: int = 1, **changes: Any) -> dml.GraphDesc:
    """UINT8 input 0 and FLOAT32 scale input 1 -> DequantizeLinear "d", whose zero point is constant node 1 "zp"
    of ``size`` bytes -> output 0."""
    fields: dict[str, Any] = {
        "nodes": [dequantize_node(input_tensor=UINT8, zero_point=ZERO_POINT), zero_point_constant(size)],
        "input_edges": [inp(0, 0, 0), inp(1, 0, 1)],
        "intermediate_edges": [mid(1, 0, 0, 2)],
        "output_edges": [out(0, 0, 0)],
    }
    fields.update(changes)
    return dml.GraphDesc(**fields)


def refusal(graph: dml.GraphDesc, level: FL = FL.FL_6_2, error: type[dml.DmlError] = dml.InvalidArgumentError) -> str:
    """The message ``graph.validate_on(level)`` raises, checking the error's type."""
    with pytest.raises(error) as info:
        graph.validate_on(level)
    assert info.type is error
    return str(info.value)


def construction_error(build: Any) -> str:
    with pytest.raises(dml.InvalidArgumentError) as info:
        build()
    return str(info.value)


ROUND_R = 'Nodes[0] (ELEMENT_WISE_ROUND "r")'


# ------------------------------------------------------------------------------------------------- enums


def test_graph_node_type_values_are_directml_h() -> None:
    assert {m.name: int(m) for m in dml.GraphNodeType} == {"INVALID": 0, "OPERATOR": 1, "CONSTANT": 2}


def test_graph_edge_type_values_are_directml_h() -> None:
    assert {m.name: int(m) for m in dml.GraphEdgeType} == {"INVALID": 0, "INPUT": 1, "OUTPUT": 2, "INTERMEDIATE": 3}


@pytest.mark.parametrize(
    ("enum", "c_name", "member"),
    [
        (dml.GraphEdgeType, "DML_GRAPH_EDGE_TYPE_INPUT", dml.GraphEdgeType.INPUT),
        (dml.GraphEdgeType, "DML_GRAPH_EDGE_TYPE_INTERMEDIATE", dml.GraphEdgeType.INTERMEDIATE),
        (dml.GraphNodeType, "DML_GRAPH_NODE_TYPE_CONSTANT", dml.GraphNodeType.CONSTANT),
        (dml.GraphNodeType, "DML_GRAPH_NODE_TYPE_OPERATOR", dml.GraphNodeType.OPERATOR),
    ],
)
def test_graph_enums_parse_from_c_names(enum: Any, c_name: str, member: Any) -> None:
    assert enum.parse(c_name) is member
    assert member.c_name == c_name


def test_edge_type_given_as_c_name_is_read() -> None:
    edge = dml.GraphEdgeDesc(type="DML_GRAPH_EDGE_TYPE_INPUT", desc=inp(0, 0, 0))
    assert edge.type is dml.GraphEdgeType.INPUT


# ------------------------------------------------------------------------------------------------- construction


def test_counts_left_out_are_derived_from_the_lists() -> None:
    graph = pipeline()
    assert graph.node_count == 3
    assert graph.input_edge_count == 3
    assert graph.intermediate_edge_count == 2
    assert graph.output_edge_count == 1
    assert graph.input_count == 2  # highest GraphInputIndex (1) + 1
    assert graph.output_count == 1


def test_input_and_output_counts_come_from_the_highest_index_not_the_edge_count() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node("a"), round_node("b")],
        input_edges=[inp(3, 0, 0), inp(0, 1, 0)],
        output_edges=[out(0, 0, 4)],
    )
    assert (graph.input_count, graph.output_count) == (4, 5)
    assert graph.input_edge_count == 2 and graph.output_edge_count == 1


def test_counts_given_and_matching_are_kept() -> None:
    graph = pipeline(
        NodeCount=3, InputEdgeCount=3, intermediate_edge_count=2, output_edge_count=1, InputCount=2, output_count=1
    )
    assert graph == pipeline()


def test_an_empty_graph_has_zero_counts() -> None:
    graph = dml.GraphDesc()
    assert (graph.node_count, graph.input_count, graph.output_count, graph.input_edge_count) == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("count", "items", "length"),
    [
        ("NodeCount", "Nodes", 3),
        ("node_count", "Nodes", 3),
        ("InputEdgeCount", "InputEdges", 3),
        ("OutputEdgeCount", "OutputEdges", 1),
        ("IntermediateEdgeCount", "IntermediateEdges", 2),
        ("intermediate_edge_count", "IntermediateEdges", 2),
    ],
)
def test_a_count_that_disagrees_with_its_list_is_refused(count: str, items: str, length: int) -> None:
    message = construction_error(lambda: pipeline(**{count: length + 1}))
    c_count = "".join(part.capitalize() for part in count.split("_")) if "_" in count else count
    assert f"{c_count} is {length + 1} but {items} holds {length}" in message
    assert "DML_GRAPH_DESC" in message


def test_node_count_message_reads_as_the_brief_says() -> None:
    message = construction_error(
        lambda: dml.GraphDesc(node_count=3, nodes=[round_node("a"), round_node("b")], input_edges=[inp(0, 0, 0)])
    )
    assert "NodeCount is 3 but Nodes holds 2" in message


def test_bare_node_descs_are_wrapped_with_their_type() -> None:
    graph = with_constant()
    assert [type(node) for node in graph.nodes] == [dml.GraphNodeDesc, dml.GraphNodeDesc]
    assert [node.type for node in graph.nodes] == [dml.GraphNodeType.OPERATOR, dml.GraphNodeType.CONSTANT]
    assert graph.nodes[1].desc == zero_point_constant()
    assert graph.nodes[0].name == "d" and graph.nodes[1].name == "zp"


def test_bare_edge_descs_are_wrapped_with_their_type() -> None:
    graph = pipeline()
    assert {edge.type for edge in graph.input_edges} == {dml.GraphEdgeType.INPUT}
    assert {edge.type for edge in graph.intermediate_edges} == {dml.GraphEdgeType.INTERMEDIATE}
    assert {edge.type for edge in graph.output_edges} == {dml.GraphEdgeType.OUTPUT}
    assert graph.input_edges[2].desc == inp(1, 2, 1)


def test_wrapped_and_bare_descs_make_the_same_graph() -> None:
    wrapped = pipeline(
        nodes=[dml.GraphNodeDesc(type="OPERATOR", desc=n) for n in (dequantize_node(), round_node(), quantize_node())],
        input_edges=[dml.GraphEdgeDesc(type=dml.GraphEdgeType.INPUT, desc=e.desc) for e in pipeline().input_edges],
        output_edges=[dml.GraphEdgeDesc(desc=out(2, 0, 0))],
    )
    assert wrapped == pipeline()


def test_node_type_disagreeing_with_desc_is_refused() -> None:
    message = construction_error(lambda: dml.GraphNodeDesc(type="CONSTANT", desc=round_node()))
    assert "Type is DML_GRAPH_NODE_TYPE_CONSTANT but Desc is a DML_OPERATOR_GRAPH_NODE_DESC" in message
    message = construction_error(lambda: dml.GraphNodeDesc(type="OPERATOR", desc=zero_point_constant()))
    assert "Type is DML_GRAPH_NODE_TYPE_OPERATOR but Desc is a DML_CONSTANT_DATA_GRAPH_NODE_DESC" in message


def test_edge_type_disagreeing_with_desc_is_refused() -> None:
    message = construction_error(lambda: dml.GraphEdgeDesc(type="DML_GRAPH_EDGE_TYPE_OUTPUT", desc=inp(0, 0, 0)))
    assert "Type is DML_GRAPH_EDGE_TYPE_OUTPUT but Desc is a DML_INPUT_GRAPH_EDGE_DESC" in message


@pytest.mark.parametrize(
    ("field", "edge", "message"),
    [
        (
            "input_edges",
            mid(0, 0, 1, 0),
            "InputEdges[0].Type is DML_GRAPH_EDGE_TYPE_INTERMEDIATE; InputEdges holds DML_GRAPH_EDGE_TYPE_INPUT edges",
        ),
        (
            "output_edges",
            inp(0, 0, 0),
            "OutputEdges[0].Type is DML_GRAPH_EDGE_TYPE_INPUT; OutputEdges holds DML_GRAPH_EDGE_TYPE_OUTPUT edges",
        ),
        (
            "intermediate_edges",
            out(0, 0, 0),
            "IntermediateEdges[0].Type is DML_GRAPH_EDGE_TYPE_OUTPUT; IntermediateEdges holds "
            "DML_GRAPH_EDGE_TYPE_INTERMEDIATE edges",
        ),
    ],
    ids=["intermediate-in-inputs", "input-in-outputs", "output-in-intermediates"],
)
def test_an_edge_in_the_wrong_list_is_refused(field: str, edge: Any, message: str) -> None:
    assert message in construction_error(lambda: pipeline(**{field: [edge]}))


def test_constant_data_size_is_derived_and_checked() -> None:
    assert dml.ConstantDataGraphNodeDesc(data=b"\x01\x02\x03").data_size == 3
    assert dml.ConstantDataGraphNodeDesc(data=b"\x01\x02\x03", data_size=3).data_size == 3
    message = construction_error(lambda: dml.ConstantDataGraphNodeDesc(data=b"ab", data_size=3))
    assert "DataSize is 3 but Data holds 2 bytes" in message


def test_graph_descs_are_frozen_and_hashable() -> None:
    graph = pipeline()
    assert hash(graph) == hash(pipeline())
    assert graph != with_constant()
    with pytest.raises(dml.InvalidArgumentError, match=r"^DML_GRAPH_DESC\.Nodes cannot be assigned: .*frozen"):
        graph.nodes = ()  # type: ignore[misc]


# ------------------------------------------------------------------------------------------------- JSON


@pytest.mark.parametrize("build", [pipeline, with_constant], ids=["dequantize-round-quantize", "constant-node"])
def test_json_round_trip_gives_an_equal_graph(build: Any) -> None:
    graph = build()
    text = graph.model_dump_json(by_alias=True)
    back = dml.GraphDesc.model_validate_json(text)
    assert back == graph
    assert hash(back) == hash(graph)
    assert back.validate_on(FL.FL_6_2).order == graph.validate_on(FL.FL_6_2).order


def test_json_dump_uses_c_names() -> None:
    data = json.loads(pipeline().model_dump_json(by_alias=True))
    assert list(data) == [
        "InputCount",
        "OutputCount",
        "NodeCount",
        "Nodes",
        "InputEdgeCount",
        "InputEdges",
        "OutputEdgeCount",
        "OutputEdges",
        "IntermediateEdgeCount",
        "IntermediateEdges",
    ]
    assert data["InputEdges"][1] == {
        "Type": 1,
        "Desc": {"GraphInputIndex": 1, "ToNodeIndex": 0, "ToNodeInputIndex": 1, "Name": None},
    }
    assert data["IntermediateEdges"][0]["Desc"] == {
        "FromNodeIndex": 0,
        "FromNodeOutputIndex": 0,
        "ToNodeIndex": 1,
        "ToNodeInputIndex": 0,
        "Name": None,
    }
    assert data["OutputEdges"][0]["Desc"]["GraphOutputIndex"] == 0
    node = data["Nodes"][1]
    assert node["Type"] == 1
    assert set(node["Desc"]) == {"Operator", "Name"}
    assert node["Desc"]["Name"] == "r"
    assert node["Desc"]["Operator"]["Desc"]["RoundingMode"] == 1  # TOWARD_ZERO


def test_constant_data_is_base64_in_json() -> None:
    data = bytes([7])  # zero_point_constant(1)
    text = with_constant().model_dump_json(by_alias=True)
    constant = json.loads(text)["Nodes"][1]
    assert constant == {
        "Type": 2,
        "Desc": {"Data": base64.b64encode(data).decode("ascii"), "DataSize": 1, "Name": "zp"},
    }
    assert '"Data":"Bw=="' in text


def test_json_written_by_hand_with_c_names_and_no_counts() -> None:
    tensor = {"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "Sizes": [1, 1, 2, 4]}
    text = json.dumps(
        {
            "Nodes": [
                {
                    "Type": "DML_GRAPH_NODE_TYPE_OPERATOR",
                    "Desc": {
                        "Operator": {
                            "Type": "DML_OPERATOR_ELEMENT_WISE_ROUND",
                            "Desc": {"InputTensor": tensor, "OutputTensor": tensor, "RoundingMode": "TOWARD_ZERO"},
                        },
                        "Name": "r",
                    },
                }
            ],
            "InputEdges": [
                {
                    "Type": "DML_GRAPH_EDGE_TYPE_INPUT",
                    "Desc": {"GraphInputIndex": 0, "ToNodeIndex": 0, "ToNodeInputIndex": 0},
                }
            ],
            "OutputEdges": [
                {
                    "Type": "DML_GRAPH_EDGE_TYPE_OUTPUT",
                    "Desc": {"FromNodeIndex": 0, "FromNodeOutputIndex": 0, "GraphOutputIndex": 0},
                }
            ],
        }
    )
    graph = dml.GraphDesc.model_validate_json(text)
    assert graph == one_round()
    assert (graph.input_count, graph.output_count, graph.node_count) == (1, 1, 1)


# ------------------------------------------------------------------------------------------------- the rules


def test_the_pipeline_is_valid_at_6_2_and_dml_validate_says_so() -> None:
    assert dml.validate(pipeline(), FL.FL_6_2) is None
    assert dml.validate(pipeline(), "6_2") is None
    assert dml.validate(with_constant(), FL.FL_6_2) is None


@pytest.mark.parametrize("level", GRAPH_LEVELS, ids=lambda level: level.name)
def test_graphs_are_accepted_from_2_1(level: FL) -> None:
    assert one_round().validate_on(level).order == (0,)


@pytest.mark.parametrize("level", PRE_GRAPH_LEVELS, ids=lambda level: level.name)
def test_graphs_are_refused_below_2_1(level: FL) -> None:
    message = refusal(one_round(), level, dml.UnsupportedError)
    assert "DML_GRAPH_DESC needs IDMLDevice1::CompileGraph" in message
    assert "DML_FEATURE_LEVEL_2_1" in message
    assert f"this device is at {level.c_name}" in message


@pytest.mark.parametrize("level", [level for level in FL if level >= FL.FL_6_2], ids=lambda level: level.name)
def test_constant_nodes_are_accepted_from_6_2(level: FL) -> None:
    assert with_constant().validate_on(level).order == (0,)


@pytest.mark.parametrize("level", [level for level in GRAPH_LEVELS if level < FL.FL_6_2], ids=lambda level: level.name)
def test_constant_nodes_are_refused_below_6_2(level: FL) -> None:
    message = refusal(with_constant(), level, dml.UnsupportedError)
    assert 'DML_GRAPH_DESC.Nodes[1] (constant data "zp"): constant data nodes' in message
    assert "DML_GRAPH_NODE_TYPE_CONSTANT" in message
    assert "DML_FEATURE_LEVEL_6_2" in message
    assert f"this device is at {level.c_name}" in message


def test_node_count_zero_is_refused() -> None:
    message = refusal(dml.GraphDesc())
    assert "DML_GRAPH_DESC.NodeCount is 0" in message
    assert "at least one node" in message
    with pytest.raises(dml.InvalidArgumentError, match="NodeCount is 0"):
        dml.GraphDesc().analyse()


def test_graph_input_index_below_input_count_is_accepted() -> None:
    assert one_round(input_count=1).validate_on(FL.FL_6_2).input_descs == (FLOAT,)


def test_graph_input_index_out_of_range_is_refused() -> None:
    message = refusal(one_round(input_count=1, input_edges=[inp(1, 0, 0)]))
    assert "DML_GRAPH_DESC.InputEdges[0].GraphInputIndex is 1" in message
    assert "InputCount is 1" in message
    assert "0 to 0" in message


def test_edge_names_appear_in_messages() -> None:
    edge = dml.InputGraphEdgeDesc(graph_input_index=2, to_node_index=0, to_node_input_index=0, name="x")
    message = refusal(one_round(input_count=1, input_edges=[edge]))
    assert 'DML_GRAPH_DESC.InputEdges[0] "x".GraphInputIndex is 2' in message


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        ({"input_edges": [inp(0, 1, 0)]}, "InputEdges[0].ToNodeIndex is 1"),
        (
            {"intermediate_edges": [mid(0, 0, 1, 0)], "output_edges": [out(0, 0, 0)]},
            "IntermediateEdges[0].ToNodeIndex is 1",
        ),
        ({"intermediate_edges": [mid(1, 0, 0, 0)], "input_edges": []}, "IntermediateEdges[0].FromNodeIndex is 1"),
        ({"output_edges": [out(1, 0, 0)]}, "OutputEdges[0].FromNodeIndex is 1"),
    ],
    ids=["input-to", "intermediate-to", "intermediate-from", "output-from"],
)
def test_node_index_out_of_range_is_refused(changes: dict[str, Any], where: str) -> None:
    message = refusal(one_round(**changes))
    assert f"DML_GRAPH_DESC.{where}" in message
    assert "the graph has 1 node (Nodes[0] to Nodes[0])" in message


def test_to_node_input_index_in_range_is_accepted() -> None:
    # DequantizeLinear's inputs in binding order: InputTensor 0, ScaleTensor 1, ZeroPointTensor 2.
    analysis = with_constant().validate_on(FL.FL_6_2)
    assert analysis.sources[(0, 2)] == Source("constant", 1)
    assert analysis.sources[(0, 1)] == Source("input", 1)


def test_to_node_input_index_out_of_range_is_refused_listing_the_inputs() -> None:
    message = refusal(pipeline(input_edges=[inp(0, 0, 0), inp(1, 0, 3), inp(1, 2, 1)]))
    assert "DML_GRAPH_DESC.InputEdges[1].ToNodeInputIndex is 3" in message
    assert 'Nodes[0] (ELEMENT_WISE_DEQUANTIZE_LINEAR "d") has 3 inputs' in message
    assert "(0 InputTensor, 1 ScaleTensor, 2 ZeroPointTensor)" in message


def test_to_node_input_index_out_of_range_on_an_intermediate_edge() -> None:
    message = refusal(two_rounds(round_node("r2"), intermediate_edges=[mid(0, 0, 1, 1)]))
    assert "DML_GRAPH_DESC.IntermediateEdges[0].ToNodeInputIndex is 1" in message
    assert 'Nodes[1] (ELEMENT_WISE_ROUND "r2") has 1 input (0 InputTensor)' in message


@pytest.mark.parametrize("list_name", ["InputEdges", "IntermediateEdges"])
def test_an_edge_into_a_constant_node_is_refused(list_name: str) -> None:
    if list_name == "InputEdges":
        graph = with_constant(input_edges=[inp(0, 0, 0), inp(1, 0, 1), inp(0, 1, 0)])
        where = "InputEdges[2]"
    else:
        graph = with_constant(intermediate_edges=[mid(1, 0, 0, 2), mid(0, 0, 1, 0)])
        where = "IntermediateEdges[1]"
    message = refusal(graph)
    assert f'DML_GRAPH_DESC.{where}.ToNodeIndex is 1, Nodes[1] (constant data "zp")' in message
    assert "only operator nodes have inputs" in message


def test_from_node_output_index_in_range_is_accepted() -> None:
    assert two_rounds(round_node("r2")).validate_on(FL.FL_6_2).sources[(1, 0)] == Source("node", 0, 0)


@pytest.mark.parametrize(
    ("graph", "where", "rule"),
    [
        (
            lambda: two_rounds(round_node("r2"), intermediate_edges=[mid(0, 1, 1, 0)]),
            "IntermediateEdges[0].FromNodeOutputIndex is 1",
            f"{ROUND_R} has 1 output (0 OutputTensor)",
        ),
        (
            lambda: one_round(output_edges=[out(0, 1, 0)]),
            "OutputEdges[0].FromNodeOutputIndex is 1",
            f"{ROUND_R} has 1 output (0 OutputTensor)",
        ),
        (
            lambda: with_constant(intermediate_edges=[mid(1, 1, 0, 2)]),
            "IntermediateEdges[0].FromNodeOutputIndex is 1",
            'Nodes[1] (constant data "zp") has one output, 0',
        ),
    ],
    ids=["intermediate-from-operator", "output-from-operator", "intermediate-from-constant"],
)
def test_from_node_output_index_out_of_range_is_refused(graph: Any, where: str, rule: str) -> None:
    message = refusal(graph())
    assert f"DML_GRAPH_DESC.{where}" in message
    assert rule in message


def test_an_input_connected_twice_is_refused() -> None:
    message = refusal(one_round(input_edges=[inp(0, 0, 0), inp(1, 0, 0)]))
    assert f"DML_GRAPH_DESC.InputEdges[1] feeds {ROUND_R}.InputTensor" in message
    assert "which DML_GRAPH_DESC.InputEdges[0] feeds already" in message
    assert "connected exactly once" in message


def test_an_input_connected_by_an_input_and_an_intermediate_edge_is_refused() -> None:
    graph = two_rounds(round_node("r2"), input_edges=[inp(0, 0, 0), inp(0, 1, 0)])
    message = refusal(graph)
    assert 'DML_GRAPH_DESC.IntermediateEdges[0] feeds Nodes[1] (ELEMENT_WISE_ROUND "r2").InputTensor' in message
    assert "which DML_GRAPH_DESC.InputEdges[1] feeds already" in message


def test_an_edge_feeding_an_absent_optional_tensor_is_refused() -> None:
    # QuantizeLinear "q" has zero_point_tensor=None (valid at 6_2); a graph input 2 edge into its ZeroPointTensor.
    graph = pipeline(input_edges=[inp(0, 0, 0), inp(1, 0, 1), inp(1, 2, 1), inp(2, 2, 2)])
    message = refusal(graph)
    assert 'DML_GRAPH_DESC.InputEdges[3] feeds Nodes[2] (ELEMENT_WISE_QUANTIZE_LINEAR "q").ZeroPointTensor' in message
    assert "leaves null" in message


def test_a_required_input_unconnected_is_refused() -> None:
    graph = pipeline(input_edges=[inp(0, 0, 0), inp(1, 0, 1)])  # q's ScaleTensor fed by nothing
    message = refusal(graph)
    assert 'DML_GRAPH_DESC.Nodes[2] (ELEMENT_WISE_QUANTIZE_LINEAR "q").ScaleTensor is connected to nothing' in message


def test_a_graph_input_with_no_edge_is_refused() -> None:
    message = refusal(one_round(input_count=2))
    assert "DML_GRAPH_DESC: graph input 1 has no input edge (InputCount is 2)" in message


def test_a_graph_output_with_no_edge_is_refused() -> None:
    message = refusal(one_round(output_count=2))
    assert "DML_GRAPH_DESC: graph output 1 has no output edge (OutputCount is 2)" in message
    # A gap in the derived numbering: OutputCount 2, output 0 missing.
    message = refusal(one_round(output_edges=[out(0, 0, 1)]))
    assert "graph output 0 has no output edge (OutputCount is 2)" in message


def test_one_node_output_sent_to_two_graph_outputs_is_refused() -> None:
    message = refusal(one_round(output_edges=[out(0, 0, 0), out(0, 0, 1)]))
    assert 'OutputEdges[1] sends Nodes[0] (ELEMENT_WISE_ROUND "r").OutputTensor to graph output 1' in message
    assert "which DML_GRAPH_DESC.OutputEdges[0] sends to graph output 0 already" in message
    assert "add an ELEMENT_WISE_IDENTITY node for the second" in message


def test_an_owned_by_dml_input_fed_by_a_node_is_refused() -> None:
    owned = dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES, flags="OWNED_BY_DML")
    message = refusal(two_rounds(round_node("r2", owned, FLOAT)))
    assert 'IntermediateEdges[0] feeds Nodes[1] (ELEMENT_WISE_ROUND "r2").InputTensor' in message
    assert "DML_TENSOR_FLAG_OWNED_BY_DML" in message and "must be connected to graph inputs" in message


def test_a_graph_output_fed_twice_is_refused() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node("a"), round_node("b")],
        input_edges=[inp(0, 0, 0), inp(0, 1, 0)],
        output_edges=[out(0, 0, 0), out(1, 0, 0)],
    )
    message = refusal(graph)
    assert "DML_GRAPH_DESC.OutputEdges[1].GraphOutputIndex is 0" in message
    assert "which DML_GRAPH_DESC.OutputEdges[0] computes already" in message


def test_graph_output_index_out_of_range_is_refused() -> None:
    message = refusal(one_round(output_count=1, output_edges=[out(0, 0, 1)]))
    assert "DML_GRAPH_DESC.OutputEdges[0].GraphOutputIndex is 1; OutputCount is 1" in message


def test_an_output_edge_from_a_constant_node_is_refused() -> None:
    message = refusal(with_constant(output_edges=[out(0, 0, 0), out(1, 0, 1)]))
    assert 'DML_GRAPH_DESC.OutputEdges[1].FromNodeIndex is 1, Nodes[1] (constant data "zp")' in message
    assert "a graph output is computed by an operator node" in message


def test_a_node_used_by_nothing_is_refused() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node("a"), round_node("b")],
        input_edges=[inp(0, 0, 0), inp(0, 1, 0)],
        output_edges=[out(0, 0, 0)],
    )
    message = refusal(graph)
    assert 'DML_GRAPH_DESC.Nodes[1] (ELEMENT_WISE_ROUND "b") is used by nothing' in message


def test_a_constant_used_by_nothing_is_refused() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node(), zero_point_constant()], input_edges=[inp(0, 0, 0)], output_edges=[out(0, 0, 0)]
    )
    message = refusal(graph)
    assert 'DML_GRAPH_DESC.Nodes[1] (constant data "zp") is used by nothing' in message


def test_a_cycle_is_refused_naming_its_nodes() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node("a"), round_node("b")],
        intermediate_edges=[mid(0, 0, 1, 0), mid(1, 0, 0, 0)],
        output_edges=[out(0, 0, 0)],
    )
    message = refusal(graph)
    assert "DML_GRAPH_DESC: the intermediate edges make a cycle through" in message
    assert 'Nodes[0] (ELEMENT_WISE_ROUND "a"), Nodes[1] (ELEMENT_WISE_ROUND "b")' in message


def test_a_self_loop_is_a_cycle() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node("r"), round_node("self")],
        input_edges=[inp(0, 0, 0)],
        intermediate_edges=[mid(1, 0, 1, 0)],
        output_edges=[out(0, 0, 0), out(1, 0, 1)],
    )
    message = refusal(graph)
    assert 'make a cycle through Nodes[1] (ELEMENT_WISE_ROUND "self");' in message
    assert "Nodes[0]" not in message


STRIDED = dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES, strides=(8, 8, 1, 2))


@pytest.mark.parametrize(
    ("consumer", "field", "given", "wanted"),
    [
        # DirectML's one rule first: the same bytes (FLOAT16 of the same Sizes is half of them) ...
        (dml.BufferTensorDesc(data_type="FLOAT16", sizes=SIZES), "TotalTensorSizeInBytes", "16", "(32)"),
        # ... then dmlpy's: the same bytes of one DataType.
        (dml.BufferTensorDesc(data_type="FLOAT16", sizes=(1, 1, 2, 8)), "DataType", "FLOAT16", "(FLOAT32)"),
    ],
    ids=["TotalTensorSizeInBytes", "DataType"],
)
def test_intermediate_edge_ends_that_differ_are_refused(
    consumer: dml.BufferTensorDesc, field: str, given: str, wanted: str
) -> None:
    graph = two_rounds(round_node("r2", consumer, consumer))
    assert dml.validate(round_node("r2", consumer).operator, FL.FL_6_2) is None  # the node alone is valid
    message = refusal(graph)
    assert (
        f'DML_GRAPH_DESC.IntermediateEdges[0] joins {ROUND_R}.OutputTensor to Nodes[1] (ELEMENT_WISE_ROUND "r2")'
        ".InputTensor" in message
    )
    assert f"whose {field} is {given}; it must equal the producing tensor's {field} {wanted}" in message


@pytest.mark.parametrize(
    "consumer",
    [dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 4, 2)), STRIDED],
    ids=["other Sizes (a reshape)", "other Strides (a transpose)"],
)
def test_intermediate_edge_ends_that_read_the_buffer_another_way_are_accepted(consumer: dml.BufferTensorDesc) -> None:
    """DirectML's rule alone: the same bytes; the consumer's Sizes and Strides are its view of them."""
    assert two_rounds(round_node("r2", consumer, consumer)).validate_on(FL.FL_6_2).order == (0, 1)


def test_intermediate_edge_ends_with_explicit_packed_strides_are_accepted() -> None:
    explicit = dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES, strides=(8, 8, 4, 1))
    assert two_rounds(round_node("r2", explicit, FLOAT)).validate_on(FL.FL_6_2).order == (0, 1)


def test_a_graph_input_feeding_alike_descs_is_accepted() -> None:
    analysis = pipeline().validate_on(FL.FL_6_2)
    assert analysis.consumers[Source("input", 1)] == ((0, 1), (2, 1))
    assert analysis.input_descs == (INT8, SCALE)


def graph_input_feeding_two_descs() -> dml.GraphDesc:
    return dml.GraphDesc(
        nodes=[round_node("a"), round_node("b", SCALE, FLOAT)],
        input_edges=[inp(0, 0, 0), inp(0, 1, 0)],
        output_edges=[out(0, 0, 0), out(1, 0, 1)],
    )


def test_a_graph_input_feeding_two_different_descs_is_refused() -> None:
    message = refusal(graph_input_feeding_two_descs())
    assert 'DML_GRAPH_DESC: graph input 0 feeds Nodes[0] (ELEMENT_WISE_ROUND "a").InputTensor' in message
    assert 'and Nodes[1] (ELEMENT_WISE_ROUND "b").InputTensor' in message
    assert "must describe it alike" in message


def test_a_graph_input_feeding_two_different_descs_says_what_differs() -> None:
    message = refusal(graph_input_feeding_two_descs())
    assert "Strides" in message


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_constant_data_from_what_the_tensor_reads_up_to_its_total_size_is_accepted(size: int) -> None:
    # ZERO_POINT: UINT8 with 0-strides reads 1 byte; its TotalTensorSizeInBytes is 4.
    assert ZERO_POINT.total_tensor_size_in_bytes == 4
    assert with_constant(size).validate_on(FL.FL_6_2).sources[(0, 2)] == Source("constant", 1)


@pytest.mark.parametrize("size", [0, 5])
def test_constant_data_too_small_or_too_large_is_refused(size: int) -> None:
    message = refusal(with_constant(size))
    assert f'DML_GRAPH_DESC.Nodes[1] (constant data "zp").DataSize is {size}' in message
    assert 'Nodes[0] (ELEMENT_WISE_DEQUANTIZE_LINEAR "d").ZeroPointTensor' in message
    assert "reads 1 byte and spans TotalTensorSizeInBytes 4" in message
    assert "from 1 to 4 bytes" in message


def test_constant_data_for_a_packed_tensor_is_its_whole_size() -> None:
    # A packed FLOAT32 1x1x2x4 reads 32 bytes and spans 32: only 32 fit.
    def graph(size: int) -> dml.GraphDesc:
        return dml.GraphDesc(
            nodes=[dml.ConstantDataGraphNodeDesc(data=bytes(size)), round_node()],
            intermediate_edges=[mid(0, 0, 1, 0)],
            output_edges=[out(1, 0, 0)],
        )

    assert graph(32).validate_on(FL.FL_6_2).order == (1,)
    assert "DataSize is 31" in refusal(graph(31))
    assert "DataSize is 33" in refusal(graph(33))


FIVE_D = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 1, 2, 4))


def test_a_node_valid_at_the_level_is_accepted() -> None:
    assert one_round(nodes=[round_node("r", FIVE_D)]).validate_on(FL.FL_3_0).output_descs == (FIVE_D,)


def test_a_node_invalid_at_the_level_is_refused_with_its_label() -> None:
    graph = one_round(nodes=[round_node("r", FIVE_D)])
    message = refusal(graph, FL.FL_2_1)
    assert message.startswith(f"DML_GRAPH_DESC.{ROUND_R}: ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 5")
    # The node's own message, prefixed by the node's label.
    with pytest.raises(dml.InvalidArgumentError) as direct:
        round_node("r", FIVE_D).op.validate_on(FL.FL_2_1)
    assert message == f"DML_GRAPH_DESC.{ROUND_R}: {direct.value}"


def test_a_node_refused_below_the_level_its_descriptor_needs() -> None:
    # DequantizeLinear with no zero point is refused before 6_2; with a zero point input it is fine at 2_1.
    graph = pipeline(
        nodes=[dequantize_node(zero_point=dml.BufferTensorDesc(data_type="INT8", sizes=SIZES, strides=BROADCAST))],
        input_edges=[inp(0, 0, 0), inp(1, 0, 1), inp(2, 0, 2)],
        intermediate_edges=[],
        output_edges=[out(0, 0, 0)],
    )
    assert graph.validate_on(FL.FL_2_1).order == (0,)
    message = refusal(pipeline(), FL.FL_6_1)
    assert 'DML_GRAPH_DESC.Nodes[0] (ELEMENT_WISE_DEQUANTIZE_LINEAR "d"): ' in message
    assert "ZeroPointTensor is null" in message


def test_dml_validate_takes_operators_and_graphs() -> None:
    rd = round_node("r", FIVE_D).op
    assert dml.validate(rd, FL.FL_3_0) is None
    assert dml.validate(dml.OperatorDesc(type="ELEMENT_WISE_ROUND", desc=rd), FL.FL_3_0) is None
    assert dml.validate(one_round(nodes=[round_node("r", FIVE_D)]), FL.FL_3_0) is None
    with pytest.raises(dml.InvalidArgumentError) as operator_error:
        dml.validate(rd, FL.FL_2_1)
    assert str(operator_error.value).startswith("ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 5")
    with pytest.raises(dml.InvalidArgumentError) as graph_error:
        dml.validate(one_round(nodes=[round_node("r", FIVE_D)]), "DML_FEATURE_LEVEL_2_1")
    assert str(graph_error.value) == f"DML_GRAPH_DESC.{ROUND_R}: {operator_error.value}"
    with pytest.raises(dml.UnsupportedError):
        dml.validate(one_round(), FL.FL_2_0)


# ------------------------------------------------------------------------------------------------- analyse


def out_of_order() -> dml.GraphDesc:
    """Node 0 "second" reads node 1 "first"'s output; input 0 feeds node 1; node 0 is output 0."""
    return dml.GraphDesc(
        nodes=[round_node("second"), round_node("first")],
        input_edges=[inp(0, 1, 0)],
        intermediate_edges=[mid(1, 0, 0, 0)],
        output_edges=[out(0, 0, 0)],
    )


def test_analyse_orders_nodes_listed_out_of_order() -> None:
    analysis = out_of_order().analyse()
    assert analysis.order == (1, 0)
    assert analysis.sources == {(1, 0): Source("input", 0), (0, 0): Source("node", 1, 0)}
    assert analysis.input_descs == (FLOAT,)
    assert analysis.outputs == ((0, 0),)
    assert analysis.output_descs == (FLOAT,)
    assert out_of_order().validate_on(FL.FL_2_1) == analysis


def test_analyse_a_chain_of_three_listed_backwards() -> None:
    graph = dml.GraphDesc(
        nodes=[round_node("c"), round_node("b"), round_node("a")],
        input_edges=[inp(0, 2, 0)],
        intermediate_edges=[mid(2, 0, 1, 0), mid(1, 0, 0, 0)],
        output_edges=[out(0, 0, 0)],
    )
    assert graph.analyse().order == (2, 1, 0)


def test_analyse_the_pipeline() -> None:
    analysis = pipeline().analyse()
    assert analysis.order == (0, 1, 2)
    assert analysis.sources == {
        (0, 0): Source("input", 0),
        (0, 1): Source("input", 1),
        (2, 1): Source("input", 1),
        (1, 0): Source("node", 0, 0),
        (2, 0): Source("node", 1, 0),
    }
    assert analysis.input_descs == (INT8, SCALE)
    assert analysis.outputs == ((2, 0),)
    assert analysis.output_descs == (UINT8,)


def test_analyse_leaves_constants_out_of_the_order() -> None:
    analysis = with_constant().analyse()
    assert analysis.order == (0,)
    assert analysis.consumers[Source("constant", 1)] == ((0, 2),)
    assert analysis.input_descs == (UINT8, SCALE)


def test_analyse_needs_no_feature_level_but_validate_on_does() -> None:
    # analyse applies the structural rules only: a constant node analyses, while 6_1 refuses it.
    assert with_constant().analyse().order == (0,)
    refusal(with_constant(), FL.FL_6_1, dml.UnsupportedError)


# ------------------------------------------------------------------------------------------------- the builder


def build_pipeline(level: FL = FL.FL_6_2) -> tuple[dml.Graph, Any]:
    g = dml.Graph(level)
    x = g.input(INT8)
    s = g.input(SCALE)
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(x, s), mode="toward_zero"), s)
    return g, y


def test_builder_desc_equals_the_graph_written_by_hand() -> None:
    g, y = build_pipeline()
    dequantize = dml.ElementWiseDequantizeLinearOperatorDesc(
        input_tensor=INT8, scale_tensor=SCALE, zero_point_tensor=None, output_tensor=FLOAT
    )
    rounding = dml.ElementWiseRoundOperatorDesc(
        input_tensor=FLOAT, output_tensor=FLOAT, rounding_mode=dml.RoundingMode.TOWARD_ZERO
    )
    quantize = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=FLOAT, scale_tensor=SCALE, zero_point_tensor=None, output_tensor=UINT8
    )
    by_hand = dml.GraphDesc(
        input_count=2,
        output_count=1,
        nodes=[
            dml.OperatorGraphNodeDesc(operator=dequantize),
            dml.OperatorGraphNodeDesc(operator=rounding),
            dml.OperatorGraphNodeDesc(operator=quantize),
        ],
        input_edges=[inp(0, 0, 0), inp(1, 0, 1), inp(1, 2, 1)],
        intermediate_edges=[mid(0, 0, 1, 0), mid(1, 0, 2, 0)],
        output_edges=[out(2, 0, 0)],
    )
    built = g.desc_for([y])
    assert built == by_hand
    assert y.desc == UINT8
    assert dml.validate(built, FL.FL_6_2) is None


def test_builder_desc_is_desc_for_the_leaves() -> None:
    g, y = build_pipeline()
    assert g.desc == g.desc_for([y])
    z = dml.graph.identity(y)  # y is read now; z is the one leaf
    assert g.desc == g.desc_for([z])
    assert g.desc.node_count == 4
    w = dml.graph.identity(y, (2.0, 1.0))  # a second leaf, made after z
    assert g.desc == g.desc_for([z, w])
    assert g.desc.output_count == 2
    assert g.desc.nodes[4].desc.op.scale_bias == dml.ScaleBias(scale=2.0, bias=1.0)
    assert dml.validate(g.desc, FL.FL_6_2) is None


def test_builder_without_a_device_cannot_compile() -> None:
    g, y = build_pipeline()
    with pytest.raises(dml.InvalidArgumentError, match="without a device"):
        g.compile([y])


def test_builder_refuses_a_number_as_scale_below_6_2() -> None:
    g = dml.Graph(FL.FL_6_1)
    x = g.input(INT8)
    zero_point = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=SIZES, strides=BROADCAST))
    with pytest.raises(dml.UnsupportedError) as info:
        dml.graph.dequantize_linear(x, 0.5, zero_point)
    assert "DML_FEATURE_LEVEL_6_2" in str(info.value)
    assert "DML_FEATURE_LEVEL_6_1" in str(info.value)
    # A scale given as an expression is fine at 6_1.
    scale = g.input(SCALE)
    y = dml.graph.dequantize_linear(x, scale, zero_point)
    assert dml.validate(g.desc_for([y]), FL.FL_6_1) is None


def test_builder_makes_a_number_a_broadcast_constant_at_6_2() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(INT8)
    y = dml.graph.dequantize_linear(x, 0.5)
    desc = g.desc_for([y])
    assert desc.nodes[0].desc == dml.ConstantDataGraphNodeDesc(data=struct.pack("<f", 0.5))
    assert desc.nodes[0].type is dml.GraphNodeType.CONSTANT
    assert desc.nodes[1].desc.op.scale_tensor.desc == SCALE  # FLOAT32, input's Sizes, 0-strides
    assert [e.desc for e in desc.intermediate_edges] == [mid(0, 0, 1, 1)]
    assert [e.desc for e in desc.input_edges] == [inp(0, 1, 0)]
    assert dml.validate(desc, FL.FL_6_2) is None


def test_builder_makes_a_number_zero_point_a_constant_of_the_input_type() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(INT8)
    y = dml.graph.dequantize_linear(x, 0.25, -3)
    desc = g.desc_for([y])
    assert desc.nodes[1].desc == dml.ConstantDataGraphNodeDesc(data=struct.pack("<b", -3))
    zero_point = desc.nodes[2].desc.op.zero_point_tensor
    assert zero_point is not None
    assert zero_point.desc == dml.BufferTensorDesc(data_type="INT8", sizes=SIZES, strides=BROADCAST)
    assert dml.validate(desc, FL.FL_6_2) is None


def test_builder_refuses_a_scale_with_other_sizes_at_the_call() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(INT8)
    scale = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 1, 1)))
    with pytest.raises(dml.InvalidArgumentError) as info:
        dml.graph.dequantize_linear(x, scale)
    message = str(info.value)
    assert message.startswith("dml.graph.dequantize_linear: scale has Sizes [1, 1, 1, 1]")
    assert "the input's Sizes [1, 1, 2, 4]" in message


def test_builder_operator_errors_raise_at_the_call_in_validation_words() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(INT8)
    with pytest.raises(dml.InvalidArgumentError) as built:
        dml.graph.round(x)
    with pytest.raises(dml.InvalidArgumentError) as direct:
        dml.ElementWiseRoundOperatorDesc(input_tensor=INT8, output_tensor=INT8).validate_on(FL.FL_6_2)
    assert str(built.value) == str(direct.value)
    assert str(built.value).startswith("ELEMENT_WISE_ROUND.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT8")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("half_to_even", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
        ("toward_zero", dml.RoundingMode.TOWARD_ZERO),
        ("half_away_from_zero", dml.RoundingMode.TOWARD_INFINITY),
        ("TOWARD_INFINITY", dml.RoundingMode.TOWARD_INFINITY),
        (2, dml.RoundingMode.TOWARD_INFINITY),
        (0, dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
        (dml.RoundingMode.TOWARD_ZERO, dml.RoundingMode.TOWARD_ZERO),
    ],
)
def test_builder_round_modes_map_to_directml(mode: Any, expected: dml.RoundingMode) -> None:
    g = dml.Graph(FL.FL_6_2)
    y = dml.graph.round(g.input(FLOAT), mode=mode)
    assert g.desc_for([y]).nodes[0].desc.op.rounding_mode is expected


def test_builder_round_default_mode_is_halves_to_nearest_even() -> None:
    g = dml.Graph(FL.FL_6_2)
    dml.graph.round(g.input(FLOAT))
    assert g.desc.nodes[0].desc.op.rounding_mode is dml.RoundingMode.HALVES_TO_NEAREST_EVEN


@pytest.mark.parametrize("mode", ["ROUND_NEAREST_UPWARD", "ROUND_TOWARD_INFINITY", "ROUND_DOWN"])
def test_builder_refuses_extension_only_modes(mode: str) -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(FLOAT)
    with pytest.raises(dml.UnsupportedError, match="has no DirectML equivalent"):
        dml.graph.round(x, mode=mode)


def test_builder_refuses_an_unknown_mode() -> None:
    g = dml.Graph(FL.FL_6_2)
    with pytest.raises(dml.InvalidArgumentError, match="not a rounding mode"):
        dml.graph.round(g.input(FLOAT), mode="nope")


def test_builder_refuses_an_expression_of_another_graph() -> None:
    g, h = dml.Graph(FL.FL_6_2), dml.Graph(FL.FL_6_2)
    x = g.input(INT8)
    s = h.input(SCALE)
    with pytest.raises(dml.InvalidArgumentError, match=r"another dml\.Graph"):
        dml.graph.dequantize_linear(x, s)


def test_builder_refuses_a_graph_input_as_an_output() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(FLOAT)
    with pytest.raises(dml.InvalidArgumentError, match=r"dml\.graph\.identity"):
        g.desc_for([x])
    assert g.desc_for([dml.graph.identity(x)]).nodes[0].desc.op.operator_name() == "ELEMENT_WISE_IDENTITY"


def test_builder_refuses_a_level_it_cannot_read() -> None:
    with pytest.raises(dml.InvalidArgumentError):
        dml.Graph("not a level")
    assert dml.Graph("6_2").feature_level is FL.FL_6_2


def test_builder_desc_for_a_subset_of_outputs_leaving_an_input_unread_is_refused_at_the_call() -> None:
    g = dml.Graph(FL.FL_6_2)
    a = g.input(FLOAT)
    b = g.input(FLOAT)
    ya = dml.graph.round(a)
    yb = dml.graph.round(b)
    assert dml.validate(g.desc_for([ya, yb]), FL.FL_6_2) is None
    with pytest.raises(dml.InvalidArgumentError, match=r"graph input 1 \(the 2nd g\.input\) is read by none"):
        g.desc_for([ya])


@pytest.mark.parametrize("field", ["Nodes", "InputEdges", "OutputEdges", "IntermediateEdges"])
@pytest.mark.parametrize("value", [3, True, None, "edges", {"GraphInputIndex": 0}])
def test_a_list_field_given_something_else_is_refused_in_c_terms(field: str, value: Any) -> None:
    """Issue 26: InputEdges or OutputEdges given as a number or bool raised TypeError while counts were derived."""
    document = {
        key: value for key, value in json.loads(pipeline().model_dump_json(by_alias=True)).items() if "Count" not in key
    }  # counts left to be derived, as a hand-written document does
    document[field] = value
    with pytest.raises(dml.InvalidArgumentError, match=rf"^DML_GRAPH_DESC\.{field} is .*; it must be a list"):
        dml.GraphDesc.model_validate(document)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"IntermediateEdges": [{"Type": "DML_GRAPH_EDGE_TYPE_INTERMEDIATE", "Desc": {"ToNodeIndex": 0}}]},
            "3 problems:\n  DML_GRAPH_DESC.IntermediateEdges[0].Desc.FromNodeIndex is missing; it is required\n"
            "  DML_GRAPH_DESC.IntermediateEdges[0].Desc.FromNodeOutputIndex is missing; it is required\n"
            "  DML_GRAPH_DESC.IntermediateEdges[0].Desc.ToNodeInputIndex is missing; it is required",
        ),
        (
            {"Nodes": [{"Type": "CONSTANT", "Desc": {"DataSize": 4}}]},
            "DML_GRAPH_DESC.Nodes[0].Desc.Data is missing; it is required",
        ),
        (
            {"InputEdges": [{"Desc": {"GraphInputIndex": -1, "ToNodeIndex": 0, "ToNodeInputIndex": 0}}]},
            "DML_GRAPH_DESC.InputEdges[0].Desc.GraphInputIndex is -1; it must be a whole number from 0 to 4294967295 "
            "(a C UINT)",
        ),
    ],
    ids=["typed-intermediate", "typed-constant", "negative-index"],
)
def test_a_node_or_edge_is_judged_as_the_struct_its_type_names(document: dict[str, Any], message: str) -> None:
    """A mistake inside a node or edge is reported once, in the terms of the struct its Type (else its fields)
    names, with the field's own rule (it said "Operator is missing" of a CONSTANT node, "it must be another
    value" of an index)."""
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.GraphDesc.model_validate({"Nodes": [], **document})
    assert str(caught.value) == message
