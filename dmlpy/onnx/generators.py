"""ONNX's generator and sequence op types as DirectML's, through their builder functions
(``dmlpy.graph.generators``, ``dmlpy.graph.indexing.reverse_subsequences``): Range as FILL_VALUE_SEQUENCE (its start
and delta as ValueStart and ValueDelta, its element count the output's Sizes), EyeLike as DIAGONAL_MATRIX1 without
InputTensor (the band [k, k + 1) of 1s, dtype or the input's type) and ReverseSequence as REVERSE_SUBSEQUENCES
(time_axis as Axis; sequence_lens read one per index of batch_axis with 0 strides elsewhere, cast from ONNX's INT64
to UINT64 by a CAST node).

Range's start, limit and delta decide its output's Sizes and two descriptor fields, fixed when the graph is built:
each is an initializer. Its element count is ONNX's max(ceil((limit - start) / delta), 0), computed exactly (in
rationals, from the values the initializers hold); element i is start + i * delta (Range-27's pseudocode), which
FILL_VALUE_SEQUENCE computes once per element, rounded once at FLOAT32, in float then rounded to half at FLOAT16
(stash_type 1, FLOAT; stash_type 11, DOUBLE precision, is refused for FLOAT16: DirectML computes in float).
EyeLike reads only its input's shape, so its input is no tensor of the graph.

NonZero is refused (``REFUSED_GENERATOR_OPS``): its output's shape is its input's count of non-zero elements, known
only after the run, where a DirectML graph's outputs have Sizes fixed when it is built (NONZERO_COORDINATES writes a
count and coordinates sized for every element)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression, Graph
from dmlpy.graph.generators import diagonal_matrix, fill_value_sequence
from dmlpy.graph.indexing import reverse_subsequences
from dmlpy.graph.operators import BUILDERS
from dmlpy.onnx.elements import NodeRefused, expressed, onnx_name, value_type
from dmlpy.onnx.reads import Outputs, Reads

GENERATOR_OPS = ("Range", "EyeLike", "ReverseSequence")
REFUSED_GENERATOR_OPS = {
    "NonZero": (
        "its output's shape, [rank, count of non-zero elements], is known only after the run, and a DirectML graph's "
        "outputs have Sizes fixed when it is built: NONZERO_COORDINATES writes a count and a coordinate row for every "
        "element, which dml.graph.nonzero_coordinates gives a dmlpy graph"
    ),
}
"""Op types of this family dmlpy refuses, with the reason ``check_op_types`` gives."""
_RANGE_INPUTS = ("start", "limit", "delta")
_RANGE_HELD = "DirectML's FILL_VALUE_SEQUENCE holds start and delta in descriptor fields and the count in its Sizes"
_STASH_TYPES = {onnx.TensorProto.FLOAT: "FLOAT", onnx.TensorProto.DOUBLE: "DOUBLE"}
_SEQUENCE_AXES = (0, 1)
"""ReverseSequence's batch_axis and time_axis: 0 or 1, one of each."""
_LENGTH_TYPE = TensorDataType.UINT64
"""REVERSE_SUBSEQUENCES's lengths are UINT32 or UINT64; ONNX's are INT64, the same bits below 2^63."""


def eye_like_boolean(node: onnx.NodeProto, input_boolean: bool) -> bool:
    """Whether an EyeLike node's output is an ONNX bool (held as UINT8): its dtype BOOL, or no dtype and a bool
    input."""
    dtype = next((a.i for a in node.attribute if a.name == "dtype"), None)
    return dtype == onnx.TensorProto.BOOL if dtype is not None else input_boolean


def generator_outputs(
    graph: Graph,
    node: onnx.NodeProto,
    opset: int,
    attributes: dict[str, int],
    reads: Reads,
    prepare: bool,
    where: str,
) -> Outputs:
    """The node for its inputs' shapes, in ``graph`` (Range and EyeLike read no tensor); at prepare (every value
    one element) the fields and forms are checked, and EyeLike and ReverseSequence build a node of one element
    (their shapes decide their outputs)."""
    if node.op_type == "Range":
        return _range(graph, node, attributes, reads, where)
    if node.op_type == "EyeLike":
        return _eye_like(graph, node, attributes, reads, prepare, where)
    return _reverse_sequence(node, attributes, reads, prepare, where)


def _range(graph: Graph, node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, where: str) -> Outputs:
    data_type = reads.known(node.input[0], where)[1]
    for name, what in zip(node.input[1:], _RANGE_INPUTS[1:], strict=True):
        if reads.known(name, where)[1] != data_type:
            raise InvalidArgumentError(
                f"{where}: its {what} {name!r} is {onnx_name(reads.known(name, where)[1])} and its start "
                f"{onnx_name(data_type)}; Range takes one type for start, limit and delta"
            )
    start, limit, delta = (
        _scalar(reads, name, what, where) for name, what in zip(node.input, _RANGE_INPUTS, strict=True)
    )
    stash = attributes.get("stash_type", onnx.TensorProto.FLOAT)
    if stash not in _STASH_TYPES:
        raise InvalidArgumentError(f"{where}: stash_type {stash}; Range takes 1 (FLOAT) or 11 (DOUBLE)")
    if data_type == TensorDataType.FLOAT16 and stash == onnx.TensorProto.DOUBLE:
        raise NodeRefused(
            f"{where}: stash_type 11 (DOUBLE) with FLOAT16 values; DirectML's FILL_VALUE_SEQUENCE computes a FLOAT16 "
            "sequence in float (stash_type 1): leave stash_type out"
        )
    exact = [Fraction(v) for v in (start, limit, delta) if math.isfinite(v)]
    if len(exact) < len(_RANGE_INPUTS) or exact[2] == 0:
        raise InvalidArgumentError(
            f"{where}: start {start}, limit {limit}, delta {delta}; Range takes finite values and a delta other than "
            "0 (its element count is ceil((limit - start) / delta))"
        )
    count = math.ceil((exact[1] - exact[0]) / exact[2])
    if count < 1:
        raise NodeRefused(
            f"{where}: start {start}, limit {limit}, delta {delta} give no element, an empty tensor; DirectML has no "
            "empty tensors: leave the node out of the model"
        )
    sequence = expressed(where, fill_value_sequence, graph, (count,), data_type, start, delta)
    return [(sequence, (count,))]


def _scalar(reads: Reads, name: str, what: str, where: str) -> int | float:
    """Range's ``what``: one number from an initializer, a Python int for an integer type (exact)."""
    value = reads.fixed(name, what, where, _RANGE_HELD)
    if value.size != 1:
        raise InvalidArgumentError(f"{where}: its {what} has shape {list(value.shape)}; Range takes a scalar")
    number = value.reshape(-1)[0]
    return int(number) if np.issubdtype(value.dtype, np.integer) else float(number)


def _eye_like(
    graph: Graph, node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    shape, data_type = reads.known(node.input[0], where)
    if "dtype" in attributes:
        data_type = value_type(attributes["dtype"], f"{where}: its dtype")
    if prepare:
        shape = (1, 1)
    if len(shape) != 2:
        raise InvalidArgumentError(f"{where}: its input has shape {list(shape)}; EyeLike takes an input of rank 2")
    rows, columns = shape
    # Column - row is the diagonal: k beyond [-rows, columns] selects no element, as k at the bound does, and
    # clamped it and k + 1 stay in DirectML's INT fields.
    k = min(max(attributes.get("k", 0), -rows), columns)
    return [(expressed(where, diagonal_matrix, graph, 1, k, k + 1, shape, data_type), shape)]


def _reverse_sequence(
    node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    batch_axis, time_axis = attributes.get("batch_axis", 1), attributes.get("time_axis", 0)
    if {batch_axis, time_axis} != set(_SEQUENCE_AXES):
        raise InvalidArgumentError(
            f"{where}: batch_axis {batch_axis}, time_axis {time_axis}; ReverseSequence takes 0 and 1, one each"
        )
    x_name, lengths_name = node.input
    if prepare:  # every value one element: the node on one element checks the types and where the lengths come from
        x = reads.shaped(x_name, (1,), where)
        lengths = reads.per_axis(lengths_name, x_name, (1,), 0, where, "sequence_lens")
        return [(_reversed(x, lengths, 0, where), ())]
    shape, _ = reads.known(x_name, where)
    if len(shape) < len(_SEQUENCE_AXES):
        raise InvalidArgumentError(f"{where}: its input has shape {list(shape)}; ReverseSequence takes rank 2 or more")
    given, _ = reads.known(lengths_name, where)
    if given != (shape[batch_axis],):
        raise InvalidArgumentError(
            f"{where}: its sequence_lens has shape {list(given)}; ReverseSequence takes one length per index of "
            f"batch_axis {batch_axis}: shape [{shape[batch_axis]}]"
        )
    like = tuple(1 if dim == time_axis else size for dim, size in enumerate(shape))
    lengths = reads.per_axis(lengths_name, x_name, like, batch_axis, where, "sequence_lens")
    return [(_reversed(reads.shaped(x_name, shape, where), lengths, time_axis, where), shape)]


def _reversed(x: Expression, lengths: Expression, time_axis: int, where: str) -> Expression:
    """REVERSE_SUBSEQUENCES of ``x`` along ``time_axis``, ONNX's INT64 ``lengths`` cast to UINT64 first."""
    unsigned = expressed(where, BUILDERS["cast"], lengths, _LENGTH_TYPE)
    return expressed(where, reverse_subsequences, x, unsigned, time_axis)
