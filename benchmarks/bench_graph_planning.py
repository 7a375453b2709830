"""How long the pure work on a big DML_GRAPH_DESC takes: reading its JSON, validating it, planning its kernels,
``dmlpy explain``'s text, the ``--svg`` picture and ``device.compile_graph``, for chains and trees of 1K to 100K
nodes (issue 26: all of it O(nodes + edges), where it was quadratic).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_graph_planning.py                     # 1K, 10K and 100K, ~ minutes
    .venv/bin/python benchmarks/bench_graph_planning.py --nodes 1K,4K --shapes chain --compile-max 0
    .venv/bin/python benchmarks/bench_graph_planning.py --write-json /tmp/chain.json --nodes 4K --shapes chain

The graphs (FLOAT32 and INT8 tensors of 16 elements: the work measured here does not depend on the tensors'
sizes):

    chain  graph input 0 -> Round, Identity, Round, ... (n nodes) -> graph output 0: every node fuses, and the
           whole chain binds 2 tensors, so it plans as ONE fused kernel of n nodes
    tree   a binary fan-out of n operator nodes (node i reads node (i - 1) // 2): the root a DequantizeLinear of
           graph input 0, the inner nodes Round and Identity, each leaf a QuantizeLinear to its own graph output
           (about n / 2 outputs); every DequantizeLinear and QuantizeLinear reads its scale and zero point from
           the same two constant nodes

Columns: ``read`` GraphDesc.model_validate of the parsed JSON; ``validate`` GraphDesc.validate_on (every rule);
``plan`` fusion.plan_graph; ``explain`` dmlpy explain's lines (validation, plan and every kernel's source);
``svg`` the compiled graph's picture (validation, plan, drawing); ``compile`` device.compile_graph on the
default OpenCL device (validation, plan, and one OpenCL build per distinct kernel source: ``programs``). Timings
are one run each (time.perf_counter), in seconds.

pyopencl keeps built programs on disk (and PoCL its own kernel cache), so a second run compiles from the caches:
``PYOPENCL_NO_CACHE=1 POCL_KERNEL_CACHE=0`` times the OpenCL compiler itself.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHAPE = [1, 1, 4, 4]
FLOAT32 = {"DataType": "FLOAT32", "Sizes": SHAPE}
INT8 = {"DataType": "INT8", "Sizes": SHAPE}
BROADCAST_SCALE = {"DataType": "FLOAT32", "Sizes": SHAPE, "Strides": [0, 0, 0, 0]}
BROADCAST_ZERO_POINT = {"DataType": "INT8", "Sizes": SHAPE, "Strides": [0, 0, 0, 0]}
LEVEL = "6_2"
"""Constant nodes arrived at DML_FEATURE_LEVEL_6_2."""


def _operator(kind: str, name: str) -> dict[str, Any]:
    """One operator node's JSON: a Round or Identity of FLOAT32, a DequantizeLinear from INT8 or a QuantizeLinear
    to INT8 with broadcast scale and zero point."""
    if kind == "round":
        desc: dict[str, Any] = {"InputTensor": FLOAT32, "OutputTensor": FLOAT32, "RoundingMode": "TOWARD_ZERO"}
        operator = "ELEMENT_WISE_ROUND"
    elif kind == "identity":
        desc = {"InputTensor": FLOAT32, "OutputTensor": FLOAT32, "ScaleBias": {"Scale": 0.5, "Bias": 1.0}}
        operator = "ELEMENT_WISE_IDENTITY"
    else:
        quantize = kind == "quantize"
        desc = {
            "InputTensor": FLOAT32 if quantize else INT8,
            "ScaleTensor": BROADCAST_SCALE,
            "ZeroPointTensor": BROADCAST_ZERO_POINT,
            "OutputTensor": INT8 if quantize else FLOAT32,
        }
        operator = "ELEMENT_WISE_QUANTIZE_LINEAR" if quantize else "ELEMENT_WISE_DEQUANTIZE_LINEAR"
    return {"Type": "OPERATOR", "Desc": {"Operator": {"Type": operator, "Desc": desc}, "Name": name}}


def _edge(kind: str, **fields: int) -> dict[str, Any]:
    return {"Type": kind, "Desc": fields}


def chain_json(count: int) -> dict[str, Any]:
    """Graph input 0 -> ``count`` nodes, Round and Identity in turn -> graph output 0."""
    nodes = [_operator("round" if k % 2 == 0 else "identity", f"n{k}") for k in range(count)]
    intermediate = [
        _edge("INTERMEDIATE", FromNodeIndex=k - 1, FromNodeOutputIndex=0, ToNodeIndex=k, ToNodeInputIndex=0)
        for k in range(1, count)
    ]
    return {
        "Nodes": nodes,
        "InputEdges": [_edge("INPUT", GraphInputIndex=0, ToNodeIndex=0, ToNodeInputIndex=0)],
        "IntermediateEdges": intermediate,
        "OutputEdges": [_edge("OUTPUT", FromNodeIndex=count - 1, FromNodeOutputIndex=0, GraphOutputIndex=0)],
    }


def tree_json(count: int) -> dict[str, Any]:
    """A binary fan-out of ``count`` (at least 3) operator nodes, node i reading node (i - 1) // 2: a
    DequantizeLinear root, Round and Identity inside, a QuantizeLinear at each leaf, each leaf a graph output;
    constant nodes ``count`` (the scale) and ``count + 1`` (the zero point) feed every quantizing node."""
    scale, zero_point = count, count + 1
    leaf = [2 * k + 1 >= count for k in range(count)]
    nodes = [
        _operator("dequantize" if k == 0 else "quantize" if leaf[k] else ("round", "identity")[k % 2], f"n{k}")
        for k in range(count)
    ]
    nodes.append({"Type": "CONSTANT", "Desc": {"Data": base64.b64encode(b"\x00\x00\x80\x3e").decode(), "Name": "s"}})
    nodes.append({"Type": "CONSTANT", "Desc": {"Data": base64.b64encode(b"\x03").decode(), "Name": "z"}})
    intermediate = [
        _edge("INTERMEDIATE", FromNodeIndex=(k - 1) // 2, FromNodeOutputIndex=0, ToNodeIndex=k, ToNodeInputIndex=0)
        for k in range(1, count)
    ]
    for k in range(count):
        if k == 0 or leaf[k]:
            intermediate += [
                _edge("INTERMEDIATE", FromNodeIndex=scale, FromNodeOutputIndex=0, ToNodeIndex=k, ToNodeInputIndex=1),
                _edge(
                    "INTERMEDIATE", FromNodeIndex=zero_point, FromNodeOutputIndex=0, ToNodeIndex=k, ToNodeInputIndex=2
                ),
            ]
    leaves = [k for k in range(count) if leaf[k]]
    return {
        "Nodes": nodes,
        "InputEdges": [_edge("INPUT", GraphInputIndex=0, ToNodeIndex=0, ToNodeInputIndex=0)],
        "IntermediateEdges": intermediate,
        "OutputEdges": [
            _edge("OUTPUT", FromNodeIndex=k, FromNodeOutputIndex=0, GraphOutputIndex=output)
            for output, k in enumerate(leaves)
        ],
    }


SHAPES: dict[str, Callable[[int], dict[str, Any]]] = {"chain": chain_json, "tree": tree_json}


def parse_count(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(text.rstrip("KM")) * scale


def timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def measure(shape: str, count: int, compile_graph: bool) -> dict[str, Any]:
    """One row: the seconds each step takes on a ``shape`` graph of ``count`` operator nodes."""
    import dmlpy as dml
    from dmlpy.cli.explain import explain_graph
    from dmlpy.drawing import DrawnKernel
    from dmlpy.graph.fusion import plan_graph
    from dmlpy.kernels import CPU_PROFILE

    level = dml.FeatureLevel.parse(LEVEL)
    document = SHAPES[shape](count)
    row: dict[str, Any] = {"shape": shape, "nodes": len(document["Nodes"])}
    row["read"], desc = timed(lambda: dml.GraphDesc.model_validate(document))
    row["validate"], analysis = timed(lambda: desc.validate_on(level))
    row["plan"], plan = timed(lambda: plan_graph(desc, analysis, CPU_PROFILE))
    row["kernels"] = len(plan.steps)
    row["explain"], _ = timed(lambda: explain_graph(desc, level))

    def picture() -> int:
        drawn = plan_graph(desc, desc.validate_on(level), CPU_PROFILE)
        return len(desc.picture([DrawnKernel(step.nodes, step.fused) for step in drawn.steps]).svg)

    row["svg"], row["svg_bytes"] = timed(picture)
    row["compile"] = row["programs"] = None
    if compile_graph:
        device = dml.create_device(minimum_feature_level=dml.FeatureLevel.FL_6_2)
        row["compile"], compiled = timed(lambda: device.compile_graph(desc))
        row["programs"] = len({step.lowered.kernel for step in compiled.plan.steps})
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", default="1K,10K,100K", help="operator node counts, comma-separated (1K, 10000)")
    parser.add_argument("--shapes", default="chain,tree", help="chain, tree or both")
    parser.add_argument(
        "--compile-max",
        default="10K",
        help="time device.compile_graph only for graphs of at most this many operator nodes (0: never); each "
        "distinct fused kernel is an OpenCL build of its own",
    )
    parser.add_argument("--write-json", type=Path, help="write the one graph --nodes and --shapes name, and stop")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    counts = [parse_count(text) for text in args.nodes.split(",")]
    shapes = args.shapes.split(",")
    if args.write_json is not None:
        args.write_json.write_text(json.dumps(SHAPES[shapes[0]](counts[0])), encoding="utf-8")
        return 0
    columns = ("shape", "nodes", "kernels", "read", "validate", "plan", "explain", "svg", "compile", "programs")
    print(" | ".join(f"{c:>8}" for c in columns))
    rows = []
    for shape in shapes:
        for count in counts:
            row = measure(shape, count, count <= parse_count(args.compile_max))
            rows.append(row)
            cells = [f"{row[c]:8.2f}" if isinstance(row[c], float) else f"{row[c]!s:>8}" for c in columns]
            print(" | ".join(cells), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
