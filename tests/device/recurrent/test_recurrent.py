"""RNN, LSTM and GRU on every device under both launch profiles, against the float64 reference written from ONNX's
equations (reference.py; itself checked against onnx.reference's RNN, LSTM and GRU in test_reference.py), within
cases.BOUND: every direction, sequence lengths shorter than the sequence (0 too), initial states given and absent,
clip, coupling, peepholes, LinearBeforeReset both ways, every activation the tables allow, both data types, strided
tensors and outputs left out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.recurrent.cases import Network, check
from tests.device.recurrent.reference import FORMULAS, Activation
from tests.helpers import rows_activations, rows_exponential

LSTM_EVERYTHING = frozenset(
    {"bias_tensor", "hidden_init_tensor", "cell_mem_init_tensor", "peephole_tensor"}
)  # every optional input
NETWORKS = {
    "LSTM forward, peepholes and clip": Network(optional=LSTM_EVERYTHING, clip=0.4),
    "LSTM bidirectional, lengths 3 and 1, coupled, no init": Network(
        direction="BIDIRECTIONAL", lengths=(3, 1), couple=True, optional=frozenset({"bias_tensor"})
    ),
    "LSTM backward, only the single outputs": Network(
        direction="BACKWARD", outputs=("output_single_tensor", "output_cell_single_tensor"), lengths=(4, 2)
    ),
    "GRU forward, reset after the linear transform": Network(kind="GRU", linear_before_reset=True),
    "GRU bidirectional, reset before, lengths 0 and 4": Network(
        kind="GRU",
        direction="BIDIRECTIONAL",
        lengths=(0, 4),
        outputs=("output_sequence_tensor", "output_single_tensor"),
    ),
    "RNN backward, no bias, no init, one output": Network(
        kind="RNN", direction="BACKWARD", optional=frozenset(), outputs=("output_sequence_tensor",), batch=3
    ),
}


@pytest.mark.parametrize("name", NETWORKS)
def test_networks(device: Any, name: str) -> None:
    check(device, NETWORKS[name])


STRIDED = frozenset(
    {"input_tensor", "weight_tensor", "recurrence_tensor", "hidden_init_tensor", "output_sequence_tensor"}
    | {"output_single_tensor", "bias_tensor"}
)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_strided_tensors(device: Any, kind: str) -> None:
    """Every tensor read and written through its own strides (a gap after every row)."""
    check(device, Network(kind=kind, direction="BIDIRECTIONAL", strided=STRIDED, lengths=(4, 3)))


@pytest.mark.one_profile
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_every_data_type_of_the_table(device: Any, kind: str, dtype: Any) -> None:
    classes = {"RNN": dml.RnnOperatorDesc, "LSTM": dml.LstmOperatorDesc, "GRU": dml.GruOperatorDesc}
    assert set(classes[kind].SUPPORT.rows[-1].data_types["InputTensor"]) == {
        dml.TensorDataType.FLOAT32,
        dml.TensorDataType.FLOAT16,
    }
    check(device, Network(kind=kind, dtype=dtype, direction="BIDIRECTIONAL", lengths=(4, 2)))


PARAMETERS = {**rows_activations.PARAMETERS, **rows_exponential.PARAMETERS}
ACTIVATIONS = sorted(FORMULAS, key=lambda desc: desc.OPERATOR_TYPE.value)


@pytest.mark.one_profile
@pytest.mark.parametrize(
    "pair", [ACTIVATIONS[k : k + 2] for k in range(0, len(ACTIVATIONS), 2)], ids=lambda p: "+".join(
        d.OPERATOR_TYPE.name.removeprefix("ACTIVATION_") for d in p)
)  # fmt: skip
def test_every_activation(device: Any, pair: list[Any]) -> None:
    """Each one-input activation as a bidirectional RNN's f(), two at a time (forward's, backward's), with the
    operator rows' parameters."""
    forward, backward = (Activation(desc, PARAMETERS.get(desc, {})) for desc in (pair[0], pair[-1]))
    check(device, Network(kind="RNN", direction="BIDIRECTIONAL", activations=(forward,), backward=(backward,)))
