"""ONNX nodes as nodes of a dml.Graph, lowered to DirectML's element-wise operators (which nodes and attributes
dmlpy runs: ``dmlpy.onnx.nodes``): a standard unary node (Round, Identity, IsNaN, ...) through its operator's
builder function with its defaults or the keywords its attributes give (IsInf's InfinityMode, an activation's
alpha and beta, the axis of Softmax, LogSoftmax and Hardmax as Axes: ``dmlpy.onnx.softmax``), an arithmetic node
(Add, ..., Mean, the comparisons and logical op types, PRelu, Pow) with ONNX's broadcasting
(``dmlpy.onnx.arithmetic``), Clip with its bounds read from initializers (``dmlpy.onnx.clip``), Cast and CastLike
to their target type (``dmlpy.onnx.cast``),
QuantizeLinear and DequantizeLinear with their attributes (axis, block_size, output_dtype) and their scale and zero
point inputs (``dmlpy.onnx.quantization``), the movement op types (Slice, Split, Concat, Pad, Tile, SpaceToDepth,
DepthToSpace: ``dmlpy.onnx.movement``), their fields read from initializers, checked at prepare and built for the
shapes at run (each of Split's outputs stored under its name), the reductions (ReduceSum, ..., ArgMax, ArgMin:
``dmlpy.onnx.reduction``), their axes from an attribute or an initializer, a keepdims-0 output kept in DirectML's
Sizes (1 along the reduced axes) with the ONNX shape that drops them, the normalizations and indexing op types
(``dmlpy.onnx.normalization``, ``dmlpy.onnx.indexing``), tensors read with leading 1s (``dmlpy.onnx.reads``).
A blocked node (opset 21's block_size) reads its input split, (blocks, block_size) along the axis, and its scale
and zero point with the split Sizes and a 0 stride along each block (``dmlpy.quantization_blocks``); its output
keeps the split Sizes (packed: the same bytes as the ONNX shape), which element-wise nodes after it keep too. An
ONNX bool value (a comparison's, IsNaN's output, a bool graph input or initializer) is a UINT8 tensor of 1s and
0s, as DirectML's operators write it, read only by the op types whose schema takes bools, and a bool graph
output."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression, Graph, reinterpret
from dmlpy.graph.operators import BUILDERS, Builder
from dmlpy.onnx.arithmetic import BROADCASTING_OPS, arithmetic_node, broadcast_read, check_booleans_alike
from dmlpy.onnx.cast import CAST_OPS, cast_node, cast_target
from dmlpy.onnx.clip import clip_node
from dmlpy.onnx.contrib import contrib_outputs, is_contrib
from dmlpy.onnx.elements import (
    MAX_DIMENSIONS,
    NodeRefused,
    expressed,
    input_shape_error,
    onnx_element_type,
    type_name,
    value_type,
)
from dmlpy.onnx.equivalents import unary_equivalent
from dmlpy.onnx.families import FAMILY_OPS, family_outputs
from dmlpy.onnx.initializers import initializer_value
from dmlpy.onnx.movement import MOVEMENT_OPS, data_inputs, movement_plan
from dmlpy.onnx.nodes import (
    LOWERED_TO,
    QUANTIZATION_OPS,
    boolean_output,
    builder_keywords,
    check_schema_type,
    input_types,
    lowered_operator,
    needed_nodes,
    node_attributes,
    node_name,
)
from dmlpy.onnx.qdq import fuse_qdq
from dmlpy.onnx.quantization import block_split_of, dequantize_node, one_value, quantize_node
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.onnx.reduction import REDUCTION_OPS, reduction_plan
from dmlpy.onnx.softmax import SOFTMAX_OPS, softmax_axes
from dmlpy.onnx.views import VIEW_OPS, Read, broadcast_view, view_node
from dmlpy.tensor import BufferTensorDesc, packed_strides

_BUILT_BY: dict[str, Builder] = {
    op_type: BUILDERS[desc.BUILDER_NAME] for op_type, desc in LOWERED_TO.items() if desc.BUILDER_NAME is not None
}
"""ONNX op type -> the builder function making its node (an operator that lowers ONNX ops names one)."""


def _desc(data_type: TensorDataType, shape: Sequence[int]) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=tuple(shape) or (1,))


class PreparedModel(Protocol):
    """What lowering reads of a prepared model (a dmlpy.onnx.DmlBackendRep), so that this module need not
    import the backend that imports it."""

    model: onnx.ModelProto
    opset: int
    input_names: list[str]
    input_types: dict[str, int]
    initializer_types: dict[str, tuple[tuple[int, ...], TensorDataType]]
    output_names: list[str]
    output_types: dict[str, int]
    input_shapes: dict[str, list[int | str | None] | None]


@dataclass
class Lowered:
    """The model as nodes of a dmlpy Graph: the graph outputs' expressions, the ONNX value each graph input
    binds (in graph input order; one value may be bound twice, read two ways: a scale shared by nodes of different
    shapes) and each graph output's name, ONNX element type (BOOL for a bool value, held as UINT8) and shape."""

    expressions: list[Expression]
    bound_names: list[str]
    outputs: list[tuple[str, int, tuple[int, ...]]]


def lower(rep: PreparedModel, graph: Graph, shapes: Mapping[str, tuple[int, ...]] | None) -> Lowered:
    """``rep``'s model as nodes of ``graph`` for the graph inputs' ``shapes``. With ``shapes`` None, every value
    is one element and every scale and zero point one value: what ``prepare`` checks, every rule that does not
    depend on the shapes (data types, output_dtype, declared output types, what DirectML's validation asks), for
    every node, the ones nothing reads too (as onnxruntime checks them before it prunes them)."""
    computed: dict[str, tuple[Expression, tuple[int, ...], TensorDataType]] = {}
    """ONNX values computed by lowered nodes."""
    leaves: dict[tuple[str, BufferTensorDesc], Expression] = {}
    booleans = {name for name in rep.input_names if rep.input_types[name] == onnx.TensorProto.BOOL} | {
        tensor.name for tensor in rep.model.graph.initializer if tensor.data_type == onnx.TensorProto.BOOL
    }
    """ONNX values of type bool, which DirectML holds as UINT8 (1 and 0): bool graph inputs and initializers, and
    the outputs of the nodes that compute bools."""
    bound: list[str] = []
    pending: dict[str, tuple[tuple[int, ...], TensorDataType]] = {}
    for name in rep.input_names:
        shape = shapes[name] if shapes is not None else ()
        pending[name] = (shape, value_type(rep.input_types[name], f"ONNX graph input {name!r}"))
    for name, (dims, data_type) in rep.initializer_types.items():
        pending[name] = (dims if shapes is not None else (), data_type)

    def leaf(name: str, desc: BufferTensorDesc) -> Expression:
        """The graph input binding ``name`` read as ``desc``: one per way it is read."""
        key = (name, desc)
        if key not in leaves:
            leaves[key] = graph.input(desc)
            bound.append(name)
        return leaves[key]

    def data(name: str, where: str) -> tuple[Expression, tuple[int, ...], TensorDataType]:
        if name in computed:
            return computed[name]
        if name not in pending:
            raise NodeRefused(f"{where}: {name!r} is computed by no node and is no graph input or initializer")
        shape, data_type = pending[name]
        if len(shape) > MAX_DIMENSIONS:
            raise NodeRefused(f"{where}: {name!r} has {len(shape)} dimensions; DirectML tensors have 1 to 8")
        return leaf(name, _desc(data_type, shape)), shape, data_type

    def source(name: str, where: str, what: str) -> None:
        """A scale or zero point comes from a graph input or initializer."""
        if name in computed:
            raise NodeRefused(f"{where}: {what} {name!r} is computed by a node; dmlpy takes it from an input")
        if name not in pending:
            raise NodeRefused(f"{where}: {what} {name!r} is no graph input or initializer")

    def parameter(name: str, data_name: str, like: tuple[int, ...], axis: int, where: str, what: str) -> Expression:
        """A scale or zero point: one value (per tensor; ``axis`` is then ignored, as ONNX says) or one per
        index of ``axis`` (per axis) of ``data_name``'s ``like``, described with its Sizes and 0-strides elsewhere.
        A per-axis value that the array given for a graph input does not match blames the array (the model's
        scale is the model's; the array is the caller's)."""
        source(name, where, what)
        shape, data_type = pending[name]

        sizes = like or (1,)
        if (int(np.prod(shape)) if shape else 1) == 1:
            return leaf(name, BufferTensorDesc(data_type=data_type, sizes=sizes, strides=(0,) * len(sizes)))
        along = axis + len(like) if axis < 0 else axis
        fits = 0 <= along < len(like) and shape == (like[along],)
        if not fits and len(shape) == 1 and data_name in rep.input_names:
            reader = f"{where} reads it with {what} {name!r} of shape {list(shape)}, one value per index of axis {axis}"
            rank = axis + 1 if axis >= 0 else -axis
            fix = f"whose dimension {along} is {shape[0]}" if len(like) >= rank else f"of {rank} dimensions or more"
            raise input_shape_error(
                data_name, like, rep.input_shapes.get(data_name), f", and {reader}: give an array {fix}"
            )
        if not 0 <= along < len(like):
            raise NodeRefused(f"{where}: axis {axis} is out of range for an input of rank {len(like)}")
        if len(shape) != 1 or shape[0] != like[along]:
            raise NodeRefused(
                f"{where}: {what} {name!r} has shape {list(shape)}; DirectML takes one value per tensor, or one "
                f"per index of the axis (axis {axis}: {like[along]} values); blocked and other shapes cannot be "
                "expressed"
            )
        strides = tuple(1 if d == along else 0 for d in range(len(sizes)))
        return leaf(name, BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides))

    def constant(name: str, what: str, where: str, held: str = _CLIP_HELD) -> np.ndarray[Any, Any]:
        """A value that becomes a descriptor field (Clip's ``what`` bound, Slice's starts, ...): an initializer's,
        read on the host; ``held`` says which fields hold it."""
        if name not in rep.initializer_types:
            made = "computed by a node" if name in computed else "a graph input" if name in pending else "undefined"
            raise NodeRefused(
                f"{where}: its {what} {name!r} is {made}; {held}, fixed when the graph is built: give the {what} as "
                "an initializer"
            )
        return initializer_value(rep.model.graph, name, rep.initializer_types, where)

    def known(name: str, where: str) -> tuple[tuple[int, ...], TensorDataType]:
        """The ONNX shape and data type of ``name``, reading nothing (no graph input is made for it)."""
        if name in computed:
            return computed[name][1:]
        if name not in pending:
            raise NodeRefused(f"{where}: {name!r} is computed by no node and is no graph input or initializer")
        return pending[name]

    def view(x: Expression, sizes: Sequence[int], strides: Sequence[int]) -> Expression:
        """``x`` read through ``sizes`` and ``strides``: a graph input or initializer bound once more so (its
        strides count the ONNX array's elements), a computed value reinterpreted (``dmlpy.onnx.views``)."""
        if x.input_index is None:
            return expressed("dmlpy.onnx", reinterpret, x, sizes, strides)
        desc = BufferTensorDesc(data_type=x.desc.data_type, sizes=tuple(sizes), strides=tuple(strides))
        return leaf(bound[x.input_index], desc)

    def packed(x: Expression) -> Expression:
        return x if x.desc.effective_strides == packed_strides(x.sizes) else expressed("", BUILDERS["identity"], x)

    def broadcast(name: str, output: tuple[int, ...], where: str) -> Expression:
        """``name`` read as an operand of a node whose output has the ONNX shape ``output``: with the output's
        Sizes and 0-strides where it repeats (a graph input or initializer bound once more so, a computed value
        read so)."""
        if name not in computed:
            shape, data_type = pending[name]
            return leaf(name, broadcast_read(data_type, shape, output))
        expression, shape, _ = computed[name]
        if expression.sizes == (output or (1,)):
            return expression
        return broadcast_view(expression.desc, shape, output, reader(name))

    def reader(name: str) -> Read:
        """How a view reads ``name`` (``dmlpy.onnx.views.Read``): a graph input or initializer bound with the
        view's desc (its strides count the ONNX array's elements), a computed value reinterpreted."""
        if name in computed:
            x = computed[name][0]
            return lambda sizes, strides, pack: view(packed(x) if pack else x, sizes, strides)
        data_type = pending[name][1]
        return lambda sizes, strides, _: leaf(
            name, BufferTensorDesc(data_type=data_type, sizes=tuple(sizes), strides=tuple(strides))
        )

    def shaped(name: str, sizes: Sequence[int], where: str, reader: str = _SHARED, fix: str = "") -> Expression:
        """``name`` read with ``sizes`` (split for blocked quantization, leading 1s, a 1 inserted): its elements in
        their order, packed (a graph input or initializer bound so, a computed value read so)."""
        sizes = tuple(sizes) or (1,)
        if name not in computed:
            return leaf(name, _desc(pending[name][1], sizes))
        expression, shape, _ = computed[name]
        if expression.sizes == sizes:
            return expression
        if math.prod(sizes) != math.prod(expression.sizes):
            raise NodeRefused(
                f"{where}: its input {name!r} (shape {list(shape)}) has {math.prod(expression.sizes)} elements, "
                f"and {reader} as Sizes {list(sizes)}{fix}"
            )
        return view(packed(expression), sizes, packed_strides(sizes))

    def whole(name: str, where: str) -> tuple[Expression, tuple[int, ...], TensorDataType]:
        """``data(name)`` read with Sizes of its ONNX shape, as every node but a blocked one reads its input (a
        value computed with Sizes of its own, split for blocked quantization or with a reduction's kept 1s, read
        so)."""
        _, shape, data_type = data(name, where)
        return shaped(name, shape, where), shape, data_type

    def operands(
        node: onnx.NodeProto, attributes: Mapping[str, int], where: str
    ) -> tuple[Expression, tuple[int, ...], Expression, Expression | None]:
        """A QuantizeLinear or DequantizeLinear node's x, x's ONNX shape, scale and zero point (or None): per
        tensor and per axis with x's Sizes, blocked with the split Sizes (``dmlpy.quantization_blocks``)."""
        axis = attributes.get("axis", 1)
        zero_name = node.input[2] if len(node.input) > 2 and node.input[2] else None
        names = {"scale": node.input[1]} | ({"zero point": zero_name} if zero_name else {})
        for what, name in names.items():
            source(name, where, what)
        shapes = {what: pending[name][0] for what, name in names.items()}
        split = block_split_of(known(node.input[0], where)[0], shapes, axis, attributes, where)
        if split is not None:
            x = shaped(node.input[0], split.input_sizes, where, "blocked quantization reads it split", _BLOCKED_FIX)
            read: list[Expression] = []
            for what, name in names.items():
                # A one-value zero point is broadcast over every block, as onnx.reference reads it.
                bind = functools.partial(leaf, name)
                read.append(split.parameter(bind, pending[name][1], one_value(shapes[what]), where))
            return x, split.shape, read[0], read[1] if len(read) > 1 else None
        x, shape, _ = whole(node.input[0], where)
        scale = parameter(node.input[1], node.input[0], shape, axis, where, "scale")
        zero = parameter(zero_name, node.input[0], shape, axis, where, "zero point") if zero_name else None
        return x, shape, scale, zero

    def strided(name: str, sizes: Sequence[int], strides: Sequence[int]) -> Expression:
        if tuple(strides) == packed_strides(sizes):
            return shaped(name, sizes, "")
        return reader(name)(sizes, strides, True)

    reads = Reads(shaped, parameter, broadcast, strided, constant, known)
    family: Outputs = []
    nodes = fuse_qdq(rep.model.graph, rep.initializer_types)
    for node in nodes.node if shapes is None else needed_nodes(nodes):
        where = node_name(node, rep.opset)
        attributes = node_attributes(node, rep.opset, where)
        for index, name in enumerate(node.input):
            if name in booleans and "bool" not in input_types(node.op_type, rep.opset, index):
                raise NodeRefused(
                    f"{where}: its input {name!r} is an ONNX bool (held as UINT8 1 and 0); {node.op_type} takes no bool"
                )
        if node.op_type in QUANTIZATION_OPS:
            x, shape, scale, zero = operands(node, attributes, where)
            if node.op_type == "QuantizeLinear":
                zero_name = node.input[2] if zero is not None else None
                result = quantize_node(x, scale, (zero_name, zero), attributes, where)
            else:
                result = dequantize_node(x, scale, zero, attributes, where)
        else:
            if node.op_type in BROADCASTING_OPS:
                check_booleans_alike(node, booleans, where)
                found = [(name, *known(name, where)) for name in node.input]
                # The operands' type: the last input's (Where's condition is the first).
                desc = lowered_operator(node, rep.opset, found[-1][2], where)
                result, shape = arithmetic_node(node.op_type, desc, found, broadcast, where, expressed)
            elif node.op_type in MOVEMENT_OPS:
                if node.op_type == "Concat":
                    check_booleans_alike(node, booleans, where)
                found = [whole(name, where) for name in data_inputs(node)]
                plan = movement_plan(node, rep.opset, [x for x, _, _ in found], constant, where)
                if shapes is not None:
                    results = plan([x for x, _, _ in found], [s for _, s, _ in found])
                else:  # every value is one element: a copy of the input, of its type, stands in for each output
                    results = [expressed(where, BUILDERS["identity"], found[0][0]) for _ in node.output]
            elif node.op_type in VIEW_OPS:
                given, data_type = known(node.input[0], where)
                read_as = computed[node.input[0]][0].desc if node.input[0] in computed else _desc(data_type, given)
                read = reader(node.input[0])
                result, shape = view_node(node, rep.opset, read_as, given, constant, read, shapes is None, where)
            elif node.op_type in REDUCTION_OPS:
                x, given, _ = whole(node.input[0], where)
                reduced = reduction_plan(node, rep.opset, attributes, constant, where)
                result, shape = reduced(x, given if shapes is not None else None)
            elif node.op_type in FAMILY_OPS or is_contrib(node):
                outputs_of = contrib_outputs if is_contrib(node) else family_outputs
                family = outputs_of(graph, node, rep.opset, attributes, reads, shapes is None, where)
                result, shape = family[0]
            elif node.op_type == "Clip":
                x, shape, _ = data(node.input[0], where)
                result = clip_node(node, rep.opset, x, constant, where)
            elif node.op_type in CAST_OPS:
                x, shape, _ = data(node.input[0], where)
                like = [(known(name, where)[1], name in booleans) for name in node.input[1:]]
                target = cast_target(node, attributes, like, where)
                result = cast_node(x, node.input[0] in booleans, target, where)
                if target == onnx.TensorProto.BOOL:
                    booleans.add(node.output[0])
            else:
                x, shape, _ = data(node.input[0], where)
                keywords = builder_keywords(node, rep.opset, attributes, where)
                if node.op_type in SOFTMAX_OPS:
                    keywords["axes"] = softmax_axes(rep.opset, attributes, len(shape), where)
                equivalent = unary_equivalent(node.op_type, x, where)  # Abs of UINT8, Relu of INT64, ...
                if equivalent is None:
                    equivalent = expressed(where, _BUILT_BY[node.op_type], x, **keywords)
                result = equivalent
            if boolean_output(node, rep.opset, [name in booleans for name in node.input]):
                booleans.update(node.output)
            # After the builder, so that what DirectML cannot express is refused as DirectML says it; what it
            # can but the op type's schema does not allow (a Mean of INT32) is a malformed model.
            for index, name in enumerate(node.input):
                if name and name not in booleans:
                    check_schema_type(node.op_type, rep.opset, index, (name, known(name, where)[1]), where)
        if node.op_type in MOVEMENT_OPS:
            # A movement node's outputs are packed, their Sizes the ONNX shape (one element at prepare: shape ()).
            family = [(value, tuple(value.sizes) if shapes is not None else ()) for value in results]
        elif node.op_type not in FAMILY_OPS and not is_contrib(node):  # a family's gives each output's shape
            family = [(result, shape)]
        for name, (value, own) in zip(node.output, family, strict=True):
            computed[name] = (value, own, value.data_type)

    outputs: list[tuple[str, int, tuple[int, ...]]] = []
    expressions: list[Expression] = []
    for name in rep.output_names:
        expression, shape, data_type = data(name, f"ONNX graph output {name!r}")
        elem_type = onnx.TensorProto.BOOL if name in booleans else onnx_element_type(data_type)
        declared = rep.output_types[name]
        if declared and declared != elem_type:
            raise InvalidArgumentError(
                f"ONNX graph output {name!r} is declared {type_name(declared)}; the model computes "
                f"{type_name(elem_type)} there: correct the output's declared type"
            )
        if expression.node is not None and expression.desc != graph.written(expression).desc:
            # A view of a node's output: the output packed is the same elements in the same order (the backend
            # reshapes it), any other view is written by an ELEMENT_WISE_IDENTITY node.
            packed_view = expression.desc.effective_strides == packed_strides(expression.sizes)
            expression = graph.written(expression) if packed_view else packed(expression)
        if expression.node is None or expression in expressions:
            # A graph input passed straight out, or one value listed twice: DirectML writes each node output
            # to one graph output, so the copy is an ELEMENT_WISE_IDENTITY node.
            expression = expressed(f"ONNX graph output {name!r}", BUILDERS["identity"], expression)
        expressions.append(expression)
        outputs.append((name, elem_type, shape))
    return Lowered(expressions, bound, outputs)


_SHARED = "this node's operator reads it (DirectML's tensors of one operator share their DimensionCount)"
_BLOCKED_FIX = "; feed the blocked node from a graph input or initializer"
_CLIP_HELD = "DirectML's CLIP1 holds its bounds in descriptor fields (Min, Max)"
