"""``dml::Reinterpret``: an expression's buffer read through other Sizes and Strides, no node added. DirectML joins
two nodes by a buffer (an intermediate edge asks only for the same TotalTensorSizeInBytes), and each node's tensor
desc is its own view of it: a reshape (other Sizes, packed), a transpose (the Sizes and Strides permuted), a
broadcast (0 Strides). The reader's kernel walks the buffer that way; nothing is copied. ``transpose`` is ONNX's
Transpose as onnxruntime lowers it, such a view; ``dml.graph.identity`` of a view writes it packed (a graph output
is the tensor its node writes, so a view becomes one through identity)."""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.errors import DmlError, InvalidArgumentError, argument_error
from dmlpy.graph.builder import Expression, operand
from dmlpy.tensor import BufferTensorDesc, calc_buffer_tensor_size


def reinterpret(x: Expression, sizes: Sequence[int], strides: Sequence[int] | None = None) -> Expression:
    """``dml::Reinterpret(x, sizes, strides)``: ``x``'s buffer as a tensor of ``sizes`` and ``strides`` (packed
    when left out), of x's DataType and TotalTensorSizeInBytes; every element it reaches must lie in the buffer."""
    where = "dml.graph.reinterpret"
    x = operand(x, where, "x")
    if not isinstance(sizes, Sequence) or isinstance(sizes, str) or not sizes:
        raise argument_error(where, "sizes", sizes, "the new Sizes, one int per dimension")
    try:
        desc = BufferTensorDesc(
            data_type=x.desc.data_type,
            sizes=tuple(sizes),
            strides=None if strides is None else tuple(strides),
            total_tensor_size_in_bytes=x.desc.total_tensor_size_in_bytes,
        )
    except DmlError as error:
        raise InvalidArgumentError(f"{where}: {_asked(sizes, strides, x)}: {error}") from error
    spans = calc_buffer_tensor_size(desc.data_type, desc.sizes, desc.strides)
    if spans > desc.total_tensor_size_in_bytes:
        raise InvalidArgumentError(
            f"{where}: {_asked(sizes, strides, x)} spans {spans} bytes; x's buffer holds "
            f"{desc.total_tensor_size_in_bytes} (TotalTensorSizeInBytes): a view reads only the buffer it is of"
        )
    return Expression(x.graph, desc, input_index=x.input_index, node=x.node, output=x.output)


def transpose(x: Expression, permutation: Sequence[int]) -> Expression:
    """ONNX's Transpose: dimension d of the result is dimension ``permutation[d]`` of ``x`` (its Sizes and Strides
    permuted), a view of x's buffer (``reinterpret``)."""
    where = "dml.graph.transpose"
    x = operand(x, where, "x")
    rank = len(x.sizes)
    if sorted(permutation) != list(range(rank)):
        raise InvalidArgumentError(
            f"{where}: permutation is {list(permutation)}; it must hold each of 0 to {rank - 1} once (x has "
            f"{rank} dimensions, Sizes {list(x.sizes)})"
        )
    strides = x.desc.effective_strides
    return reinterpret(x, [x.sizes[d] for d in permutation], [strides[d] for d in permutation])


def _asked(sizes: Sequence[int], strides: Sequence[int] | None, x: Expression) -> str:
    return f"Sizes {list(sizes)}, Strides {None if strides is None else list(strides)} over x ({x.desc.describe()})"
