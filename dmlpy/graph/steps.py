"""The vocabulary of a compiled graph's launches (``TensorRef``, ``Step``), which nodes fuse, and the statements a
fused kernel computes them with: shared by the element-wise groups (dmlpy/graph/fusion.py) and the groups anchored
by a reduction or a normalization (dmlpy/graph/anchored.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from dmlpy.graph.desc import GraphAnalysis, GraphDesc
from dmlpy.graph.views import operator_of
from dmlpy.kernels import LoweredOperator
from dmlpy.kernels.elementwise import Statement, load_name, value_name, value_type
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._elementwise import Pointwise
from dmlpy.tensor import BufferTensorDesc

MAX_FUSED_TENSORS = 8
"""Tensors one fused kernel binds at most: one fewer than the template's MAX_TENSORS, which a lone
QUANTIZED_LINEAR_ADD binds, so that the groups planned (and the graphs' kernel counts) stay as they were."""


@dataclass(frozen=True)
class TensorRef:
    """What one tensor of a kernel launch is bound to."""

    kind: Literal["input", "output", "temporary", "constant"]
    index: int
    """The graph input or output, the temporary region, or the constant node."""
    desc: BufferTensorDesc
    shift: int = 0
    """Elements past the tensor's start where the launch's view of it begins (PlanRef.shift)."""


@dataclass(frozen=True)
class Step:
    """One kernel launch of a compiled graph."""

    nodes: tuple[int, ...]
    lowered: LoweredOperator
    tensors: tuple[TensorRef | None, ...]
    """Per kernel tensor in binding order, what it is bound to (None for an operator's absent optional one)."""

    @property
    def fused(self) -> bool:
        return len(self.nodes) > 1


ReadFrom = Callable[[int, int, BufferTensorDesc], TensorRef]
"""Where a node input reads its value (a graph input, a constant, a stored node output), through a desc."""
StoredIn = Callable[[int, int], "TensorRef | None"]
"""Where a node output is stored, if it is."""


def fuses(op: OperatorDescBase) -> bool:
    """Whether a node running ``op`` can join a fused kernel: a pointwise operator (the element-wise family,
    BATCH_NORMALIZATION) with an expression at its types."""
    if not isinstance(op, Pointwise):
        return False
    tensors = [t for t in (*op.input_tensors(), *op.output_tensors()) if t is not None]
    if len(tensors) > MAX_FUSED_TENSORS or any(value_type(t.desc.data_type) is None for t in tensors):
        return False
    return op.expression([load_name(i) for i in range(len(op.input_fields()))]) is not None


class GroupStatements:
    """The statements of a fused kernel's element-wise nodes, in order: each node's ``expression`` of the names of
    its inputs, a member's value where a member computes it, else a load of the tensor it reads, bound once as
    the kernel's next argument (``arguments``, binding order)."""

    def __init__(self, graph: GraphDesc, analysis: GraphAnalysis, read_from: ReadFrom) -> None:
        self.graph = graph
        self.analysis = analysis
        self.read_from = read_from
        self.arguments: list[TensorRef] = []
        self.loads: dict[TensorRef, int] = {}
        self.values: dict[tuple[int, int], str] = {}
        """The name of each member output computed so far (and of an anchor's result)."""

    def bind(self, ref: TensorRef) -> int:
        """The position of ``ref`` among the arguments, bound now if it is new."""
        if ref not in self.loads:
            self.loads[ref] = len(self.arguments)
            self.arguments.append(ref)
        return self.loads[ref]

    def statement(self, node: int, position: int) -> Statement:
        """``node``'s statement, its value named ``value_name(position)`` from now on."""
        op = operator_of(self.graph, node)
        names: list[str | None] = []
        for slot, tensor in enumerate(op.input_tensors()):
            source = self.analysis.sources.get((node, slot))
            if tensor is None or source is None:
                names.append(None)
            elif source.kind == "node" and (source.index, source.output) in self.values:
                names.append(self.values[(source.index, source.output)])
            else:
                names.append(load_name(self.bind(self.read_from(node, slot, tensor.desc))))
        assert isinstance(op, Pointwise), "fuses() admits pointwise operators only"
        expression = op.expression(names)
        (output,) = op.output_tensors()
        output_type = value_type(output.desc.data_type) if output is not None else None
        assert expression is not None and output_type is not None
        self.values[(node, 0)] = value_name(position)
        return Statement(expression, output_type, op.operator_name())
