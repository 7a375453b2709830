"""ONNX's matrix products through dmlpy.onnx (dmlpy/onnx/matrix.py): MatMul's NumPy rules (1-D operands, batch
broadcasting by 0 strides, computed operands), Gemm's transposes, alpha, beta and C broadcast, float results within
GEMM's bound of float64 (docs/operators/gemm.md); MatMulInteger and QLinearMatMul with per-row and per-column
parameters exactly (NumPy, onnx.reference); the forms DirectML cannot express refused saying why."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_compute import product_bound  # noqa: E402

RNG = np.random.default_rng(45)
ELEMENT = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.int8: TensorProto.INT8}
ELEMENT |= {np.uint8: TensorProto.UINT8, np.int32: TensorProto.INT32}


def _model(nodes: list[Any], inputs: dict[str, Any], outputs: dict[str, Any], inits: dict[str, Any]) -> Any:
    """A model of ``nodes``, its graph inputs ``inputs``' arrays, its outputs each name's element type."""
    graph = helper.make_graph(
        nodes,
        "matrix",
        [helper.make_tensor_value_info(n, ELEMENT[a.dtype.type], list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, ELEMENT[t], None) for n, t in outputs.items()],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return onnx.shape_inference.infer_shapes(model)  # onnx.checker asks for the outputs' shapes


def _within_bound(got: Any, a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 1.0) -> None:
    """``got`` within GEMM's bound of the float64 product (a FLOAT16 output: its rounding more)."""
    exact = alpha * np.matmul(np.float64(a), np.float64(b)) + (0 if c is None else beta * np.float64(c))
    bound = product_bound(a, b, c, alpha, beta)
    if got.dtype == np.float16:
        bound = bound + 2.0**-11 * (np.abs(exact) + bound)
    assert got.shape == exact.shape
    assert np.all(np.abs(np.float64(got) - exact) <= bound), np.max(np.abs(np.float64(got) - exact) - bound)


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((2, 1, 3, 5), (4, 5, 6)), ((5,), (2, 5, 3)), ((3, 2, 5), (5,)), ((7,), (7,)), ((1, 4, 9), (3, 9, 2))],
)
def test_matmul_follows_numpys_rules_within_gemms_bound(device: Any, a_shape: Any, b_shape: Any) -> None:
    """1-D A as a row, 1-D B as a column (the output's shape drops it), batches broadcast through 0 strides."""
    a, b = (RNG.standard_normal(shape).astype(np.float32) for shape in (a_shape, b_shape))
    model = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.float32}, {})
    (got,) = DmlBackend.prepare(model, dml_device=device).run([a, b])
    _within_bound(got, a, b)


def test_matmul_of_computed_values_and_float16_feeds_the_next_node(device: Any) -> None:
    """Relu(x) @ W (an initializer broadcast over the batch) + bias, in FLOAT16 and FLOAT32: the product of a
    computed operand, read by an Add after it."""
    for dtype in (np.float32, np.float16):
        x = RNG.standard_normal((2, 3, 8)).astype(dtype)
        w, bias = RNG.standard_normal((8, 4)).astype(dtype), RNG.standard_normal(4).astype(dtype)
        nodes = [
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node("MatMul", ["r", "w"], ["m"]),
            helper.make_node("Add", ["m", "bias"], ["y"]),
        ]
        model = _model(nodes, {"x": x}, {"m": dtype, "y": dtype}, {"w": w, "bias": bias})
        m, y = DmlBackend.prepare(model, dml_device=device).run([x])
        _within_bound(m, np.maximum(x, 0), w)
        assert y.dtype == dtype and np.array_equal(y, (m + bias).astype(dtype))


@pytest.mark.parametrize(
    ("trans_a", "trans_b", "c_shape"), [(0, 0, (4,)), (1, 0, (3, 1)), (0, 1, ()), (1, 1, (3, 4)), (0, 0, None)]
)
def test_gemm_transposes_scales_and_broadcasts_c_within_its_bound(
    device: Any, trans_a: int, trans_b: int, c_shape: Any
) -> None:
    a = RNG.standard_normal((5, 3) if trans_a else (3, 5)).astype(np.float32)
    b = RNG.standard_normal((4, 5) if trans_b else (5, 4)).astype(np.float32)
    inputs = {"a": a, "b": b}
    if c_shape is not None:
        inputs["c"] = RNG.standard_normal(c_shape).astype(np.float32)
    node = helper.make_node("Gemm", list(inputs), ["y"], transA=trans_a, transB=trans_b, alpha=0.75, beta=-1.5)
    (got,) = DmlBackend.prepare(_model([node], inputs, {"y": np.float32}, {}), dml_device=device).run(
        list(inputs.values())
    )
    c = None if c_shape is None else np.broadcast_to(inputs["c"], (3, 4))
    _within_bound(got, a.T if trans_a else a, b.T if trans_b else b, c, 0.75, -1.5)


def test_matmul_integer_with_per_row_and_per_column_zero_points_is_onnx_references(device: Any) -> None:
    """INT8 A with a 1-D per-row a_zero_point [M], UINT8 B with a per-column one [N] and a batch of 2: INT32, exact
    (the sums fit in 32 bits)."""
    a = RNG.integers(-128, 128, (2, 3, 6), dtype=np.int8)
    b = RNG.integers(0, 256, (6, 4), dtype=np.uint8)
    inits = {"za": RNG.integers(-128, 128, 3, dtype=np.int8), "zb": RNG.integers(0, 256, 4, dtype=np.uint8)}
    model = _model(
        [helper.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])], {"a": a, "b": b}, {"y": np.int32}, inits
    )
    (got,) = DmlBackend.prepare(model, dml_device=device).run([a, b])
    # ONNX's page: a 1-D a_zero_point is per row, one per M ([D1, D2, M, 1] in N-D); onnx.reference broadcasts it
    # along K instead (NumPy's rule on A), so NumPy computes the page's product here.
    want = np.matmul(np.int64(a) - inits["za"][:, None], np.int64(b) - inits["zb"])
    assert got.dtype == np.int32 and np.array_equal(got, want)


def test_qlinear_matmul_per_row_and_per_column_is_exact(device: Any) -> None:
    """A per row (a_scale and a_zero_point [M]), B per column ([N]), y per tensor, INT8: bit for bit; per tensor, as
    onnx.reference."""
    a = RNG.integers(-128, 128, (3, 7), dtype=np.int8)
    b = RNG.integers(-128, 128, (7, 5), dtype=np.int8)
    inits = {
        "sa": RNG.uniform(0.01, 0.05, 3).astype(np.float32),
        "za": RNG.integers(-5, 5, 3, dtype=np.int8),
        "sb": RNG.uniform(0.01, 0.05, 5).astype(np.float32),
        "zb": RNG.integers(-5, 5, 5, dtype=np.int8),
        "sy": np.float32(0.07),
        "zy": np.int8(3),
    }
    names = ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"]
    model = _model([helper.make_node("QLinearMatMul", names, ["y"])], {"a": a, "b": b}, {"y": np.int8}, inits)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([a, b])
    # onnx.reference broadcasts a 1-D a_scale along K (NumPy's rule) where ONNX's page makes it per row: NumPy
    # computes the page's product in QUANTIZED_LINEAR_MATRIX_MULTIPLY's float32 steps (docs/operators/gemm.md).
    sums = np.matmul(np.int64(a) - inits["za"][:, None], np.int64(b) - inits["zb"]).astype(np.float32)
    product = sums * inits["sa"][:, None] * inits["sb"]
    want = np.clip(np.rint(product / inits["sy"]) + inits["zy"], -128, 127).astype(np.int8)
    assert got.dtype == np.int8 and np.array_equal(got, want)
    inits |= {"sa": np.float32(0.03), "za": np.int8(-2), "sb": np.float32(0.02), "zb": np.int8(1)}
    model = _model([helper.make_node("QLinearMatMul", names, ["y"])], {"a": a, "b": b}, {"y": np.int8}, inits)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([a, b])
    (want,) = ReferenceEvaluator(model).run(None, {"a": a, "b": b})
    assert np.array_equal(got, want)


def test_what_directml_cannot_express_is_refused_saying_why() -> None:
    """Five dimensions (GEMM's tensors have 2 to 4), a zero point that differs per batch index, QLinearMatMul's
    per-column y_scale (DirectML's output scale is per row) and an integer MatMul (GEMM takes floats)."""
    f, g = np.zeros((2, 2, 2, 3, 4), np.float32), np.zeros((2, 2, 2, 4, 3), np.float32)
    model = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": f, "b": g}, {"y": np.float32}, {})
    with pytest.raises(NodeRefused, match=r"its output has 5 dimensions; DirectML's matrix products take 2 to 4"):
        DmlBackend.prepare(model).run([f, g])
    a, b = np.zeros((2, 3, 4), np.uint8), np.zeros((4, 5), np.uint8)
    inits = {"za": np.zeros((2, 3, 1), np.uint8)}
    model = _model(
        [helper.make_node("MatMulInteger", ["a", "b", "za"], ["y"])], {"a": a, "b": b}, {"y": np.int32}, inits
    )
    with pytest.raises(NodeRefused, match=r"a_zero_point 'za' has shape \[2, 3, 1\]; DirectML takes one value or one"):
        DmlBackend.prepare(model).run([a, b])
    names = ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"]
    s, z = np.float32(0.5), np.uint8(0)
    inits = {"sa": s, "za": z, "sb": s, "zb": z, "sy": np.full(5, 0.5, np.float32), "zy": z}
    model = _model([helper.make_node("QLinearMatMul", names, ["y"])], {"a": a[0], "b": b}, {"y": np.uint8}, inits)
    with pytest.raises(NodeRefused, match=r"y_scale 'sy' has shape \[5\]; DirectML takes one value; DirectML's Output"):
        DmlBackend.prepare(model).run([a[0], b])
    i = np.zeros((2, 2), np.int32)
    model = _model([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": i, "b": i}, {"y": np.int32}, {})
    with pytest.raises(
        NodeRefused, match=r"DirectML cannot express it: GEMM.ATensor.DataType is DML_TENSOR_DATA_TYPE_INT32"
    ):
        DmlBackend.prepare(model)
