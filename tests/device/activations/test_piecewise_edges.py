"""The piecewise activations on the edges (docs/operators/activation_piecewise.md, "Where the pages are silent"):

* at FLOAT32 and FLOAT16 every special value (ext_cases.edge_values: ±0, subnormals, the largest finite, ±infinity,
  quiet and signalling NaNs with payloads) and the values at and next to each threshold (THRESHOLDED_RELU's
  Alpha 1, HARD_SIGMOID's -2.5 and 2.5 where 0.2 * x + 0.5 is 0 and 1, HARD_SWISH's -3 and 3) through the eight
  one-input activations, built with the builder's DirectMLX defaults (LINEAR has none: the rows' 1.5 and -0.25),
  every pair of those values through PARAMETERIZED_RELU (as slopes) and RELU_GRAD (as gradients), and IDENTITY's
  copy of every bit;
* at each signed integer type MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX, every pair, through RELU, PARAMETERIZED_RELU
  (the product wraps: -1 * MIN is MIN) and RELU_GRAD; INT16 and INT32 with --run-slow, as their rows.

One graph per data type holds the operators of one input (one fused kernel), another those of two. References: the
rows' (tests/helpers/rows_activations.py, NumPy step by step in float32); the results the page writes out are
asserted as written beside them."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.ext_cases import edge_values
from tests.helpers.ext_oracle import describe, format_of, mismatches
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Array, Case
from tests.helpers.rows_activations import I8, I16, I32, PARAMETERS

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

INF, NAN = math.inf, math.nan
ONE_INPUT: dict[Any, Callable[..., Any]] = {
    dml.ActivationReluOperatorDesc: dml.graph.activation_relu,
    dml.ActivationLeakyReluOperatorDesc: dml.graph.activation_leaky_relu,
    dml.ActivationThresholdedReluOperatorDesc: dml.graph.activation_thresholded_relu,
    dml.ActivationLinearOperatorDesc: lambda x: dml.graph.activation_linear(x, 1.5, -0.25),
    dml.ActivationHardSigmoidOperatorDesc: dml.graph.activation_hard_sigmoid,
    dml.ActivationHardSwishOperatorDesc: dml.graph.activation_hard_swish,
    dml.ActivationSoftsignOperatorDesc: dml.graph.activation_softsign,
}
"""The one-input activations, each called with the builder's defaults (LINEAR with the rows' parameters)."""
TWO_INPUTS: dict[Any, tuple[Callable[..., Any], str]] = {
    dml.ActivationParameterizedReluOperatorDesc: (dml.graph.activation_parameterized_relu, "slope_tensor"),
    dml.ActivationReluGradOperatorDesc: (dml.graph.activation_relu_grad, "input_gradient_tensor"),
}
"""The two-input activations and the field their second input is."""
OUTPUT = {dml.ActivationReluGradOperatorDesc: "output_gradient_tensor"}

WRITTEN: dict[Any, dict[float, float]] = {
    dml.ActivationReluOperatorDesc: {NAN: 0.0, -0.0: 0.0, INF: INF, -INF: 0.0},
    dml.ActivationLeakyReluOperatorDesc: {NAN: NAN, -0.0: -0.0, INF: INF, -INF: -INF},
    dml.ActivationThresholdedReluOperatorDesc: {NAN: 0.0, -0.0: 0.0, INF: INF, -INF: 0.0, 1.0: 0.0},
    dml.ActivationLinearOperatorDesc: {NAN: NAN, -0.0: -0.25, INF: INF, -INF: -INF},
    dml.ActivationHardSigmoidOperatorDesc: {NAN: 1.0, -0.0: 0.5, INF: 1.0, -INF: 0.0, -2.5: 0.0, 2.5: 1.0},
    dml.ActivationHardSwishOperatorDesc: {NAN: NAN, -0.0: -0.0, INF: INF, -INF: NAN, -3.0: -0.0, 3.0: 3.0},
    dml.ActivationSoftsignOperatorDesc: {NAN: NAN, -0.0: -0.0, INF: NAN, -INF: NAN},
}
"""The page's table of what each special value gives (bit for bit: -0 is not +0): RELU max(0, x) with D3D's max
gives +0 for NaN and -0; HARD_SIGMOID of NaN is 1 (min(NaN, 1) is 1); HARD_SWISH of -inf is -inf * 0, and of -3
-3 * +0 (float32(1/6) * -3 rounds to -0.5); SOFTSIGN of ±inf is inf / inf."""


def _thresholds(dtype: np.dtype[Any]) -> Array:
    """The thresholds and their neighbours in ``dtype``."""
    at = np.array([1.0, -2.5, 2.5, -3.0, 3.0], dtype)
    return np.concatenate([at, np.nextafter(at, dtype.type(INF)), np.nextafter(at, dtype.type(-INF))])


def _graph(device: Any, inputs: list[Array], build: Callable[..., list[Any]]) -> list[Array]:
    """``build(*expressions)`` on graph inputs holding ``inputs``, compiled and run as one fused kernel."""
    g = dml.Graph(device)
    expressions = [g.input(dml.BufferTensorDesc(data_type=DATA_TYPE[v.dtype], sizes=v.shape)) for v in inputs]
    compiled = g.compile(build(*expressions))
    assert compiled.kernel_count == 1
    results = compiled(*inputs)
    return list(results) if isinstance(results, tuple) else [results]


def _reference(desc: Any, inputs: dict[str, Array]) -> Array:
    dtype = inputs["input_tensor"].dtype
    output = OUTPUT.get(desc, "output_tensor")
    case = Case({**{name: v.dtype for name, v in inputs.items()}, output: dtype}, PARAMETERS.get(desc, {}))
    return row_of(desc).reference(inputs, case)


def _assert_as_reference(desc: Any, got: Array, want: Array, x: Array) -> None:
    wrong = mismatches(got, want, nan="any")
    assert wrong.size == 0, f"{desc.OPERATOR_TYPE.name}\n" + describe(wrong, x, got, want)


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_special_values_and_thresholds(device: Any, dtype: np.dtype[Any]) -> None:
    x = np.concatenate([edge_values(format_of(dtype)), _thresholds(dtype)])
    bits = format_of(dtype).bits_dtype
    results = _graph(device, [x], lambda xi: [build(xi) for build in ONE_INPUT.values()])
    for desc, got in zip(ONE_INPUT, results, strict=True):
        _assert_as_reference(desc, got, _reference(desc, {"input_tensor": x}), x)
        for value, written in WRITTEN[desc].items():
            at = np.isnan(x) if math.isnan(value) else (x.view(bits) == np.array(value, dtype).view(bits))
            assert at.sum() >= 1, value
            if math.isnan(written):
                assert np.isnan(got[at]).all(), (desc.OPERATOR_TYPE.name, value, got[at])
            else:
                want = np.array(written, dtype).view(bits)
                assert (got[at].view(bits) == want).all(), (desc.OPERATOR_TYPE.name, value, got[at])


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_every_pair_of_special_values_through_the_two_input_activations(device: Any, dtype: np.dtype[Any]) -> None:
    """Slopes and gradients of every special value; PARAMETERIZED_RELU keeps x (a NaN slope too) where x >= 0, -0
    included, and RELU_GRAD passes the gradient (a NaN one too) only where x > 0."""
    values = np.concatenate([edge_values(format_of(dtype)), _thresholds(dtype)])
    x, y = (a.reshape(-1) for a in np.meshgrid(values, values, indexing="ij"))
    results = _graph(device, [x, y], lambda xi, yi: [build(xi, yi) for build, _ in TWO_INPUTS.values()])
    for (desc, (_, second)), got in zip(TWO_INPUTS.items(), results, strict=True):
        _assert_as_reference(desc, got, _reference(desc, {"input_tensor": x, second: y}), x)
    prelu, grad = results
    kept, passed = x >= 0, x > 0
    assert prelu[kept].tobytes() == x[kept].tobytes()
    assert mismatches(grad[passed], y[passed], nan="any").size == 0  # a half's NaN gradient comes back quieted
    assert not grad[~passed].any() and not np.signbit(grad[~passed]).any()  # +0, a NaN x included


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_identity_copies_every_bit_of_every_special_value(device: Any, dtype: np.dtype[Any]) -> None:
    """ACTIVATION_IDENTITY is a copy: signalling NaNs, payloads and -0 come back bit for bit (a FLOAT16 copy is a
    kernel of its own, which never loads the half as a float)."""
    x = edge_values(format_of(dtype))
    (got,) = _graph(device, [x], lambda xi: [dml.graph.activation_identity(xi)])
    assert mismatches(got, _reference(dml.ActivationIdentityOperatorDesc, {"input_tensor": x}), nan="bits").size == 0
    assert got.tobytes() == x.tobytes()  # as the page writes: every bit


SIGNED = [I8, pytest.param(I16, marks=pytest.mark.slow), pytest.param(I32, marks=pytest.mark.slow)]


@pytest.mark.parametrize("dtype", SIGNED, ids=str)
def test_signed_integers_at_their_edges(device: Any, dtype: np.dtype[Any]) -> None:
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    values = np.array([low, low + 1, -2, -1, 0, 1, 2, high - 1, high], dtype)
    x, y = (a.reshape(-1) for a in np.meshgrid(values, values, indexing="ij"))
    results = _graph(
        device,
        [x, y],
        lambda xi, yi: [
            dml.graph.activation_relu(xi),
            dml.graph.activation_parameterized_relu(xi, yi),
            dml.graph.activation_relu_grad(xi, yi),
        ],
    )
    relu, prelu, grad = results
    assert np.array_equal(relu, _reference(dml.ActivationReluOperatorDesc, {"input_tensor": x}))
    for (desc, (_, second)), got in zip(TWO_INPUTS.items(), (prelu, grad), strict=True):
        assert np.array_equal(got, _reference(desc, {"input_tensor": x, second: y})), desc.OPERATOR_TYPE.name
    # written out: RELU(MIN) is 0; the slope's product wraps: -1 * MIN and MIN * -1 are MIN, 2 * MIN is 0
    at = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(x, y, strict=True))}
    assert relu[at[low, 0]] == 0 and relu[at[high, 0]] == high
    assert prelu[at[low, -1]] == low and prelu[at[-1, low]] == low and prelu[at[low, 2]] == 0
    assert prelu[at[-2, high]] == np.array(-2 * high, dtype=np.int64).astype(dtype)
    assert grad[at[1, low]] == low and grad[at[0, high]] == 0


def test_builder_defaults_are_directmlx_and_the_descriptor_fields_stay_required() -> None:
    """DirectMLX's defaults as the builder's keywords (LeakyRelu 0.01, ThresholdedRelu 1, HardSigmoid 0.2 and 0.5,
    HardSwish 1/6 and 0.5); LINEAR has none; the descriptors' FLOAT fields are required, as in C."""

    def defaults(build: Callable[..., Any]) -> dict[str, Any]:
        parameters = inspect.signature(build).parameters.values()
        return {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}

    assert defaults(dml.graph.activation_leaky_relu) == {"alpha": 0.01}
    assert defaults(dml.graph.activation_thresholded_relu) == {"alpha": 1.0}
    assert defaults(dml.graph.activation_hard_sigmoid) == {"alpha": 0.2, "beta": 0.5}
    assert defaults(dml.graph.activation_hard_swish) == {"alpha": 1 / 6, "beta": 0.5}
    assert defaults(dml.graph.activation_linear) == {}
    tensor = {"DataType": "FLOAT32", "Sizes": [4]}
    with pytest.raises(dml.InvalidArgumentError, match=r"ACTIVATION_LEAKY_RELU.Alpha is missing; it is required"):
        dml.ActivationLeakyReluOperatorDesc(InputTensor=tensor, OutputTensor=tensor)
    with pytest.raises(dml.InvalidArgumentError, match=r"ACTIVATION_HARD_SIGMOID.Beta is missing; it is required"):
        dml.ActivationHardSigmoidOperatorDesc(InputTensor=tensor, OutputTensor=tensor, Alpha=0.2)
