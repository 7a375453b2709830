"""ONNX's Cast, CastLike and Pow (issue 31), beyond ONNX's node tests (test_onnx_backend.py): a bool target as
``x != 0``, a bool source, CastLike's target read from its second input's type, Pow's exponent of its own type
broadcast multidirectionally, a cast and a power fused into one kernel, and the inputs where dmlpy answers as
DirectML rather than as onnx.reference (docs/conformance.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend  # noqa: E402

F, I8, I32, B = TensorProto.FLOAT, TensorProto.INT8, TensorProto.INT32, TensorProto.BOOL


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: Any = ()) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _value(name: str, elem: int, shape: list[int]) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    with np.errstate(all="ignore"):
        return list(ReferenceEvaluator(model).run(None, feeds))


def _cast(x: Any, elem: int, to: int) -> tuple[Any, Any]:
    """One Cast node of ``x`` to ``to``: dmlpy's result and onnx.reference's."""
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=to)], [_value("x", elem, [x.size])], [_value("y", to, [x.size])]
    )
    (got,) = DmlBackend.prepare(model).run([x])
    (want,) = _reference(model, {"x": x})
    return got, want


def test_a_bool_target_is_nonzero_and_a_bool_source_is_one_or_zero() -> None:
    x = np.array([0.0, -0.0, 0.5, np.nan, np.inf, -2.0, 1e-45], np.float32)
    got, want = _cast(x, F, B)
    assert got.dtype == np.bool_ and got.tolist() == want.tolist() == [False, False, True, True, True, True, True]
    integers = np.array([0, 256, -1, 1], np.int32)
    got, want = _cast(integers, I32, B)  # 256 is true: not CAST's wrap to the UINT8 0 that holds a bool
    assert got.tolist() == want.tolist() == [False, True, True, True]
    flags = np.array([True, False, True])
    got, want = _cast(flags, B, F)
    assert got.tolist() == want.tolist() == [1.0, 0.0, 1.0]


def test_cast_like_takes_its_second_inputs_type_and_a_cast_and_a_power_fuse() -> None:
    like = numpy_helper.from_array(np.zeros(1, np.float32), "like")
    two = numpy_helper.from_array(np.array(2, np.int32), "two")
    nodes = [helper.make_node("CastLike", ["x", "like"], ["f"]), helper.make_node("Pow", ["f", "two"], ["y"])]
    model = _model(nodes, [_value("x", I8, [6])], [_value("y", F, [6])], [like, two])
    x = np.array([-128, -3, 0, 1, 7, 127], np.int8)
    rep = DmlBackend.prepare(model)
    (got,) = rep.run([x])
    (want,) = _reference(model, {"x": x})
    assert got.tobytes() == want.tobytes() == (x.astype(np.float32) ** 2).tobytes()
    assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]


def test_pow_broadcasts_an_exponent_of_its_own_type_and_keeps_the_bases_type() -> None:
    nodes = [helper.make_node("Pow", ["x", "n"], ["y"])]
    model = _model(nodes, [_value("x", F, [2, 3]), _value("n", I32, [3])], [_value("y", F, [2, 3])])
    x = np.array([[2.0, -2.0, 0.5], [-1.0, 10.0, 3.0]], np.float32)
    n = np.array([3, -1, 2], np.int32)
    (got,) = DmlBackend.prepare(model).run([x, n])
    (want,) = _reference(model, {"x": x, "n": n})
    assert got.dtype == np.float32 and got.tobytes() == want.tobytes()


def test_where_directml_and_onnx_reference_differ_cast_and_pow_answer_as_directml() -> None:
    """docs/conformance.md's list: a NaN or an out-of-range float cast to an integer is 0 or saturated (D3D's ftoi;
    onnx.reference runs NumPy's conversion, undefined in C: x86 gives the type's minimum for NaN and 3e9 as INT32);
    an integer to a negative integer power is 1 / x^n truncated (onnx.reference: NumPy refuses it)."""
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -1.7, 2.9], np.float32)
    got, want = _cast(x, F, I32)
    assert got.tolist() == [0, 2**31 - 1, -(2**31), 2**31 - 1, -1, 2]
    assert want.tolist()[4:] == [-1, 2] and want.tolist()[:4] != got.tolist()[:4]
    got, _ = _cast(x, F, TensorProto.UINT8)
    assert got.tolist() == [0, 255, 0, 255, 0, 2]
    nodes = [helper.make_node("Pow", ["x", "n"], ["y"])]
    model = _model(nodes, [_value("x", I32, [5]), _value("n", I32, [5])], [_value("y", I32, [5])])
    base, n = np.array([2, 1, -1, -1, 0], np.int32), np.array([-1, -3, -3, -2, -1], np.int32)
    (got,) = DmlBackend.prepare(model).run([base, n])
    assert got.tolist() == [0, 1, -1, 1, -1]
    with pytest.raises(ValueError, match="negative integer powers"):
        _reference(model, {"x": base, "n": n})
