"""The ONNX op types of DirectML's remainders, selection and bit operators (Mod, Where, BitShift, BitwiseAnd, Or,
Xor, Not), beyond ONNX's node tests (test_onnx_backend.py): the attribute that chooses the operator (Mod's fmod,
BitShift's direction), Where's three-way broadcast and bool values, what is refused and why, and the inputs where
dmlpy answers as DirectML rather than as onnx.reference (docs/conformance.md). Results are compared with
onnx.reference's bit for bit, except where the module says they differ."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], opset: int = 22) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _value(name: str, elem: int, shape: list[int]) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    with np.errstate(all="ignore"):
        return list(ReferenceEvaluator(model).run(None, feeds))


def test_mod_lowers_by_fmod_and_an_integer_remainder_by_zero_answers_as_directml() -> None:
    """fmod 0 (the default) is MODULUS_FLOOR, the divisor's sign; fmod 1 MODULUS_TRUNCATE, the dividend's: both
    nodes one fused kernel, onnx.reference's bits for every nonzero divisor (INT32 edges included: MIN mod -1 is 0).
    A zero divisor leaves all bits set in DirectML (DXIL's UDiv; -1 for a signed type) and 0 in onnx.reference."""
    low, high = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    values = np.array([low, low + 1, -7, -3, -1, 0, 1, 3, 7, high], np.int32)
    a, b = (v.reshape(-1) for v in np.meshgrid(values, values, indexing="ij"))
    nodes = [
        helper.make_node("Mod", ["a", "b"], ["floored"]),
        helper.make_node("Mod", ["a", "b"], ["truncated"], fmod=1),
    ]
    shape = [a.size]
    inputs = [_value(name, TensorProto.INT32, shape) for name in "ab"]
    model = _model(nodes, inputs, [_value(name, TensorProto.INT32, shape) for name in ("floored", "truncated")])
    rep = DmlBackend.prepare(model)
    got = rep.run([a, b])
    want = _reference(model, {"a": a, "b": b})
    assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]
    divides = b != 0
    for result, expected in zip(got, want, strict=True):
        assert np.array_equal(result[divides], expected[divides])
        assert (result[~divides] == -1).all() and (expected[~divides] == 0).all()
    floored, truncated = got
    at = {(int(x), int(y)): i for i, (x, y) in enumerate(zip(a, b, strict=True))}
    assert floored[at[-7, 3]] == 2 and truncated[at[-7, 3]] == -1 and floored[at[7, -3]] == -2
    assert floored[at[low, -1]] == 0 and truncated[at[low, -1]] == 0


def test_mod_of_floats_takes_fmod_1_before_opset_28_and_fmod_0_from_it() -> None:
    """Mod-13 asks fmod 1 for floats: fmod 0 is a malformed node, refused naming it; Mod-28 defines it as the
    floored remainder, which MODULUS_FLOOR computes (onnx.reference's bits, a zero's sign the divisor's)."""
    node = helper.make_node("Mod", ["a", "b"], ["y"], name="mod")
    inputs = [_value(name, TensorProto.FLOAT, [4]) for name in "ab"]
    with pytest.raises(dml.InvalidArgumentError, match=r"'mod' \(Mod, opset 22\): fmod 0 with FLOAT inputs"):
        DmlBackend.prepare(_model([node], inputs, [_value("y", TensorProto.FLOAT, [4])]))
    model = _model([node], inputs, [_value("y", TensorProto.FLOAT, [4])], opset=28)
    a, b = np.float32([-7.5, 7.5, -0.0, 6.0]), np.float32([2.0, -2.0, 3.0, -3.0])
    (got,) = DmlBackend.prepare(model).run([a, b])
    (want,) = _reference(model, {"a": a, "b": b})
    assert got.tobytes() == want.tobytes() and got.tolist() == [0.5, -0.5, 0.0, -0.0]


def test_where_broadcasts_condition_x_and_y_together() -> None:
    """Condition [1, 3], X [2, 1] and Y [3] give [2, 3] (ONNX's multidirectional broadcasting, each read with
    0-strides), onnx.reference's bits; bool X and Y give a bool output. A condition that is not bool, and X and Y
    of two types, are malformed nodes, refused naming them."""
    condition = np.array([[True, False, True]])
    x, y = np.float32([[1.5], [-2.0]]), np.float32([10.0, 20.0, 30.0])
    node = helper.make_node("Where", ["c", "x", "y"], ["z"])
    inputs = [
        _value("c", TensorProto.BOOL, [1, 3]),
        _value("x", TensorProto.FLOAT, [2, 1]),
        _value("y", TensorProto.FLOAT, [3]),
    ]
    model = _model([node], inputs, [_value("z", TensorProto.FLOAT, [2, 3])])
    (got,) = DmlBackend.prepare(model).run([condition, x, y])
    assert got.tobytes() == _reference(model, {"c": condition, "x": x, "y": y})[0].tobytes()
    assert got.tolist() == [[1.5, 20.0, 1.5], [-2.0, 20.0, -2.0]]
    flags = [_value(name, TensorProto.BOOL, [3]) for name in "cxy"]
    model = _model([node], flags, [_value("z", TensorProto.BOOL, [3])])
    values = [np.array(v) for v in ([True, False, False], [True, True, False], [False, False, True])]
    (got,) = DmlBackend.prepare(model).run(values)
    assert got.dtype == np.bool_ and got.tolist() == [True, False, True]
    assert got.tolist() == _reference(model, dict(zip("cxy", values, strict=True)))[0].tolist()
    named = helper.make_node("Where", ["c", "x", "y"], ["z"], name="where")
    floats = [_value(name, TensorProto.FLOAT, [3]) for name in "cxy"]
    with pytest.raises(dml.InvalidArgumentError, match=r"'where' \(Where, opset 22\): its condition 'c' is FLOAT"):
        DmlBackend.prepare(_model([named], floats, [_value("z", TensorProto.FLOAT, [3])]))
    types = (TensorProto.BOOL, TensorProto.FLOAT, TensorProto.INT32)
    mixed = [_value(name, elem, [3]) for name, elem in zip("cxy", types, strict=True)]
    with pytest.raises(dml.InvalidArgumentError, match=r"'x' FLOAT, 'y' INT32; Where takes one type for X and Y"):
        DmlBackend.prepare(_model([named], mixed, [_value("z", TensorProto.FLOAT, [3])]))


def test_bitshift_lowers_by_direction_and_shifts_past_the_width_to_zero() -> None:
    """direction LEFT is BIT_SHIFT_LEFT, RIGHT BIT_SHIFT_RIGHT; a count of the width or more gives 0, as ONNX
    defines it (onnx.reference's bits, UINT32). Another direction is refused naming it; a signed type too, with
    the reason (DirectML shifts unsigned types, logically)."""
    x = np.array([1, 0x80000001, 0xFFFFFFFF, 12345, 7, 7], np.uint32)
    counts = np.array([1, 31, 32, 33, 0, 0xFFFFFFFF], np.uint32)
    nodes = [helper.make_node("BitShift", ["x", "n"], [f"{d}"], direction=d.upper()) for d in ("left", "right")]
    inputs = [_value(name, TensorProto.UINT32, [6]) for name in "xn"]
    model = _model(nodes, inputs, [_value(name, TensorProto.UINT32, [6]) for name in ("left", "right")])
    got = DmlBackend.prepare(model).run([x, counts])
    want = _reference(model, {"x": x, "n": counts})
    assert [g.tobytes() for g in got] == [w.tobytes() for w in want]
    assert got[0].tolist() == [2, 0x80000000, 0, 0, 7, 0] and got[1].tolist() == [0, 1, 0, 0, 7, 0]
    up = helper.make_node("BitShift", ["x", "n"], ["y"], direction="UP", name="shift")
    with pytest.raises(dml.InvalidArgumentError, match=r"attribute 'direction' is 'UP'; BitShift takes 'LEFT' or"):
        DmlBackend.prepare(_model([up], inputs, [_value("y", TensorProto.UINT32, [6])]))
    signed = [_value(name, TensorProto.INT32, [6]) for name in "xn"]
    with pytest.raises(NodeRefused, match=r"its inputs are INT32; DirectML's BIT_SHIFT_LEFT .* unsigned types only"):
        DmlBackend.prepare(_model([nodes[0]], signed, [_value("left", TensorProto.INT32, [6])], opset=28))
