"""onnxruntime's contrib op types (domain com.microsoft) through dmlpy.onnx (dmlpy/onnx/contrib.py).

DynamicQuantizeLSTM: against onnx.reference's LSTM, the ONNX specification's own, on what dmlpy says it computes (W
and R dequantized and transposed to ONNX's (D, 4H, K), X quantized to UINT8 by ONNX's DynamicQuantizeLinear rule and
dequantized), within LSTM's stated 2e-6 (docs/operators/recurrent.md); and against onnxruntime, which quantizes the
hidden state at each step besides, within the bound that quantization gives (measured: 4e-5 of bounds of 0.004 to
0.01). QLinearAveragePool and QLinearGlobalAveragePool: against onnx.reference's AveragePool of the dequantized
values in float64, rounded, but within the kernel's roundings of a half, and against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.device.pooling.quantized_cases import ROUNDOFF  # noqa: E402
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


# ------------------------------------------------------------------------------------- the quantized poolings
def _pool_model(op_type: str, x: Any, parameters: dict[str, Any], **attributes: Any) -> Any:
    """One QLinearAveragePool or QLinearGlobalAveragePool node: X a graph input, its scales and zero points
    initializers (a zero point left out where ``parameters`` has none)."""
    order = ("x_scale", "x_zero_point", "y_scale", "y_zero_point")
    inputs = ["X", *(name if name in parameters else "" for name in order)]
    while not inputs[-1]:
        inputs.pop()
    node = helper.make_node(op_type, inputs, ["Y"], domain="com.microsoft", **attributes)
    element = _ELEMENT[x.dtype.type]
    weights = [helper.make_tensor(n, _ELEMENT[a.dtype.type], [], a.reshape(-1).tolist()) for n, a in parameters.items()]
    graph = helper.make_graph(
        [node],
        "pool",
        [helper.make_tensor_value_info("X", element, x.shape)],
        [helper.make_tensor_value_info("Y", TensorProto.UNDEFINED, None)],
        weights,
    )
    return onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=MICROSOFT))


POOLS = [
    ("QLinearAveragePool", np.uint8, (1, 3, 7, 6), {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1]}),
    ("QLinearAveragePool", np.int8, (2, 4, 9), {"kernel_shape": [3], "ceil_mode": 1, "strides": [2]}),
    (
        "QLinearAveragePool",
        np.uint8,
        (1, 5, 6, 6),
        {"kernel_shape": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1},
    ),
    (
        "QLinearAveragePool",
        np.int8,
        (1, 6, 5, 3),
        {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER", "channels_last": 1},
    ),
    ("QLinearGlobalAveragePool", np.uint8, (2, 3, 5, 4), {}),
    ("QLinearGlobalAveragePool", np.int8, (1, 4, 3, 5), {"channels_last": 1}),
]


def _pool_reference(op_type: str, x: Any, parameters: dict[str, Any], attributes: dict[str, Any]) -> Any:
    """The value each output element rounds, before its zero point: onnx.reference's AveragePool (or
    GlobalAveragePool) of X dequantized in float64 (a padding element a dequantized 0, as count_include_pad counts
    it), over y_scale; channels_last through transposes."""
    last = attributes.get("channels_last", 0)
    standard = {name: value for name, value in attributes.items() if name != "channels_last"}
    scale, zero = (float(parameters[name]) for name in ("x_scale", "x_zero_point"))
    values = (x.astype(np.float64) - zero) * scale
    if last:
        values = np.moveaxis(values, -1, 1)
    node = helper.make_node(op_type.removeprefix("QLinear"), ["x"], ["y"], **standard)
    graph = helper.make_graph(
        [node],
        "reference",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, values.shape)],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    (pooled,) = ReferenceEvaluator(model).run(None, {"x": values})
    pooled = pooled / float(parameters["y_scale"])
    return np.moveaxis(pooled, 1, -1) if last else pooled


@pytest.mark.parametrize(("op_type", "kind", "shape", "attributes"), POOLS)
def test_the_quantized_average_poolings_match_onnx_reference_and_onnxruntime(
    op_type: str, kind: type, shape: tuple[int, ...], attributes: dict[str, Any]
) -> None:
    """QUANTIZED_LINEAR_AVERAGE_POOLING, one model per form (padding, ceil_mode, count_include_pad, auto_pad,
    channels_last, both types; a zero point left out): the float64 average rounded half to even plus the zero point,
    saturated, but where it lies within the kernel's 3 roundings of a half (docs/operators/pooling.md), either
    neighbour; and onnxruntime's CPU provider agrees but there."""
    rng = np.random.default_rng(len(shape) * 10 + len(attributes))
    info = np.iinfo(kind)
    x = rng.integers(info.min, info.max + 1, shape).astype(kind)
    parameters = {
        "x_scale": np.array(0.05, np.float32),
        "x_zero_point": np.array(rng.integers(-10, 10) if kind is np.int8 else 128, kind),
        "y_scale": np.array(0.037, np.float32),
    }
    if op_type == "QLinearGlobalAveragePool":  # onnxruntime's takes all five inputs
        parameters["y_zero_point"] = np.array(3 if kind is np.int8 else 120, kind)
    model = _pool_model(op_type, x, parameters, **attributes)
    (want,) = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"X": x})
    (got,) = DmlBackend.prepare(model).run([x])
    assert got.dtype == want.dtype and got.shape == want.shape
    exact = _pool_reference(op_type, x, parameters, attributes)
    zero = float(parameters.get("y_zero_point", 0))

    def rounded(widen: float) -> Any:
        return np.clip(np.rint(exact + widen * np.abs(exact)) + zero, info.min, info.max)

    near = rounded(-ROUNDOFF) != rounded(ROUNDOFF)
    for result in (got, want):
        fine = (result == rounded(0)) | (near & ((result == rounded(-ROUNDOFF)) | (result == rounded(ROUNDOFF))))
        assert fine.all(), np.flatnonzero(~fine)
    assert np.count_nonzero(near) <= 2  # a case rounds as it must, not by the allowance


def test_a_quantized_pooling_between_computed_values_matches_onnxruntime() -> None:
    """QuantizeLinear -> QLinearAveragePool (channels_last, reading the computed value through strides) ->
    DequantizeLinear: onnxruntime's values, or one y_scale step away where the average lies near a half."""
    x = np.random.default_rng(49).uniform(-3, 3, (1, 6, 5, 4)).astype(np.float32)
    scales = {"s": np.array(0.05, np.float32), "z": np.array(128, np.uint8), "t": np.array(0.037, np.float32)}
    nodes = [
        helper.make_node("QuantizeLinear", ["X", "s", "z"], ["q"]),
        helper.make_node(
            "QLinearAveragePool", ["q", "s", "z", "t", "z"], ["p"], domain="com.microsoft", kernel_shape=[2, 2],
            pads=[1, 0, 0, 1], channels_last=1,
        ),
        helper.make_node("DequantizeLinear", ["p", "t", "z"], ["Y"]),
    ]  # fmt: skip
    weights = [helper.make_tensor(n, _ELEMENT[a.dtype.type], [], [a.item()]) for n, a in scales.items()]
    graph = helper.make_graph(
        nodes,
        "between",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        weights,
    )
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=MICROSOFT))
    (want,) = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"X": x})
    (got,) = DmlBackend.prepare(model).run([x])
    assert got.shape == want.shape == (1, 6, 5, 4)
    steps = np.rint(np.abs(got - want) / scales["t"])
    assert steps.max() <= 1 and np.count_nonzero(steps) <= 2, np.count_nonzero(steps)
