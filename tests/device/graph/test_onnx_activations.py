"""The ONNX op types of DirectML's piecewise activations (issue 31, group 8: Relu, LeakyRelu, ThresholdedRelu,
HardSigmoid, HardSwish, Softsign, PRelu; Shrink), beyond ONNX's node tests (test_onnx_backend.py): a chain of them
in one fused kernel, their FLOAT attributes (given, defaulted, of the wrong type, Shrink's lambd as SHRINK's
Threshold), PRelu's one-way broadcast, and the
inputs where dmlpy answers as DirectML rather than as onnx.reference (docs/conformance.md). Results are compared
with onnx.reference's bit for bit, except where the module says they differ."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend  # noqa: E402
from dmlpy.onnx.nodes import node_attributes  # noqa: E402
from tests.helpers.operators import row_of  # noqa: E402
from tests.helpers.row_model import Case  # noqa: E402
from tests.helpers.row_runs import assert_equal_nan_as_nan  # noqa: E402
from tests.helpers.rows_activations import PARAMETERS  # noqa: E402

F = TensorProto.FLOAT
SPECIAL = np.array(
    [np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1e-45, 1.0, -1.0, 2.5, -2.5, -3.0, 3.0, 0.1, 3e38, -3e38],
    np.float32,
)
"""NaN, both zeros, the infinities, the smallest subnormals, values at and around the parameters' thresholds
(ThresholdedRelu's 1, HardSigmoid's -2.5 and 2.5, HardSwish's -3 and 3) and the largest magnitudes."""


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: Any = ()) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


def _value(name: str, shape: list[int]) -> Any:
    return helper.make_tensor_value_info(name, F, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    with np.errstate(all="ignore"):
        return list(ReferenceEvaluator(model).run(None, feeds))


def _one_node(op_type: str, x: Any, **attributes: Any) -> tuple[Any, Any]:
    """dmlpy's and onnx.reference's result of one ``op_type`` node on ``x``."""
    node = helper.make_node(op_type, ["x"], ["y"], **attributes)
    model = _model([node], [_value("x", list(x.shape))], [_value("y", list(x.shape))])
    (got,) = DmlBackend.prepare(model).run([x])
    return got, _reference(model, {"x": x})[0]


def test_a_chain_of_activations_runs_as_one_kernel_equal_to_onnx_reference(device: Any) -> None:
    """LeakyRelu (alpha given), HardSwish, ThresholdedRelu (its default), Softsign and PRelu (a per-channel slope
    initializer, 0-strides), each reading the one before, over finite values: one kernel, each step bit for bit
    onnx.reference's (the NaN and -0 cases, where the two differ, are the next test's)."""
    x = np.random.default_rng(8).uniform(-8, 8, (2, 4, 16)).astype(np.float32)
    slope = helper.make_tensor("slope", F, [4, 1], [0.25, -0.5, 2.0, 0.0])
    nodes = [
        helper.make_node("LeakyRelu", ["x"], ["a"], alpha=0.3),
        helper.make_node("HardSwish", ["a"], ["b"]),
        helper.make_node("ThresholdedRelu", ["b"], ["c"]),
        helper.make_node("Softsign", ["c"], ["d"]),
        helper.make_node("PRelu", ["x"], ["s"]),
        helper.make_node("Add", ["d", "s"], ["y"]),
    ]
    nodes[4].input.append("slope")
    model = _model(nodes, [_value("x", list(x.shape))], [_value("y", list(x.shape))], [slope])
    rep = DmlBackend.prepare(model, dml_device=device)
    (got,) = rep.run([x])
    (want,) = _reference(model, {"x": x})
    assert got.tobytes() == want.tobytes()
    assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]


def test_where_directml_and_onnx_reference_differ_dmlpy_answers_as_directml() -> None:
    """docs/conformance.md's list: Relu of NaN is +0 (DirectML's max(0, x) with D3D's max; np.maximum propagates
    the NaN), HardSigmoid of NaN is 1 (max(0, min(NaN, 1))), PRelu and LeakyRelu with a negative slope keep a zero's
    sign (x >= 0 holds for both zeros; ONNX's x > 0 fails and x * slope flips it). Every other special value gives
    onnx.reference's bits, a NaN any NaN where the operator computes one (NaN * slope: IEEE 754 recommends, but does
    not require, that the result keep the operand's payload; x86 keeps it, an NVIDIA H100 returns its own NaN)."""
    nan = np.isnan(SPECIAL)
    got, want = _one_node("Relu", SPECIAL)
    assert got[nan].tobytes() == np.float32([0.0]).tobytes() and np.isnan(want[nan]).all()
    assert got[~nan].tobytes() == want[~nan].tobytes()
    got, want = _one_node("HardSigmoid", SPECIAL)
    assert got[nan].tolist() == [1.0] and np.isnan(want[nan]).all()
    assert got[~nan].tobytes() == want[~nan].tobytes()
    zero = SPECIAL == 0
    got, want = _one_node("LeakyRelu", SPECIAL, alpha=-0.5)
    assert got[zero].tobytes() == SPECIAL[zero].tobytes() and want[zero].tobytes() == (-SPECIAL[zero]).tobytes()
    assert_equal_nan_as_nan(got[~zero], want[~zero], "LeakyRelu")
    slope = np.full_like(SPECIAL, -2.0)
    node = helper.make_node("PRelu", ["x", "slope"], ["y"])
    shape = list(SPECIAL.shape)
    model = _model([node], [_value("x", shape), _value("slope", shape)], [_value("y", shape)])
    (got,) = DmlBackend.prepare(model).run([SPECIAL, slope])
    (want,) = _reference(model, {"x": SPECIAL, "slope": slope})
    assert got[zero].tobytes() == SPECIAL[zero].tobytes() and want[zero].tobytes() == (-SPECIAL[zero]).tobytes()
    assert_equal_nan_as_nan(got[~zero], want[~zero], "PRelu")
    for op_type in ("LeakyRelu", "ThresholdedRelu", "HardSwish", "Softsign"):
        got, want = _one_node(op_type, SPECIAL)
        assert_equal_nan_as_nan(got, want, op_type)


def test_float16_is_computed_in_float32_and_rounded_once_where_onnx_reference_rounds_each_step() -> None:
    """At FLOAT16 dmlpy computes LeakyRelu as DirectML's LEAKY_RELU, in float32 with the FLOAT Alpha, the result
    rounded once to half (the rows' reference); onnx.reference rounds alpha to half and multiplies in half, so
    some results differ by a half's ULP."""
    x = -np.arange(1, 2049, dtype=np.float16) * np.float16(0.37)
    node = helper.make_node("LeakyRelu", ["x"], ["y"])
    shape = list(x.shape)
    value = [helper.make_tensor_value_info(name, TensorProto.FLOAT16, shape) for name in "xy"]
    model = _model([node], value[:1], value[1:])
    (got,) = DmlBackend.prepare(model).run([x])
    (want,) = _reference(model, {"x": x})
    case = Case({"input_tensor": x.dtype, "output_tensor": x.dtype}, PARAMETERS[dml.ActivationLeakyReluOperatorDesc])
    assert got.tobytes() == row_of(dml.ActivationLeakyReluOperatorDesc).reference({"input_tensor": x}, case).tobytes()
    differ = got != want
    assert (
        differ.any()
        and (np.abs(got[differ].astype(np.float32) - want[differ]) <= np.spacing(np.abs(got[differ]))).all()
    )


def test_float_attributes_default_from_the_schema_and_must_be_float() -> None:
    """A parameter left out is the schema's default (LeakyRelu 0.01, ThresholdedRelu 1, HardSigmoid 0.2 and
    0.5), given is the FLOAT attribute's float32; an INT alpha is a malformed node, refused naming it."""
    x = np.float32([-2.0, 0.9, 1.0, 1.1, -2.5, 2.5, 0.3])
    got, _ = _one_node("LeakyRelu", x)
    assert got[0] == np.float32(-2.0) * np.float32(0.01)
    got, _ = _one_node("ThresholdedRelu", x)
    assert got.tolist() == [0.0, 0.0, 0.0, np.float32(1.1), 0.0, 2.5, 0.0]
    got, _ = _one_node("HardSigmoid", x, alpha=0.1, beta=0.25)
    assert got[-1] == np.float32(0.1) * np.float32(0.3) + np.float32(0.25)
    node = helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky")
    node.attribute.append(helper.make_attribute("alpha", 1))
    model = _model([node], [_value("x", [2])], [_value("y", [2])])
    with pytest.raises(dml.InvalidArgumentError, match=r"'leaky : alpha'. Expected: 'FLOAT', actual: 'INT'"):
        DmlBackend.prepare(model)


def test_prelu_broadcasts_its_slope_to_x_and_never_x_to_the_slope() -> None:
    """A slope of shape [3, 1] reads with 0-strides along X's [2, 3, 4] (onnx.reference's result, bit for bit);
    an X of [3, 1] with a slope of [1, 4], which NumPy would broadcast to [3, 4], is refused naming the shapes
    (when the run gives the shapes)."""
    x = np.random.default_rng(3).uniform(-4, 4, (2, 3, 4)).astype(np.float32)
    slope = np.float32([[0.5], [-1.0], [3.0]])
    node = helper.make_node("PRelu", ["x", "slope"], ["y"])
    model = _model([node], [_value("x", [2, 3, 4]), _value("slope", [3, 1])], [_value("y", [2, 3, 4])])
    (got,) = DmlBackend.prepare(model).run([x, slope])
    assert got.tobytes() == _reference(model, {"x": x, "slope": slope})[0].tobytes()
    node = helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")
    model = _model([node], [_value("x", [3, 1]), _value("slope", [1, 4])], [_value("y", [3, 4])])
    with pytest.raises(
        dml.InvalidArgumentError,
        match=r"'prelu' \(PRelu, opset 22\): its inputs have shapes 'x' \[3, 1\], 'slope' \[1, 4\]; PRelu broadcasts "
        r"'slope' to 'x'",
    ):
        DmlBackend.prepare(model).run([np.zeros((3, 1), np.float32), np.zeros((1, 4), np.float32)])


def test_shrink_reads_lambd_as_threshold_and_bias_as_bias() -> None:
    """Shrink lowers to ACTIVATION_SHRINK, lambd its Threshold and bias its Bias (defaults 0.5 and 0, the
    schema's): onnx.reference's bits for every special value (a NaN compares false in both, giving 0) and, at
    INT8, for every value whose exact sum lies in the type (onnx.reference adds in float64 and truncates, as
    DirectML's conversion does; a sum past the type saturates in dmlpy). A negative lambd is where the two differ:
    between lambd and -lambd both cases hold, and DirectML's page takes x - Bias first, ONNX's x + bias."""
    got, want = _one_node("Shrink", SPECIAL, lambd=2.5, bias=0.75)
    assert got.tobytes() == want.tobytes()
    assert got[SPECIAL == 3.0].tolist() == [2.25] and got[SPECIAL == 2.5].tobytes() == np.float32(0).tobytes()
    got, want = _one_node("Shrink", SPECIAL)
    assert got.tobytes() == want.tobytes() and got[SPECIAL == 0.1].tolist() == [0.0]
    between = np.float32([-0.5, 0.0, 0.5])
    got, want = _one_node("Shrink", between, lambd=-1.0, bias=0.25)
    assert got.tolist() == [-0.75, -0.25, 0.25] and want.tolist() == [-0.25, 0.25, 0.75]
    x = np.arange(-128, 128).astype(np.int8)
    node = helper.make_node("Shrink", ["x"], ["y"], lambd=1.5, bias=-2.5)
    value = [helper.make_tensor_value_info(name, TensorProto.INT8, [256]) for name in "xy"]
    model = _model([node], value[:1], value[1:])
    (got,) = DmlBackend.prepare(model).run([x])
    exact = np.where(x > 1.5, x + 2.5, np.where(x < -1.5, x - 2.5, 0.0))
    inside = (exact >= -128) & (exact <= 127)
    assert np.array_equal(got[inside], _reference(model, {"x": x})[0][inside])
    assert got[x == 126].tolist() == [127] and got[x == -126].tolist() == [-128] and got[x == 3].tolist() == [5]


def test_gelu_approximate_of_another_type_is_refused_naming_the_type() -> None:
    """Gelu's approximate is a STRING; onnx.checker refuses another type first, and the node's own check (reached
    by a node read without the checker) names the type it got, not None."""
    node = helper.make_node("Gelu", ["x"], ["y"], name="gelu")
    node.attribute.append(helper.make_attribute("approximate", 1))
    with pytest.raises(
        dml.InvalidArgumentError,
        match=r"^gelu: attribute 'approximate' is INT; Gelu takes a STRING, 'none' or 'tanh'$",
    ):
        node_attributes(node, 20, "gelu")
    node.attribute[0].CopyFrom(helper.make_attribute("approximate", "none"))
    assert node_attributes(node, 20, "gelu") == {}
