"""The float64 reference (reference.py, written from ONNX's equations) against onnx.reference's RNN, LSTM and GRU,
a second, independent reading of the same equations: forward, every optional input given (onnx.reference runs one
direction and every sequence to its end, so directions and lengths rest on reference.py alone). Host only."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from tests.device.recurrent.cases import Network, reference
from tests.device.recurrent.reference import Array

ONNX_INPUTS = {
    "X": "input_tensor",
    "W": "weight_tensor",
    "R": "recurrence_tensor",
    "B": "bias_tensor",
    "sequence_lens": None,
    "initial_h": "hidden_init_tensor",
    "initial_c": "cell_mem_init_tensor",
    "P": "peephole_tensor",
}


def onnx_outputs(network: Network, inputs: dict[str, Array]) -> list[Array]:
    """Y, Y_h (and Y_c) of ONNX's node of ``network``'s cell on the same values (DirectML's 4-D tensors squeezed)."""
    names = [name for name in ONNX_INPUTS if name in ("X", "W", "R") or ONNX_INPUTS[name] in inputs]
    names = list(ONNX_INPUTS)[: max(list(ONNX_INPUTS).index(n) for n in names) + 1]
    feeds = {}
    for name in names:
        field = ONNX_INPUTS[name]
        if field is None:
            feeds[name] = np.full(network.batch, network.seq_length, np.int32)
            continue
        value = inputs[field].astype(np.float64)
        feeds[name] = value[0] if name in ("X", "W", "R", "initial_h", "initial_c") else value[0, 0]
    outputs = ["Y", "Y_h", "Y_c"] if network.kind == "LSTM" else ["Y", "Y_h"]
    attributes: dict[str, Any] = {"hidden_size": network.hidden}
    if network.kind == "GRU":
        attributes["linear_before_reset"] = int(network.linear_before_reset)
    node = helper.make_node(network.kind, names, outputs, **attributes)
    types = {name: TensorProto.INT32 if name == "sequence_lens" else TensorProto.DOUBLE for name in names}
    graph = helper.make_graph(
        [node],
        "cell",
        [helper.make_tensor_value_info(name, types[name], None) for name in names],
        [helper.make_tensor_value_info(name, TensorProto.DOUBLE, None) for name in outputs],
    )
    return list(ReferenceEvaluator(helper.make_model(graph)).run(None, feeds))


EVERY_INPUT = frozenset({"bias_tensor", "hidden_init_tensor", "cell_mem_init_tensor", "peephole_tensor"})


@pytest.mark.parametrize(
    "network",
    [
        Network(kind="RNN"),
        Network(kind="LSTM", optional=EVERY_INPUT),
        Network(kind="GRU", linear_before_reset=False),
        Network(kind="GRU", linear_before_reset=True),
    ],
    ids=["RNN", "LSTM with peepholes", "GRU", "GRU linear before reset"],
)
def test_reference_agrees_with_onnx_reference(network: Network) -> None:
    desc = network.desc()
    inputs = network.inputs(desc)
    ours = reference(network, inputs)
    theirs = onnx_outputs(network, inputs)
    names = ("output_sequence_tensor", "output_single_tensor", "output_cell_single_tensor")[: len(theirs)]
    for name, value in zip(names, theirs, strict=True):
        np.testing.assert_allclose(ours[name].reshape(value.shape), value, rtol=1e-12, atol=1e-12)
