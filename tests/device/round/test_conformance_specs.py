"""Conformance with the three specifications dmlpy's Round answers to: ONNX Round (backend node test, onnx's
reference implementation, the schema's examples), OpenVINO Round-5 (its examples) and DirectML's
DML_ROUNDING_MODE table. Results are compared bit for bit; NaN only as NaN where another engine is the oracle.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.modes import DML_ROUNDING_MODES as MODES
from tests.helpers.references import assert_rounded, hard_cases, mismatches, round_reference

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.backend.test.runner import Runner  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

# ONNX Round and OpenVINO Round-5 mode names -> DirectML (docs/conformance.md has the full table).
ONNX_ROUND = dml.RoundingMode.HALVES_TO_NEAREST_EVEN
OPENVINO_MODES = {
    "half_to_even": dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    "half_away_from_zero": dml.RoundingMode.TOWARD_INFINITY,
}


# --- ONNX -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def onnx_test_round() -> Any:
    """The backend node test ``test_round`` through onnx's own loader (onnx >= 1.23 no longer ships the files,
    onnx PR #7959; the loader builds the cases in memory)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = [case for case in load_model_tests(kind="node") if case.name == "test_round"]
    assert len(cases) == 1, "onnx's loader no longer provides test_round"
    return cases[0]


class DmlBackendRep:
    """The smallest ONNX backend that can run a one-node Round graph on dmlpy."""

    def __init__(self, model: onnx.ModelProto) -> None:
        nodes = list(model.graph.node)
        assert [n.op_type for n in nodes] == ["Round"], "this backend runs single-node Round graphs only"
        self.input_name = nodes[0].input[0]

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [dml.round(inputs[0], mode=ONNX_ROUND)]


def test_onnx_backend_node_test_round(onnx_test_round: Any, tally: Counter[str]) -> None:
    case = onnx_test_round
    assert case.model.opset_import[0].version >= 11
    rep = DmlBackendRep(case.model)
    for inputs, expected in case.data_sets:
        outputs = rep.run(list(inputs))
        # onnx's own comparison (the one its backend runner applies), then bit for bit.
        Runner.assert_similar_outputs(list(expected), outputs, rtol=case.rtol, atol=case.atol)
        assert outputs[0].tobytes() == expected[0].tobytes()
        tally["cases compared"] += expected[0].size


def test_onnx_reference_runs_the_node_test_model(onnx_test_round: Any) -> None:
    # The oracle we use below agrees with the node test's own data.
    for inputs, expected in onnx_test_round.data_sets:
        (got,) = ReferenceEvaluator(onnx_test_round.model).run(None, {"x": inputs[0]})
        assert got.tobytes() == expected[0].tobytes()


def _round_model(elem_type: int) -> onnx.ModelProto:
    node = helper.make_node("Round", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "round",
        [helper.make_tensor_value_info("x", elem_type, None)],
        [helper.make_tensor_value_info("y", elem_type, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


def _random_inputs(dtype: np.dtype[Any], rng: np.random.Generator, count: int) -> np.ndarray:
    """Random values around the interesting range (many exact halves), plus uniformly random bit patterns."""
    halves = rng.integers(-200, 200, count) / 2.0
    spread = rng.uniform(-1000.0, 1000.0, count)
    small = rng.uniform(-3.0, 3.0, count)
    uint = np.uint32 if dtype == np.float32 else np.uint16
    raw = rng.integers(0, np.iinfo(uint).max, count, dtype=np.uint64, endpoint=True).astype(uint).view(dtype)
    with np.errstate(over="ignore"):
        return np.concatenate([halves.astype(dtype), spread.astype(dtype), small.astype(dtype), raw])


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_onnx_reference_round_edge_and_random(dtype: type, tally: Counter[str]) -> None:
    dtype = np.dtype(dtype)
    elem_type = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    x = np.concatenate([hard_cases(dtype), _random_inputs(dtype, np.random.default_rng(2024), 20_000)])
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore")
        (expected,) = ReferenceEvaluator(_round_model(elem_type)).run(None, {"x": x})
    got = dml.round(x, mode=ONNX_ROUND)
    # Bit for bit against onnx.reference, NaN as NaN (engines differ on NaN payloads, peers.md §5.9) ...
    wrong = mismatches(x, got, expected, nan="any")
    assert not wrong.any(), f"{int(wrong.sum())} differ from onnx.reference, e.g. {x[wrong][:5]!r}"
    # ... and against our oracle with the stricter NaN rule (sign and payload kept).
    assert_rounded(x, got, ONNX_ROUND)
    tally["cases compared"] += 2 * x.size


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.9, 1.0), (2.5, 2.0), (2.3, 2.0), (1.5, 2.0), (-4.5, -4.0)],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_onnx_schema_examples(value: float, expected: float, dtype: type, tally: Counter[str]) -> None:
    # The examples in onnx.defs.get_schema("Round").doc (Round-11 and Round-22 share them).
    assert dml.round(np.array([value], dtype))[0] == expected
    tally["cases compared"] += 1


def test_onnx_schema_special_values_returned_as_is(tally: Counter[str]) -> None:
    # "If input x is integral, +0, -0, NaN, or infinite, x itself is returned."
    for dtype in (np.float32, np.float16):
        x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, -7.0, 1024.0], dtype)
        got = dml.round(x, mode=ONNX_ROUND)
        assert got[:4].tobytes() == x[:4].tobytes() and got[5:].tobytes() == x[5:].tobytes()
        assert np.isnan(got[4])
        tally["cases compared"] += x.size


# --- OpenVINO Round-5 ---------------------------------------------------------------------------------------

OPENVINO_INPUT = [-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5]
OPENVINO_EXPECTED = {
    "half_to_even": [-4.0, -2.0, -2.0, 0.0, 1.0, 2.0, 2.0, 2.0],
    "half_away_from_zero": [-5.0, -2.0, -2.0, 1.0, 1.0, 2.0, 2.0, 3.0],
}


@pytest.mark.parametrize("mode", list(OPENVINO_EXPECTED))
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_openvino_round5_spec_examples(mode: str, dtype: type, tally: Counter[str]) -> None:
    """docs.openvino.ai, "Round-5": Input = [-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5]."""
    x = np.array(OPENVINO_INPUT, dtype)
    expected = np.array(OPENVINO_EXPECTED[mode], dtype)
    # dml.round accepts OpenVINO's names directly, and they mean the DirectML modes of the mapping table.
    assert dml.round(x, mode=mode).tobytes() == expected.tobytes()
    assert dml.round(x, mode=OPENVINO_MODES[mode]).tobytes() == expected.tobytes()
    tally["cases compared"] += 2 * x.size


def test_openvino_half_away_from_zero_hard_cases(tally: Counter[str]) -> None:
    # Where OpenVINO's CPU plugin is wrong (peers.md §3): 0.49999997, ±8388609, 16777215, -0, NaN sign.
    x = np.array([0.49999997, -0.49999997, 8388609, -8388609, 16777215, -0.0, -np.nan], np.float32)
    got = dml.round(x, mode="half_away_from_zero")
    expected = np.array([0.0, -0.0, 8388609, -8388609, 16777215, -0.0, -np.nan], np.float32)
    assert got[:6].tobytes() == expected[:6].tobytes()
    assert np.isnan(got[6]) and np.signbit(got[6])
    tally["cases compared"] += x.size


# --- DirectML DML_ROUNDING_MODE ----------------------------------------------------------------------------

DML_TABLE_INPUT = [-2.5, -1.75, -1.5, -1.25, 0.0, 1.25, 1.5, 1.75, 2.5]
DML_TABLE = {
    dml.RoundingMode.HALVES_TO_NEAREST_EVEN: [-2, -2, -2, -1, 0, 1, 2, 2, 2],
    dml.RoundingMode.TOWARD_ZERO: [-2, -1, -1, -1, 0, 1, 1, 1, 2],
    dml.RoundingMode.TOWARD_INFINITY: [-3, -2, -2, -1, 0, 1, 2, 2, 3],
}


@pytest.mark.parametrize("mode", list(DML_TABLE), ids=lambda m: m.name)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("spelling", ["member", "c_name", "number"])
def test_directml_rounding_mode_table(
    mode: dml.RoundingMode, dtype: type, spelling: str, device: Any, tally: Counter[str]
) -> None:
    """learn.microsoft.com, DML_ROUNDING_MODE, Remarks: the example table, through the object model."""
    given = {"member": mode, "c_name": mode.c_name, "number": int(mode)}[spelling]
    x = np.array(DML_TABLE_INPUT, dtype)
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32 if dtype == np.float32 else "FLOAT16", sizes=(9,))
    compiled = device.compile_operator(
        device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode=given))
    )
    recorder = device.create_command_recorder()
    initializer = device.create_operator_initializer([compiled])
    recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
    source, target = device.upload(x), device.create_buffer(td.total_tensor_size_in_bytes)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(source, 0, td.total_tensor_size_in_bytes)])
    table.bind_outputs([dml.BufferBinding(target, 0, td.total_tensor_size_in_bytes)])
    recorder.record_dispatch(device.queue, compiled, table).wait()
    got = target.read(dtype, 9)
    assert got.tolist() == DML_TABLE[mode]
    assert dml.round(x, mode=given).tolist() == DML_TABLE[mode]
    tally["cases compared"] += 2 * x.size


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_hard_cases_every_mode(mode: dml.RoundingMode, dtype: type, tally: Counter[str]) -> None:
    x = hard_cases(dtype)
    tally["cases compared"] += assert_rounded(x, dml.round(x, mode=mode), mode)


def test_reference_is_independent_of_numpy_rounding() -> None:
    """The oracle agrees with numpy's rint/trunc and with a ties-away formula on sampled values, so a bug in
    it cannot hide behind the same bug in the device."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.integers(-100, 100, 5000) / 4.0, rng.standard_normal(5000) * 1e4]).astype(np.float32)
    assert round_reference(x, "HALVES_TO_NEAREST_EVEN").tobytes() == np.rint(x).tobytes()
    assert round_reference(x, "TOWARD_ZERO").tobytes() == np.trunc(x).tobytes()
    away = np.copysign(np.floor(np.abs(x.astype(np.float64)) + 0.5), x).astype(np.float32)  # exact in f64 here
    assert round_reference(x, "TOWARD_INFINITY").tobytes() == away.tobytes()
