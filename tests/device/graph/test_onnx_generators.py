"""ONNX's Range, EyeLike and ReverseSequence (dmlpy.onnx.generators: FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX1,
REVERSE_SUBSEQUENCES) and NonZero's refusal. ONNX's node tests of these op types: those that run as shipped equal
their expected outputs exactly, Range's run again with start, limit and delta as initializers, the others are
refused saying why (tests/helpers/onnx_generators.py). Then the forms the node tests leave out, against
onnx.reference (integers, moves and 0/1 matrices exact) or the exact value (Range's floats, within the bound
docs/api/onnx.md states), and the refusals of what DirectML cannot express or ONNX does not allow."""

from __future__ import annotations

import functools
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_generators import GENERATOR_PREFIXES, GENERATOR_RUNS, generator_refusals  # noqa: E402

RNG = np.random.default_rng(44)


@functools.cache
def _node_cases() -> dict[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {
            case.name.removeprefix("test_"): case
            for case in load_model_tests(kind="node")
            if case.name.removeprefix("test_").startswith(GENERATOR_PREFIXES)
        }


REFUSED = generator_refusals(_node_cases())


def _run_case(model: Any, inputs: list[Any], outputs: list[Any]) -> None:
    got = DmlBackend.prepare(model).run(inputs)
    for value, expected in zip(got, outputs, strict=True):
        assert value.dtype == expected.dtype and value.shape == expected.shape, (value.dtype, value.shape)
        np.testing.assert_array_equal(value, expected)


def test_every_node_test_of_these_op_types_runs_or_is_refused() -> None:
    assert set(_node_cases()) == set(GENERATOR_RUNS) | set(REFUSED)
    assert not set(GENERATOR_RUNS) & set(REFUSED)


@pytest.mark.parametrize("name", GENERATOR_RUNS)
def test_node_tests_run_as_shipped_equal_to_their_outputs(name: str) -> None:
    case = _node_cases()[name]
    (inputs, outputs), *_ = case.data_sets
    _run_case(case.model, list(inputs), list(outputs))


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_node_tests_dmlpy_cannot_run_as_shipped_are_refused_at_prepare_saying_why(name: str) -> None:
    with pytest.raises(NodeRefused) as raised:
        DmlBackend.prepare(_node_cases()[name].model)
    message = str(raised.value)
    assert REFUSED[name] in message, message
    assert "opset" in message or "graph input" in message, message


RANGE_CASES = sorted(name for name, word in REFUSED.items() if word == "initializer")


@pytest.mark.parametrize("name", RANGE_CASES)
def test_range_node_tests_run_with_start_limit_and_delta_as_initializers(name: str) -> None:
    case = _node_cases()[name]
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    (inputs, outputs), *_ = case.data_sets
    for value, given in zip(model.graph.input, inputs, strict=True):
        model.graph.initializer.append(numpy_helper.from_array(np.asarray(given), value.name))
    del model.graph.input[:]
    _run_case(model, [], list(outputs))


def _model(nodes: list[Any], inputs: dict[str, Any], initializers: dict[str, Any], opset: int = 22) -> Any:
    """A model of ``nodes``, its outputs (every node's output) typed by ONNX's shape inference, or FLOAT of the first
    input's shape where inference gives none (a malformed form)."""
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        nodes,
        "g",
        [value(name, helper.np_dtype_to_tensor_dtype(x.dtype), list(x.shape)) for name, x in inputs.items()],
        [],
        [numpy_helper.from_array(np.asarray(x), name) for name, x in initializers.items()],
    )
    inferred = onnx.shape_inference.infer_shapes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )
    typed = {v.name: v for v in inferred.graph.value_info}
    like = list(next(iter(inputs.values())).shape) if inputs else []
    for node in nodes:
        inferred.graph.output.append(typed.get(node.output[0], value(node.output[0], TensorProto.FLOAT, like)))
    del inferred.graph.value_info[:]
    return inferred


def _range(start: Any, limit: Any, delta: Any, dtype: Any, **attributes: Any) -> Any:
    values = dict(zip(("start", "limit", "delta"), (np.array(v, dtype) for v in (start, limit, delta)), strict=True))
    return _model([helper.make_node("Range", list(values), ["y"], **attributes)], {}, values, opset=27)


@pytest.mark.parametrize(
    ("dtype", "start", "limit", "delta"),
    [
        (np.int16, -300, 301, 7),
        (np.int32, 10, -20, -3),
        (np.int32, 2**31 - 5, 2**31 - 1, 1),
        (np.int64, -(2**40), 2**40, 2**37 + 3),
        (np.int64, 5, 6, 100),
    ],
)
@pytest.mark.one_profile
def test_integer_ranges_are_onnx_references_exactly(
    device: Any, dtype: Any, start: int, limit: int, delta: int
) -> None:
    model = _range(start, limit, delta, dtype)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([])
    (want,) = ReferenceEvaluator(model).run(None, {})
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("dtype", "start", "limit", "delta"),
    [
        (np.float32, 0.1, 3.3, 0.7),
        (np.float32, 1e6, -1e6, -3.3e3),
        (np.float32, -0.0, 1.0, 1 / 3),
        (np.float16, 0.1, 60.0, 0.3),
        (np.float16, 2.0, -2.0, -0.01),
    ],
)
@pytest.mark.one_profile
def test_float_ranges_have_onnxs_count_and_lie_within_half_an_ulp_of_the_exact_sequence(
    device: Any, dtype: Any, start: float, limit: float, delta: float
) -> None:
    """The count is ONNX's ceil((limit - start) / delta) of the values held; element i is start + i * delta rounded
    once to float32 (FLOAT32: within half a float32 ULP of the exact value) or rounded to float32, then to float16
    (FLOAT16: within half a float16 ULP plus half a float32 ULP)."""
    s, lim, d = (dtype(v) for v in (start, limit, delta))
    model = _range(s, lim, d, dtype)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([])
    (want,) = ReferenceEvaluator(model).run(None, {})
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape
    exact = [Fraction(float(s)) + i * Fraction(float(d)) for i in range(got.size)]
    assert got.size == -((Fraction(float(s)) - Fraction(float(lim))) // Fraction(float(d)))
    for value, true in zip(got, exact, strict=True):
        bound = Fraction(float(np.spacing(np.abs(value)))) / 2
        if dtype == np.float16:
            bound += Fraction(float(np.spacing(np.float32(abs(true))))) / 2
        assert abs(Fraction(float(value)) - true) <= bound, (value, true)
    assert got[0] == s and np.signbit(got[0]) == np.signbit(s)


@pytest.mark.parametrize(
    ("values", "attributes", "error", "word"),
    [
        ((0, 5, 0, np.int32), {}, dml.InvalidArgumentError, "delta other than 0"),
        ((5, 0, 1, np.int32), {}, NodeRefused, "empty tensor"),
        ((0.0, np.inf, 1.0, np.float32), {}, dml.InvalidArgumentError, "finite"),
        ((0.0, 4.0, 1.0, np.float16), {"stash_type": 11}, NodeRefused, "stash_type 11"),
        ((0.0, 4.0, 1.0, np.float64), {}, NodeRefused, "FLOAT64"),
    ],
)
def test_ranges_directml_cannot_express_or_onnx_does_not_define_are_refused(
    values: tuple[Any, ...], attributes: dict[str, int], error: type[Exception], word: str
) -> None:
    with pytest.raises(error, match=word):
        DmlBackend.prepare(_range(*values, **attributes))


def test_a_range_whose_values_are_of_two_types_is_malformed() -> None:
    model = _range(0, 4, 1, np.int32)
    model.graph.initializer[2].CopyFrom(numpy_helper.from_array(np.array(1, np.int64), "delta"))
    with pytest.raises(dml.InvalidArgumentError, match="one type for start, limit and delta"):
        DmlBackend.prepare(model)


EYE_TYPES = (
    np.float32,
    np.float16,
    np.float64,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.bool_,
)
"""Every ONNX type EyeLike takes that DirectML has a tensor type for (bool held as UINT8)."""


@pytest.mark.parametrize("dtype", EYE_TYPES)
@pytest.mark.one_profile
def test_eye_like_of_every_type_and_diagonal_is_onnx_references(device: Any, dtype: Any) -> None:
    x = RNG.integers(0, 2, (3, 5)).astype(dtype)
    for k in (-4, -3, -1, 0, 2, 4, 5, 2**40):
        model = _model([helper.make_node("EyeLike", ["x"], ["y"], k=k)], {"x": x}, {})
        (got,) = DmlBackend.prepare(model, dml_device=device).run([x])
        (want,) = ReferenceEvaluator(model).run(None, {"x": x})
        assert got.dtype == want.dtype == np.dtype(dtype) and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_eye_like_takes_dtype_over_its_inputs_type_a_bool_too() -> None:
    x = RNG.standard_normal((4, 2)).astype(np.float32)
    for dtype in (TensorProto.BOOL, TensorProto.INT64, TensorProto.FLOAT16):
        model = _model([helper.make_node("EyeLike", ["x"], ["y"], k=-1, dtype=dtype)], {"x": x}, {})
        (got,) = DmlBackend.prepare(model).run([x])
        (want,) = ReferenceEvaluator(model).run(None, {"x": x})
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_eye_like_feeds_a_node_and_refuses_other_ranks_and_types(device: Any) -> None:
    x = RNG.standard_normal((3, 3)).astype(np.float32)
    nodes = [helper.make_node("EyeLike", ["x"], ["e"]), helper.make_node("Mul", ["e", "x"], ["y"])]
    model = _model(nodes, {"x": x}, {})
    model.graph.output.pop(0)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x])
    np.testing.assert_array_equal(got, np.diag(np.diag(x)))
    flat = np.ones(4, np.float32)
    model = _model([helper.make_node("EyeLike", ["x"], ["y"])], {"x": flat}, {})
    with pytest.raises(dml.InvalidArgumentError, match="rank 2"):
        DmlBackend.prepare(model).run([flat])
    model = _model([helper.make_node("EyeLike", ["x"], ["y"], dtype=TensorProto.BFLOAT16)], {"x": x}, {})
    with pytest.raises(NodeRefused, match="dtype is BFLOAT16"):
        DmlBackend.prepare(model)


def _reverse(x: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any], batch_axis: int, time_axis: int) -> Any:
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], batch_axis=batch_axis, time_axis=time_axis)
    return _model([node], {"x": x, "lens": lengths}, {})


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint64, np.bool_])
@pytest.mark.parametrize(("batch_axis", "time_axis"), [(0, 1), (1, 0)])
@pytest.mark.one_profile
def test_reverse_sequence_moves_elements_as_onnx_reference(
    device: Any, dtype: Any, batch_axis: int, time_axis: int
) -> None:
    shape = [3, 3, 4]
    shape[batch_axis], shape[time_axis] = 5, 6
    x = RNG.integers(0, 100, shape).astype(dtype)
    lengths = np.array([0, 1, 6, 3, 9], np.int64)  # 9: past the axis, the whole sequence (onnx.reference's too)
    model = _reverse(x, lengths, batch_axis, time_axis)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x, lengths])
    (want,) = ReferenceEvaluator(model).run(None, {"x": x, "lens": lengths})
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_reverse_sequence_refuses_malformed_axes_and_lengths() -> None:
    x = np.zeros((4, 3), np.float32)
    with pytest.raises(dml.InvalidArgumentError, match="takes 0 and 1, one each"):
        DmlBackend.prepare(_reverse(x, np.ones(3, np.int64), 1, 1))
    model = _reverse(x, np.ones(4, np.int64), 1, 0)
    with pytest.raises(dml.InvalidArgumentError, match=r"one length per index of batch_axis 1: shape \[3\]"):
        DmlBackend.prepare(model).run([x, np.ones(4, np.int64)])


def test_non_zero_is_refused_saying_why() -> None:
    x = np.ones((2, 2), np.float32)
    with pytest.raises(NodeRefused, match=r"NonZero: 1 node.*known only after the run.*NONZERO_COORDINATES"):
        DmlBackend.prepare(_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": x}, {}))


def test_reverse_sequence_reverses_the_whole_sequence_for_a_negative_length() -> None:
    """ONNX asks for lengths 0 to the time axis's size; a negative one, cast to UINT64, is past the axis, which
    REVERSE_SUBSEQUENCES clamps: the whole sequence reversed (docs/api/onnx.md)."""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    lengths = np.array([-1, 2, -(2**62)], np.int64)
    (got,) = DmlBackend.prepare(_reverse(x, lengths, 0, 1)).run([x, lengths])
    np.testing.assert_array_equal(got, [[3, 2, 1, 0], [5, 4, 6, 7], [11, 10, 9, 8]])


def test_reverse_sequence_takes_its_lengths_from_a_graph_input_or_initializer() -> None:
    x = np.zeros((2, 3), np.float32)
    nodes = [
        helper.make_node("Abs", ["lens"], ["positive"]),
        helper.make_node("ReverseSequence", ["x", "positive"], ["y"], batch_axis=0, time_axis=1),
    ]
    model = _model(nodes, {"x": x, "lens": np.ones(2, np.int64)}, {})
    model.graph.output.pop(0)
    with pytest.raises(NodeRefused, match="sequence_lens 'positive' is computed by a node"):
        DmlBackend.prepare(model)
