"""A graph builder in the spirit of DirectMLX (``dml::Graph``, ``dml::Round(expr, mode)``): expressions in,
DML_GRAPH_DESC out, output descs inferred.

    g = dml.Graph()                          # on dml.default_device(); dml.Graph(device), or dml.Graph(level)
    x = g.input((1, 1, 4, 4), np.float32)    # Sizes and a type (a NumPy dtype, ml_dtypes type or DataType name)
    s = g.input(scale_desc)                  # or a desc: the same Sizes as x, 0-strides to broadcast
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(x, s), mode="toward_zero"), s)
    z = 2 * x - y / 4                        # + - * / and unary -: dml.graph.add, subtract, multiply, divide, negate
    g.desc_for([y])                          # the DML_GRAPH_DESC (g.desc: for the expressions nothing reads)
    compiled = g.compile([y])                # device.compile_graph(...)
    out = compiled(x_array, s_array)         # run: NumPy (or pyopencl) arrays in binding order, arrays out

Each call builds its node's descriptor and validates it at the graph's feature level at once, so a mistake
raises at the line that made it, with the message validation would give (``ELEMENT_WISE_QUANTIZE_LINEAR...``), and
leaves the graph as it was. Output tensors are packed (DirectMLX's default tensor policy): the input's Sizes, no
Strides. Graph inputs are numbered in the order ``input`` is called. A number or a NumPy array given as a value (an
operand, a scale or zero point: ``x * 2``) becomes a constant node (DML_FEATURE_LEVEL_6_2 and up), broadcast with
0-strides; every value entering the builder is held exactly by its type or refused (``dmlpy.graph.values``). This
module holds the expressions and the graph; the operators' functions (``dml.graph.round``, ...) come from the
operator table (``dmlpy.graph.operators``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from dmlpy.drawing import DrawnKernel, Picture
from dmlpy.enums import ExecutionFlags, FeatureLevel, TensorDataType
from dmlpy.errors import DmlError, InvalidArgumentError, UnsupportedError, argument_error
from dmlpy.graph.desc import (
    CONSTANT_LEVEL,
    ConstantDataGraphNodeDesc,
    GraphDesc,
    GraphEdgeDesc,
    GraphNodeDesc,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
)
from dmlpy.graph.fusion import plan_graph
from dmlpy.graph.values import constant_bytes, data_type_argument
from dmlpy.graph.values import tensor_bytes as tensor_bytes  # the compiled graph's call writes strided inputs with it
from dmlpy.kernels import CPU_PROFILE
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import BufferTensorDesc, TensorDesc


class GraphCompiler(Protocol):
    """What ``Graph`` needs of a device: its feature level and CompileGraph (a dmlpy Device)."""

    feature_level: FeatureLevel

    def compile_graph(self, graph_desc: GraphDesc, flags: ExecutionFlags | int = ...) -> Any: ...


EXPRESSION_OPERATORS: dict[str, Callable[..., Expression]] = {}
"""The builder functions Python's operators on expressions call: ``add``, ``subtract``, ``multiply``, ``divide``
(``f(a, b)``) and ``negate`` (``f(x)``). ``dmlpy.graph.operators`` fills it from the operator table, which imports
this module and so cannot be imported by it."""


@dataclass(eq=False)
class Expression:
    """A tensor in a graph under construction: a graph input, a constant, or a node's output.

    ``+``, ``-``, ``*``, ``/`` and unary ``-`` build nodes as DirectMLX's operators do: ``x * 2 + y`` is
    ``dml.graph.add(dml.graph.multiply(x, 2), y)``, ``2 - x`` is ``dml.graph.subtract(2, x)``, ``-x`` is
    ``dml.graph.negate(x)``; a number or a NumPy array on either side is a constant operand, as those functions take
    it. ``/`` is ELEMENT_WISE_DIVIDE, whose integer division truncates toward zero."""

    __array_ufunc__ = None  # ndarray + expression: NumPy leaves it to __radd__, not to a loop over its elements

    graph: Graph
    desc: BufferTensorDesc
    input_index: int | None = None
    node: int | None = None
    """The node computing it (an operator node), or holding it (a constant node)."""
    output: int = 0
    """Which of its operator node's outputs it is (SPLIT's k-th part)."""

    @property
    def data_type(self) -> TensorDataType:
        return self.desc.data_type  # type: ignore[return-value]  # graphs hold DirectML types only

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.desc.sizes

    def __add__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["add"](self, other)

    def __radd__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["add"](other, self)

    def __sub__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["subtract"](self, other)

    def __rsub__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["subtract"](other, self)

    def __mul__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["multiply"](self, other)

    def __rmul__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["multiply"](other, self)

    def __truediv__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["divide"](self, other)

    def __rtruediv__(self, other: Any) -> Expression:
        return EXPRESSION_OPERATORS["divide"](other, self)

    def __neg__(self) -> Expression:
        return EXPRESSION_OPERATORS["negate"](self)

    def __repr__(self) -> str:
        if self.input_index is not None:
            where = f"graph input {self.input_index}"
        else:
            assert self.node is not None
            where = self.graph.node_label(self.node)
        return f"<dmlpy.graph.Expression {where}: {self.desc.describe()}>"


@dataclass
class _Node:
    desc: OperatorGraphNodeDesc | ConstantDataGraphNodeDesc
    inputs: list[Expression | None] = field(default_factory=list)


class Graph:
    """``dml::Graph``: build a DML_GRAPH_DESC from expressions. ``Graph()`` compiles on ``dml.default_device()``,
    ``Graph(device)`` on that device; ``Graph(feature_level)`` builds and validates without one."""

    def __init__(self, device_or_level: GraphCompiler | FeatureLevel | int | str | None = None) -> None:
        if device_or_level is None:
            # The runtime is layers above the graph (tests/unit/descriptors/test_layers.py), so the graph reaches the
            # default device as a user does, through the package's lazy name at call time: a graph built at a
            # feature level never loads the runtime, nor pyopencl.
            device_or_level = importlib.import_module("dmlpy").default_device()
        if hasattr(device_or_level, "compile_graph"):
            self.device: GraphCompiler | None = device_or_level  # type: ignore[assignment]
            self.feature_level = device_or_level.feature_level  # type: ignore[union-attr]
        else:
            self.device = None
            try:
                self.feature_level = FeatureLevel.parse(device_or_level)
            except (InvalidArgumentError, TypeError):
                raise argument_error(
                    "Graph",
                    "device_or_level",
                    device_or_level,
                    "a dmlpy Device, a FeatureLevel to build without one, or nothing for dml.default_device()",
                ) from None
        self._inputs: list[Expression] = []
        self._nodes: list[_Node] = []
        self._read: set[int] = set()

    # ----------------------------------------------------------------------------------------------- leaves
    def input(self, desc_or_sizes: BufferTensorDesc | TensorDesc | Sequence[int], dtype: Any = None) -> Expression:
        """Graph input ``len(inputs)``: a tensor bound at dispatch, described by a desc (``g.input(desc)``), or by
        its Sizes and data type, packed (``g.input((1, 1, 2, 3), np.float32)``: a NumPy dtype, an ml_dtypes type
        (int4, uint4) or a DataType name or member)."""
        where = "Graph.input"
        if isinstance(desc_or_sizes, BufferTensorDesc | TensorDesc):
            if dtype is not None:
                raise InvalidArgumentError(
                    f"{where}: dtype is {dtype!r} beside a desc, which names its own DataType; give a desc alone, or "
                    "Sizes and a dtype"
                )
            tensor = _buffer_desc(where, "desc_or_sizes", desc_or_sizes)
        elif isinstance(desc_or_sizes, tuple | list) and all(
            isinstance(size, int | np.integer) and not isinstance(size, bool) for size in desc_or_sizes
        ):
            if dtype is None:
                raise InvalidArgumentError(
                    f"{where}: Sizes {list(desc_or_sizes)} are given without a dtype; give one "
                    "(g.input(sizes, np.float32)), or a dml.BufferTensorDesc"
                )
            data_type = data_type_argument(dtype, where)
            try:
                tensor = BufferTensorDesc(data_type=data_type, sizes=tuple(int(size) for size in desc_or_sizes))
            except InvalidArgumentError as error:
                raise InvalidArgumentError(f"{where}: {error}") from error
        else:
            raise argument_error(
                where, "desc_or_sizes", desc_or_sizes, "a dml.BufferTensorDesc (or dml.TensorDesc), or Sizes (ints)"
            )
        expression = Expression(self, tensor, input_index=len(self._inputs))
        self._inputs.append(expression)
        return expression

    def constant(self, values: Any, desc: BufferTensorDesc | TensorDesc, name: str | None = None) -> Expression:
        """A constant data node (DML_FEATURE_LEVEL_6_2 and up) holding ``values`` as ``desc`` reads them: numbers
        (a NumPy array, nested lists, one number) of desc's Sizes, or of a shape NumPy broadcasts to them. Each value
        is held by desc's DataType, exactly (a float type: to the nearest, no finite value made infinite), or the
        call is refused (``dmlpy.graph.values``); so are values that desc's Strides would put in one place unless
        they are equal."""
        where = "Graph.constant"
        tensor = _buffer_desc(where, "desc", desc)
        if self.feature_level < CONSTANT_LEVEL:
            raise UnsupportedError(
                f"{where}: constant data nodes arrived at {CONSTANT_LEVEL.c_name}; this graph is at "
                f"{self.feature_level.c_name}. Make the value a graph input (g.input) instead"
            )
        data = constant_bytes(values, tensor, where)
        self._nodes.append(_Node(ConstantDataGraphNodeDesc(data=data, name=name)))
        return Expression(self, tensor, node=len(self._nodes) - 1)

    # -------------------------------------------------------------------------------------------- operators
    def add_operator(
        self, op: OperatorDescBase, inputs: Sequence[Expression | None], name: str | None = None
    ) -> Expression:
        """A node running ``op`` (validated here, at the graph's level) on ``inputs`` in binding order; its
        first output as an expression."""
        return self.add_operator_outputs(op, inputs, name)[0]

    def add_operator_outputs(
        self, op: OperatorDescBase, inputs: Sequence[Expression | None], name: str | None = None
    ) -> list[Expression]:
        """``add_operator``, every output of the node as an expression, in binding order (SPLIT's parts)."""
        for index, value in enumerate(inputs):
            if value is not None and value.graph is not self:
                raise InvalidArgumentError(
                    f"{op.operator_name()}.{op.c_field(op.input_fields()[index])} comes from another dml.Graph; an "
                    "expression belongs to the graph that made it"
                )
        op.validate_on(self.feature_level)
        self._nodes.append(_Node(OperatorGraphNodeDesc(operator=op, name=name), list(inputs)))
        for value in inputs:
            if value is not None and value.node is not None:
                self._read.add(value.node)
        node = len(self._nodes) - 1
        return [
            Expression(self, output.desc, node=node, output=k)
            for k, output in enumerate(op.output_tensors())
            if output is not None
        ]

    @contextmanager
    def _all_or_nothing(self) -> Iterator[None]:
        """The nodes added inside the block are kept only when it succeeds: a builder call that raises (a number
        made a constant node, then the operator refused) leaves the graph as it was."""
        count = len(self._nodes)
        try:
            yield
        except BaseException:
            del self._nodes[count:]
            raise

    def written(self, x: Expression) -> Expression:
        """The tensor ``x``'s operator node writes: ``x`` itself, or what ``x`` is a view of (dml.graph.reinterpret)."""
        assert x.node is not None and isinstance(self._nodes[x.node].desc, OperatorGraphNodeDesc)
        return Expression(self, self._output_descs(x.node)[x.output], node=x.node, output=x.output)

    def node_label(self, node: int) -> str:
        desc = self._nodes[node].desc
        what = desc.op.operator_name() if isinstance(desc, OperatorGraphNodeDesc) else "constant data"
        return f"node {node} ({what})"

    # ------------------------------------------------------------------------------------------ the desc
    @property
    def desc(self) -> GraphDesc:
        """The DML_GRAPH_DESC whose outputs are the expressions no node reads, in the order they were made."""
        leaves = [
            Expression(self, desc, node=i, output=k)
            for i, node in enumerate(self._nodes)
            if isinstance(node.desc, OperatorGraphNodeDesc) and i not in self._read
            for k, desc in enumerate(self._output_descs(i))
        ]
        return self.desc_for(leaves)

    def desc_for(self, outputs: Sequence[Expression], *, drop_unread_inputs: bool = False) -> GraphDesc:
        """The DML_GRAPH_DESC computing ``outputs`` (graph output k is ``outputs[k]``): the nodes they need,
        renumbered in the order they were made; every graph input keeps its number, or with
        ``drop_unread_inputs`` (dmlpy's: the ONNX backend's) those no output reads are left out and the others
        numbered in order (``inputs_read``)."""
        if isinstance(outputs, Expression) or not isinstance(outputs, Sequence) or not outputs:
            raise argument_error("Graph.desc_for", "outputs", outputs, "a non-empty list of expressions of this graph")
        for k, output in enumerate(outputs):
            if not isinstance(output, Expression) or output.graph is not self:
                raise argument_error("Graph.desc_for", f"outputs[{k}]", output, "an expression of this graph")
            if output.node is None or not isinstance(self._nodes[output.node].desc, OperatorGraphNodeDesc):
                raise InvalidArgumentError(
                    f"Graph.desc_for: outputs[{k}] is {output!r}; a graph output is computed by an operator node "
                    "(pass it through dml.graph.identity to output an input or a constant)"
                )
            if output.desc != self.written(output).desc:
                raise InvalidArgumentError(
                    f"Graph.desc_for: outputs[{k}] is {output!r}, {self.node_label(output.node)}'s output read "
                    f"another way (dml.graph.reinterpret); a graph output is the tensor its node writes "
                    f"({self.written(output).desc.describe()}): pass it through dml.graph.identity to write it so"
                )
        needed = self._needed([o.node for o in outputs if o.node is not None])
        read = self._read_inputs(needed)
        unread = [k for k in range(len(self._inputs)) if k not in read]
        if unread and not drop_unread_inputs:
            raise InvalidArgumentError(
                f"Graph.desc_for: graph input {unread[0]} (the {_ordinal(unread[0])} g.input) is read by none of these "
                "outputs, and every graph input of a DML_GRAPH_DESC feeds a node. Graph inputs keep the numbers "
                "g.input gave them: build a graph per set of outputs, or include an output that reads it"
            )
        number = {old: new for new, old in enumerate(needed)}
        input_number = {old: new for new, old in enumerate(sorted(read))}
        nodes = [GraphNodeDesc(desc=self._nodes[i].desc) for i in needed]
        input_edges: list[InputGraphEdgeDesc] = []
        intermediate_edges: list[IntermediateGraphEdgeDesc] = []
        for old in needed:
            for slot, value in enumerate(self._nodes[old].inputs):
                if value is None:
                    continue
                if value.input_index is not None:
                    input_edges.append(
                        InputGraphEdgeDesc(
                            graph_input_index=input_number[value.input_index],
                            to_node_index=number[old],
                            to_node_input_index=slot,
                        )
                    )
                else:
                    assert value.node is not None
                    intermediate_edges.append(
                        IntermediateGraphEdgeDesc(
                            from_node_index=number[value.node],
                            from_node_output_index=value.output,
                            to_node_index=number[old],
                            to_node_input_index=slot,
                        )
                    )
        output_edges = [
            OutputGraphEdgeDesc(from_node_index=number[o.node], from_node_output_index=o.output, graph_output_index=k)
            for k, o in enumerate(outputs)
            if o.node is not None
        ]
        return GraphDesc(
            input_count=len(read),
            output_count=len(outputs),
            nodes=nodes,
            input_edges=[GraphEdgeDesc(desc=edge) for edge in input_edges],
            output_edges=[GraphEdgeDesc(desc=edge) for edge in output_edges],
            intermediate_edges=[GraphEdgeDesc(desc=edge) for edge in intermediate_edges],
        )

    def picture(self) -> Picture:
        """The picture of ``desc`` with the kernels compile_graph would run on a CPU device outlined."""
        desc = self.desc
        plan = plan_graph(desc, desc.validate_on(self.feature_level, extensions=True), CPU_PROFILE)
        kernels = [DrawnKernel(step.nodes, step.fused) for step in plan.steps]
        return desc.picture(kernels, title=f"dml.Graph: {desc.describe()}, kernels as compile_graph plans them")

    def _repr_svg_(self) -> str | None:
        # Nothing to draw before the first operator node, or while a graph input is still unread (no
        # DML_GRAPH_DESC can be made yet): Jupyter then shows the text repr.
        if not any(isinstance(n.desc, OperatorGraphNodeDesc) for n in self._nodes):
            return None
        try:
            return self.picture().svg
        except DmlError:
            return None

    def compile(self, outputs: Sequence[Expression], flags: ExecutionFlags | int = ExecutionFlags.NONE) -> Any:
        """``device.compile_graph(self.desc_for(outputs), flags)``: the compiled graph, which runs on arrays in
        one call, ``compiled(x, s)``: the graph inputs in the order ``input`` made them, the outputs as arrays."""
        if self.device is None:
            raise InvalidArgumentError(
                f"this dml.Graph was made for {self.feature_level.c_name}, without a device; make it with "
                "dml.Graph(device) to compile, or pass graph.desc_for(outputs) to device.compile_graph"
            )
        return self.device.compile_graph(self.desc_for(outputs), flags)

    def inputs_read(self, outputs: Sequence[Expression]) -> list[int]:
        """The graph inputs (by ``input``'s numbers) the nodes computing ``outputs`` read, in order."""
        return sorted(self._read_inputs(self._needed([o.node for o in outputs if o.node is not None])))

    def _read_inputs(self, needed: Sequence[int]) -> set[int]:
        return {
            v.input_index for i in needed for v in self._nodes[i].inputs if v is not None and v.input_index is not None
        }

    def _needed(self, roots: Sequence[int]) -> list[int]:
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            stack.extend(v.node for v in self._nodes[node].inputs if v is not None and v.node is not None)
        return sorted(seen)

    def _output_descs(self, node: int) -> list[BufferTensorDesc]:
        desc = self._nodes[node].desc
        assert isinstance(desc, OperatorGraphNodeDesc)
        return [output.desc for output in desc.op.output_tensors() if output is not None]

    def __repr__(self) -> str:
        where = f"on {self.device!r}" if self.device is not None else f"at {self.feature_level.c_name}"
        return f"<dmlpy.Graph of {len(self._inputs)} inputs and {len(self._nodes)} nodes, {where}>"


def operand(x: Any, where: str, name: str) -> Expression:
    """``x`` when it is an expression; InvalidArgumentError naming the builder function's argument otherwise."""
    if not isinstance(x, Expression):
        raise argument_error(where, name, x, "an expression of a dml.Graph (g.input(...), or another node's result)")
    return x


def _ordinal(index: int) -> str:
    number = index + 1
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _buffer_desc(where: str, name: str, desc: Any) -> BufferTensorDesc:
    if isinstance(desc, TensorDesc):
        return desc.desc
    if isinstance(desc, BufferTensorDesc):
        return desc
    raise argument_error(where, name, desc, "a dml.BufferTensorDesc (or dml.TensorDesc)")


__all__ = ["Expression", "Graph"]
