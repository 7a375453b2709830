"""Masked NumPy arguments of a graph call (dmlpy/runtime/graph_calls.py): a masked array runs on its data, and
every output is then a masked array, an output element masked where an input element it reads is masked, carried
through pointwise nodes (the element-wise family and BATCH_NORMALIZATION: dmlpy/ops/_elementwise.py's
Pointwise); what no mask of the outputs could describe is refused before anything runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.errors import InvalidArgumentError
from dmlpy.graph.desc import GraphAnalysis, GraphDesc, Source
from dmlpy.graph.rules import node_operator
from dmlpy.graph.views import same_view
from dmlpy.ops._elementwise import Pointwise
from dmlpy.ops.activation_softmax import AxisReducingDesc
from dmlpy.runtime.dispatchables import CompiledGraph
from dmlpy.tensor import BufferTensorDesc


def at_rank(shape: tuple[int, ...], rank: int) -> tuple[int, ...] | None:
    """``shape`` with leading 1s dropped or added to make ``rank`` dimensions; None where it has more."""
    while len(shape) > rank and shape[0] == 1:
        shape = shape[1:]
    return None if len(shape) > rank else (1,) * (rank - len(shape)) + shape


MaskArray = npt.NDArray[np.bool_]


def unmasked(arguments: Sequence[Any]) -> tuple[list[Any], dict[int, MaskArray] | None]:
    """The arguments with each masked array's data in its place (a view), and by argument index each one's
    mask (all False where it has none); None where no argument is a masked array."""
    masked = {index: value for index, value in enumerate(arguments) if isinstance(value, np.ma.MaskedArray)}
    if not masked:
        return list(arguments), None
    data = [np.ma.getdata(masked[index]) if index in masked else value for index, value in enumerate(arguments)]
    return data, {index: np.ma.getmaskarray(value) for index, value in masked.items()}


def masks_of_outputs(
    compiled: CompiledGraph, descs: list[BufferTensorDesc], masks: dict[int, MaskArray], *, on_device: bool
) -> list[MaskArray]:
    """Per graph output, a mask of its Sizes: an element is masked where an input element it reads is masked,
    carried node by node in the graph's order. InvalidArgumentError, before anything is written, where the
    outputs cannot hold a mask (pyopencl arrays) or where masked elements reach an axis-reducing node."""
    graph, analysis = compiled.graph, compiled.analysis
    if on_device:
        raise InvalidArgumentError(
            f"{compiled.describe()}: argument {min(masks)} is a masked array beside a pyopencl array, which makes "
            "the outputs pyopencl arrays, and they hold no mask: pass NumPy arrays only for masked outputs, or "
            "np.ma.getdata(x) to run on the data and drop the mask"
        )
    reached: dict[Source, tuple[MaskArray, frozenset[int]]] = {}
    for index, mask in masks.items():
        if mask.any():
            sizes = descs[index].sizes
            in_rank = at_rank(mask.shape, len(sizes))
            assert in_rank is not None, "_check made sure the argument fits its input"
            reached[Source("input", index)] = (np.broadcast_to(mask.reshape(in_rank), sizes), frozenset({index}))
    for node in analysis.order:
        op = node_operator(graph, node)
        read = [
            reached[source]
            for slot in range(len(op.input_fields()))
            if (source := analysis.sources.get((node, slot))) in reached
        ]
        if not read:
            continue
        origins = frozenset().union(*(origin for _, origin in read))
        if isinstance(op, AxisReducingDesc):
            raise InvalidArgumentError(_reduced(compiled, node, op, min(origins)))
        if not isinstance(op, Pointwise):
            raise InvalidArgumentError(
                f"{compiled.describe()}: argument {min(origins)} is a masked array whose masked elements reach "
                f"{graph.node_label(node)}, which moves elements rather than computing on each in place; a mask is "
                "carried through pointwise nodes only (the element-wise family, BATCH_NORMALIZATION): pass "
                "np.ma.getdata(x) to run on the data under the mask, or x.filled(value)"
            )
        reinterpreted = _reinterpreted_read(graph, analysis, node, reached)
        if reinterpreted is not None:
            raise InvalidArgumentError(
                f"{compiled.describe()}: argument {min(origins)} is a masked array whose masked elements reach "
                f"{graph.node_label(node)}, which reads {graph.node_label(reinterpreted)}'s output through other "
                "Sizes or Strides (a reshape, a transpose, a broadcast); a mask is carried through element-wise "
                "nodes that read each value as it was written: pass np.ma.getdata(x), or x.filled(value)"
            )
        output = op.output_tensors()[0]
        assert output is not None
        combined = np.zeros(output.desc.sizes, np.bool_)
        for mask, _ in read:
            combined |= _spread(mask, output.desc.sizes)
        for slot in range(len(op.output_fields())):
            reached[Source("node", node, slot)] = (combined, origins)
    carried = [reached.get(Source("node", node, slot)) for node, slot in analysis.outputs]
    return [
        np.zeros(desc.sizes, np.bool_) if mask is None else mask[0].copy()  # a node's outputs share one mask
        for mask, desc in zip(carried, analysis.output_descs, strict=True)
    ]


def _reinterpreted_read(graph: GraphDesc, analysis: GraphAnalysis, node: int, reached: dict[Source, Any]) -> int | None:
    """The producer whose masked output ``node`` reads through a view of its own, if any."""
    op = node_operator(graph, node)
    for slot, tensor in enumerate(op.input_tensors()):
        source = analysis.sources.get((node, slot))
        if tensor is None or source is None or source.kind != "node" or source not in reached:
            continue
        written = node_operator(graph, source.index).output_tensors()[source.output]
        if written is not None and not same_view(tensor.desc, written.desc):
            return source.index
    return None


def _spread(mask: MaskArray, sizes: tuple[int, ...]) -> MaskArray:
    """A mask of a node input's Sizes over the node's output Sizes: each entry of a blocked quantization tensor
    (a divisor of the output's size) over its block."""
    for axis, (given, size) in enumerate(zip(mask.shape, sizes, strict=True)):
        if given != size:
            mask = np.repeat(mask, size // given, axis=axis)
    return mask


def _reduced(compiled: CompiledGraph, node: int, op: AxisReducingDesc, argument: int) -> str:
    axes = ", ".join(str(axis) for axis in op.reduced_axes())
    return (
        f"{compiled.describe()}: argument {argument} is a masked array whose masked elements reach "
        f"{compiled.graph.node_label(node)}, which is not element-wise: each output element reads a whole group "
        f"along axes ({axes}), where NumPy's masked reductions leave masked elements out, which the graph cannot, "
        "so no mask of its outputs would be right; a mask is carried through pointwise nodes only: pass "
        "np.ma.getdata(x) to run on the data under the mask, or x.filled(value)"
    )
