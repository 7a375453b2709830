"""onnxruntime's contrib op types (domain com.microsoft) that DirectML's operators express, declared once: each
one's inputs (how many, which may be left out, their element types), outputs and attributes (those of the ONNX op
type whose schema declares the same names, types and defaults, plus its own INT ones), and its lowering. onnx's
schemas hold no com.microsoft op, so ``dmlpy.onnx.nodes`` reads this table for these nodes where it reads a
schema for ONNX's own.

- DynamicQuantizeLSTM (onnxruntime's ContribOperators.md): LSTM with W (D, I, 4H) and R (D, H, 4H) INT8 or UINT8,
  their scales and zero points one per direction ([D]) or one per column ([D, 4H]). It becomes
  ELEMENT_WISE_DEQUANTIZE_LINEAR of W and R read transposed through strides (exact: (q - z) * s in float32, one
  rounding, as onnxruntime's integer product scaled by s equals it), DYNAMIC_QUANTIZE_LINEAR of X dequantized again
  (onnxruntime quantizes X, the whole sequence of each direction, to UINT8 with ONNX's DynamicQuantizeLinear rule,
  before its integer product X * W), and the LSTM ONNX's LSTM lowers to (``dmlpy.onnx.recurrent``). What differs:
  onnxruntime quantizes the hidden state H(t-1) too at each step before H * R; DirectML's LSTM multiplies the float
  state (docs/models.md gives the difference on ddddocr-old). onnxruntime splits a batch of more than one between
  threads, each quantizing its rows of X; dmlpy quantizes X whole.
- QLinearAveragePool and QLinearGlobalAveragePool: AveragePool's and GlobalAveragePool's windows over INT8 or UINT8
  values with their scales and zero points, as QUANTIZED_LINEAR_AVERAGE_POOLING (``dmlpy.onnx.pooling``);
  channels_last 1 (NHWC) is read through strides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression, Graph, reinterpret
from dmlpy.graph.dynamic_quantization import dynamic_quantize_linear
from dmlpy.graph.quantization import dequantize_linear
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.movement import check_attributes
from dmlpy.onnx.pooling import quantized_pooling_outputs
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.onnx.recurrent import recurrent_outputs
from dmlpy.tensor import packed_strides

CONTRIB_DOMAIN = "com.microsoft"
_FLOAT, _BYTES, _INT32 = ("float",), ("int8", "uint8"), ("int32",)
_LSTM_OPSET = 7
"""The LSTM schema whose attributes DynamicQuantizeLSTM takes (no layout: X is (T, B, I))."""


@dataclass(frozen=True)
class ContribOp:
    """A contrib op type: ``inputs``, each input's element types, in order (``required``: the indices that may not
    be left out); ``outputs``, how many it may have (each optional where ``optional_outputs``); its attributes, those
    ``attributes_of``'s schema at opset ``attributes_opset`` declares and ``own``, its own INT ones with their
    defaults; ``standard_inputs``: its first inputs, those the ``attributes_of`` node reads."""

    inputs: tuple[tuple[str, ...], ...]
    required: tuple[int, ...]
    outputs: int
    optional_outputs: bool
    attributes_of: str
    attributes_opset: int
    standard_inputs: int
    own: Mapping[str, int] = field(default_factory=dict)


_QUANTIZED_POOL_INPUTS = (_BYTES, _FLOAT, _BYTES, _FLOAT, _BYTES)
"""X, x_scale, x_zero_point, y_scale, y_zero_point."""
CONTRIB_OPS: dict[str, ContribOp] = {
    # X, W, R, B, sequence_lens, initial_h, initial_c, P, W_scale, W_zero_point, R_scale, R_zero_point; LSTM-7's
    # attributes (activation_alpha, activation_beta, activations, clip, direction, hidden_size, input_forget).
    "DynamicQuantizeLSTM": ContribOp(
        (_FLOAT, _BYTES, _BYTES, _FLOAT, _INT32, _FLOAT, _FLOAT, _FLOAT, _FLOAT, _BYTES, _FLOAT, _BYTES),
        (0, 1, 2, 8, 9, 10, 11),
        3,
        True,
        "LSTM",
        _LSTM_OPSET,
        8,
    ),
    # AveragePool-11's attributes (auto_pad, ceil_mode, count_include_pad, kernel_shape, pads, strides): onnxruntime's
    # QLinearAveragePool declares those and channels_last; QLinearGlobalAveragePool only channels_last.
    "QLinearAveragePool": ContribOp(
        _QUANTIZED_POOL_INPUTS, (0, 1, 3), 1, False, "AveragePool", 11, 1, {"channels_last": 0}
    ),
    "QLinearGlobalAveragePool": ContribOp(
        _QUANTIZED_POOL_INPUTS, (0, 1, 2, 3, 4), 1, False, "GlobalAveragePool", 1, 1, {"channels_last": 0}
    ),
}
"""(com.microsoft, op type) -> what it takes; none of these op types is one of ONNX's own."""


def is_contrib(node: onnx.NodeProto) -> bool:
    return node.domain == CONTRIB_DOMAIN and node.op_type in CONTRIB_OPS


def contrib_attributes(node: onnx.NodeProto, where: str) -> dict[str, int]:
    """The node's INT attributes, after checking its inputs and outputs against ``CONTRIB_OPS`` and its attributes
    against the schema it shares (its own INT ones with their defaults)."""
    op = CONTRIB_OPS[node.op_type]
    given = list(node.input)
    if len(given) > len(op.inputs) or any(index >= len(given) or not given[index] for index in op.required):
        takes = ", ".join(str(index) for index in op.required)
        raise InvalidArgumentError(
            f"{where}: inputs {given}; {node.op_type} (domain {CONTRIB_DOMAIN}) takes up to {len(op.inputs)}, and "
            f"names the ones at {takes}"
        )
    named = any(node.output) if op.optional_outputs else all(node.output)
    if not node.output or len(node.output) > op.outputs or not named:
        raise InvalidArgumentError(
            f"{where}: outputs {list(node.output)}; {node.op_type} has up to {op.outputs}, one of them named"
        )
    own = [attribute for attribute in node.attribute if attribute.name in op.own]
    for attribute in own:
        if attribute.type != onnx.AttributeProto.INT:
            raise InvalidArgumentError(f"{where}: attribute {attribute.name!r} is not INT; {node.op_type} takes one")
    integers = check_attributes(standard_node(node), op.attributes_opset, where)  # its messages name that op type
    return {**op.own, **integers, **{attribute.name: int(attribute.i) for attribute in own}}


def standard_node(node: onnx.NodeProto) -> onnx.NodeProto:
    """The ONNX node whose schema declares the contrib node's attributes: its op type, its first inputs (those it
    reads) and its outputs."""
    op = CONTRIB_OPS[node.op_type]
    return onnx.helper.make_node(
        op.attributes_of,
        list(node.input[: op.standard_inputs]),
        list(node.output),
        node.name,
        **{a.name: onnx.helper.get_attribute_value(a) for a in node.attribute if a.name not in op.own},
    )


def contrib_input_types(op_type: str, index: int) -> list[str]:
    """The element types input ``index`` of the contrib ``op_type`` may have."""
    inputs = CONTRIB_OPS[op_type].inputs
    return list(inputs[min(index, len(inputs) - 1)])


def contrib_outputs(
    graph: Graph,
    node: onnx.NodeProto,
    opset: int,
    attributes: dict[str, int],
    reads: Reads,
    prepare: bool,
    where: str,
) -> Outputs:
    """The contrib node's outputs, each one's expression and ONNX shape (at ``prepare``, every value one element)."""
    del graph  # the contrib op types all read a tensor: their nodes join the graph of what they read
    if node.op_type == "DynamicQuantizeLSTM":
        return _dynamic_quantize_lstm(node, attributes, reads, prepare, where)
    return quantized_pooling_outputs(node, standard_node(node), attributes, reads, prepare, where)


_WEIGHTS = {1: ("W", 8, 9), 2: ("R", 10, 11)}
"""The LSTM input index -> the weight's name and the indices of its scale and zero point."""


def _dynamic_quantize_lstm(
    node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """LSTM on X quantized and dequantized again and on W and R dequantized: see the module's docstring."""
    lstm = standard_node(node)

    def computed(index: int, sizes: tuple[int, ...]) -> Expression | None:
        if index == 0:
            return _requantized(node.input[0], sizes, reads, prepare, where)
        if index in _WEIGHTS:
            return _dequantized(node, index, sizes, reads, prepare, where)
        return None

    def known(name: str, at: str) -> tuple[tuple[int, ...], TensorDataType]:
        """R's shape as ONNX's LSTM has it, (D, 4H, H), from which the LSTM reads the hidden size."""
        shape, data_type = reads.known(name, at)
        if name == node.input[2] and len(shape) == 3:
            shape = (shape[0], shape[2], shape[1])
        return shape, data_type

    return recurrent_outputs(lstm, _LSTM_OPSET, attributes, replace(reads, known=known), prepare, where, computed)


def _requantized(name: str, sizes: tuple[int, ...], reads: Reads, prepare: bool, where: str) -> Expression:
    """X {1, T, B, I} quantized to UINT8 by its own range and dequantized: the values onnxruntime multiplies."""
    x = reads.strided(name, sizes, (0,) * len(sizes) if prepare else packed_strides(sizes))
    quantized, scale, zero_point = expressed(where, dynamic_quantize_linear, x, TensorDataType.UINT8)
    spread = (0,) * len(sizes)
    scales = expressed(where, reinterpret, scale, sizes, spread)
    zero_points = expressed(where, reinterpret, zero_point, sizes, spread)
    return expressed(where, dequantize_linear, quantized, scales, zero_points)


def _dequantized(
    node: onnx.NodeProto, index: int, sizes: tuple[int, ...], reads: Reads, prepare: bool, where: str
) -> Expression:
    """W or R {1, D, 4H, K} dequantized: ONNX's (D, K, 4H) read transposed, its scale and zero point one value per
    direction or one per column of 4H."""
    what, scale_at, zero_at = _WEIGHTS[index]
    _, count, columns, depth = sizes
    weight = node.input[index]
    if prepare:
        spread = (0,) * len(sizes)
        read = [reads.strided(node.input[at], sizes, spread) for at in (index, scale_at, zero_at)]
        return expressed(where, dequantize_linear, *read)
    shape = reads.known(weight, where)[0]
    if shape != (count, depth, columns):
        raise InvalidArgumentError(
            f"{where}: {what} {weight!r} has shape {list(shape)}; DynamicQuantizeLSTM takes "
            f"[num_directions, {'input_size' if index == 1 else 'hidden_size'}, 4*hidden_size] = "
            f"{[count, depth, columns]}"
        )
    values = reads.strided(weight, sizes, (0, depth * columns, 1, columns))
    parameters = []
    for at, role in ((scale_at, "scale"), (zero_at, "zero point")):
        given = reads.known(node.input[at], where)[0]
        if given == (count,):
            strides: tuple[int, ...] = (0, 1, 0, 0)
        elif given == (count, columns):
            strides = (0, columns, 1, 0)
        else:
            raise NodeRefused(
                f"{where}: {what}'s {role} {node.input[at]!r} has shape {list(given)}; DynamicQuantizeLSTM takes "
                f"[num_directions] = {[count]} (per direction) or [num_directions, 4*hidden_size] = "
                f"{[count, columns]} (per column)"
            )
        parameters.append(reads.strided(node.input[at], sizes, strides))
    return expressed(where, dequantize_linear, values, *parameters)
