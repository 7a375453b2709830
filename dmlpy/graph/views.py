"""Nodes that cost no launch: a node whose output is its input read through other strides (``input_view``:
SLICE's and SLICE1's windows at non-negative steps, ELEMENT_WISE_IDENTITY's plain copy of a transposed or broadcast
InputTensor) is left out of a compiled graph's launches where every reader can read the input that way itself.

DirectML's model says how: a tensor desc is a view of a buffer, Sizes and Strides over it, so a reader's desc can
say "the window" or "the transpose" as well as the copy's output can. Each reader's input tensor is re-described
with the view's Strides and reads the view's own source from the view's first element (``shifts``, the elements
past the source's start, as ``PlanRef.shift`` says for a plan's launches): the reader's kernel, fused or its own,
walks the input through those strides, and the copy's pass over memory is gone.

A view stays a launch where its output is a graph output (the bound output is written), where a reader reads it
reinterpreted (its own Sizes or Strides over the view's buffer: it needs the copy's bytes), or where a reader's
tensor cannot be re-described (``OperatorDescBase.with_tensor``: a tensor held inside another struct). Views of
views compose: a reader of an elided view is re-described before its own view is asked for, so its strides are the
composition."""

from __future__ import annotations

from dataclasses import dataclass

from dmlpy.graph.desc import GraphAnalysis, GraphDesc, OperatorGraphNodeDesc, Source
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import BufferTensorDesc


@dataclass(frozen=True)
class ViewedGraph:
    """A graph with its elided views' readers re-described and reading the views' sources."""

    graph: GraphDesc
    """The graph with each re-described reader's operator in its node."""
    analysis: GraphAnalysis
    """Sources past the elided nodes; the elided nodes out of ``order``."""
    shifts: dict[tuple[int, int], int]
    """(node, input) -> the elements past its source's start where the read begins (a window's first element)."""
    elided: frozenset[int]


def same_view(a: BufferTensorDesc, b: BufferTensorDesc) -> bool:
    """Whether two descs read one buffer alike: the same DataType, Sizes and Strides."""
    return (a.data_type, a.sizes, a.effective_strides) == (b.data_type, b.sizes, b.effective_strides)


def elide_views(graph: GraphDesc, analysis: GraphAnalysis) -> ViewedGraph:
    """``graph`` with every view node its readers can read through left out (module docstring)."""
    ops = {node: operator_of(graph, node) for node in analysis.order}
    sources = dict(analysis.sources)
    shifts: dict[tuple[int, int], int] = {}
    views: dict[int, tuple[Source, BufferTensorDesc, int]] = {}
    """Elided node -> the source its readers read, the desc they read it through and the shift."""
    graph_outputs = set(analysis.outputs)
    for node in analysis.order:
        op = ops[node]
        for slot in range(len(op.input_fields())):
            source = sources.get((node, slot))
            if source is None or source.kind != "node" or source.index not in views:
                continue
            origin, desc, shift = views[source.index]
            redescribed = _redescribed(op, slot, desc)
            assert redescribed is not None, "_elidable checked every reader"
            op, sources[(node, slot)], shifts[(node, slot)] = redescribed, origin, shift
        ops[node] = op
        view = op.input_view()
        if view is None or (node, 0) in graph_outputs or not _elidable(ops, analysis, node):
            continue
        (source_tensor,), (output,) = op.input_tensors()[:1], op.output_tensors()
        assert source_tensor is not None and output is not None
        viewed = BufferTensorDesc(
            data_type=output.desc.data_type,
            sizes=output.desc.sizes,
            strides=view.strides,
            total_tensor_size_in_bytes=source_tensor.desc.total_tensor_size_in_bytes,
        )
        views[node] = (sources[(node, 0)], viewed, shifts.get((node, 0), 0) + view.shift)
    if not views:
        return ViewedGraph(graph, analysis, {}, frozenset())
    kept = {key: source for key, source in sources.items() if key[0] not in views}
    consumers: dict[Source, list[tuple[int, int]]] = {}
    for key, source in sorted(kept.items()):
        consumers.setdefault(source, []).append(key)
    nodes = list(graph.nodes)
    for node, op in ops.items():
        node_desc = nodes[node].desc
        if node not in views and isinstance(node_desc, OperatorGraphNodeDesc) and op is not node_desc.op:
            operator = node_desc.operator.model_copy(update={"desc": op})
            nodes[node] = nodes[node].model_copy(update={"desc": node_desc.model_copy(update={"operator": operator})})
    analysis = GraphAnalysis(
        order=tuple(node for node in analysis.order if node not in views),
        sources=kept,
        input_descs=analysis.input_descs,
        outputs=analysis.outputs,
        output_descs=analysis.output_descs,
        consumers={source: tuple(readers) for source, readers in consumers.items()},
    )
    return ViewedGraph(graph.model_copy(update={"nodes": nodes}), analysis, shifts, frozenset(views))


def operator_of(graph: GraphDesc, node: int) -> OperatorDescBase:
    desc = graph.nodes[node].desc
    assert isinstance(desc, OperatorGraphNodeDesc)
    return desc.op


def _elidable(ops: dict[int, OperatorDescBase], analysis: GraphAnalysis, node: int) -> bool:
    """Whether every reader of ``node``'s one output reads it as written and can be re-described."""
    op = ops[node]
    (output,) = op.output_tensors()
    readers = analysis.consumers.get(Source("node", node, 0), ())
    if output is None or len(op.output_fields()) != 1 or not readers:
        return False
    for reader, slot in readers:
        tensor = ops[reader].input_tensors()[slot]
        if tensor is None or not same_view(tensor.desc, output.desc):
            return False
        if _redescribed(ops[reader], slot, output.desc) is None:
            return False
    return True


def _redescribed(op: OperatorDescBase, slot: int, desc: BufferTensorDesc) -> OperatorDescBase | None:
    """``op`` with input ``slot`` read through ``desc``; None where the operator cannot say so."""
    return op.with_tensor(op.input_fields()[slot], desc)
