"""ONNX's recurrent networks as DirectML's, through their builder functions (``dmlpy.graph.recurrent``): RNN as RNN,
LSTM as LSTM, GRU as GRU, one layer each (onnxruntime's DirectML provider maps them so). ONNX's gate orders are
DirectML's (LSTM i, o, f, c and its peepholes i, o, f; GRU z, r, h), so every tensor is ONNX's own, read through
other Sizes and Strides (``Reads.strided``, no copy):

- X (T, B, I) as InputTensor {1, T, B, I}; W and R (D, G * H, ...) as {1, D, G * H, ...}; B (D, 2 * G * H) as
  {1, 1, D, 2 * G * H}; initial_h and initial_c (D, B, H) as {1, D, B, H}; P (D, 3 * H) as {1, 1, D, 3 * H};
- sequence_lens (B,), INT32 in ONNX, cast to UINT32 (a CAST node) and read as {1, 1, 1, B};
- Y is OutputSequenceTensor {T, D, B, H}, ONNX's own layout; Y_h (and LSTM's Y_c) OutputSingleTensor {1, D, B, H},
  its leading 1 dropped;
- layout 1 (batch first: X (B, T, I), Y (B, T, D, H), the states (B, D, H)) swaps the dimensions through strides;
- activations become ActivationDescs (ONNX's defaults per direction where left out; one direction's list is used
  for both of a bidirectional node's, as onnxruntime does), activation_alpha and activation_beta consumed in order
  by the activations that take them, each one left out the default onnxruntime gives (LeakyRelu 0.01,
  ThresholdedRelu 1, HardSigmoid 0.2 and 0.5, Elu 1, Affine 1 and 0, ScaledTanh 1 and 1);
- clip becomes LSTM's ClipThreshold with UseClipThreshold, input_forget CoupleInputForget, linear_before_reset GRU's
  LinearBeforeReset.

Refused with the reason: clip on RNN and GRU (their descriptors have no ClipThreshold), the opset-1 forms (their
output_sequence attribute), an activation DirectML has no element-wise form of. Every output is optional: one left
out (fewer outputs, or an empty name) is still written by the operator, and read by nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx

from dmlpy.enums import OperatorType, RecurrentNetworkDirection, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression, reinterpret
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.recurrent import gru, lstm, rnn
from dmlpy.onnx.attributes import string_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.tensor import packed_strides

RECURRENT_OPS = ("RNN", "LSTM", "GRU")
Computed = Callable[[int, tuple[int, ...]], Expression | None]
"""An input the caller makes (its index, the operator's Sizes -> the expression), or None: read from the model."""
_GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}
_DEFAULT_ACTIVATIONS = {"RNN": ("Tanh",), "LSTM": ("Sigmoid", "Tanh", "Tanh"), "GRU": ("Sigmoid", "Tanh")}
"""ONNX's activations for one direction where the node gives none."""
_DIRECTIONS = {
    "forward": RecurrentNetworkDirection.FORWARD,
    "reverse": RecurrentNetworkDirection.BACKWARD,
    "bidirectional": RecurrentNetworkDirection.BIDIRECTIONAL,
}
_FIRST_OPSET = 7
"""RNN-1, LSTM-1 and GRU-1 (and GRU-3) take output_sequence; the forms dmlpy reads are opset 7's and later."""
_T = OperatorType
_ACTIVATIONS: dict[str, tuple[OperatorType, dict[str, float]]] = {
    "relu": (_T.ACTIVATION_RELU, {}),
    "tanh": (_T.ACTIVATION_TANH, {}),
    "sigmoid": (_T.ACTIVATION_SIGMOID, {}),
    "affine": (_T.ACTIVATION_LINEAR, {"Alpha": 1.0, "Beta": 0.0}),
    "leakyrelu": (_T.ACTIVATION_LEAKY_RELU, {"Alpha": 0.01}),
    "thresholdedrelu": (_T.ACTIVATION_THRESHOLDED_RELU, {"Alpha": 1.0}),
    "scaledtanh": (_T.ACTIVATION_SCALED_TANH, {"Alpha": 1.0, "Beta": 1.0}),
    "hardsigmoid": (_T.ACTIVATION_HARD_SIGMOID, {"Alpha": 0.2, "Beta": 0.5}),
    "elu": (_T.ACTIVATION_ELU, {"Alpha": 1.0}),
    "softsign": (_T.ACTIVATION_SOFTSIGN, {}),
    "softplus": (_T.ACTIVATION_SOFTPLUS, {"Steepness": 1.0}),
}
"""ONNX's activation names (compared in lower case, as onnxruntime does) -> the DirectML activation and its
parameters, each with onnxruntime's default (rnn_helpers.cc); Alpha takes activation_alpha, Beta activation_beta."""


def recurrent_outputs(
    node: onnx.NodeProto,
    opset: int,
    attributes: dict[str, int],
    reads: Reads,
    prepare: bool,
    where: str,
    computed: Computed | None = None,
) -> Outputs:
    """The node for its inputs' shapes; at prepare (every value one element) each input is read with every Size 1
    but the directions, 0 Strides, which checks the types, the attributes and the activations. ``computed``: the
    inputs its caller makes itself (a contrib op's dequantized weights: ``dmlpy.onnx.contrib``), given the index and
    the operator's Sizes, None for the others."""
    op_type = node.op_type
    if opset < _FIRST_OPSET:
        raise NodeRefused(
            f"{where}: {op_type} before opset {_FIRST_OPSET} takes output_sequence; dmlpy reads opset 7's form: "
            "convert the model to a later opset (onnx.version_converter)"
        )
    most = 3 if op_type == "LSTM" else 2
    if len(node.output) > most:
        raise InvalidArgumentError(f"{where}: outputs {list(node.output)}; {op_type} has {most} (each optional)")
    direction_name = string_attribute(node, opset, "direction")
    if direction_name not in _DIRECTIONS:
        raise InvalidArgumentError(
            f"{where}: direction is {direction_name!r}; ONNX asks for 'forward', 'reverse' or 'bidirectional'"
        )
    direction = _DIRECTIONS[direction_name]
    count = 2 if direction is RecurrentNetworkDirection.BIDIRECTIONAL else 1
    activations = _activation_descs(node, count, where)
    if "clip" in {a.name for a in node.attribute} and op_type != "LSTM":
        raise NodeRefused(
            f"{where}: clip is given; DirectML's {op_type} has no ClipThreshold (only LSTM's clips): leave it out"
        )
    batch_first = attributes.get("layout", 0) == 1
    gates = _GATES[op_type]
    if prepare:
        steps, batch, width, hidden = 1, 1, 1, 1
    else:
        x_shape = reads.known(node.input[0], where)[0]
        r_shape = reads.known(node.input[2], where)[0]
        if len(x_shape) != 3 or len(r_shape) != 3:  # X and R are 3-D
            raise InvalidArgumentError(
                f"{where}: X has shape {list(x_shape)} and R {list(r_shape)}; {op_type} takes 3-D ones"
            )
        steps, batch = (x_shape[1], x_shape[0]) if batch_first else x_shape[:2]
        width, hidden = x_shape[2], r_shape[2]
        given = attributes.get("hidden_size", hidden)
        if given != hidden:
            raise InvalidArgumentError(
                f"{where}: hidden_size is {given}; R has shape {list(r_shape)}, whose last dimension is the hidden "
                "size: make them agree"
            )
    read = _Reader(node, reads, prepare, computed)
    inputs: dict[str, Expression | None] = {
        "input": read.input(0, (1, steps, batch, width), swapped=batch_first),
        "weight": read.input(1, (1, count, gates * hidden, width)),
        "recurrence": read.input(2, (1, count, gates * hidden, hidden)),
        "bias": read.input(3, (1, 1, count, 2 * gates * hidden)),
    }
    state = (1, count, batch, hidden)
    lengths = read.input(4, (1, 1, 1, batch))
    inputs["hidden_init"] = read.state(5, state, batch_first)
    if op_type == "LSTM":
        inputs["cell_mem_init"] = read.state(6, state, batch_first)
    inputs["sequence_lengths"] = (
        None if lengths is None else expressed(where, BUILDERS["cast"], lengths, TensorDataType.UINT32)
    )
    if op_type == "LSTM":
        inputs["peephole"] = read.input(7, (1, 1, count, 3 * hidden))
        clip = "clip" in {a.name for a in node.attribute}
        fields: dict[str, Any] = {
            "clip_threshold": _float(node, "clip") if clip else 0.0,
            "use_clip_threshold": clip,
            "couple_input_forget": bool(attributes.get("input_forget", 0)),
        }
        results = expressed(where, lstm, **inputs, activation_descs=activations, direction=direction, **fields)
    elif op_type == "GRU":
        before = bool(attributes.get("linear_before_reset", 0))
        results = expressed(
            where, gru, **inputs, activation_descs=activations, direction=direction, linear_before_reset=before
        )
    else:
        results = expressed(where, rnn, **inputs, activation_descs=activations, direction=direction)
    if prepare:  # each value one element: a bidirectional output's D = 2 read as its first
        return [(expressed(where, reinterpret, result, (1,), (1,)), ()) for result in results[: len(node.output)]]
    return _onnx_outputs(results[: len(node.output)], steps, count, batch, hidden, batch_first, where)


def _onnx_outputs(
    results: Sequence[Expression], steps: int, count: int, batch: int, hidden: int, batch_first: bool, where: str
) -> Outputs:
    """Y {T, D, B, H} and the states {1, D, B, H} as ONNX's outputs: the states' leading 1 dropped; under layout 1
    Y read as (B, T, D, H) and the states as (B, D, H), through strides (a reader copies them where it must)."""
    outputs: Outputs = []
    for index, result in enumerate(results):
        if index == 0:
            shape: tuple[int, ...] = (steps, count, batch, hidden)
            if batch_first:
                strides = packed_strides(shape)
                shape, order = (batch, steps, count, hidden), (2, 0, 1, 3)
                result = expressed(where, reinterpret, result, shape, [strides[d] for d in order])
        else:
            shape = (count, batch, hidden)
            if batch_first:
                shape = (batch, count, hidden)
                result = expressed(where, reinterpret, result, shape, (hidden, batch * hidden, 1))
        outputs.append((result, shape))
    return outputs


class _Reader:
    """A node's optional inputs read as the operator's 4-D tensors (None where left out): through ``Reads.strided``,
    or at prepare with 0 Strides (each value one element)."""

    def __init__(self, node: onnx.NodeProto, reads: Reads, prepare: bool, computed: Computed | None) -> None:
        self.node, self.reads, self.prepare, self.computed = node, reads, prepare, computed

    def input(
        self, index: int, sizes: tuple[int, ...], strides: Sequence[int] | None = None, swapped: bool = False
    ) -> Expression | None:
        """Input ``index`` read with ``sizes``, packed unless ``strides`` (counted in its ONNX array's elements)
        are given; ``swapped``: X of layout 1, (B, T, I) read as {1, T, B, I}."""
        if index >= len(self.node.input) or not self.node.input[index]:
            return None
        made = None if self.computed is None else self.computed(index, sizes)
        if made is not None:
            return made
        name = self.node.input[index]
        if self.prepare:
            return self.reads.strided(name, sizes, (0,) * len(sizes))
        if swapped:
            _, steps, batch, width = sizes
            strides = (steps * batch * width, width, steps * width, 1)
        return self.reads.strided(name, sizes, strides if strides is not None else packed_strides(sizes))

    def state(self, index: int, sizes: tuple[int, ...], batch_first: bool) -> Expression | None:
        """initial_h or initial_c {1, D, B, H}: ONNX's (D, B, H), or (B, D, H) under layout 1."""
        _, count, batch, hidden = sizes
        strides = (count * batch * hidden, hidden, count * hidden, 1) if batch_first else None
        return self.input(index, sizes, strides)


def _float(node: onnx.NodeProto, name: str) -> float:
    return float(next(a.f for a in node.attribute if a.name == name))


def _activation_descs(node: onnx.NodeProto, count: int, where: str) -> list[dict[str, Any]]:
    """ActivationDescs from activations, activation_alpha and activation_beta (``_ACTIVATIONS``), for ``count``
    directions."""
    given = {a.name: a for a in node.attribute}
    per_direction = len(_DEFAULT_ACTIVATIONS[node.op_type])
    names = (
        [s.decode(errors="replace") for s in given["activations"].strings]
        if "activations" in given
        else list(_DEFAULT_ACTIVATIONS[node.op_type] * count)
    )
    if len(names) == per_direction and count == 2:  # one direction's list serves both
        names *= 2
    if len(names) != per_direction * count:
        raise InvalidArgumentError(
            f"{where}: activations {names}; {node.op_type} takes {per_direction} per direction, "
            f"{per_direction * count} for {count} direction{'s' if count > 1 else ''}"
        )
    alphas = list(given["activation_alpha"].floats) if "activation_alpha" in given else []
    betas = list(given["activation_beta"].floats) if "activation_beta" in given else []
    descs = []
    for name in names:
        if name.lower() not in _ACTIVATIONS:
            raise NodeRefused(
                f"{where}: activation {name!r} is none DirectML's recurrent operators take; they take "
                f"{', '.join(sorted(_ACTIVATIONS))} (any case)"
            )
        kind, defaults = _ACTIVATIONS[name.lower()]
        fields = dict(defaults)
        if "Alpha" in fields and alphas:
            fields["Alpha"] = alphas.pop(0)
        if "Beta" in fields and betas:
            fields["Beta"] = betas.pop(0)
        descs.append({"Type": kind, "Desc": {k: float(np.float32(v)) for k, v in fields.items()}})
    return descs
