"""ONNX's matrix products as DirectML's, through their builder functions (``dmlpy.graph.matrix``): MatMul as GEMM
(Alpha 1, no C), Gemm as GEMM (transA and transB as TransA and TransB, alpha and beta as Alpha and Beta, C broadcast
to {M, N}), MatMulInteger as MATRIX_MULTIPLY_INTEGER and QLinearMatMul as QUANTIZED_LINEAR_MATRIX_MULTIPLY (its
output of y_zero_point's type).

The operands follow NumPy's matmul, as ONNX's do: a 1-D A is read as one row {1, K} and a 1-D B as one column
{K, 1} (the output's ONNX shape drops that 1; its Sizes keep it, the same bytes), and the batch dimensions broadcast,
each operand read with the output's batch Sizes and a Stride of 0 where it repeats (DirectML's operands have the
same batch Sizes). Every value is read through a view (``Reads.strided``): nothing is copied.

DirectML's matrix tensors have 2 to 4 dimensions, so an output of more than two batch dimensions is refused. A zero
point or scale is one value, or one per row of A (a's, MatMulInteger's 1-D [M] or [.., M, 1] a_zero_point) or per
column of B ({1, N}); one that differs along a batch dimension, and QLinearMatMul's per-column y_scale and
y_zero_point (DirectML's OutputScaleTensor holds one value or one per row), are refused saying why."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import onnx

from dmlpy.enums import MatrixTransform
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.matrix import gemm, matrix_multiply_integer, quantized_linear_matrix_multiply
from dmlpy.onnx.attributes import float_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.tensor import packed_strides

MATRIX_OPS = ("MatMul", "Gemm", "MatMulInteger", "QLinearMatMul")
MAX_BATCH_DIMENSIONS = 2
"""DirectML's matrix tensors have 2 to 4 dimensions: up to two batch dimensions (BatchCount, ChannelCount)."""


def matrix_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its inputs' shapes; at prepare (every value one element) a product of 1 x 1 matrices checks
    the types DirectML takes."""
    if node.op_type == "Gemm":
        return _gemm(node, opset, attributes, reads, prepare, where)
    a_name, b_name = (node.input[0], node.input[1]) if node.op_type != "QLinearMatMul" else node.input[0:4:3]
    a_shape = (1, 1) if prepare else reads.known(a_name, where)[0]
    b_shape = (1, 1) if prepare else reads.known(b_name, where)[0]
    product = _Product.of(a_shape, b_shape, where)
    a, b = product.operand(reads, a_name, a_shape, True), product.operand(reads, b_name, b_shape, False)
    if node.op_type == "MatMul":
        result = expressed(where, gemm, a, b)
    elif node.op_type == "MatMulInteger":
        zero_points = [
            product.parameter(reads, name, along, where, what)
            for name, along, what in _optional(node, ((2, "m", "a_zero_point"), (3, "n", "b_zero_point")))
        ]
        result = expressed(where, matrix_multiply_integer, a, zero_points[0], b, zero_points[1])
    else:
        a_scale, a_zero, b_scale, b_zero, y_scale, y_zero = (
            product.parameter(reads, name, along, where, what)
            for name, along, what in _optional(node, _QLINEAR_PARAMETERS)
        )
        assert a_scale is not None and b_scale is not None and y_scale is not None  # required inputs
        parameters = (a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero)
        result = expressed(where, quantized_linear_matrix_multiply, a, *parameters)
    return [(result, () if prepare else product.onnx_shape)]


_QLINEAR_PARAMETERS = (
    (1, "m", "a_scale"),
    (2, "m", "a_zero_point"),
    (4, "n", "b_scale"),
    (5, "n", "b_zero_point"),
    (6, "y", "y_scale"),
    (7, "y", "y_zero_point"),
)
"""QLinearMatMul's inputs after a: which axis each scale and zero point runs along (per row of A, per column of B,
and y's per column of the output, which DirectML refuses but for one value)."""


def _optional(node: onnx.NodeProto, inputs: Sequence[tuple[int, str, str]]) -> list[tuple[str | None, str, str]]:
    """The node's inputs at ``inputs``' indices, None where left out (an empty name or past the last)."""
    return [
        (node.input[index] if index < len(node.input) and node.input[index] else None, along, what)
        for index, along, what in inputs
    ]


class _Product:
    """NumPy's matmul of ONNX shapes: the batch Sizes both operands are read with, M, K, N, and the output's ONNX
    shape."""

    def __init__(self, batch: tuple[int, ...], m: int, n: int, onnx_shape: tuple[int, ...]) -> None:
        self.batch, self.m, self.n, self.onnx_shape = batch, m, n, onnx_shape

    @classmethod
    def of(cls, a: tuple[int, ...], b: tuple[int, ...], where: str) -> _Product:
        if not a or not b:
            raise InvalidArgumentError(
                f"{where}: its inputs have shapes {list(a)} and {list(b)}; a matrix product takes 1 dimension or more"
            )
        a2, b2 = _as_matrix(a, True), _as_matrix(b, False)
        if a2[-1] != b2[-2]:
            raise InvalidArgumentError(
                f"{where}: its inputs have shapes {list(a)} and {list(b)}; A's last dimension ({a2[-1]}) must equal "
                f"B's {'only' if len(b) == 1 else 'second-to-last'} ({b2[-2]}), NumPy's matmul rule"
            )
        try:
            batch = tuple(int(size) for size in np.broadcast_shapes(a2[:-2], b2[:-2]))
        except ValueError:
            raise InvalidArgumentError(
                f"{where}: its inputs have shapes {list(a)} and {list(b)}; their batch dimensions (all but the last "
                "two) do not broadcast (NumPy's rule)"
            ) from None
        if len(batch) > MAX_BATCH_DIMENSIONS:
            raise NodeRefused(
                f"{where}: its output has {len(batch) + 2} dimensions; DirectML's matrix products take 2 to 4 "
                f"(up to {MAX_BATCH_DIMENSIONS} batch dimensions): fold the batch dimensions with a Reshape before "
                "and after"
            )
        rows = (a2[-2],) if len(a) > 1 else ()
        columns = (b2[-1],) if len(b) > 1 else ()
        return cls(batch, a2[-2], b2[-1], (*batch, *rows, *columns))

    def operand(self, reads: Reads, name: str, shape: tuple[int, ...], first: bool) -> Expression:
        """A or B read with the output's batch Sizes: its own strides (packed), 0 where it repeats."""
        matrix = _as_matrix(shape, first)
        own = packed_strides(matrix)
        lead = len(self.batch) - (len(matrix) - 2)
        strides = [0] * lead + [0 if size == 1 else stride for size, stride in zip(matrix[:-2], own, strict=False)]
        return reads.strided(name, (*self.batch, *matrix[-2:]), (*strides, *own[-2:]))

    def parameter(self, reads: Reads, name: str | None, along: str, where: str, what: str) -> Expression | None:
        """A zero point or scale: {1, 1} for one value, {M, 1} per row (``along`` "m"), {1, N} per column ("n");
        ONNX's [.., M, 1] and [.., 1, N] forms too, while every batch dimension is 1; "y", the output's, one value
        only."""
        if name is None:
            return None
        shape = reads.known(name, where)[0]
        count = math.prod(shape)
        if count == 1:
            return reads.strided(name, (1, 1), (0, 0))
        wanted = {"m": self.m, "n": self.n}.get(along)
        kept = [size for size in shape if size != 1]
        if wanted is None or kept != [wanted] or (len(shape) > 1 and shape[-1 if along == "m" else -2] != 1):
            per = {"m": "one per row of A", "n": "one per column of B", "y": ""}[along]
            rule = f" or {per} ({wanted})" if per else ""
            why = (
                "; DirectML's OutputScaleTensor and OutputZeroPointTensor hold one value or one per row, and "
                "ONNX's 1-D y_scale is per column"
                if along == "y"
                else ", the same for every batch index"
            )
            raise NodeRefused(
                f"{where}: its {what} {name!r} has shape {list(shape)}; DirectML takes one value{rule}{why}"
            )
        sizes = (wanted, 1) if along == "m" else (1, wanted)
        return reads.strided(name, sizes, (1, 0) if along == "m" else (0, 1))


def _as_matrix(shape: tuple[int, ...], first: bool) -> tuple[int, ...]:
    """A 1-D operand as NumPy's matmul reads it: A as one row {1, K}, B as one column {K, 1}."""
    if len(shape) > 1:
        return shape
    return (1, *shape) if first else (*shape, 1)


def _gemm(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """Gemm: A and B of rank 2, transA and transB, alpha, beta, C (optional from opset 11) broadcast to {M, N}."""
    a_shape = (1, 1) if prepare else reads.known(node.input[0], where)[0]
    b_shape = (1, 1) if prepare else reads.known(node.input[1], where)[0]
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise InvalidArgumentError(f"{where}: A has shape {list(a_shape)}, B {list(b_shape)}; Gemm takes 2-D A and B")
    transposed = [attributes.get(name, 0) for name in ("transA", "transB")]
    (m, k_of_a), (k_of_b, n) = (
        shape[::-1] if flag else shape for shape, flag in zip((a_shape, b_shape), transposed, strict=True)
    )
    if k_of_a != k_of_b:
        raise InvalidArgumentError(
            f"{where}: A has shape {list(a_shape)} (transA {transposed[0]}), B {list(b_shape)} (transB "
            f"{transposed[1]}); A's K ({k_of_a}) must equal B's ({k_of_b})"
        )
    a, b = (reads.shaped(name, shape, where) for name, shape in zip(node.input[:2], (a_shape, b_shape), strict=True))
    c = None
    if len(node.input) > 2 and node.input[2]:
        c = reads.broadcast(node.input[2], (m, n), where)
    trans_a, trans_b = (MatrixTransform.TRANSPOSE if t else MatrixTransform.NONE for t in transposed)
    alpha, beta = float_attribute(node, opset, "alpha"), float_attribute(node, opset, "beta")
    result = expressed(where, gemm, a, b, c, trans_a, trans_b, alpha, beta)
    return [(result, () if prepare else (m, n))]
