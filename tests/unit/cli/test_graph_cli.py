"""`dmlpy validate` and `dmlpy explain` on DML_GRAPH_DESC JSON: the graph's binding order, its nodes in the order
they run, the kernels compile_graph plans and their sources; a broken graph refused with the rule it breaks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers.cli import EXAMPLES, Run

GRAPH = EXAMPLES / "qdq_graph.json"


def test_validate_reports_binding_order_nodes_and_kernels(run: Run) -> None:
    result = run("validate", str(GRAPH))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("valid at DML_FEATURE_LEVEL_6_4")
    assert '"NodeCount": 3' in out and '"InputCount": 3' in out  # derived, and shown
    assert '"Type": "DML_GRAPH_EDGE_TYPE_INTERMEDIATE"' in out
    assert "graph input 1: DML_BUFFER_TENSOR_DESC (FLOAT32, Sizes [1, 3, 4, 4])" in out
    assert 'Nodes[2] (ELEMENT_WISE_QUANTIZE_LINEAR "quantize") <- Nodes[1] (ELEMENT_WISE_ROUND "round")' in out
    assert "Kernels (compile_graph on a CPU device): 1" in out and "(fused, values in registers)" in out
    assert "RequiredDescriptorCount 4, TemporaryResourceSize 0" in out
    assert "valid from DML_FEATURE_LEVEL_2_1 to DML_FEATURE_LEVEL_6_4" in out


def test_validate_refuses_a_broken_graph_naming_the_edge_and_rule(run: Run, write_json: Callable[..., Path]) -> None:
    graph: dict[str, Any] = json.loads(GRAPH.read_text())
    graph["IntermediateEdges"][1]["Desc"]["ToNodeIndex"] = 0  # quantize's input now feeds the dequantize: twice
    result = run("validate", str(write_json(graph)))
    assert result.returncode == 1
    assert "invalid at DML_FEATURE_LEVEL_6_4" in result.stdout
    assert 'IntermediateEdges[1] feeds Nodes[0] (ELEMENT_WISE_DEQUANTIZE_LINEAR "dequantize").InputTensor' in (
        result.stdout
    )
    assert "every node input is connected exactly once" in result.stdout


def test_validate_says_where_a_graph_becomes_valid(run: Run) -> None:
    result = run("validate", str(GRAPH), "--feature-level", "2_0")
    assert result.returncode == 1
    assert "IDMLDevice1::CompileGraph, which arrived at DML_FEATURE_LEVEL_2_1" in result.stdout
    assert "it is valid from DML_FEATURE_LEVEL_2_1" in result.stdout


def test_explain_prints_the_fused_kernel(run: Run) -> None:
    result = run("explain", str(GRAPH), "--source")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "1 kernel(s), TemporaryResourceSize 0" in out
    assert "// tensors bound, in argument order: input 0, input 1, input 2, output 0" in out
    assert "-cl-fp32-correctly-rounded-divide-sqrt" in out
    assert "#define ROWS 1" in out  # a per-channel scale: rows along the innermost dimension
    assert "const float v1 = ROUND_TOWARD_ZERO(v0);" in out
    assert "__kernel void fused_elementwise(" in out


def test_explain_of_a_graph_is_brief_without_source(run: Run) -> None:
    result = run("explain", str(GRAPH))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "// tensors bound, in argument order: input 0, input 1, input 2, output 0" in out
    assert "const float v1 = ROUND_TOWARD_ZERO(v0);" in out  # what the generator writes stays
    assert "__kernel" not in out and "#define ROWS 1" not in out  # the template and the -D lines do not
    assert out.splitlines()[-1].startswith("// left out: the source of opencl/elementwise.cl, its headers inlined: ")
    assert len(out.splitlines()) < 40
