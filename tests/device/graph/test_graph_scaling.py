"""Big graphs (issue 26): the work of reading, validating, planning, explaining and drawing a DML_GRAPH_DESC
grows linearly with its nodes and edges (a log factor at most), and the planner and the picture's indexes answer
exactly as the straightforward scans they replaced.

Work is counted, not timed: the lines of dmlpy's own code executed (sys.settrace), the same on any machine. A
quadratic step (a scan of every node or edge for each node) makes a graph of twice the nodes cost about four
times the lines; a linear one, twice (1.98-2.00 here). Timings are benchmarks/bench_graph_planning.py's.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.cli.explain import explain_graph
from dmlpy.cli.pictures import descriptor_picture
from dmlpy.cli.validate import graph_report
from dmlpy.drawing import routing
from dmlpy.graph import fusion
from dmlpy.graph.desc import GraphAnalysis, GraphDesc, OperatorGraphNodeDesc, Source
from dmlpy.graph.fusion import fuses, plan_graph
from dmlpy.graph.views import elide_views
from dmlpy.kernels import CPU_PROFILE

FL = dml.FeatureLevel
T = dml.TensorDataType
DMLPY = str(Path(dml.__file__).resolve().parent)


def _benchmark() -> Any:
    """benchmarks/bench_graph_planning.py (a script, not a package): its graphs and its main."""
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_graph_planning.py"
    spec = importlib.util.spec_from_file_location("bench_graph_planning", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCHMARK = _benchmark()
chain_json, tree_json, LEVEL = BENCHMARK.chain_json, BENCHMARK.tree_json, BENCHMARK.LEVEL


# ------------------------------------------------------------------------------------------ work counted
def dmlpy_lines(work: Callable[[], Any]) -> int:
    """How many lines of dmlpy's own code ``work`` executes (library code is not counted: pydantic-core's and
    NumPy's work per call does not depend on the graph's size)."""
    count = 0

    def in_dmlpy(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return in_dmlpy

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        return in_dmlpy if frame.f_code.co_filename.startswith(DMLPY) else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        work()
    finally:
        sys.settrace(previous)
    return count


LEVEL_6_2 = FL.parse(LEVEL)


def _read(document: dict[str, Any]) -> None:
    GraphDesc.model_validate(document)


def _validate(document: dict[str, Any]) -> None:
    GraphDesc.model_validate(document).validate_on(LEVEL_6_2)


def _plan(document: dict[str, Any]) -> None:
    desc = GraphDesc.model_validate(document)
    plan_graph(desc, desc.validate_on(LEVEL_6_2), CPU_PROFILE)


def _explain(document: dict[str, Any]) -> None:
    explain_graph(GraphDesc.model_validate(document), LEVEL_6_2)


def _picture(document: dict[str, Any]) -> None:
    descriptor_picture(GraphDesc.model_validate(document), LEVEL_6_2)


def _report(document: dict[str, Any]) -> None:
    graph_report(GraphDesc.model_validate(document), LEVEL_6_2)


WORK = {"read": _read, "validate": _validate, "plan": _plan, "explain": _explain, "svg": _picture, "report": _report}
SMALL = 150
"""Operator nodes of the smaller graph; the larger has twice as many. Quadratic steps cost lines in proportion to
SMALL squared against the linear ones' hundreds of lines per node: at 150, f2aef26's took 2.4-3.6 times the lines
for twice the nodes."""


@pytest.mark.parametrize("make", [chain_json, tree_json], ids=["chain", "tree"])
@pytest.mark.parametrize("step", list(WORK))
def test_work_grows_linearly_with_the_nodes(step: str, make: Callable[[int], dict[str, Any]]) -> None:
    small, large = make(SMALL), make(2 * SMALL)
    lines = [dmlpy_lines(lambda: WORK[step](small)), dmlpy_lines(lambda: WORK[step](large))]
    assert lines[1] <= 2.1 * lines[0], f"{step}: {lines[0]} lines for {SMALL} nodes, {lines[1]} for {2 * SMALL}"


def cyclic_chain_json(nodes: int) -> dict[str, Any]:
    """A refused graph: the chain, its edges listed last to first, beside two nodes that read each other (a
    cycle; its picture took O(nodes x edges) to lay out)."""
    document = chain_json(nodes)
    count = len(document["Nodes"])
    document["Nodes"] = [*document["Nodes"], document["Nodes"][0], document["Nodes"][0]]
    cycle = [(count, count + 1), (count + 1, count)]
    document["IntermediateEdges"] = document["IntermediateEdges"][::-1] + [
        {"Desc": {"FromNodeIndex": a, "FromNodeOutputIndex": 0, "ToNodeIndex": b, "ToNodeInputIndex": 0}}
        for a, b in cycle
    ]
    document.pop("NodeCount", None)
    document.pop("IntermediateEdgeCount", None)
    return document


def test_a_refused_cyclic_graph_draws_in_linear_work() -> None:
    def refused_picture(document: dict[str, Any]) -> None:
        desc = GraphDesc.model_validate(document)
        with pytest.raises(dml.InvalidArgumentError, match="make a cycle") as refusal:
            desc.validate_on(LEVEL_6_2)
        descriptor_picture(desc, LEVEL_6_2, str(refusal.value))

    small, large = cyclic_chain_json(SMALL), cyclic_chain_json(2 * SMALL)
    lines = [dmlpy_lines(lambda: refused_picture(small)), dmlpy_lines(lambda: refused_picture(large))]
    assert lines[1] <= 2.1 * lines[0], f"{lines[0]} lines for {SMALL} nodes, {lines[1]} for {2 * SMALL}"


# ------------------------------------------------------------------------------------- the same plan
def reference_groups(graph: GraphDesc, analysis: GraphAnalysis, fuse: bool) -> list[list[int]]:
    """The planner's grouping as first written (quadratic): a node joins the group before it when both fuse, the
    Sizes match and the group's kernel, recounted from scratch, still binds at most MAX_FUSED_TENSORS tensors."""
    groups: list[list[int]] = []
    for node in analysis.order:
        op = _op(graph, node)
        current = groups[-1] if groups else None
        if (
            fuse
            and current is not None
            and fuses(op)
            and all(fuses(_op(graph, other)) for other in current)
            and _sizes(_op(graph, current[0])) == _sizes(op)
            and not _reads_a_member_through_another_view(graph, analysis, current, node)
            and reference_tensor_count(graph, analysis, [*current, node]) <= fusion.MAX_FUSED_TENSORS
        ):
            current.append(node)
        else:
            groups.append([node])
    return groups


def _reads_a_member_through_another_view(
    graph: GraphDesc, analysis: GraphAnalysis, group: Sequence[int], node: int
) -> bool:
    """Whether ``node`` reads an output of ``group`` through a desc that is not the one it was written with."""
    for (reader, slot), source in analysis.sources.items():
        if reader == node and source.kind == "node" and source.index in group:
            read = _op(graph, node).input_tensors()[slot].desc
            written = _op(graph, source.index).output_tensors()[source.output].desc
            if (read.data_type, read.sizes, read.effective_strides) != (
                written.data_type,
                written.sizes,
                written.effective_strides,
            ):
                return True
    return False


def reference_tensor_count(graph: GraphDesc, analysis: GraphAnalysis, group: Sequence[int]) -> int:
    """Distinct (source, tensor) pairs the group reads from outside, plus the outputs it writes: those that are
    graph outputs or read by a node outside the group."""
    members = set(group)
    reads = set()
    for (node, slot), source in analysis.sources.items():
        if node in members and not (source.kind == "node" and source.index in members):
            tensor = _op(graph, node).input_tensors()[slot]
            assert tensor is not None
            reads.add((source, tensor.desc))
    writes = 0
    for node in group:
        for output in range(len(_op(graph, node).OUTPUTS)):
            readers = analysis.consumers.get(Source("node", node, output), ())
            if (node, output) in analysis.outputs or any(reader not in members for reader, _ in readers):
                writes += 1
    return len(reads) + writes


def _op(graph: GraphDesc, node: int) -> Any:
    desc = graph.nodes[node].desc
    assert isinstance(desc, OperatorGraphNodeDesc)
    return desc.op


def _sizes(op: Any) -> tuple[int, ...]:
    return tuple(op.input_tensors()[0].desc.sizes)


SHAPES = [(1, 1, 2, 4), (1, 2, 2, 2)]
"""Two shapes of 8 elements: nodes of different Sizes never share a kernel."""


class RandomGraph:
    """A random valid graph of element-wise nodes: Round and Identity of FLOAT32 and FLOAT16, Identity of INT8
    and of FLOAT64 (which does not fuse), QuantizeLinear and DequantizeLinear whose scales and zero points come
    from graph inputs or constant nodes; values fan out, some node outputs are graph outputs besides being read,
    and the node indices are shuffled so that the run order is not the index order."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.nodes: list[Any] = []
        self.inputs: list[dml.BufferTensorDesc] = []
        self.edges: list[tuple[str, int, int, int, int]] = []  # (kind, from, from output, to, to input)
        self.values: list[tuple[str, int, dml.BufferTensorDesc]] = []  # ("input" | "node", index, tensor)
        self.parameters: list[tuple[str, int, dml.BufferTensorDesc]] = []  # broadcast graph inputs

    def value(self, data_type: T, sizes: tuple[int, ...], fresh: float = 0.2) -> tuple[str, int, Any]:
        """A value of this type and shape to read: one already computed or bound, or a new graph input."""
        alike = [v for v in self.values if v[2].data_type == data_type and tuple(v[2].sizes) == sizes]
        if alike and self.rng.random() > fresh:
            return self.rng.choice(alike)
        strides = self.rng.choice([None, (0, 0, 1, 2) if sizes == SHAPES[0] else (0, 1, 4, 2)])
        desc = dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)
        self.inputs.append(desc)
        self.values.append(("input", len(self.inputs) - 1, desc))
        return self.values[-1]

    def parameter(self, data_type: T, sizes: tuple[int, ...], data: bytes) -> tuple[str, int, Any]:
        """A broadcast scale or zero point: a graph input (possibly shared) or a constant node of ``data``."""
        broadcast = dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=(0, 0, 0, 0))
        shared = [v for v in self.parameters if v[2] == broadcast]
        if shared and self.rng.random() < 0.5:
            return self.rng.choice(shared)
        if self.rng.random() < 0.5:
            self.inputs.append(broadcast)
            self.parameters.append(("input", len(self.inputs) - 1, broadcast))
            return self.parameters[-1]
        self.nodes.append(dml.ConstantDataGraphNodeDesc(data=data))
        return ("constant", len(self.nodes) - 1, broadcast)

    def connect(self, source: tuple[str, int, Any], node: int, slot: int) -> None:
        kind, index, _ = source
        if kind == "input":
            self.edges.append(("input", index, 0, node, slot))
        else:
            self.edges.append(("intermediate", index, 0, node, slot))

    def add_node(self) -> None:
        rng = self.rng
        sizes = rng.choice(SHAPES)
        kind = rng.choice(["round", "round", "identity", "identity", "quantize", "dequantize"])
        data_type = {
            "round": rng.choice([T.FLOAT32, T.FLOAT32, T.FLOAT16]),
            "identity": rng.choice([T.FLOAT32, T.FLOAT16, T.INT8, T.FLOAT64]),
            "quantize": T.FLOAT32,
            "dequantize": rng.choice([T.INT8, T.UINT8]),
        }[kind]
        source = self.value(data_type, sizes)
        output_type = {"quantize": rng.choice([T.INT8, T.UINT8]), "dequantize": T.FLOAT32}.get(kind, data_type)
        output = dml.BufferTensorDesc(data_type=output_type, sizes=sizes, strides=rng.choice([None, source[2].strides]))
        inputs: list[tuple[str, int, Any]] = [source]
        if kind in ("round", "identity"):
            if kind == "round":
                op: Any = dml.ElementWiseRoundOperatorDesc(
                    input_tensor=source[2], output_tensor=output, rounding_mode="HALVES_TO_NEAREST_EVEN"
                )
            else:
                scale_bias = None if data_type == T.FLOAT64 or rng.random() < 0.5 else {"Scale": 0.5, "Bias": 2.0}
                op = dml.ElementWiseIdentityOperatorDesc(
                    input_tensor=source[2], output_tensor=output, scale_bias=scale_bias
                )
        else:
            # A scale or zero point may be a full tensor that the graph computes, the input's own value even.
            integer = output_type if kind == "quantize" else data_type
            full = rng.random() < 0.3
            scale = self.value(T.FLOAT32, sizes) if full else self.parameter(T.FLOAT32, sizes, b"\x00\x00\x80\x3e")
            zero_point = None
            if rng.random() < 0.6:
                zero_point = self.value(integer, sizes) if full else self.parameter(integer, sizes, b"\x03")
            operator = (
                dml.ElementWiseQuantizeLinearOperatorDesc
                if kind == "quantize"
                else dml.ElementWiseDequantizeLinearOperatorDesc
            )
            op = operator(
                input_tensor=source[2],
                scale_tensor=scale[2],
                zero_point_tensor=zero_point[2] if zero_point else None,
                output_tensor=output,
            )
            inputs += [scale] + ([zero_point] if zero_point else [])
        self.nodes.append(dml.OperatorGraphNodeDesc(operator=op, name=f"{kind}{len(self.nodes)}"))
        node = len(self.nodes) - 1
        for slot, value in enumerate(inputs):
            self.connect(value, node, slot)
        self.values.append(("node", node, output))

    def desc(self) -> GraphDesc:
        """The graph, every unread node output (and some read ones) a graph output, the nodes shuffled."""
        read = {(e[1], e[2]) for e in self.edges if e[0] == "intermediate"}
        outputs = [
            index
            for index, node in enumerate(self.nodes)
            if isinstance(node, OperatorGraphNodeDesc) and ((index, 0) not in read or self.rng.random() < 0.2)
        ]
        position = list(range(len(self.nodes)))
        self.rng.shuffle(position)
        nodes: list[Any] = [None] * len(self.nodes)
        for old, new in enumerate(position):
            nodes[new] = self.nodes[old]
        return GraphDesc(
            nodes=nodes,
            input_edges=[
                dml.InputGraphEdgeDesc(graph_input_index=a, to_node_index=position[t], to_node_input_index=s)
                for kind, a, _, t, s in self.edges
                if kind == "input"
            ],
            intermediate_edges=[
                dml.IntermediateGraphEdgeDesc(
                    from_node_index=position[a],
                    from_node_output_index=o,
                    to_node_index=position[t],
                    to_node_input_index=s,
                )
                for kind, a, o, t, s in self.edges
                if kind == "intermediate"
            ],
            output_edges=[
                dml.OutputGraphEdgeDesc(from_node_index=position[n], from_node_output_index=0, graph_output_index=k)
                for k, n in enumerate(outputs)
            ],
        )


def random_graph(seed: int) -> GraphDesc:
    rng = random.Random(seed)
    graph = RandomGraph(rng)
    for _ in range(rng.randint(1, 40)):
        graph.add_node()
    return graph.desc()


@pytest.mark.parametrize("limit", [3, 5, fusion.MAX_FUSED_TENSORS])
def test_random_graphs_group_as_the_straightforward_planner_does(
    limit: int, monkeypatch: pytest.MonkeyPatch, tally: Any
) -> None:
    """The kernels of 300 random graphs, fused or not, at the planner's tensor limit and at two lower ones
    (where more groups end on it): the same nodes in the same kernels, in the same order, as the quadratic
    reference above."""
    monkeypatch.setattr(fusion, "MAX_FUSED_TENSORS", limit)
    fused_groups = 0
    for seed in range(300):
        graph = random_graph(seed)
        analysis = graph.validate_on(FL.FL_6_4)
        for fuse in (True, False):
            plan = plan_graph(graph, analysis, CPU_PROFILE, fuse=fuse)
            # Fused, plain Identity copies are views their readers read through (dmlpy/graph/views.py).
            viewed = elide_views(graph, analysis) if fuse else None
            grouped = (
                reference_groups(viewed.graph, viewed.analysis, fuse)
                if viewed
                else reference_groups(graph, analysis, fuse)
            )
            assert [list(step.nodes) for step in plan.steps] == grouped, seed
        fused_groups += sum(step.fused for step in plan_graph(graph, analysis, CPU_PROFILE).steps)
    assert fused_groups > 300  # the graphs do fuse: the comparison is not of single nodes only
    tally["random graphs planned against the reference"] += 300


# ------------------------------------------------------------------------------- the picture's indexes
def test_lanes_are_placed_where_a_scan_of_every_lane_and_border_places_them() -> None:
    """dmlpy.drawing.graph places each lane at the lowest height from its start that keeps LANE_GAP from every
    lane and kernel outline border overlapping it in x; against the walk over all of them that the picture
    used before (sorted heights, each within LANE_GAP pushing the lane LANE_GAP past it), on 200 random sets of
    outlines and 60 lanes each, with heights close enough to stack."""
    rng = random.Random(26)
    placed = 0
    for _ in range(200):
        xs = sorted(rng.sample(range(0, 2000, 10), 12))
        outlines = []
        for _ in range(rng.randint(0, 4)):
            x0, x1 = sorted(rng.sample(xs, 2))
            top = rng.randrange(0, 200)
            outlines.append((float(x0), float(top), float(x1), float(top + rng.randrange(20, 120))))
        lanes = routing.Lanes([float(x) for x in xs], outlines)
        scanned: list[tuple[float, float, float]] = []
        for _ in range(60):
            start, end = (float(x) for x in sorted(rng.sample(xs, 2)))
            height = float(rng.randrange(0, 300))
            beside = [h for h, s, e in scanned if s < end and e > start]
            beside += [b for x0, top, x1, bottom in outlines if x0 < end and x1 > start for b in (top, bottom)]
            wanted = height
            for other in sorted(beside):
                if abs(other - wanted) < routing.LANE_GAP:
                    wanted = other + routing.LANE_GAP
            assert lanes.place(height, start, end) == wanted
            scanned.append((wanted, start, end))
            placed += wanted != height
    assert placed > 1000  # most lanes had to move: the stacking is exercised


def test_boxes_an_edge_passes_are_those_a_scan_of_every_box_finds() -> None:
    """Which boxes an edge's start lies over (all but its end node's) and which lie between two x positions,
    against scans of every box, on 300 random sets of boxes in a few columns, two widths, many per column."""
    rng = random.Random(62)
    for _ in range(300):
        lefts = rng.sample(range(0, 3000, 100), 6)
        boxes = [
            (node, float(rng.choice(lefts)), float(rng.randrange(0, 500)), rng.choice([150, 270]), rng.choice([52, 60]))
            for node in range(rng.randint(1, 30))
        ]
        index = routing.Boxes(boxes)
        for _ in range(20):
            x, later = float(rng.randrange(0, 3400, 10)), float(rng.randrange(0, 3400, 10))
            end = rng.choice([None, *range(len(boxes))])
            others = [(x0, x0 + w) for node, x0, _, w, _ in boxes if node != end]
            assert index.without(end).clear_of(x) == max([x, *(r for left, r in others if left <= x < r)])
            between = [(x0, x0 + w, y + h) for _, x0, y, w, h in boxes if x0 > x and x0 + w < later]
            expected = (
                (min(b[0] for b in between), max(b[1] for b in between), max(b[2] for b in between))
                if between
                else None
            )
            assert index.without(end).between(x, later) == expected


# ------------------------------------------------------------------------------------------ the benchmark
def test_the_planning_benchmark_runs_and_its_graphs_plan_as_it_says(tmp_path: Path) -> None:
    """benchmarks/bench_graph_planning.py on small graphs, compile included: the chain fuses into one kernel; the
    tree runs its root DequantizeLinear and every fused group of inner nodes and leaves, one program per
    distinct kernel. Timings are never asserted."""
    out = tmp_path / "planning.json"
    assert BENCHMARK.main(["--nodes", "9,40", "--compile-max", "40", "--json", str(out)]) == 0
    rows = {(row["shape"], row["nodes"]): row for row in json.loads(out.read_text(encoding="utf-8"))["rows"]}
    assert set(rows) == {("chain", 9), ("chain", 40), ("tree", 11), ("tree", 42)}
    assert rows["chain", 40]["kernels"] == rows["chain", 40]["programs"] == 1
    tree = GraphDesc.model_validate(tree_json(40))
    plan = plan_graph(tree, tree.validate_on(LEVEL_6_2), CPU_PROFILE)
    assert rows["tree", 42]["kernels"] == len(plan.steps) > 1
    assert rows["tree", 42]["programs"] == len({step.lowered.kernel for step in plan.steps})
    assert all(row[step] >= 0 for row in rows.values() for step in ("read", "validate", "plan", "explain", "svg"))
