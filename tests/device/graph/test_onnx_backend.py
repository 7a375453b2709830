"""ONNX's own backend test runner (onnx.backend.test.BackendTest) with dmlpy's backend, for the node tests of
every ONNX op type dmlpy runs (``SUPPORTED_OPS``, from the operator table: Round, QuantizeLinear, DequantizeLinear,
Identity, ...): the cases come from the installed onnx, built in memory by its loader, and are compared exactly
(rtol 0, atol 0) rather than with the runner's default tolerance, which would let an integer off by one pass.
Every other test is dropped; the forms DirectML cannot express are excluded by name, each with the reason, and
checked to be refused with that reason."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx.backend.test import BackendTest  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import SUPPORTED_OPS, DmlBackend, NodeRefused  # noqa: E402

OPS = rf"^test_({'|'.join(op_type.lower() for op_type in SUPPORTED_OPS)})(_[a-z0-9_]+)?_(cpu|cuda)$"
"""ONNX's node tests of every op type the operator table declares (Round, QuantizeLinear, ...)."""

NOT_EXPRESSIBLE: dict[str, str] = {
    "quantizelinear_blocked_symmetric": "INT16",
    "quantizelinear_e4m3fn": "FLOAT8E4M3FN",
    "quantizelinear_e5m2": "FLOAT8E5M2",
    "dequantizelinear_e4m3fn": "FLOAT8E4M3FN",
    "dequantizelinear_e4m3fn_float16": "FLOAT8E4M3FN",
    "dequantizelinear_e4m3fn_zero_point": "FLOAT8E4M3FN",
    "dequantizelinear_e5m2": "FLOAT8E5M2",
    "quantizelinear_uint2": "UINT2",
    "quantizelinear_int2": "INT2",
    "dequantizelinear_uint2": "UINT2",
    "dequantizelinear_int2": "INT2",
    "quantizelinear_float4e2m1": "FLOAT4E2M1",
    "dequantizelinear_float4e2m1": "FLOAT4E2M1",
    "quantizelinear_uint16": "UINT16",
    "quantizelinear_int16": "INT16",
    "identity_sequence": "sequence",
    "identity_opt": "optional",
}
"""ONNX node tests DirectML cannot express -> a word the refusal must contain: float8, 2-bit and float4 types (no
DirectML tensor type; 4-bit ones run through FL 6_3's QUANTIZE and DEQUANTIZE), 16-bit quantized outputs (the
blocked symmetric case's output_dtype is INT16; DirectML's quantization outputs 8- and 4-bit integers), and
sequences and optionals (DirectML has tensors only)."""


def _backend_test() -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # loading every operator's cases warns about their NumPy arithmetic
        cases = load_model_tests(kind="node")
        exact = {case.name.removeprefix("test_"): {"rtol": 0, "atol": 0} for case in cases}
        backend_test = BackendTest(DmlBackend, __name__, test_kwargs=exact)
    backend_test.include(OPS)
    for name in NOT_EXPRESSIBLE:
        backend_test.exclude(rf"^test_{name}_(cpu|cuda)$")
    return backend_test


_BACKEND_TEST = _backend_test()
_NODE_TESTS = _BACKEND_TEST.test_cases["OnnxBackendNodeModelTest"]
for _attribute in [name for name in vars(_NODE_TESTS) if name.startswith("test_")]:
    # The runner keeps every test it does not include as a skip; only the included ones belong here.
    why = getattr(getattr(_NODE_TESTS, _attribute), "__unittest_skip_why__", "")
    # ..._cuda: ONNX's CUDA device, which dmlpy's backend does not claim (supports_device("CUDA") is False).
    if why == "no matched include pattern" or why.startswith("matched exclude pattern") or _attribute.endswith("_cuda"):
        delattr(_NODE_TESTS, _attribute)
OnnxBackendNodeModelTest = _NODE_TESTS  # pytest collects a TestCase under each name that holds it: keep one
del _NODE_TESTS


def test_the_runner_runs_the_expressible_node_tests() -> None:
    names = sorted(name for name in vars(OnnxBackendNodeModelTest) if name.endswith("_cpu"))
    # Round, Identity, QuantizeLinear (per tensor, per axis, blocked) and DequantizeLinear (per tensor, per axis,
    # blocked, 16-bit inputs): what the installed onnx ships for these operators, less the excluded forms.
    expected = {
        "test_round_cpu",
        "test_identity_cpu",
        "test_quantizelinear_cpu",
        "test_quantizelinear_axis_cpu",
        "test_dequantizelinear_cpu",
        "test_dequantizelinear_axis_cpu",
        "test_dequantizelinear_int16_cpu",
        "test_dequantizelinear_uint16_cpu",
        "test_quantizelinear_blocked_asymmetric_cpu",
        "test_dequantizelinear_blocked_cpu",
    }
    assert expected <= set(names), names
    assert all(re.match(OPS, name) for name in names)


def _node_case(name: str) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = [case for case in load_model_tests(kind="node") if case.name == f"test_{name}"]
    assert len(cases) == 1, name
    return cases[0]


@pytest.mark.parametrize("name", sorted(NOT_EXPRESSIBLE))
def test_inexpressible_cases_are_refused_at_prepare_saying_why(name: str) -> None:
    # At prepare, as the module says, not at the first run (the 16-bit outputs were refused only then).
    with pytest.raises(NodeRefused) as raised:
        DmlBackend.prepare(_node_case(name).model)
    message = str(raised.value)
    assert NOT_EXPRESSIBLE[name] in message, message
    assert "opset" in message or "graph input" in message, message


def test_an_unsupported_operator_is_refused_naming_it() -> None:
    node = onnx.helper.make_node("Relu", ["x"], ["y"], name="act")
    graph = onnx.helper.make_graph(
        [node],
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4])],
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])
    with pytest.raises(NodeRefused, match=r"ONNX node 'act' \(Relu, opset 21\): dmlpy runs only Round"):
        DmlBackend.prepare(model)
    assert isinstance(NodeRefused("x"), dml.UnsupportedError)


def test_run_node_runs_one_node() -> None:
    node = onnx.helper.make_node("Round", ["x"], ["y"])
    x = np.array([0.5, 1.5, -2.5, 2.4999998, np.inf, -0.0], np.float32)
    (y,) = DmlBackend.run_node(node, [x])
    assert y.tobytes() == np.rint(x).tobytes()
    assert DmlBackend.supports_device("CPU") and not DmlBackend.supports_device("CUDA")


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: list[Any] | None = None) -> Any:
    graph = onnx.helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers or [])
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])


def _tensor(name: str, elem: int, shape: list[int]) -> Any:
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    from onnx.reference import ReferenceEvaluator

    return list(ReferenceEvaluator(model).run(None, feeds))


def test_models_dmlpy_rewrites_into_graphs_directml_accepts() -> None:
    """A node nothing reads (pruned), a scale shared by nodes of different shapes (bound twice, read two ways),
    one value listed as two outputs and an input passed straight out (Identity nodes): all match onnx.reference."""
    F, U8 = onnx.TensorProto.FLOAT, onnx.TensorProto.UINT8
    scale = onnx.numpy_helper.from_array(np.array(0.5, np.float32), "s")
    nodes = [
        onnx.helper.make_node("QuantizeLinear", ["a", "s"], ["qa"]),
        onnx.helper.make_node("QuantizeLinear", ["b", "s"], ["qb"]),
        onnx.helper.make_node("Round", ["a"], ["unused"]),
    ]
    model = _model(
        nodes,
        [_tensor("a", F, [2, 3]), _tensor("b", F, [5])],
        [_tensor("qa", U8, [2, 3]), _tensor("qb", U8, [5]), _tensor("qb", U8, [5]), _tensor("a", F, [2, 3])],
        [scale],
    )
    a = np.array([[0.2, 1.3, -4.0], [7.75, 100.0, 3.25]], np.float32)
    b = np.array([0.0, 0.25, 0.75, 1.25, 300.0], np.float32)
    got = DmlBackend.prepare(model).run([a, b])
    expected = _reference(model, {"a": a, "b": b})
    assert len(got) == 4
    for result, want in zip(got, expected, strict=True):
        assert result.dtype == want.dtype and result.tobytes() == want.tobytes()
