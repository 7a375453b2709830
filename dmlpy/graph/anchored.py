"""Groups anchored by a reduction or a normalization: a REDUCE, ARGMIN, ARGMAX, MEAN_VARIANCE_NORMALIZATION (any
form) or LP_NORMALIZATION node runs in one kernel with the element-wise nodes around it where that saves a pass over
memory.

- The prologue: the element-wise group just before the anchor whose values only the anchor's input (and the group
  itself) reads, of the anchor input's Sizes. The anchor's kernel computes them on each element as it loads it
  (REDUCE SUM of x * x, REDUCE of a Cast, RMSNorm's square), so the value the anchor reduces never reaches memory.
- The epilogue: the element-wise group just after the anchor that reads its output, of the output's Sizes. Each
  result goes through it before it is stored (a mean's + Epsilon and square root, an activation after a
  normalization); the anchor's output is stored only where a node outside the group or the graph's outputs read
  it.

The groups are the element-wise grouping's (dmlpy/graph/fusion.py), joined to their anchor afterwards: a group that
qualifies whole joins, else none of it (planning stays linear). The kernel is the anchor's own (opencl/reduce.cl,
opencl/normalize.cl) with the statements of opencl/anchored.h (dmlpy/kernels/anchored.py): each operator's
``expression`` as the element-wise fusion takes it, every value rounded to its edge's data type, so the group's
bits are the nodes' one by one.
"""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.graph.desc import GraphAnalysis, GraphDesc, Source
from dmlpy.graph.steps import MAX_FUSED_TENSORS, GroupStatements, ReadFrom, Step, StoredIn, TensorRef, fuses
from dmlpy.graph.views import operator_of, same_view
from dmlpy.kernels import LaunchProfile
from dmlpy.kernels.anchored import ANCHOR_VALUE, AnchoredGroup, anchored_kernel
from dmlpy.kernels.elementwise import load_name, value_type
from dmlpy.kernels.reduction import vector_walks
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.lp_normalization import LpNormalizationOperatorDesc
from dmlpy.ops.mean_variance_normalization import (
    MeanVarianceNormalization1OperatorDesc,
    MeanVarianceNormalization2OperatorDesc,
    MeanVarianceNormalizationOperatorDesc,
)
from dmlpy.ops.reduction import ArgMaxOperatorDesc, ArgMinOperatorDesc, ReduceOperatorDesc

_REDUCTIONS = (ReduceOperatorDesc, ArgMinOperatorDesc, ArgMaxOperatorDesc)
_MEAN_VARIANCE = (
    MeanVarianceNormalizationOperatorDesc,
    MeanVarianceNormalization1OperatorDesc,
    MeanVarianceNormalization2OperatorDesc,
)
_ANCHOR_READS = {1: "SCALE_AT", 2: "BIAS_AT"}
"""normalize.cl's reads of a normalization's ScaleTensor and BiasTensor (its input slots 1 and 2)."""


def anchor_axes(op: OperatorDescBase) -> tuple[int, ...] | None:
    """The axes ``op`` reduces or normalizes along where it can anchor a group (every tensor of a type the
    statements hold, none of 4 bits), else None."""
    tensors = [t for t in (*op.input_tensors(), *op.output_tensors()) if t is not None]
    types = [value_type(t.desc.data_type) for t in tensors]
    if any(t is None or t.nibble for t in types):
        return None
    if isinstance(op, _REDUCTIONS):
        return tuple(op.axes)
    if isinstance(op, _MEAN_VARIANCE):
        return tuple(op.normalized()[0])
    if isinstance(op, LpNormalizationOperatorDesc):
        return (op.axis,)
    return None


def join_anchored(
    graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int], groups: list[list[int]]
) -> list[list[int]]:
    """``groups`` (the element-wise grouping's, in run order) with each anchor node's group joined by the fused
    group just before it as its prologue and the one just after as its epilogue, where each qualifies and the
    kernel binds at most MAX_FUSED_TENSORS tensors (the prologue tried first: it saves a whole pass)."""
    joined: list[list[int]] = []
    anchored: set[int] = set()  # positions in ``joined`` of anchored groups, which never join another anchor
    position = 0
    while position < len(groups):
        group = groups[position]
        position += 1
        if len(group) != 1 or anchor_axes(operator_of(graph, group[0])) is None:
            joined.append(group)
            continue
        anchor = group[0]
        prologue: list[int] = []
        if joined and len(joined) - 1 not in anchored and _is_prologue(graph, analysis, shifts, joined[-1], anchor):
            prologue = joined[-1]
        epilogue: list[int] = []
        if position < len(groups) and _is_epilogue(graph, analysis, shifts, anchor, groups[position]):
            epilogue = groups[position]
        none: list[int] = []
        choices = ((prologue, epilogue), (prologue, none), (none, epilogue))
        before, after = next(
            (
                (b, a)
                for b, a in choices
                if (b or a) and _tensor_count(graph, analysis, shifts, [*b, anchor, *a]) <= MAX_FUSED_TENSORS
            ),
            ([], []),
        )
        if before:
            joined.pop()
        if after:
            position += 1
        if before or after:
            anchored.add(len(joined))
        joined.append([*before, anchor, *after])
    return joined


def _fused_group(graph: GraphDesc, group: Sequence[int], sizes: tuple[int, ...]) -> bool:
    """Whether every node of ``group`` fuses with every tensor of ``sizes`` (no blocked quantization tensor), none
    of 4 bits."""
    for node in group:
        op = operator_of(graph, node)
        if not fuses(op):
            return False
        for tensor in (*op.input_tensors(), *op.output_tensors()):
            if tensor is not None:
                held = value_type(tensor.desc.data_type)
                if tensor.desc.sizes != sizes or held is None or held.nibble:
                    return False
    return True


def _reads(
    graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int], node: int, slot: int, source: int
) -> bool:
    """Whether input ``slot`` of ``node`` reads output 0 of node ``source`` as written (its view, no shift)."""
    read = analysis.sources.get((node, slot))
    if read is None or read.kind != "node" or read.index != source:
        return False
    written = operator_of(graph, source).output_tensors()[read.output]
    tensor = operator_of(graph, node).input_tensors()[slot]
    assert written is not None and tensor is not None
    return read.output == 0 and not shifts.get((node, slot)) and same_view(tensor.desc, written.desc)


def _is_prologue(
    graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int], group: list[int], anchor: int
) -> bool:
    """Whether ``group`` computes the anchor's input and nothing else any other node or the graph reads."""
    op = operator_of(graph, anchor)
    source = analysis.sources.get((anchor, 0))
    if source is None or source.kind != "node" or source.index not in group:
        return False
    if not _fused_group(graph, group, op.input_tensors()[0].desc.sizes):  # type: ignore[union-attr]
        return False
    if not _reads(graph, analysis, shifts, anchor, 0, source.index):
        return False
    members, outputs = set(group), set(analysis.outputs)
    for node in group:
        if (node, 0) in outputs:
            return False
        for reader in analysis.consumers.get(Source("node", node, 0), ()):
            if reader[0] not in members and reader != (anchor, 0):
                return False
    return True


def _is_epilogue(
    graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int], anchor: int, group: list[int]
) -> bool:
    """Whether ``group`` is of the anchor output's Sizes and reads the anchor's output, as written, somewhere."""
    output = operator_of(graph, anchor).output_tensors()[0]
    assert output is not None
    if not _fused_group(graph, group, output.desc.sizes):
        return False
    readers = [
        (node, slot)
        for node in group
        for slot in range(len(operator_of(graph, node).input_fields()))
        if (source := analysis.sources.get((node, slot))) is not None
        and source.kind == "node"
        and source.index == anchor
    ]
    return bool(readers) and all(_reads(graph, analysis, shifts, node, slot, anchor) for node, slot in readers)


def _tensor_count(
    graph: GraphDesc, analysis: GraphAnalysis, shifts: dict[tuple[int, int], int], group: list[int]
) -> int:
    """The tensors the group's kernel binds: the distinct views it reads from outside, and its nodes' outputs
    that the graph or a node outside read."""
    members, outputs = set(group), set(analysis.outputs)
    reads = set()
    writes = 0
    for node in group:
        op = operator_of(graph, node)
        for slot, tensor in enumerate(op.input_tensors()):
            source = analysis.sources.get((node, slot))
            if tensor is not None and source is not None and not (source.kind == "node" and source.index in members):
                reads.add((source, tensor.desc, shifts.get((node, slot), 0)))
        readers = analysis.consumers.get(Source("node", node, 0), ())
        writes += (node, 0) in outputs or any(reader[0] not in members for reader in readers)
    return len(reads) + writes


def is_anchored(graph: GraphDesc, group: Sequence[int]) -> bool:
    """Whether ``group`` (of more than one node) is anchored: it holds an anchor node."""
    return any(anchor_axes(operator_of(graph, node)) is not None for node in group)


def anchored_step(
    graph: GraphDesc,
    analysis: GraphAnalysis,
    group: Sequence[int],
    profile: LaunchProfile,
    read_from: ReadFrom,
    stored_in: StoredIn,
) -> Step:
    """The kernel of an anchored ``group`` (``join_anchored``'s): the prologue's loads and statements, the
    anchor's other inputs, the epilogue's loads and statements, then the stores, in binding order."""
    at = next(k for k, node in enumerate(group) if anchor_axes(operator_of(graph, node)) is not None)
    prologue, anchor, epilogue = group[:at], group[at], group[at + 1 :]
    op = operator_of(graph, anchor)
    axes = anchor_axes(op)
    assert axes is not None
    statements = GroupStatements(graph, analysis, read_from)
    before = tuple(statements.statement(node, position) for position, node in enumerate(prologue))
    if prologue:
        element = statements.values[(prologue[-1], 0)]
    else:
        tensor = op.input_tensors()[0]
        assert tensor is not None
        element = load_name(statements.bind(read_from(anchor, 0, tensor.desc)))
    element_loads = tuple(statements.loads.values())
    anchor_reads = []
    for slot, macro in _ANCHOR_READS.items() if isinstance(op, _MEAN_VARIANCE) else ():
        tensor = op.input_tensors()[slot]
        if tensor is not None and analysis.sources.get((anchor, slot)) is not None:
            anchor_reads.append((macro, statements.bind(read_from(anchor, slot, tensor.desc))))
    statements.values[(anchor, 0)] = ANCHOR_VALUE
    bound = len(statements.arguments)
    after = tuple(statements.statement(node, position) for position, node in enumerate(epilogue, len(prologue)))
    epilogue_loads = tuple(range(bound, len(statements.arguments)))
    arguments = statements.arguments
    stores = []
    for node in (anchor, *epilogue):
        ref = stored_in(node, 0)
        if ref is not None:
            stores.append((len(arguments), statements.values[(node, 0)]))
            arguments.append(ref)
    types = [value_type(ref.desc.data_type) for ref in arguments]
    output = op.output_tensors()[0]
    result = value_type(output.desc.data_type) if output is not None else None
    assert result is not None and all(t is not None for t in types)
    kernel = AnchoredGroup(
        tensors=tuple(t for t in types if t is not None),
        stored=frozenset(k for k, _ in stores),
        element_loads=element_loads,
        prologue=before,
        element=element,
        result=result,
        epilogue_loads=epilogue_loads,
        epilogue=after,
        stores=tuple(stores),
        anchor_reads=tuple(anchor_reads),
    )
    input_tensor = op.input_tensors()[0]
    assert input_tensor is not None
    strides = [_strides(ref) for ref in arguments]
    vectorised = isinstance(op, _REDUCTIONS) and vector_walks(op.computed()[0].value, input_tensor.desc.data_type)
    lowered = anchored_kernel(
        op.lower(profile), kernel, input_tensor.desc.sizes, strides, axes, profile, vectorised=vectorised
    )
    return Step(tuple(group), lowered, tuple(arguments))


def _strides(ref: TensorRef) -> tuple[int, ...]:
    """``ref``'s strides in the anchor input's dimensions: 0 where it holds one element (the reduced axes of a
    reduction's output, a broadcast scale's)."""
    return tuple(0 if n == 1 else s for n, s in zip(ref.desc.sizes, ref.desc.effective_strides, strict=True))
