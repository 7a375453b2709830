"""ONNX's indexing op types as DirectML's, through their builder functions (``dmlpy.graph.indexing``,
``dmlpy.graph.reduction.top_k``, the operator table's ``cumulative_summation``): Gather as GATHER, GatherElements as
GATHER_ELEMENTS, GatherND as GATHER_ND1 (batch_dims as BatchDimensionCount), ScatterElements as SCATTER_ELEMENTS and
ScatterND as SCATTER_ND (reduction "none": the other reductions are refused), OneHot as ONE_HOT, TopK as TOP_K1
(its UINT64 indices cast to ONNX's INT64 by a CAST node) and CumSum as CUMULATIVE_SUMMATION.

DirectML's tensors of one operator share a DimensionCount, where ONNX's ranks differ (Gather's output has rank
r + q - 1): each tensor is read with leading 1s to the largest rank (``Reads.shaped``: a graph input or
initializer, or a node's output computed so), and an output with more dimensions than its ONNX shape keeps them in
its Sizes, as a reduction's keepdims 0 does. Negative indices count from the end (every one of these operators
does, as ONNX). What becomes a descriptor field is an initializer: TopK's K, CumSum's axis, OneHot's depth."""

from __future__ import annotations

import onnx

from dmlpy.enums import AxisDirection, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph.indexing import gather, gather_elements, gather_nd, one_hot, scatter_elements, scatter_nd
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.reduction import top_k
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads, padded

INDEXING_OPS = ("Gather", "GatherElements", "GatherND", "ScatterElements", "ScatterND", "OneHot", "TopK", "CumSum")
ONNX_INDEX_TYPE = TensorDataType.INT64
_TOP_K_INDEX_TYPE = TensorDataType.UINT64
"""TOP_K1's index types are UINT32 and UINT64; ONNX's are INT64, the same bits below 2^63."""
_OPERATOR_OF = {"ScatterElements": "SCATTER_ELEMENTS", "ScatterND": "SCATTER_ND"}
_FIELDS = {
    "TopK": (1, "K", "DirectML's TOP_K1 holds it in a descriptor field (K)"),
    "CumSum": (1, "axis", "DirectML's CUMULATIVE_SUMMATION holds it in a descriptor field (Axis)"),
    "OneHot": (1, "depth", "DirectML's ONE_HOT holds it in its output's Sizes"),
}
"""The op types' inputs that become descriptor fields: input index, name, which field holds it."""


def _axis(axis: int, rank: int, where: str, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{where}: {what} {axis} is out of range for rank {rank} ({-rank} to {rank - 1})")
    return axis % rank


def _field(node: onnx.NodeProto, reads: Reads, where: str) -> int:
    """TopK's K, CumSum's axis or OneHot's depth: one number from an initializer."""
    index, what, held = _FIELDS[node.op_type]
    value = reads.fixed(node.input[index], what, where, held)
    if value.size != 1:
        raise InvalidArgumentError(f"{where}: its {what} has shape {list(value.shape)}; {node.op_type} takes one value")
    return int(value.reshape(-1)[0])


def _reduction(node: onnx.NodeProto, where: str) -> None:
    given = next((a for a in node.attribute if a.name == "reduction"), None)
    reduction = given.s.decode(errors="replace") if given is not None else "none"
    if reduction != "none":
        raise NodeRefused(
            f"{where}: reduction {reduction!r}: DirectML's {_OPERATOR_OF[node.op_type]} writes the "
            "updates (reduction 'none'); combining them with the data (add, mul, max, min) has no DirectML operator"
        )


def indexing_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its inputs' shapes (``opset``: these op types' forms read alike at every one); at prepare
    (every value one element) the fields and forms are checked and a copy of the output's type stands in for each
    output, as the shapes decide the ranks."""
    op_type = node.op_type
    if op_type in ("ScatterElements", "ScatterND"):
        _reduction(node, where)
    field = _field(node, reads, where) if op_type in _FIELDS else 0
    shape, _ = reads.known(node.input[0], where)
    if prepare:
        first = reads.shaped(node.input[2] if op_type == "OneHot" else node.input[0], (1,), where)
        copy = expressed(where, BUILDERS["identity"], first)
        if op_type == "TopK":
            return [(copy, ()), (expressed(where, BUILDERS["cast"], first, ONNX_INDEX_TYPE), ())]
        return [(copy, ())]
    if op_type == "TopK":
        return _top_k(node, attributes, reads, field, shape, where)
    if op_type == "CumSum":
        axis = _axis(field, len(shape), where)
        direction = AxisDirection.DECREASING if attributes.get("reverse", 0) else AxisDirection.INCREASING
        x = reads.shaped(node.input[0], shape or (1,), where)
        cumsum = BUILDERS["cumulative_summation"]
        return [(expressed(where, cumsum, x, axis, direction, bool(attributes.get("exclusive", 0))), shape)]
    if op_type == "OneHot":
        return _one_hot(node, attributes, reads, field, where)
    indices, _ = reads.known(node.input[1], where)
    if op_type == "Gather":
        axis = _axis(attributes.get("axis", 0), len(shape), where)
        out = shape[:axis] + indices + shape[axis + 1 :]
        rank = max(len(shape), len(out), len(indices))
        x, i = (
            reads.shaped(node.input[0], padded(shape, rank), where),
            reads.shaped(node.input[1], padded(indices, rank), where),
        )
        return [(expressed(where, gather, x, i, axis + rank - len(shape), len(indices)), out)]
    if op_type == "GatherElements":
        axis = _axis(attributes.get("axis", 0), len(shape), where)
        x, i = reads.shaped(node.input[0], shape, where), reads.shaped(node.input[1], indices, where)
        return [(expressed(where, gather_elements, x, i, axis), indices)]
    if op_type == "ScatterElements":
        axis = _axis(attributes.get("axis", 0), len(shape), where)
        x, i, u = (reads.shaped(name, reads.known(name, where)[0], where) for name in node.input)
        return [(expressed(where, scatter_elements, x, i, u, axis), shape)]
    if op_type == "GatherND":
        batch = attributes.get("batch_dims", 0)
        out = indices[:-1] + shape[batch + indices[-1] :]
        rank = max(len(shape), len(indices), len(out))
        x, i = (
            reads.shaped(node.input[0], padded(shape, rank), where),
            reads.shaped(node.input[1], padded(indices, rank), where),
        )
        return [(expressed(where, gather_nd, x, i, len(shape), len(indices), batch), out)]
    updates, _ = reads.known(node.input[2], where)
    rank = max(len(shape), len(indices), len(updates))
    x, i, u = (
        reads.shaped(n, padded(s, rank), where) for n, s in zip(node.input, (shape, indices, updates), strict=True)
    )
    return [(expressed(where, scatter_nd, x, i, u, len(shape), len(indices)), shape)]


def _top_k(
    node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, k: int, shape: tuple[int, ...], where: str
) -> Outputs:
    axis = _axis(attributes.get("axis", -1), len(shape), where)
    if not 1 <= k <= shape[axis]:
        raise NodeRefused(
            f"{where}: K {k} for axis {axis} of {shape[axis]} elements; DirectML's TOP_K1 takes 1 to {shape[axis]} "
            "(K 0 is an empty output, and DirectML has no empty tensors)"
        )
    # sorted 0 leaves the order to the runtime: TOP_K1's sorted order is one.
    direction = AxisDirection.DECREASING if attributes.get("largest", 1) else AxisDirection.INCREASING
    x = reads.shaped(node.input[0], shape, where)
    values, indices = expressed(where, top_k, x, axis, k, direction, _TOP_K_INDEX_TYPE)
    out = (*shape[:axis], k, *shape[axis + 1 :])
    return [(values, out), (expressed(where, BUILDERS["cast"], indices, ONNX_INDEX_TYPE), out)]


def _one_hot(node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, depth: int, where: str) -> Outputs:
    indices, _ = reads.known(node.input[0], where)
    values, _ = reads.known(node.input[2], where)
    if values != (2,):
        raise InvalidArgumentError(f"{where}: its values have shape {list(values)}; OneHot takes [off_value, on_value]")
    if depth < 1:
        raise NodeRefused(f"{where}: depth {depth} is an empty output; DirectML has no empty tensors")
    rank = len(indices) + 1
    axis = _axis(attributes.get("axis", -1), rank, where)
    i = reads.shaped(node.input[0], (*indices[:axis], 1, *indices[axis:]), where)
    v = reads.shaped(node.input[2], padded((2,), rank), where)
    return [(expressed(where, one_hot, i, v, depth, axis), (*indices[:axis], depth, *indices[axis:]))]
