"""ONNX's QuantizeLinear and DequantizeLinear as DirectML's quantization operators, once lowering has read their
operands: the blocked form's split (opset 21's block_size), the output type from output_dtype and the zero point,
and the operator each type takes (ELEMENT_WISE_QUANTIZE_LINEAR and DEQUANTIZE_LINEAR for 8-bit values, FL 6_3's
QUANTIZE and DEQUANTIZE for 4-bit ones)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression, reinterpret
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.quantization import dequantize, dequantize_linear, quantize, quantize_linear
from dmlpy.onnx.elements import NodeRefused, element_type, expressed, onnx_name, type_name
from dmlpy.quantization_blocks import BlockSplit, block_split, onnx_block_runs
from dmlpy.tensor import BufferTensorDesc, packed_strides


@dataclass(frozen=True)
class Blocks:
    """How a blocked node reads its input of ONNX ``shape`` and its scale and zero point: ``split``, the split of
    the input padded to whole blocks along its axis (the input itself where the blocks are whole)."""

    shape: tuple[int, ...]
    split: BlockSplit

    @property
    def partial(self) -> bool:
        return self.split.input_shape != self.shape

    @property
    def input_sizes(self) -> tuple[int, ...]:
        """The Sizes the input, and so every tensor of the operator, is read with: split into its blocks where they
        are whole, its own shape where the last is partial."""
        return self.shape if self.partial else self.split.sizes

    def parameter(self, read: Read, data_type: TensorDataType, one: bool, where: str) -> Expression:
        """A scale or zero point, read through ``read`` (a graph input's or initializer's binding of a desc), as
        ``input_sizes`` reads it: one value with 0 strides; one per block with the split's 0 stride within each
        block; with a partial last block, that split view over the padded input copied (ELEMENT_WISE_IDENTITY:
        each value repeated over its block, packed) and read back cut to the input's length, as onnx.reference
        repeats each scale block_size times and cuts the repeats to the input's length."""
        if one:
            sizes = self.input_sizes
            return read(BufferTensorDesc(data_type=data_type, sizes=sizes, strides=(0,) * len(sizes)))
        value = read(BufferTensorDesc(data_type=data_type, sizes=self.split.sizes, strides=self.split.scale_strides))
        if not self.partial:
            return value
        if data_type in _FOUR_BIT:
            raise NodeRefused(
                f"{where}: its last block is partial, and its {data_type.name} zero point would be repeated over "
                "each block by an ELEMENT_WISE_IDENTITY copy, which takes no 4-bit type: give the partial block's "
                "zero point as one value for the tensor, or make the blocks whole"
            )
        repeated = expressed(where, BUILDERS["identity"], value)
        return expressed(where, reinterpret, repeated, self.shape, packed_strides(self.split.input_shape))


Read = Callable[[BufferTensorDesc], Expression]


def block_split_of(
    shape: tuple[int, ...],
    parameters: Mapping[str, tuple[int, ...]],
    axis: int,
    attributes: Mapping[str, int],
    where: str,
) -> Blocks | None:
    """How a node with ``block_size`` reads an input of ``shape`` with its scale and zero point of
    ``parameters``' shapes (ONNX opset 21's blocked form), or None where there is no block_size or the scale
    is one value (per tensor, as onnx.reference reads one value whatever block_size says). A last block that is
    partial is read as ``Blocks.parameter`` says; a split past 8 dimensions is refused."""
    block_size = attributes.get("block_size", 0)
    scale_shape = parameters["scale"]
    if not block_size or one_value(scale_shape):
        return None
    zero_shape = parameters.get("zero point", scale_shape)
    if zero_shape != scale_shape and not one_value(zero_shape):
        raise InvalidArgumentError(
            f"{where}: the zero point has shape {list(zero_shape)}; ONNX gives it the scale's, {list(scale_shape)} "
            "(or one value)"
        )
    try:
        along, _ = onnx_block_runs(shape, scale_shape, axis, block_size)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{where}: {error}") from error
    padded = tuple(scale_shape[along] * block_size if d == along else n for d, n in enumerate(shape))
    try:
        return Blocks(shape, block_split(padded, scale_shape))
    except InvalidArgumentError as error:
        raise NodeRefused(f"{where}: DirectML cannot express it: {error}") from error


def one_value(shape: tuple[int, ...]) -> bool:
    return int(np.prod(shape)) == 1


_FOUR_BIT = (TensorDataType.INT4, TensorDataType.UINT4)
"""ONNX's 4-bit types, which only FL 6_3's QUANTIZE and DEQUANTIZE take."""


def quantize_node(
    x: Expression,
    scale: Expression,
    zero_point: tuple[str | None, Expression | None],
    attributes: Mapping[str, int],
    where: str,
) -> Expression:
    zero_name, zero = zero_point
    output_dtype = attributes.get("output_dtype", 0)
    if output_dtype:
        output_type = element_type(output_dtype, f"{where}: output_dtype")
        if zero is not None and zero.data_type != output_type:
            raise InvalidArgumentError(
                f"{where}: output_dtype {type_name(output_dtype)}, but the zero point {zero_name!r} is "
                f"{onnx_name(zero.data_type)}; QuantizeLinear outputs its zero point's type, and ONNX asks "
                "output_dtype to agree with it"
            )
    elif zero is not None:
        output_type = zero.data_type
    else:
        output_type = TensorDataType.UINT8
    if output_type in _FOUR_BIT:
        # FL 6_3's QUANTIZE, with ONNX's zero point: 0 where the model gives none (DirectML's SCALE would mean
        # an unsigned type's midpoint).
        return expressed(where, quantize, x, scale, 0 if zero is None else zero, dtype=output_type)
    if output_type not in (TensorDataType.UINT8, TensorDataType.INT8):
        raise NodeRefused(
            f"{where}: the output is {output_type.name}; DirectML's ELEMENT_WISE_QUANTIZE_LINEAR outputs UINT8 or "
            "INT8, and its QUANTIZE (DML_FEATURE_LEVEL_6_3) INT4 or UINT4 besides"
        )
    return expressed(where, quantize_linear, x, scale, zero, dtype=output_type)


def dequantize_node(
    x: Expression, scale: Expression, zero: Expression | None, attributes: Mapping[str, int], where: str
) -> Expression:
    output_dtype = attributes.get("output_dtype", 0)
    if output_dtype and element_type(output_dtype, f"{where}: output_dtype") != scale.data_type:
        raise NodeRefused(
            f"{where}: output_dtype {type_name(output_dtype)} differs from the scale's type {scale.data_type.name}; "
            "DirectML's ELEMENT_WISE_DEQUANTIZE_LINEAR outputs the scale's type"
        )
    if x.data_type in _FOUR_BIT:  # FL 6_3's DEQUANTIZE, with ONNX's zero point (0 where none is given)
        return expressed(where, dequantize, x, scale, 0 if zero is None else zero)
    return expressed(where, dequantize_linear, x, scale, zero)
