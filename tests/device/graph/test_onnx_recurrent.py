"""ONNX's RNN, LSTM and GRU through dmlpy.onnx (dmlpy/onnx/recurrent.py): directions, initial states, biases,
peepholes and layout 1 against onnx.reference; sequence_lens, clip, input_forget and activations with their alpha
and beta (which onnx.reference ignores for LSTM and GRU) against tests/device/recurrent/reference.py, a float64
reference written from ONNX's equations; all within the operators' stated 2e-6 absolute bound at FLOAT32
(docs/operators/recurrent.md). Outputs left out, and the forms DirectML cannot express refused saying why."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.errors import InvalidArgumentError  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.device.recurrent import reference  # noqa: E402
from tests.helpers.onnx_recurrent import RECURRENT_BOUND  # noqa: E402

RNG = np.random.default_rng(4546)
GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}
STEPS, BATCH, WIDTH, HIDDEN = 4, 3, 5, 2


def _tensors(op: str, count: int, layout: int, peepholes: bool = False) -> dict[str, Any]:
    """X, W, R, B, initial_h (and LSTM's initial_c, P) of ONNX's shapes, in [-0.6, 0.6] as the bound assumes."""

    def uniform(*shape: int) -> Any:
        return RNG.uniform(-0.6, 0.6, shape).astype(np.float32)

    gates = GATES[op]
    states = (BATCH, count, HIDDEN) if layout else (count, BATCH, HIDDEN)
    tensors = {
        "X": uniform(BATCH, STEPS, WIDTH) if layout else uniform(STEPS, BATCH, WIDTH),
        "W": uniform(count, gates * HIDDEN, WIDTH),
        "R": uniform(count, gates * HIDDEN, HIDDEN),
        "B": uniform(count, 2 * gates * HIDDEN),
        "initial_h": uniform(*states),
    }
    if op == "LSTM":
        tensors["initial_c"] = uniform(*states)
        if peepholes:
            tensors["P"] = uniform(count, 3 * HIDDEN)
    return tensors


def _model(op: str, tensors: dict[str, Any], outputs: list[str], **attributes: Any) -> Any:
    order = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"][: 8 if op == "LSTM" else 6]
    while order[-1] not in tensors:
        order.pop()
    inputs = [name if name in tensors else "" for name in order]
    node = helper.make_node(op, inputs, outputs, hidden_size=HIDDEN, **attributes)
    element = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.int32: TensorProto.INT32}
    graph = helper.make_graph(
        [node],
        "recurrent",
        [helper.make_tensor_value_info(n, element[a.dtype.type], list(a.shape)) for n, a in tensors.items()],
        [helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None) for name in outputs if name],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    return onnx.shape_inference.infer_shapes(model)  # onnx.checker asks for the outputs' shapes


def _run(model: Any, tensors: dict[str, Any], device: Any) -> list[Any]:
    names = [value.name for value in model.graph.input]
    return list(DmlBackend.prepare(model, dml_device=device).run([tensors[n] for n in names]))


CASES = [
    ("RNN", "forward", 0),
    ("RNN", "bidirectional", 1),
    ("LSTM", "reverse", 1),
    ("LSTM", "bidirectional", 0),
    ("GRU", "forward", 1),
    ("GRU", "bidirectional", 0),
]


@pytest.mark.parametrize(("op", "direction", "layout"), CASES)
def test_directions_states_and_layouts_are_onnx_references(device: Any, op: str, direction: str, layout: int) -> None:
    count = 2 if direction == "bidirectional" else 1
    tensors = _tensors(op, count, layout, peepholes=True)
    outputs = ["Y", "Y_h", "Y_c"][: 3 if op == "LSTM" else 2]
    extra = {"linear_before_reset": 1} if op == "GRU" else {}
    model = _model(op, tensors, outputs, direction=direction, layout=layout, **extra)
    got = _run(model, tensors, device)
    want = ReferenceEvaluator(model).run(None, tensors)
    for result, expected in zip(got, want, strict=True):
        assert result.shape == expected.shape, (result.shape, expected.shape)
        np.testing.assert_allclose(result, expected, rtol=0, atol=RECURRENT_BOUND)


def _activation(desc: Any, **parameters: float) -> reference.Activation:
    return reference.Activation(desc, parameters)


# Each: the op type, its ONNX attributes, and the reference's cell for one direction.
FORMS = [
    (
        "RNN",
        {"activations": ["Affine"], "activation_alpha": [0.5], "activation_beta": [0.25]},
        reference.Cell("RNN", ((_activation(dml.ActivationLinearOperatorDesc, alpha=0.5, beta=0.25),),)),
    ),
    (
        "LSTM",
        {
            "activations": ["HardSigmoid", "LeakyRelu", "Tanh"],
            "activation_alpha": [0.3, 0.2],
            "activation_beta": [0.4],
            "clip": 0.5,
            "input_forget": 1,
        },
        reference.Cell(
            "LSTM",
            (
                (
                    _activation(dml.ActivationHardSigmoidOperatorDesc, alpha=0.3, beta=0.4),
                    _activation(dml.ActivationLeakyReluOperatorDesc, alpha=0.2),
                    _activation(dml.ActivationTanhOperatorDesc),
                ),
            ),
            clip=0.5,
            couple=True,
        ),
    ),
    (
        "GRU",
        {"activations": ["sigmoid", "Softsign"]},
        reference.Cell(
            "GRU",
            ((_activation(dml.ActivationSigmoidOperatorDesc), _activation(dml.ActivationSoftsignOperatorDesc)),),
        ),
    ),
]


@pytest.mark.parametrize(("op", "attributes", "cell"), FORMS, ids=[form[0] for form in FORMS])
def test_sequence_lens_clip_input_forget_and_activations_are_onnx_equations(
    device: Any, op: str, attributes: dict[str, Any], cell: reference.Cell
) -> None:
    tensors = _tensors(op, 1, 0)
    tensors["sequence_lens"] = np.array([STEPS, 1, 3], np.int32)
    outputs = ["Y", "Y_h", "Y_c"][: 3 if op == "LSTM" else 2]
    got = _run(_model(op, tensors, outputs, **attributes), tensors, device)
    fields = {
        "input_tensor": tensors["X"][None],
        "weight_tensor": tensors["W"][None],
        "recurrence_tensor": tensors["R"][None],
        "bias_tensor": tensors["B"][None, None],
        "hidden_init_tensor": tensors["initial_h"][None],
        "sequence_lengths_tensor": tensors["sequence_lens"][None, None, None],
    }
    if op == "LSTM":
        fields["cell_mem_init_tensor"] = tensors["initial_c"][None]
    want = reference.run(cell, fields, "FORWARD")
    wanted = [want["output_sequence_tensor"], want["output_single_tensor"][0], want["output_cell_single_tensor"][0]]
    for result, expected in zip(got, wanted, strict=False):
        np.testing.assert_allclose(result, expected, rtol=0, atol=RECURRENT_BOUND)
    assert not np.any(got[0][1:, 0, 1])  # batch item 1's one step: 0 past it, as onnxruntime writes


def test_outputs_left_out_or_named_empty_still_run(device: Any) -> None:
    tensors = _tensors("LSTM", 1, 0)
    full = _model("LSTM", tensors, ["Y", "Y_h", "Y_c"])
    want = ReferenceEvaluator(full).run(None, tensors)
    (y_h,) = _run(_model("LSTM", tensors, ["", "Y_h"]), tensors, device)
    (y_c,) = _run(_model("LSTM", tensors, ["", "", "Y_c"]), tensors, device)
    (y,) = _run(_model("LSTM", tensors, ["Y"]), tensors, device)
    for result, expected in zip((y, y_h, y_c), want, strict=True):
        np.testing.assert_allclose(result, expected, rtol=0, atol=RECURRENT_BOUND)


def test_what_directml_cannot_express_is_refused_saying_why(device: Any) -> None:
    tensors = _tensors("GRU", 1, 0)
    with pytest.raises(NodeRefused, match="clip is given; DirectML's GRU has no ClipThreshold"):
        DmlBackend.prepare(_model("GRU", tensors, ["Y"], clip=1.0), dml_device=device)
    with pytest.raises(NodeRefused, match="activation 'Gelu' is none"):
        DmlBackend.prepare(_model("GRU", tensors, ["Y"], activations=["Sigmoid", "Gelu"]), dml_device=device)
    with pytest.raises(InvalidArgumentError, match=r"activations .*; GRU takes 2 per direction"):
        DmlBackend.prepare(_model("GRU", tensors, ["Y"], activations=["Sigmoid"]), dml_device=device)
    doubles = {name: value.astype(np.float64) for name, value in tensors.items()}
    with pytest.raises(NodeRefused, match="DirectML cannot express it"):
        DmlBackend.prepare(_model("GRU", doubles, ["Y"]), dml_device=device)
    wrong = _model("GRU", tensors, ["Y"])
    wrong.graph.node[0].attribute[0].i = HIDDEN + 1
    with pytest.raises(InvalidArgumentError, match="hidden_size is 3; R has shape"):
        _run(wrong, tensors, device)
