"""How a validated graph runs: which nodes share one kernel, where the values between kernels live, and the
fused kernel's lowering (pure; the runtime launches the plan).

Nodes are taken in the graph's topological order and grouped greedily: a node joins the group before it when
both fuse (an element-wise operator, ``ElementwiseDesc``, with an ``expression`` at its types), share their
Sizes (a group is one index space) and the group's kernel still binds at most MAX_FUSED_TENSORS tensors. A group of
one node runs the operator's own plan (one launch, or several with temporary regions), exactly as
``compile_operator`` would; a larger group runs the
element-wise template (``opencl/elementwise.cl``, written by dmlpy/kernels/elementwise.py), its values carried
in registers. A REDUCE, ARGMIN, ARGMAX, MEAN_VARIANCE_NORMALIZATION or LP_NORMALIZATION node then takes the groups
around it into its own kernel where that saves a pass over memory (dmlpy/graph/anchored.py). A node output read by
a later group lives in the temporary resource (or in the graph output it also is).

Fusion is bit-identical to the nodes one by one: a value is rounded to its edge's data type where the nodes one
by one would store it (TO_HALF for FLOAT16; the quantizing conversion for 8-bit integers), and each operator's
expression is the arithmetic its own kernel runs (``opencl/elementwise_ops.h``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from dmlpy.graph.anchored import anchored_step, is_anchored, join_anchored
from dmlpy.graph.desc import GraphAnalysis, GraphDesc, Source
from dmlpy.graph.steps import MAX_FUSED_TENSORS, GroupStatements, ReadFrom, Step, StoredIn, fuses
from dmlpy.graph.steps import TensorRef as TensorRef
from dmlpy.graph.views import elide_views, operator_of, same_view
from dmlpy.kernels import LaunchProfile, PlanRef, TemporaryRegions, block_counts, blocked_layout
from dmlpy.kernels.elementwise import elementwise_kernel, value_type
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import BufferTensorDesc


@dataclass(frozen=True)
class GraphPlan:
    """The kernels of a compiled graph in launch order, and the memory between them."""

    steps: tuple[Step, ...]
    temporary_offsets: tuple[int, ...]
    """Byte offset of each temporary region within the temporary resource."""
    temporary_size: int
    """TemporaryResourceSize: the bytes every temporary region needs (0 when every value stays in registers)."""


def plan_graph(graph: GraphDesc, analysis: GraphAnalysis, profile: LaunchProfile, *, fuse: bool = True) -> GraphPlan:
    """The launches that compute ``graph`` (validated, with its ``analysis``) on devices of ``profile``'s kind;
    ``fuse=False`` runs every node as its own kernel, its outputs in the temporary resource, views included."""
    shifts: dict[tuple[int, int], int] = {}
    if fuse:
        viewed = elide_views(graph, analysis)
        graph, analysis, shifts = viewed.graph, viewed.analysis, viewed.shifts
    groups = _groups(graph, analysis, shifts, fuse)
    if fuse:
        groups = join_anchored(graph, analysis, shifts, groups)
    group_of = {node: g for g, group in enumerate(groups) for node in group}
    graph_output_of = {producer: k for k, producer in enumerate(analysis.outputs)}
    temporaries: dict[tuple[int, int], int] = {}
    regions = TemporaryRegions()

    def stored_in(node: int, output: int) -> TensorRef | None:
        """Where a node output is stored, if it is: its graph output, else a temporary region when a later group
        reads it."""
        desc = _op(graph, node).output_tensors()[output]
        assert desc is not None
        if (node, output) in graph_output_of:
            return TensorRef("output", graph_output_of[(node, output)], desc.desc)
        readers = analysis.consumers.get(Source("node", node, output), ())
        if all(group_of[reader] == group_of[node] for reader, _ in readers) and len(groups[group_of[node]]) > 1:
            return None  # stays in registers
        if (node, output) not in temporaries:
            temporaries[(node, output)] = regions.add(desc.desc.total_tensor_size_in_bytes)
        return TensorRef("temporary", temporaries[(node, output)], desc.desc)

    def read_from(node: int, slot: int, desc: BufferTensorDesc) -> TensorRef:
        """Where input ``slot`` of ``node`` reads, through ``desc`` (its own view of the value's buffer)."""
        source, shift = analysis.sources[(node, slot)], shifts.get((node, slot), 0)
        if source.kind in ("input", "constant"):
            return TensorRef(source.kind, source.index, desc, shift)
        ref = stored_in(source.index, source.output)
        assert ref is not None, "a value read across kernels is stored"
        return replace(ref, desc=desc, shift=ref.shift + shift)

    steps: list[Step] = []
    for group in groups:
        if len(group) == 1:
            steps.extend(_single_steps(graph, analysis, group[0], profile, read_from, stored_in, regions))
        elif is_anchored(graph, group):
            steps.append(anchored_step(graph, analysis, group, profile, read_from, stored_in))
        else:
            steps.append(_fused_step(graph, analysis, group, profile, read_from, stored_in))
    return GraphPlan(tuple(steps), tuple(regions.offsets), regions.size)


_op = operator_of


def _sizes(op: OperatorDescBase) -> tuple[int, ...]:
    first = op.input_tensors()[0]
    assert first is not None
    return first.desc.sizes


def _blocks(op: OperatorDescBase) -> dict[int, int]:
    """The dimensions ``op``'s inputs are blocked along (FL 6_3's smaller quantization tensors), with the number
    of blocks."""
    sizes = _sizes(op)
    return {d: n for t in op.input_tensors() if t is not None for d, n in block_counts(sizes, t.desc.sizes).items()}


def _groups(
    graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int], fuse: bool
) -> list[list[int]]:
    groups: list[list[int]] = []
    tensors = _GroupTensors(graph, analysis, shifts)
    fusing = False  # whether every node of the last group fuses
    blocks: dict[int, int] = {}  # the last group's blocked dimensions: one kernel splits each one way only
    for node in analysis.order:
        op = _op(graph, node)
        node_fuses = fuse and fuses(op)
        node_blocks = _blocks(op) if node_fuses else {}
        if (
            fusing
            and node_fuses
            and _sizes(_op(graph, groups[-1][0])) == _sizes(op)
            and all(blocks.get(d, n) == n for d, n in node_blocks.items())
            and not tensors.reads_a_member_reinterpreted(node)
            and tensors.count_with(node) <= MAX_FUSED_TENSORS
        ):
            groups[-1].append(node)
            tensors.add(node)
            blocks.update(node_blocks)
        else:
            groups.append([node])
            tensors.start(node)
            fusing = node_fuses
            blocks = node_blocks
    return groups


class _GroupTensors:
    """The tensors a fused kernel of the group being grouped binds, kept as nodes join it, so that each node costs
    the edges it has rather than the whole group (planning is linear in nodes and edges): the distinct (source,
    tensor) pairs the group reads from outside, and its outputs that are graph outputs or that a node outside the
    group reads (every reader outside so far: an upper bound, as later members only make it smaller).

    Nodes join in the graph's run order, so a node never feeds the group it joins: joining adds its outside
    reads and outputs, and takes the outputs of members it was the last outside reader of off the writes."""

    def __init__(self, graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int]) -> None:
        self.graph = graph
        self.analysis = analysis
        self.shifts = shifts
        self.graph_outputs = set(analysis.outputs)
        self.members: set[int] = set()
        self.reads: set[tuple[Source, BufferTensorDesc, int]] = set()
        self.outside_readers: dict[tuple[int, int], int] = {}
        """Per member output, the (node, input) pairs outside the group that read it."""
        self.writes = 0

    def start(self, node: int) -> None:
        """Begin a new group with ``node``."""
        self.members = set()
        self.reads = set()
        self.outside_readers = {}
        self.writes = 0
        self.add(node)

    def count_with(self, node: int) -> int:
        """Tensors the group would bind with ``node`` joined."""
        reads, left = self._joining(node)
        return len(self.reads) + len(reads - self.reads) + self.writes - self._settled(left) + self._own_writes(node)

    def add(self, node: int) -> None:
        reads, left = self._joining(node)
        self.reads |= reads
        self.writes += self._own_writes(node) - self._settled(left)
        self.outside_readers.update(left)
        for output in range(len(_op(self.graph, node).output_fields())):
            self.outside_readers[(node, output)] = len(self._readers(node, output))
        self.members.add(node)

    def reads_a_member_reinterpreted(self, node: int) -> bool:
        """Whether ``node`` reads a member's output other than as written (its own Sizes or Strides, or from a
        shift): other work-items' values, which only a stored value gives."""
        for slot in range(len(_op(self.graph, node).input_fields())):
            source = self.analysis.sources.get((node, slot))
            if source is not None and source.kind == "node" and source.index in self.members:
                written = _op(self.graph, source.index).output_tensors()[source.output]
                assert written is not None
                if self.shifts.get((node, slot)) or not same_view(_input_desc(self.graph, node, slot), written.desc):
                    return True
        return False

    def _joining(self, node: int) -> tuple[set[tuple[Source, BufferTensorDesc, int]], dict[tuple[int, int], int]]:
        """What ``node`` brings: the (source, tensor) pairs it reads from outside the group, and for each member
        output it reads, the outside readers that output has left once ``node`` is in."""
        reads: set[tuple[Source, BufferTensorDesc, int]] = set()
        left: dict[tuple[int, int], int] = {}
        for slot in range(len(_op(self.graph, node).input_fields())):
            source = self.analysis.sources.get((node, slot))
            if source is None:
                continue
            if source.kind == "node" and source.index in self.members:
                output = (source.index, source.output)
                left[output] = left.get(output, self.outside_readers[output]) - 1
            else:
                reads.add((source, _input_desc(self.graph, node, slot), self.shifts.get((node, slot), 0)))
        return reads, left

    def _settled(self, left: dict[tuple[int, int], int]) -> int:
        """The member outputs the group no longer writes: no outside reader left, and not a graph output."""
        return sum(1 for output, count in left.items() if not count and output not in self.graph_outputs)

    def _own_writes(self, node: int) -> int:
        """The outputs of ``node`` the group writes: graph outputs, and those read (by later nodes: outside)."""
        return sum(
            1
            for output in range(len(_op(self.graph, node).output_fields()))
            if (node, output) in self.graph_outputs or self._readers(node, output)
        )

    def _readers(self, node: int, output: int) -> tuple[tuple[int, int], ...]:
        return self.analysis.consumers.get(Source("node", node, output), ())


def _input_desc(graph: GraphDesc, node: int, slot: int) -> BufferTensorDesc:
    tensor = _op(graph, node).input_tensors()[slot]
    assert tensor is not None
    return tensor.desc


def _single_steps(
    graph: GraphDesc,
    analysis: GraphAnalysis,
    node: int,
    profile: LaunchProfile,
    read_from: ReadFrom,
    stored_in: StoredIn,
    regions: TemporaryRegions,
) -> list[Step]:
    """A node of its own: its operator's plan (one launch, as ``compile_operator`` runs it, or several), the plan's
    inputs read where the graph holds them, its outputs stored where the graph reads them, and its temporary
    regions given regions of the graph's temporary resource."""
    op = _op(graph, node)
    plan = op.plan(profile)
    inputs = op.input_tensors()
    own = [regions.add(desc.total_tensor_size_in_bytes) for desc in plan.temporaries]

    def bound(ref: PlanRef | None) -> TensorRef | None:
        if ref is None:
            return None
        if ref.kind == "temporary":
            return TensorRef("temporary", own[ref.index], plan.temporaries[ref.index], ref.shift)
        if ref.kind == "output":
            target = stored_in(node, ref.index)
        else:
            source, tensor = analysis.sources.get((node, ref.index)), inputs[ref.index]
            target = read_from(node, ref.index, tensor.desc) if source is not None and tensor is not None else None
        return target if target is None or not ref.shift else replace(target, shift=target.shift + ref.shift)

    return [Step((node,), step.lowered, tuple(bound(ref) for ref in step.tensors)) for step in plan.steps]


def _fused_step(
    graph: GraphDesc,
    analysis: GraphAnalysis,
    group: Sequence[int],
    profile: LaunchProfile,
    read_from: ReadFrom,
    stored_in: StoredIn,
) -> Step:
    """The fused kernel of ``group``: the element-wise template (dmlpy/kernels/elementwise.py) with one
    statement per node. Nodes are named by their operator alone, never by index or Name: no user text reaches a
    compiler, and groups of one shape anywhere in a graph share one program (the source is the program cache's
    key). CompiledGraph.source shows each kernel's nodes, names included, beside it."""
    statements = GroupStatements(graph, analysis, read_from)
    computed = [statements.statement(node, position) for position, node in enumerate(group)]
    loads = list(statements.loads.values())
    arguments = statements.arguments
    stores: list[tuple[int, int]] = []
    for position, node in enumerate(group):
        ref = stored_in(node, 0)
        if ref is not None:
            stores.append((len(arguments), position))
            arguments.append(ref)
    types = [value_type(ref.desc.data_type) for ref in arguments]
    assert all(t is not None for t in types)
    sizes = _sizes(_op(graph, group[0]))
    layout = blocked_layout(sizes, [(ref.desc.sizes, ref.desc.effective_strides) for ref in arguments])
    lowered = elementwise_kernel(
        [t for t in types if t is not None],
        loads,
        computed,
        stores,
        layout,
        profile,
        fused=True,
        may_alias=False,
    )
    return Step(tuple(group), lowered, tuple(arguments))
