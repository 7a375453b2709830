"""QDQ models' quantized convolutions and matrix products as the quantized operators, as onnxruntime's QDQ
transformer does on its CPU provider: DequantizeLinear -> Conv -> QuantizeLinear (a DequantizeLinear'd INT32 bias
too) becomes QLinearConv, so QUANTIZED_LINEAR_CONVOLUTION, and DequantizeLinear -> MatMul -> QuantizeLinear
QLinearMatMul, so QUANTIZED_LINEAR_MATRIX_MULTIPLY (``dmlpy.onnx.convolution``, ``dmlpy.onnx.matrix``).

Why, and when it is the same model. The float chain dequantizes x and w, convolves in float (each product and sum
rounded) and quantizes the result: round(conv / y_scale) + y_zero_point. The quantized operator sums the integer
differences exactly (INT32, the bias added in it) and rounds once: round(sum * x_scale * w_scale / y_scale) +
y_zero_point. Both are the exact convolution of the dequantized values, quantized; they differ only where the float
accumulation's error moves a value across a rounding half, by one step. onnxruntime fuses these patterns by default,
so its outputs, which users compare with, are the quantized operator's; dmlpy fuses the same patterns and leaves the
float chain (which runs as it is) wherever the fused form would mean something else:

* x, y (and A) per tensor: one scale, a zero point given (its type says INT8 or UINT8); w (B) INT8 or UINT8 (INT8
  where x is INT8), its scale one value or one per output channel (Conv: axis 0, W's M; MatMul: B's last axis, N), a
  zero point like it or none; the scales FLOAT32, every scale and zero point an initializer (not a graph input too);
  no block_size;
* the float result read by the QuantizeLinear alone, and no graph output; x's DequantizeLinear read by this node
  alone, and the QuantizeLinear's output by one DequantizeLinear, itself read by one node at most. onnxruntime
  fuses no other (measured on its optimized models: a Conv whose quantized result two nodes read, as YOLOv8's SiLU's
  Sigmoid and Mul do, stays its float chain), and the point is to compute what it computes;
* Conv's bias absent, or an INT32 initializer dequantized with zero point 0 and scale x_scale * w_scale (float32's
  product, what ``quantize_static`` writes): the bias then is exactly the INT32 term QLinearConv adds to the sum;
* Conv over 1-D or 2-D windows (W of 3 or 4 dimensions: DirectML's integer convolutions have no 3-D form).

A DequantizeLinear the fused node no longer needs is left to lowering, which runs only the nodes the outputs read.
MatMul -> Add(bias) -> QuantizeLinear stays the float chain: QLinearMatMul has no bias. A MatMul's B computed by the
model (attention's products) fuses with one scale and zero point, as A's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import DmlError
from dmlpy.onnx.initializers import initializer_value
from dmlpy.onnx.nodes import ONNX_DOMAINS

Types = Mapping[str, tuple[tuple[int, ...], TensorDataType]]
_BYTES = (TensorDataType.INT8, TensorDataType.UINT8)
_FUSED = {"Conv": "QLinearConv", "MatMul": "QLinearMatMul"}
_INTEGER_WINDOW_RANKS = (3, 4)
"""W's dimensions for which QLinearConv runs: 1-D and 2-D windows."""


def fuse_qdq(graph: onnx.GraphProto, types: Types) -> onnx.GraphProto:
    """``graph``'s nodes and outputs (not its initializers, which stay ``graph``'s) with each quantized Conv and MatMul
    of the module docstring fused: the QLinearConv or QLinearMatMul in the Conv's place writes the QuantizeLinear's
    output, and the QuantizeLinear is gone. ``types``: each initializer's dims and type."""
    producer = {output: node for node in graph.node for output in node.output}
    readers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
    for node in graph.node:
        for name in node.input:
            readers[name].append(node)
    graph_outputs = {value.name for value in graph.output}
    fused: dict[int, onnx.NodeProto] = {}
    dropped: set[int] = set()
    pattern = _Pattern(graph, types, producer)
    for node in graph.node:
        if node.op_type not in _FUSED or node.domain not in ONNX_DOMAINS:
            continue
        (output,) = node.output
        quantize = readers[output]
        if len(quantize) != 1 or quantize[0].op_type != "QuantizeLinear" or quantize[0].domain not in ONNX_DOMAINS:
            continue
        if output in graph_outputs:
            continue
        if not (
            _read_once(node.input[0], readers, graph_outputs) and _requantized_once(quantize[0], readers, graph_outputs)
        ):
            continue
        inputs = pattern.inputs(node, quantize[0])
        if inputs is not None:
            fused[id(node)] = onnx.helper.make_node(
                _FUSED[node.op_type],
                inputs,
                list(quantize[0].output),
                name=f"{node.name or node.op_type}_quantized",
                **{attribute.name: onnx.helper.get_attribute_value(attribute) for attribute in node.attribute},
            )
            dropped.add(id(quantize[0]))
    if not fused:
        return graph
    skeleton = onnx.GraphProto(name=graph.name)
    skeleton.node.extend(fused.get(id(node), node) for node in graph.node if id(node) not in dropped)
    skeleton.output.extend(graph.output)
    return skeleton


class _Pattern:
    """The checks of one Conv or MatMul and the QuantizeLinear reading it."""

    def __init__(self, graph: onnx.GraphProto, types: Types, producer: Mapping[str, onnx.NodeProto]) -> None:
        self.graph, self.types, self.producer = graph, types, producer
        self.inputs_given = {value.name for value in graph.input}
        """Graph inputs: an initializer among them is a default the caller may replace, no constant."""

    def inputs(self, node: onnx.NodeProto, quantize: onnx.NodeProto) -> list[str] | None:
        """The fused node's inputs (QLinearConv's nine, QLinearMatMul's eight), or None where it would not be the
        same model."""
        x = self._dequantized(node.input[0])
        w = self._dequantized(node.input[1])
        if x is None or w is None or not self._per_tensor(x) or not self._per_tensor(_operands(quantize)):
            return None
        if w[0] in self.types:  # weights: one value or one per output channel
            weight_rank = len(self.types[w[0]][0])
            channel_axis = 0 if node.op_type == "Conv" else weight_rank - 1
            if node.op_type == "Conv" and weight_rank not in _INTEGER_WINDOW_RANKS:
                return None
            if not self._per_channel(w, self.producer[node.input[1]], channel_axis, weight_rank):
                return None
        elif node.op_type == "Conv" or not self._per_tensor(w):  # MatMul of two computed values: both per tensor
            return None
        weight_type = self.types[w[0] if w[0] in self.types else w[2]][1]
        if self.types[x[2]][1] == TensorDataType.INT8 and weight_type != TensorDataType.INT8:
            return None  # onnxruntime fuses INT8 activations with INT8 weights alone
        if _attribute(quantize, "block_size", 0) or _attribute(self.producer[node.input[0]], "block_size", 0):
            return None
        fused = [*x, *w, *_operands(quantize)[1:]]
        if node.op_type == "MatMul":
            return fused
        bias = node.input[2] if len(node.input) > 2 and node.input[2] else None  # Conv's B
        if bias is None:
            return fused
        integer_bias = self._bias(bias, x[1], w[1])
        return None if integer_bias is None else [*fused, integer_bias]

    def _dequantized(self, name: str) -> list[str] | None:
        """The (input, scale, zero point) of the DequantizeLinear writing ``name`` (the zero point "" where left
        out), each scale and zero point an initializer."""
        node = self.producer.get(name)
        if node is None or node.op_type != "DequantizeLinear" or node.domain not in ONNX_DOMAINS:
            return None
        operands = _operands(node)
        if any(self._constant(name) is None for name in operands[1:] if name):
            return None
        return operands

    def _constant(self, name: str) -> np.ndarray | None:
        """An initializer's value, None where it is none (or a graph input too), or its data is out of the host's
        reach."""
        if name not in self.types or name in self.inputs_given:
            return None
        try:
            return initializer_value(self.graph, name, self.types, f"initializer {name!r}")
        except (DmlError, ValueError):
            return None

    def _per_tensor(self, operands: Sequence[str]) -> bool:
        """One FLOAT32 scale and a given INT8 or UINT8 zero point of one value."""
        _, scale, zero_point = operands
        if not scale or not zero_point or scale not in self.types or zero_point not in self.types:
            return False
        (scale_dims, scale_type), (zero_dims, zero_type) = self.types[scale], self.types[zero_point]
        ones = int(np.prod(scale_dims)) == 1 and int(np.prod(zero_dims)) == 1
        return ones and scale_type == TensorDataType.FLOAT32 and zero_type in _BYTES

    def _per_channel(self, operands: Sequence[str], node: onnx.NodeProto, axis: int, rank: int) -> bool:
        """w's FLOAT32 scale (and zero point, if any) one value, or one per ``axis`` of w's ``rank`` dimensions."""
        weight, scale, zero_point = operands
        dims, scale_type = self.types[scale]
        count = int(np.prod(dims))
        if scale_type != TensorDataType.FLOAT32 or self.types[weight][1] not in _BYTES:
            return False
        if zero_point and (self.types[zero_point][0] != dims or self.types[zero_point][1] != self.types[weight][1]):
            return False
        if count == 1:
            return True
        given_axis = _attribute(node, "axis", 1)
        return len(dims) == 1 and given_axis % rank == axis and count == self.types[weight][0][axis]

    def _bias(self, name: str, x_scale: str, w_scale: str) -> str | None:
        """Conv's B as QLinearConv's INT32 B: the DequantizeLinear's input, where its zero point is 0 and its scale
        x_scale * w_scale in float32."""
        operands = self._dequantized(name)
        if operands is None or operands[0] not in self.types or self.types[operands[0]][1] != TensorDataType.INT32:
            return None
        integer, scale, zero_point = operands
        zero = self._constant(zero_point) if zero_point else np.zeros(1)
        scales = self._constant(scale)
        x_value, w_value = self._constant(x_scale), self._constant(w_scale)
        if zero is None or scales is None or x_value is None or w_value is None or np.any(zero != 0):
            return None
        expected = np.float32(x_value.reshape(())) * w_value.astype(np.float32).ravel()
        given = scales.ravel()
        if given.size not in (1, expected.size) and expected.size != 1:
            return None
        return integer if bool(np.all(expected == given)) else None


def _read_once(name: str, readers: Mapping[str, Sequence[onnx.NodeProto]], graph_outputs: set[str]) -> bool:
    """Whether one input of one node reads ``name``, and no graph output is it."""
    return len(readers.get(name, ())) == 1 and name not in graph_outputs


def _requantized_once(
    quantize: onnx.NodeProto, readers: Mapping[str, Sequence[onnx.NodeProto]], graph_outputs: set[str]
) -> bool:
    """Whether the QuantizeLinear's output is read by one DequantizeLinear alone, itself read by one node at most
    (or a graph output)."""
    (output,) = quantize.output
    if not _read_once(output, readers, graph_outputs) or readers[output][0].op_type != "DequantizeLinear":
        return False
    return len(readers.get(readers[output][0].output[0], ())) <= 1


def _operands(node: onnx.NodeProto) -> list[str]:
    """A QuantizeLinear's or DequantizeLinear's input, scale and zero point ("" where left out)."""
    return [node.input[k] if k < len(node.input) else "" for k in range(3)]


def _attribute(node: onnx.NodeProto, name: str, default: int) -> int:
    for attribute in node.attribute:
        if attribute.name == name:
            return int(attribute.i)
    return default
