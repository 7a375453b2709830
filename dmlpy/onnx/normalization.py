"""ONNX's normalizations as DirectML's, through their builder functions (``dmlpy.graph.normalization`` and the
operator table's): BatchNormalization (inference) as BATCH_NORMALIZATION, its scale, B, mean and var read with the
input's rank, one value per channel (Sizes of the input, stride 1 along axis 1 and 0 elsewhere: [1, C, 1, 1] as
DirectML's BATCH_NORMALIZATION takes them); InstanceNormalization as MEAN_VARIANCE_NORMALIZATION1 over the spatial
axes (2 to rank - 1), scale and B per channel; LayerNormalization as MEAN_VARIANCE_NORMALIZATION1 over axes [axis,
rank), Scale and B broadcast (NumPy's rule, as ONNX's); MeanVarianceNormalization as MEAN_VARIANCE_NORMALIZATION1
over its axes attribute; LpNormalization (p 1 or 2) as LP_NORMALIZATION; LRN as LOCAL_RESPONSE_NORMALIZATION
across channels (CrossChannel TRUE).

GroupNormalization (opsets 18 and 21) as MEAN_VARIANCE_NORMALIZATION1 over axes (2, 3) of a view of X, no copy:
X (N, C, ...) packed is (N, G, C / G, S) with S the product of the spatial sizes, so each group's channels and
positions are one slice of the view; scale and bias are read through the same Sizes with strides that repeat them,
(0, C / G, 1, 0) for opset 21's one value per channel and (0, 1, 0, 0) for opset 18's one per group, as
onnxruntime and the schemas' function bodies apply them (``Scale * normalized + Bias``, MVN1's own formula). The
output keeps the view's Sizes (the same elements in X's order). Opset 21's stash_type 1 (statistics in float32) is
the only one dmlpy takes: DirectML's normalization computes in float32 whatever the type.

Refused with the reason: BatchNormalization's training_mode 1 and its running-statistics outputs (DirectML's
BATCH_NORMALIZATION_TRAINING computes the batch's statistics but not ONNX's running ones), LayerNormalization's
Mean and InvStdDev outputs, LpNormalization's other p, GroupNormalization's num_groups that does not divide the
channels and stash_type other than 1.

Epsilon, where ONNX's formula has none or another: LpNormalization's 0 for a 0 norm (onnx.reference's) is
LP_NORMALIZATION's x / max(norm, Epsilon) with Epsilon the smallest float32 subnormal (no other norm is below it);
MeanVarianceNormalization's (x - mean) / (sqrt(var) + 1e-9) (its function body) is (x - mean) / sqrt(var + 1e-18):
the same 0 for a constant slice, and within 1e-9 / sqrt(var) relative elsewhere."""

from __future__ import annotations

import math

import numpy as np
import onnx

from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.normalization import batch_normalization, mean_variance_normalization
from dmlpy.graph.operators import BUILDERS
from dmlpy.onnx.attributes import float_attribute, ints_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads

NORMALIZATION_OPS = (
    "BatchNormalization",
    "GroupNormalization",
    "InstanceNormalization",
    "LayerNormalization",
    "LpNormalization",
    "LRN",
    "MeanVarianceNormalization",
)
CHANNEL_AXIS = 1
FLOAT = onnx.TensorProto.FLOAT
"""GroupNormalization's stash_type: the element type its statistics are computed in."""
_PER_CHANNEL_OPSET = 21
"""GroupNormalization-21's scale and bias hold one value per channel; GroupNormalization-18's one per group."""
LP_EPSILON = float(np.finfo(np.float32).smallest_subnormal)
MVN_EPSILON = 1e-18
"""(1e-9)^2: MeanVarianceNormalization's body adds 1e-9 to the standard deviation."""
_MVN_AXES = (0, 2, 3)
"""MeanVarianceNormalization's default axes."""


def _axis(axis: int, rank: int, where: str) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{where}: axis {axis} is out of range for an input of rank {rank}")
    return axis % rank


def _per_channel(reads: Reads, name: str, x_name: str, shape: tuple[int, ...], where: str, what: str) -> Expression:
    """BatchNormalization's and InstanceNormalization's ``what`` of one value per channel, read with X's Sizes and
    strides (0, 1, 0, ...): a computed one too (a QDQ model's DequantizeLinear'd scale), through a view; any other
    shape through ``reads.per_axis``, which reads one value or refuses it saying why."""
    if reads.known(name, where)[0] != (shape[CHANNEL_AXIS],):
        return reads.per_axis(name, x_name, shape, CHANNEL_AXIS, where, what)
    strides = tuple(int(d == CHANNEL_AXIS) for d in range(len(shape)))
    return reads.strided(name, shape, strides)


def check_normalization(node: onnx.NodeProto, attributes: dict[str, int], where: str) -> None:
    """What is refused whatever the shapes (at prepare): training, the optional statistics outputs, p."""
    if node.op_type == "BatchNormalization" and (attributes.get("training_mode", 0) or len(node.output) > 1):
        raise NodeRefused(
            f"{where}: training_mode {attributes.get('training_mode', 0)} with {len(node.output)} outputs: dmlpy "
            "lowers BatchNormalization in inference (training_mode 0, one output); ONNX's training form updates "
            "running statistics (momentum), which no DirectML operator computes"
        )
    if node.op_type == "LayerNormalization" and len(node.output) > 1:
        raise NodeRefused(
            f"{where}: {len(node.output)} outputs: the optional Mean and InvStdDev outputs are statistics DirectML's "
            "MEAN_VARIANCE_NORMALIZATION1 does not write; leave them out of the node"
        )
    if node.op_type == "LpNormalization" and attributes.get("p", 2) not in (1, 2):
        raise NodeRefused(f"{where}: p {attributes['p']}; DirectML's LP_NORMALIZATION takes P 1 or 2")
    if node.op_type == "GroupNormalization" and attributes.get("stash_type", FLOAT) != FLOAT:
        raise NodeRefused(
            f"{where}: stash_type {attributes['stash_type']}; DirectML's MEAN_VARIANCE_NORMALIZATION1 computes its "
            f"statistics in float32, stash_type {FLOAT} (the default): leave the attribute out"
        )


def normalization_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node (``check_normalization``-ed) for its input's shape; at prepare (every value one element) a copy
    of the input stands in, as the shape decides the channels and axes."""
    check_normalization(node, attributes, where)
    shape, _ = reads.known(node.input[0], where)
    x = reads.shaped(node.input[0], shape or (1,), where)
    if prepare:
        return [(expressed(where, BUILDERS["identity"], x), shape)]
    rank, op_type = len(shape), node.op_type
    with_epsilon = op_type not in ("LRN", "LpNormalization", "MeanVarianceNormalization")
    epsilon = float_attribute(node, opset, "epsilon") if with_epsilon else 0.0
    if op_type in ("BatchNormalization", "InstanceNormalization") and rank < 2:
        raise InvalidArgumentError(f"{where}: its input has rank {rank}; {op_type} takes (N, C, ...)")
    if op_type == "BatchNormalization":
        scale, bias, mean, variance = (
            _per_channel(reads, name, node.input[0], shape, where, what)
            for name, what in zip(node.input[1:5], ("scale", "B", "input_mean", "input_var"), strict=True)
        )
        return [(expressed(where, batch_normalization, x, mean, variance, scale, bias, True, epsilon), shape)]
    if op_type == "InstanceNormalization":
        scale, bias = (
            _per_channel(reads, n, node.input[0], shape, where, w)
            for n, w in zip(node.input[1:3], ("scale", "B"), strict=True)
        )
        axes = tuple(range(2, rank))
        return [(expressed(where, mean_variance_normalization, x, scale, bias, axes, True, epsilon), shape)]
    if op_type == "GroupNormalization":
        return [(_group_normalization(node, opset, attributes["num_groups"], shape, reads, epsilon, where), shape)]
    if op_type == "LayerNormalization":
        first = _axis(attributes.get("axis", -1), rank, where)
        weight = reads.broadcast(node.input[1], shape, where)
        shift = reads.broadcast(node.input[2], shape, where) if len(node.input) > 2 and node.input[2] else None
        axes = tuple(range(first, rank))
        return [(expressed(where, mean_variance_normalization, x, weight, shift, axes, True, epsilon), shape)]
    if op_type == "MeanVarianceNormalization":
        given = ints_attribute(node, "axes")
        axes = tuple(sorted({_axis(a, rank, where) for a in (given if given is not None else _MVN_AXES)}))
        return [(expressed(where, mean_variance_normalization, x, None, None, axes, True, MVN_EPSILON), shape)]
    if op_type == "LpNormalization":
        axis, p = _axis(attributes.get("axis", -1), rank, where), attributes.get("p", 2)
        return [(expressed(where, BUILDERS["lp_normalization"], x, axis, LP_EPSILON, p), shape)]
    size = attributes["size"]
    alpha, beta, bias_value = (float_attribute(node, opset, name) for name in ("alpha", "beta", "bias"))
    lrn = BUILDERS["local_response_normalization"]
    return [(expressed(where, lrn, x, True, size, alpha, beta, bias_value), shape)]


def _group_normalization(
    node: onnx.NodeProto,
    opset: int,
    groups: int,
    shape: tuple[int, ...],
    reads: Reads,
    epsilon: float,
    where: str,
) -> Expression:
    """GroupNormalization of X of ``shape`` (N, C, ...) as the module says: MVN1 over (N, G, C / G, S)."""
    if len(shape) < 2:
        raise InvalidArgumentError(f"{where}: X has rank {len(shape)}; GroupNormalization takes (N, C, ...)")
    batch, channels = shape[:2]
    if groups < 1 or channels % groups:
        raise NodeRefused(
            f"{where}: num_groups {groups} with {channels} channels; each group takes C / num_groups channels, so "
            "num_groups must divide C (ONNX leaves the rest undefined)"
        )
    per_group = channels // groups
    sizes = (batch, groups, per_group, math.prod(shape[2:]))
    x = reads.shaped(node.input[0], sizes, where)
    # Opset 21 scales each channel (C values), opset 18 each group (num_groups values).
    strides = (0, per_group, 1, 0) if opset >= _PER_CHANNEL_OPSET else (0, 1, 0, 0)
    count = channels if opset >= _PER_CHANNEL_OPSET else groups
    for name, what in zip(node.input[1:3], ("scale", "bias"), strict=True):
        given, _ = reads.known(name, where)
        if math.prod(given) != count or len(given) != 1:
            raise InvalidArgumentError(
                f"{where}: its {what} {name!r} has shape {list(given)}; GroupNormalization-{opset} takes [{count}] "
                f"(one value per {'channel' if count == channels else 'group'})"
            )
    scale, bias = (reads.strided(name, sizes, strides) for name in node.input[1:3])
    return expressed(where, mean_variance_normalization, x, scale, bias, (2, 3), True, epsilon)
