"""The recurrent networks' builder functions (dmlpy/graph/recurrent.py) as graph nodes between element-wise nodes,
against the float64 reference (reference.py) within cases.BOUND, the outputs' Sizes from the operator's rule, and a
refusal naming the argument."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.graph import recurrent
from tests.device.recurrent.cases import BOUND, DEFAULTS, Network, reference

T = dml.TensorDataType


def test_lstm_and_gru_between_element_wise_nodes(device: Any) -> None:
    """x * 2 feeds a bidirectional LSTM (lengths 3 and 1, peepholes) and a GRU; their outputs are added to 1."""
    lstm = Network(
        direction="BIDIRECTIONAL",
        lengths=(3, 1),
        optional=frozenset({"bias_tensor", "peephole_tensor"}),
        backward=DEFAULTS["LSTM"],  # the builder's default: ONNX's in both directions
    )
    gru = Network(kind="GRU", linear_before_reset=True, optional=frozenset({"hidden_init_tensor"}))
    lstm_inputs, gru_inputs = lstm.inputs(lstm.desc(), 1), gru.inputs(gru.desc(), 2)
    g = dml.Graph(device)
    x = g.input(lstm_inputs["input_tensor"].shape, T.FLOAT32)
    doubled = x * 2
    lw, lr, lb, lengths, peephole = (
        g.input(lstm_inputs[name].shape, T.UINT32 if name == "sequence_lengths_tensor" else T.FLOAT32)
        for name in ("weight_tensor", "recurrence_tensor", "bias_tensor", "sequence_lengths_tensor", "peephole_tensor")
    )
    sequence, single, cell = recurrent.lstm(
        doubled, lw, lr, lb, sequence_lengths=lengths, peephole=peephole, direction="BIDIRECTIONAL"
    )
    gw, gr, gh = (
        g.input(gru_inputs[name].shape, T.FLOAT32)
        for name in ("weight_tensor", "recurrence_tensor", "hidden_init_tensor")
    )
    gru_sequence, gru_single = recurrent.gru(doubled, gw, gr, hidden_init=gh, linear_before_reset=True)
    assert sequence.sizes == (4, 2, 2, 5) and single.sizes == cell.sizes == (1, 2, 2, 5)
    assert gru_sequence.sizes == (4, 1, 2, 5) and gru_single.sizes == (1, 1, 2, 5)
    compiled = g.compile([sequence + 1, cell, gru_single + 1])
    arrays = [lstm_inputs["input_tensor"]]
    arrays += [
        lstm_inputs[n]
        for n in ("weight_tensor", "recurrence_tensor", "bias_tensor", "sequence_lengths_tensor", "peephole_tensor")
    ]
    arrays += [gru_inputs[n] for n in ("weight_tensor", "recurrence_tensor", "hidden_init_tensor")]
    got_sequence, got_cell, got_gru = (np.asarray(a, np.float64) for a in compiled(*arrays))
    doubled_x = lstm_inputs["input_tensor"] * np.float32(2)
    wanted = reference(lstm, {**lstm_inputs, "input_tensor": doubled_x})
    wanted_gru = reference(gru, {**gru_inputs, "input_tensor": doubled_x})
    bound = BOUND[np.float32] * 2  # the + 1 rounds once more near 2
    assert np.abs(got_sequence - (wanted["output_sequence_tensor"] + 1)).max() <= bound
    assert np.abs(got_cell - wanted["output_cell_single_tensor"]).max() <= bound
    assert np.abs(got_gru - (wanted_gru["output_single_tensor"] + 1)).max() <= bound


def test_rnn_node_alone(device: Any) -> None:
    network = Network(kind="RNN", direction="BACKWARD", optional=frozenset({"bias_tensor"}))
    inputs = network.inputs(network.desc())
    g = dml.Graph(device)
    names = ("input_tensor", "weight_tensor", "recurrence_tensor", "bias_tensor")
    x, w, r, b = (g.input(inputs[name].shape, T.FLOAT32) for name in names)
    sequence, single = recurrent.rnn(x, w, r, b, direction="BACKWARD")
    got = [np.asarray(a, np.float64) for a in g.compile([sequence, single])(*(inputs[n] for n in names))]
    wanted = reference(network, inputs)
    for value, name in zip(got, ("output_sequence_tensor", "output_single_tensor"), strict=True):
        assert np.abs(value - wanted[name]).max() <= BOUND[np.float32]


def test_refusals_name_the_argument() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, w, r = g.input((1, 3, 2, 4), T.FLOAT32), g.input((1, 1, 5, 4), T.FLOAT32), g.input((1, 1, 5, 5), T.FLOAT32)
    with pytest.raises(dml.InvalidArgumentError, match="direction"):
        recurrent.rnn(x, w, r, direction="SIDEWAYS")
    with pytest.raises(dml.InvalidArgumentError, match=r"RNN\.ActivationDescCount is 2; it must be 1"):
        recurrent.rnn(x, w, r, activation_descs=[{"Type": "ACTIVATION_TANH"}] * 2)
