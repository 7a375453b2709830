"""ONNX element-wise op types of a type their own DirectML operator lacks, run through operators that compute the
same values (dmlpy/onnx/equivalents.py): Relu of INT64 as ELEMENT_WISE_MAX with 0, PRelu of INT64 as IF(x < 0,
x * slope, x), PRelu of UINT32 and UINT64 and Abs of the unsigned types as a copy. Integers, so every result is
onnx.reference's bit for bit, the types' extremes included (the product of PRelu wraps as NumPy's)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.models.runner import directml_operators  # noqa: E402

I64, U32, U64 = TensorProto.INT64, TensorProto.UINT32, TensorProto.UINT64


def _model(op_type: str, elem: int, shapes: list[list[int]], opset: int = 21, **attributes: Any) -> Any:
    names = ["x", "slope"][: len(shapes)]
    inputs = [helper.make_tensor_value_info(n, elem, s) for n, s in zip(names, shapes, strict=True)]
    output = helper.make_tensor_value_info("y", elem, shapes[0])
    node = helper.make_node(op_type, names, ["y"], **attributes)
    graph = helper.make_graph([node], "g", inputs, [output])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _values(dtype: Any, shape: tuple[int, ...], seed: int) -> Any:
    """Random values of ``dtype`` over its whole range, its minimum, maximum and 0 first."""
    info = np.iinfo(dtype)
    values = np.random.default_rng(seed).integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    values.flat[:3] = (info.min, info.max, 0)
    return values


@pytest.mark.parametrize(
    ("op_type", "elem", "dtype", "operators"),
    [
        ("Relu", I64, np.int64, ["ELEMENT_WISE_MAX"]),
        ("Abs", U64, np.uint64, ["ELEMENT_WISE_IDENTITY"]),
        ("Abs", TensorProto.UINT8, np.uint8, ["ELEMENT_WISE_IDENTITY"]),
    ],
)
def test_a_one_input_op_type_runs_through_the_operator_that_takes_its_type(
    device: Any, op_type: str, elem: int, dtype: Any, operators: list[str]
) -> None:
    """Relu of INT64 (which ACTIVATION_RELU's table lacks) is max(x, 0); Abs of an unsigned type is x: strided
    (a transposed read: a graph input of shape [5, 4] read as its transpose's Transpose node)."""
    transpose = helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0])
    node = helper.make_node(op_type, ["t"], ["y"])
    graph = helper.make_graph(
        [transpose, node],
        "g",
        [helper.make_tensor_value_info("x", elem, [5, 4])],
        [helper.make_tensor_value_info("y", elem, [4, 5])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = _values(dtype, (5, 4), seed=1)
    rep = DmlBackend.prepare(model, dml_device=device)
    (got,) = rep.run([x])
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert list(directml_operators(rep)[0]) == operators


@pytest.mark.parametrize(("elem", "dtype"), [(I64, np.int64), (U32, np.uint32), (U64, np.uint64)])
def test_prelu_of_a_type_parameterized_relu_lacks_is_onnx_references(device: Any, elem: int, dtype: Any) -> None:
    """PRelu of INT64 (IF of LESS_THAN, MULTIPLY: the product wraps at the extremes, as NumPy's), UINT32 and UINT64
    (x itself: no value is below 0), the slope broadcast per column; bit for bit onnx.reference's."""
    model = _model("PRelu", elem, [[3, 6], [6]], opset=16)
    x = _values(dtype, (3, 6), seed=2)
    slope = _values(dtype, (6,), seed=3)
    slope[:3] = (3, 2, 0) if dtype == np.int64 else slope[:3]
    rep = DmlBackend.prepare(model, dml_device=device)
    (got,) = rep.run([x, slope])
    with np.errstate(over="ignore"):
        (want,) = ReferenceEvaluator(model).run(None, {"x": x, "slope": slope})
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_relu_of_int64_between_element_wise_nodes_in_a_graph(device: Any) -> None:
    """Relu of INT64 between a Sub and an Add: max(x - b, 0) + b, each step exact."""
    elem = I64
    nodes = [
        helper.make_node("Sub", ["x", "b"], ["d"]),
        helper.make_node("Relu", ["d"], ["r"]),
        helper.make_node("Add", ["r", "b"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", elem, [2, 8]), helper.make_tensor_value_info("b", elem, [8])],
        [helper.make_tensor_value_info("y", elem, [2, 8])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    rng = np.random.default_rng(4)
    x, b = rng.integers(-(2**40), 2**40, (2, 8)), rng.integers(-(2**40), 2**40, (8,))
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x, b])
    np.testing.assert_array_equal(got, np.maximum(x - b, 0) + b)


@pytest.mark.parametrize(
    ("op_type", "elem", "attributes", "why"),
    [
        ("Shrink", I64, {}, "ACTIVATION_SHRINK"),
        ("Shrink", U64, {}, "ACTIVATION_SHRINK"),
    ],
)
def test_what_no_operator_computes_exactly_is_still_refused(
    device: Any, op_type: str, elem: int, attributes: dict[str, Any], why: str
) -> None:
    """Shrink of the 64-bit integers: no DirectML operator adds ONNX's float bias to them exactly."""
    with pytest.raises(NodeRefused, match=why):
        DmlBackend.prepare(_model(op_type, elem, [[4]], **attributes), dml_device=device)


def test_pow_of_an_int64_base_is_still_refused(device: Any) -> None:
    model = _model("Pow", I64, [[4], [4]])
    with pytest.raises(NodeRefused, match="ELEMENT_WISE_POW"):
        DmlBackend.prepare(model, dml_device=device)
