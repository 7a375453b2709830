"""``dmlpy.cpp`` / ``dmlpy explain --cpp``: the C++ printed for every DirectML operator of the table is read back
statement by statement and compared with DirectML.h's facts in tests/data (the transcription of Microsoft's header
and pages, not dmlpy's models): each operator struct's name and members in the header's C order, enums by their
header spellings, pointers where the header has pointers, each array's length equal to its count field and its
element type the header's. The whole output also passes tests/helpers/cpp_check.py (every name declared before use,
every struct member and enumerator DirectML.h's, method arities)."""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.cpp import c_string, cpp_lines
from dmlpy.enums import DmlEnum
from dmlpy.extensions import ExtElementWiseRoundOperatorDesc
from dmlpy.graph.desc import GraphDesc
from dmlpy.ops import OPERATORS
from dmlpy.ops._base import OperatorDescBase
from tests.helpers import cpp_check
from tests.helpers.cli import Run
from tests.helpers.structured import valid_sample

DATA = Path(__file__).resolve().parents[1] / "data"
LEVEL = dml.FeatureLevel.FL_6_4
TENSOR = {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}
OTHER_STRUCTS = {  # DirectML.h's other structs an operator holds by value, and the graph's constant node
    "DML_SCALAR_UNION": (
        "Bytes", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "Float32", "Float64",
    ),
    "DML_SIZE_2D": ("Width", "Height"),
}  # fmt: skip


@cache
def facts() -> dict[str, dict[str, Any]]:
    """DirectML.h's operators by struct name (and their alias struct names), with the header's enums."""
    table: dict[str, dict[str, Any]] = {}
    for name in ("directml-operators", "directml-elementwise"):
        for op in json.loads((DATA / name / "support.json").read_text(encoding="utf-8"))["ops"]:
            table[op["struct"]] = op
            alias = re.match(r"(DML_\w+) is a 'using' alias of " + op["struct"], op.get("struct_note", ""))
            if alias:
                table[alias.group(1)] = op
    return table


@cache
def header_enums() -> dict[str, set[str]]:
    enums = json.loads((DATA / "directml-operators" / "support.json").read_text(encoding="utf-8"))["enums"]
    return {name: {member["name"] for member in enum["members"]} for name, enum in enums.items()}


def _required_value(annotation: Any) -> Any:
    """A valid value of a required field of an element-wise operator (a tensor, CLIP1's bounds, ...)."""
    optional = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    members = [a for a in typing.get_args(annotation) if a is not type(None)] if optional else [annotation]
    enums = [m for m in members if isinstance(m, type) and issubclass(m, DmlEnum)]
    if enums:
        return list(enums[0])[-1].name
    tuples = [m for m in members if typing.get_origin(m) is tuple]
    if tuples:
        return [3] if typing.get_args(tuples[0])[0] is not dml.TensorDesc else [TENSOR]
    if float in members:
        return 1.5
    if dml.ScalarUnion in members:
        return {"Float32": 1.0}
    return TENSOR


def sample(desc_class: type[OperatorDescBase]) -> OperatorDescBase:
    """A descriptor of ``desc_class``: structured.valid_sample's (its tensors agree), else the required fields."""
    found = valid_sample(desc_class)
    if found is not None:
        return found
    fields = {info.alias: _required_value(info.annotation) for info in desc_class.model_fields.values()}
    return desc_class.model_validate({k: v for k, v in fields.items() if k in _required(desc_class)})


def _required(desc_class: type[OperatorDescBase]) -> set[str | None]:
    return {info.alias for info in desc_class.model_fields.values() if info.is_required()}


# ------------------------------------------------------------------------------------- reading the C++ back

DECLARED = re.compile(r"^(?P<type>[A-Z][A-Z0-9_]*) (?P<name>\w+) = \{\};$")
ASSIGNED = re.compile(r"^(?P<name>\w+)\.(?P<member>\w+) = (?P<value>.+);$")
ARRAY = re.compile(r"^(?P<type>[A-Z][A-Z0-9_]*) (?P<name>\w+)\[(?P<count>\d+)\] = \{(?P<items>.*)\};$")
FLOAT = re.compile(r"-?(\d+\.\d*(e[+-]\d+)?|\d+e[+-]\d+)f|-?INFINITY|NAN")
WRAPPER = re.compile(r"^(?P<type>DML_\w+) (?P<name>\w+) = \{(?P<kind>DML_\w+), &(?P<desc>\w+)\};$")


def structs(lines: list[str]) -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(struct type, variable, [(member, value), ...] in assignment order) of each ``TYPE name{};``."""
    declared: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for line in lines:
        if match := DECLARED.match(line):
            declared[match["name"]] = (match["type"], [])
        elif (match := ASSIGNED.match(line)) and match["name"] in declared:
            declared[match["name"]][1].append((match["member"], match["value"]))
    for name, (kind, members) in declared.items():
        yield kind, name, members


def arrays(lines: list[str]) -> dict[str, tuple[str, int, int]]:
    """Each array's element type, declared length and number of initialisers."""
    found = {}
    for line in lines:
        if match := ARRAY.match(line):
            items = re.findall(r"\{[^{}]*\}|[^,{}\s][^,{}]*", match["items"])
            found[match["name"]] = (match["type"], int(match["count"]), len(items))
    return found


def check_operator_struct(lines: list[str], kind: str, members: list[tuple[str, str]]) -> list[str]:
    """What disagrees with DirectML.h in one operator struct's members (empty when nothing does)."""
    op, problems = facts()[kind], []
    names = [member for member, _ in members]
    header = [field["name"] for field in op["fields"]]
    if names != header:
        problems.append(f"{kind}: members {names}, the header's {header}")
    if set(names) != set(header):
        problems.append(f"{kind}: members {sorted(names)} are not the header's {sorted(header)}")
    values = dict(members)
    declared = arrays(lines)
    for field in op["fields"]:
        value, ctype = values.get(field["name"], ""), field["ctype"]
        if "enum" in field and value not in header_enums()[field["enum"]]:
            problems.append(f"{kind}.{field['name']} = {value}: not a {field['enum']} of the header")
        if ctype == "BOOL" and value not in ("TRUE", "FALSE"):
            problems.append(f"{kind}.{field['name']} = {value}: not a BOOL")
        if ctype.startswith("DML_") and ctype not in OTHER_STRUCTS and not value.startswith(f"{ctype}_"):
            problems.append(f"{kind}.{field['name']} = {value}: not a {ctype} spelling")
        if ctype in ("FLOAT", "float") and not FLOAT.fullmatch(value):
            problems.append(f"{kind}.{field['name']} = {value}: not a FLOAT literal")
        if ctype in ("UINT", "INT") and not re.fullmatch(r"-?\d+", value):
            problems.append(f"{kind}.{field['name']} = {value}: not an integer")
        pointer = ctype.endswith("*")
        if pointer != (value == "nullptr" or value.startswith("&") or value in declared):
            problems.append(f"{kind}.{field['name']} = {value}: the header's type is {ctype}")
        if "count_field" in field:
            count = int(values[field["count_field"]])
            if value == "nullptr":
                if count:
                    problems.append(f"{kind}.{field['name']} is null but {field['count_field']} is {count}")
                continue
            element, length, initialisers = declared[value]
            expected = ctype.removeprefix("const ").removesuffix("*")
            if (element, length, initialisers) != (expected, count, count):
                problems.append(f"{kind}.{field['name']}: {element}[{length}] of {initialisers}, {expected}[{count}]")
    return problems


def problems_of(lines: list[str]) -> list[str]:
    """Every disagreement with DirectML.h in the printed C++: operator structs, buffer tensors, wrappers."""
    problems = []
    declared = arrays(lines)
    for kind, name, members in structs(lines):
        if kind in facts():
            problems += check_operator_struct(lines, kind, members)
        elif kind == "DML_BUFFER_TENSOR_DESC":
            values = dict(members)
            if tuple(values) != cpp_check.HEADER_STRUCTS[kind]:
                problems.append(f"{name}: members {list(values)}")
            if declared[values["Sizes"]][1:] != (int(values["DimensionCount"]),) * 2:
                problems.append(f"{name}: DimensionCount {values['DimensionCount']}, Sizes {values['Sizes']}")
    for line in lines:
        match = WRAPPER.match(line)
        if match and match["type"] == "DML_OPERATOR_DESC":
            kind = next(k for k, n, _ in structs(lines) if n == match["desc"])
            if match["kind"] != facts()[kind]["enum"]:
                problems.append(f"{line}: {kind} is {facts()[kind]['enum']}")
    checker = cpp_check.CppChecker()
    checker.structs |= {kind: tuple(f["name"] for f in op["fields"]) for kind, op in facts().items()}
    checker.structs |= OTHER_STRUCTS
    checker.check_block("the printed C++", "\n".join(lines))
    return problems + checker.problems


DIRECTML = sorted(name.name for name, desc in OPERATORS.items() if not desc.is_extension())


@pytest.mark.parametrize("operator", DIRECTML)
def test_every_operator_prints_the_headers_struct(operator: str) -> None:
    desc = sample(OPERATORS[dml.OperatorType[operator]])
    lines = cpp_lines(desc, LEVEL)
    assert problems_of(lines) == []
    (top,) = (match for line in lines if (match := WRAPPER.match(line)) and match["name"] == "operatorDesc")
    kind = next(kind for kind, name, _ in structs(lines) if name == top["desc"])
    assert (facts()[kind]["op"], top["kind"]) == (operator, facts()[kind]["enum"])


def test_the_read_back_catches_a_wrong_order_a_wrong_enum_and_a_wrong_count() -> None:
    lines = cpp_lines(sample(dml.GemmOperatorDesc), LEVEL)
    assert problems_of(lines) == []
    swapped = [line.replace(".TransA =", ".TEMP =").replace(".TransB =", ".TransA =").replace(".TEMP =", ".TransB =")
               for line in lines]  # fmt: skip
    assert any("members" in p for p in problems_of(swapped))
    wrong_enum = [line.replace("DML_MATRIX_TRANSFORM_NONE", "DML_MATRIX_TRANSFORM_NOPE") for line in lines]
    assert any("not a DML_MATRIX_TRANSFORM" in p for p in problems_of(wrong_enum))
    conv = cpp_lines(sample(dml.ConvolutionOperatorDesc), LEVEL)
    wrong_count = [re.sub(r"\.DimensionCount = (\d+);$", r".DimensionCount = 9;", line) for line in conv]
    assert any("UINT[" in p for p in problems_of(wrong_count))


def test_nested_structs_fused_activation_scalar_union_and_arrays_of_tensors() -> None:
    gemm = sample(dml.GemmOperatorDesc).model_copy(
        update={"fused_activation": dml.ops.FusedActivation(type="ACTIVATION_LINEAR", desc={"Alpha": 2, "Beta": 0.5})}
    )
    lines = cpp_lines(gemm, LEVEL)
    assert problems_of(lines) == []
    text = "\n".join(lines)
    assert "DML_OPERATOR_DESC fusedActivation = {DML_OPERATOR_ACTIVATION_LINEAR, &fusedActivationDesc};" in text
    assert "fusedActivationDesc.InputTensor = nullptr;\nfusedActivationDesc.OutputTensor = nullptr;" in text
    assert "fusedActivationDesc.Alpha = 2.0f;\nfusedActivationDesc.Beta = 0.5f;" in text
    assert "gemmDesc.FusedActivation = &fusedActivation;" in text
    clip = cpp_lines(sample(dml.ElementWiseClip1OperatorDesc), LEVEL)
    assert "min.Float32 = 1.0f;" in clip and "elementWiseClip1Desc.Min = min;" in clip
    join = sample(dml.JoinOperatorDesc)
    lines = cpp_lines(join, LEVEL)
    count = len(join.inputs)
    entries = ", ".join(f"{{DML_TENSOR_TYPE_BUFFER, &inputTensor{i}Buffer}}" for i in range(count))
    assert f"DML_TENSOR_DESC inputTensors[{count}] = {{{entries}}};" in lines
    assert f"joinDesc.InputCount = {count};" in lines and problems_of(lines) == []


GRAPH = {
    "Nodes": [
        {"Type": "OPERATOR", "Desc": {"Name": 'add "a" */\n??=\\ é', "Operator": {"Type": "ELEMENT_WISE_ADD", "Desc": {
            "ATensor": TENSOR, "BTensor": TENSOR, "OutputTensor": TENSOR}}}},
        {"Type": "OPERATOR", "Desc": {"Operator": {"Type": "ACTIVATION_RELU", "Desc": {
            "InputTensor": TENSOR, "OutputTensor": TENSOR}}}},
    ],
    "InputEdges": [
        {"Type": "INPUT", "Desc": {"GraphInputIndex": 0, "ToNodeIndex": 0, "ToNodeInputIndex": 0}},
        {"Type": "INPUT", "Desc": {"GraphInputIndex": 1, "ToNodeIndex": 0, "ToNodeInputIndex": 1}},
    ],
    "IntermediateEdges": [
        {"Type": "INTERMEDIATE", "Desc": {"FromNodeIndex": 0, "FromNodeOutputIndex": 0, "ToNodeIndex": 1,
                                          "ToNodeInputIndex": 0}},
    ],
    "OutputEdges": [{"Type": "OUTPUT", "Desc": {"FromNodeIndex": 1, "FromNodeOutputIndex": 0, "GraphOutputIndex": 0}}],
}  # fmt: skip


def test_a_graph_creates_each_node_operator_and_compiles_the_graph_desc() -> None:
    lines = cpp_lines(GraphDesc.model_validate(GRAPH), LEVEL)
    assert problems_of(lines) == []
    members = {name: (kind, [m for m, _ in values]) for kind, name, values in structs(lines)}
    for name, kind in (
        ("graphDesc", "DML_GRAPH_DESC"),
        ("node0", "DML_OPERATOR_GRAPH_NODE_DESC"),
        ("inputEdge1", "DML_INPUT_GRAPH_EDGE_DESC"),
        ("intermediateEdge0", "DML_INTERMEDIATE_GRAPH_EDGE_DESC"),
        ("outputEdge0", "DML_OUTPUT_GRAPH_EDGE_DESC"),
    ):
        assert members[name] == (kind, list(cpp_check.HEADER_STRUCTS[kind]))
    assert arrays(lines)["nodes"] == ("DML_GRAPH_NODE_DESC", 2, 2)
    assert arrays(lines)["inputEdges"] == ("DML_GRAPH_EDGE_DESC", 2, 2)
    assert "DML_GRAPH_NODE_DESC nodes[2] = {{DML_GRAPH_NODE_TYPE_OPERATOR, &node0}, " in "\n".join(lines)
    assert lines.index("node0.Operator = node0Operator.Get();") > lines.index(
        "dmlDevice->CreateOperator(&node0OperatorDesc, IID_PPV_ARGS(&node0Operator));"
    )
    assert "dmlDevice->CompileGraph(&graphDesc, DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&dmlCompiledOperator));" in lines
    assert "//      graph input 1: a DML_BUFFER_BINDING of 96 bytes (its TotalTensorSizeInBytes)" in lines


def _c_literal_bytes(literal: str) -> bytes:
    """What a C compiler stores for a string literal of printable ASCII and \\" \\\\ \\n \\t \\? \\ooo escapes."""
    assert literal[0] == literal[-1] == '"' and all(" " <= c <= "~" for c in literal)
    escapes = {'"': b'"', "\\": b"\\", "n": b"\n", "t": b"\t", "?": b"?"}
    out, body, index = b"", literal[1:-1], 0
    while index < len(body):
        if body[index] != "\\":
            assert body[index] != '"', literal
            out, index = out + body[index].encode(), index + 1
        elif body[index + 1].isdigit():
            out, index = out + bytes([int(body[index + 1 : index + 4], 8)]), index + 4
        else:
            out, index = out + escapes[body[index + 1]], index + 2
    return out


@pytest.mark.parametrize("name", ['add "a" */\n??=\\ é', "\t\x01\x7f1", "💡 ?? ?? '", "\\0 \\x41"])
def test_a_name_is_one_c_string_literal_of_its_utf8_bytes(name: str) -> None:
    literal = c_string(name)
    assert _c_literal_bytes(literal) == name.encode("utf-8")
    assert "??" not in literal  # no trigraph for a pre-C++17 compiler
    graph = json.loads(json.dumps(GRAPH))
    graph["Nodes"][0]["Desc"]["Name"] = name
    lines = cpp_lines(GraphDesc.model_validate(graph), LEVEL)
    assert f"node0.Name = {literal};" in lines and problems_of(lines) == []


def test_explain_cpp_prints_a_tensor_an_operator_and_refuses_an_extension(run: Run, write_json: Any) -> None:
    tensor = run("explain", "--cpp", str(write_json(TENSOR)))
    assert tensor.returncode == 0, tensor.stderr
    assert "DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &tensorBuffer};" in tensor.stdout
    assert "tensorBuffer.TotalTensorSizeInBytes = 96;" in tensor.stdout
    round_ = {"Type": "ELEMENT_WISE_ROUND", "Desc": {"InputTensor": TENSOR, "OutputTensor": TENSOR,
                                                     "RoundingMode": "TOWARD_ZERO"}}  # fmt: skip
    result = run("explain", "--cpp", "--feature-level", "3_0", str(write_json(round_)))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "elementWiseRoundDesc.RoundingMode = DML_ROUNDING_MODE_TOWARD_ZERO;" in lines
    assert "DMLCreateDevice1(d3d12Device.Get(), DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_3_0, " \
        "IID_PPV_ARGS(&dmlDevice));" in lines  # fmt: skip
    assert problems_of(lines) == []
    too_low = run("explain", "--cpp", "--feature-level", "2_0", str(write_json(round_)))
    assert too_low.returncode != 0 and "no C++ at DML_FEATURE_LEVEL_2_0" in too_low.stderr


def test_a_dmlpy_extension_has_no_cpp() -> None:
    extension = ExtElementWiseRoundOperatorDesc(
        input_tensor=TENSOR, output_tensor=TENSOR, rounding_mode="NEAREST_TOWARD_ZERO"
    )
    with pytest.raises(dml.UnsupportedError, match="a dmlpy extension that DirectML does not have"):
        cpp_lines(extension, LEVEL)


def test_the_docs_example_is_what_the_command_prints(run: Run) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    command = "$ dmlpy explain --cpp examples/descriptors/round.json\n"
    shown = page[page.index(command) + len(command) :].split("```", 1)[0]
    result = run("explain", "--cpp", "examples/descriptors/round.json")
    assert result.returncode == 0 and shown == result.stdout
