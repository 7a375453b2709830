"""onnxruntime's contrib op types (domain com.microsoft) through dmlpy.onnx (dmlpy/onnx/contrib.py).

DynamicQuantizeLSTM: against onnx.reference's LSTM, the ONNX specification's own, on what dmlpy says it computes (W
and R dequantized and transposed to ONNX's (D, 4H, K), X quantized to UINT8 by ONNX's DynamicQuantizeLinear rule and
dequantized), within LSTM's stated 2e-6 (docs/operators/recurrent.md); and against onnxruntime, which quantizes the
hidden state at each step besides, within the bound that quantization gives. QLinearAveragePool and
QLinearGlobalAveragePool: against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_recurrent import RECURRENT_BOUND  # noqa: E402

STEPS, BATCH, WIDTH, HIDDEN = 4, 2, 5, 3
COLUMNS = 4 * HIDDEN
MICROSOFT = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
_ELEMENT = {np.float32: TensorProto.FLOAT, np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8}


def _weights(rng: Any, count: int, depth: int, kind: type, per_column: bool, most: float) -> dict[str, Any]:
    """A quantized weight (D, depth, 4H), its scale and zero point ([D] or [D, 4H]): dequantized in [-most, most]."""
    shape = (count, COLUMNS) if per_column else (count,)
    low, high = (-127, 128) if kind is np.int8 else (0, 256)
    # onnxruntime takes an INT8 weight's zero point 0 ("InputWeight zero point must be zero"), a UINT8 one's one
    # value for the tensor ("InputWeight point must be constant")
    zero = np.full(shape, 0 if kind is np.int8 else rng.integers(120, 137))
    return {
        "q": rng.integers(low, high, (count, depth, COLUMNS)).astype(kind),
        "scale": (most / 140 * rng.uniform(0.5, 1.0, shape)).astype(np.float32),
        "zero": zero.astype(kind),
    }


def _dynamic_lstm(rng: Any, direction: str, kind: type, per_column: bool) -> tuple[Any, dict[str, Any]]:
    """A DynamicQuantizeLSTM model of X, B, initial_h and initial_c inputs, its weights initializers; and its
    arrays (inputs and weights)."""
    count = 2 if direction == "bidirectional" else 1
    # R small, so that what quantizing H(t-1) moves stays small through the steps (_hidden_state_bound)
    w, r = _weights(rng, count, WIDTH, kind, per_column, 0.6), _weights(rng, count, HIDDEN, kind, per_column, 0.1)
    arrays = {
        "X": rng.uniform(-1, 1, (STEPS, BATCH, WIDTH)).astype(np.float32),
        "B": rng.uniform(-0.6, 0.6, (count, 8 * HIDDEN)).astype(np.float32),
        "initial_h": rng.uniform(-0.6, 0.6, (count, BATCH, HIDDEN)).astype(np.float32),
        "initial_c": rng.uniform(-0.6, 0.6, (count, BATCH, HIDDEN)).astype(np.float32),
        **{f"{name}_{part}": value for name, parts in (("W", w), ("R", r)) for part, value in parts.items()},
    }
    inputs = ["X", "W_q", "R_q", "B", "", "initial_h", "initial_c", "", "W_scale", "W_zero", "R_scale", "R_zero"]
    node = helper.make_node(
        "DynamicQuantizeLSTM", inputs, ["Y", "Y_h", "Y_c"], domain="com.microsoft", hidden_size=HIDDEN,
        direction=direction,
    )  # fmt: skip
    fed = ["X", "B", "initial_h", "initial_c"]
    weights = [helper.make_tensor(n, _ELEMENT[a.dtype.type], a.shape, a.tobytes(), raw=True)
               for n, a in arrays.items() if n not in fed]  # fmt: skip
    graph = helper.make_graph(
        [node],
        "dynamic_quantize_lstm",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, arrays[n].shape) for n in fed],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in ("Y", "Y_h", "Y_c")],
        weights,
    )
    model = helper.make_model(graph, opset_imports=MICROSOFT)
    return onnx.shape_inference.infer_shapes(model), arrays  # dmlpy.onnx registers the op type's schema


def _dynamically_quantized(x: Any) -> Any:
    """ONNX's DynamicQuantizeLinear of ``x`` to UINT8, dequantized: the range widened to hold 0, scale range / 255,
    the zero point and the values rounded half to even, in float32."""
    low, high = min(0.0, float(x.min())), max(0.0, float(x.max()))
    scale = np.float32((high - low) / 255)
    zero = np.float32(np.clip(np.round(-np.float32(low) / scale), 0, 255))
    q = np.clip(np.round(x / scale) + zero, 0, 255).astype(np.float32)
    return (q - zero) * scale


def _dequantized(arrays: dict[str, Any], name: str) -> Any:
    """W or R (D, K, 4H) dequantized in float32, (q - zero point) * scale, its parameters per direction or column."""
    q, scale, zero = (arrays[f"{name}_{part}"] for part in ("q", "scale", "zero"))
    along = scale[:, None, :] if scale.ndim == 2 else scale[:, None, None]
    at = zero[:, None, :] if zero.ndim == 2 else zero[:, None, None]
    return (q.astype(np.float32) - at.astype(np.float32)) * along


def _reference(arrays: dict[str, Any], direction: str) -> list[Any]:
    """onnx.reference's LSTM on X requantized and W and R dequantized, transposed to (D, 4H, K)."""
    feeds = {
        "X": _dynamically_quantized(arrays["X"]),
        **{name: _dequantized(arrays, name).transpose(0, 2, 1).copy() for name in ("W", "R")},
        **{n: arrays[n] for n in ("B", "initial_h", "initial_c")},
    }  # fmt: skip
    node = helper.make_node(
        "LSTM", ["X", "W", "R", "B", "", "initial_h", "initial_c"], ["Y", "Y_h", "Y_c"], hidden_size=HIDDEN,
        direction=direction,
    )  # fmt: skip
    graph = helper.make_graph(
        [node],
        "lstm",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in feeds.items()],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Y_h", "Y_c")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return list(ReferenceEvaluator(model).run(None, feeds))


CASES = [("forward", np.int8, False), ("reverse", np.uint8, True), ("bidirectional", np.int8, True)]


@pytest.mark.parametrize(("direction", "kind", "per_column"), CASES)
def test_dynamic_quantize_lstm_is_the_lstm_of_its_dequantized_weights(
    device: Any, direction: str, kind: type, per_column: bool
) -> None:
    model, arrays = _dynamic_lstm(np.random.default_rng(46), direction, kind, per_column)
    feeds = [arrays[value.name] for value in model.graph.input]
    got = DmlBackend.prepare(model, dml_device=device).run(feeds)
    for mine, want in zip(got, _reference(arrays, direction), strict=True):
        assert mine.shape == want.shape
        np.testing.assert_allclose(mine, want, rtol=0, atol=RECURRENT_BOUND)


@pytest.mark.parametrize(("direction", "kind", "per_column"), CASES)
def test_dynamic_quantize_lstm_differs_from_onnxruntime_by_its_hidden_state_quantization(
    direction: str, kind: type, per_column: bool
) -> None:
    """onnxruntime quantizes H(t-1) to UINT8 by its range (0 included) at each step before H * R; DirectML's LSTM
    does not (``_hidden_state_bound``); a transposed weight or a scale read along the wrong axis moves them by
    tenths."""
    model, arrays = _dynamic_lstm(np.random.default_rng(47), direction, kind, per_column)
    feeds = {value.name: arrays[value.name] for value in model.graph.input}
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    got = DmlBackend.prepare(model).run(list(feeds.values()))
    bound = _hidden_state_bound(arrays, want[0])
    for mine, theirs in zip(got, want, strict=True):
        assert 0 < np.abs(mine - theirs).max() <= bound, (np.abs(mine - theirs).max(), bound)


def _hidden_state_bound(arrays: dict[str, Any], y: Any) -> float:
    """How far quantizing H(t-1) moves the outputs, step by step: each element of H by half a step, d = span / 510
    (span: the range of every H, initial_h and Y, 0 included), plus the difference e carried in H; each gate's input
    by p = rows * (d + e) (rows: the largest row sum of |R|); i, f and o by p / 4 (sigmoid's slope), g by p (tanh's);
    c = f * c' + i * g by c_bound * p / 4 + p / 4 + p more than c' did (|c| <= |c0| + t, |f|, |i|, |g| <= 1); and
    h = o * tanh(c) by p / 4 + c's."""
    states = np.concatenate([arrays["initial_h"].ravel(), y.ravel()])
    half_step = (max(float(states.max()), 0.0) - min(float(states.min()), 0.0)) / 510
    rows = float(np.abs(_dequantized(arrays, "R").astype(np.float64)).sum(axis=1).max())  # over H(t-1)'s elements
    c_bound = float(np.abs(arrays["initial_c"]).max()) + STEPS
    h_moved = c_moved = 0.0
    for _ in range(STEPS):
        p = rows * (half_step + h_moved)
        c_moved += c_bound * p / 4 + p / 4 + p
        h_moved = p / 4 + c_moved
    return max(h_moved, c_moved)


def test_a_contrib_op_type_dmlpy_does_not_run_is_refused_naming_its_domain() -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    node = helper.make_node("FastGelu", ["x"], ["y"], domain="com.microsoft")
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=MICROSOFT)
    named = r"(?s)FastGelu \(domain com\.microsoft\): 1 node.*and 3 of onnxruntime's \(com\.microsoft\)"
    with pytest.raises(NodeRefused, match=named):
        DmlBackend.prepare(model)


def test_a_dynamic_quantize_lstm_scale_of_another_shape_is_refused_saying_which_it_takes() -> None:
    model, arrays = _dynamic_lstm(np.random.default_rng(48), "forward", np.int8, False)
    scale = next(t for t in model.graph.initializer if t.name == "W_scale")
    scale.CopyFrom(helper.make_tensor("W_scale", TensorProto.FLOAT, [1, 1, 1], [0.01]))
    feeds = [arrays[value.name] for value in model.graph.input]
    with pytest.raises(NodeRefused, match=r"W's scale 'W_scale' has shape \[1, 1, 1\].*\[num_directions\] = \[1\]"):
        DmlBackend.prepare(model).run(feeds)
