"""ONNX's poolings through dmlpy.onnx (dmlpy/onnx/pooling.py): ceil_mode, auto_pad, dilations and 1-D to 3-D windows
as DirectML's padding, against onnx.reference: MaxPool's values and INT64 indices exactly (MaxUnpool of them back),
AveragePool, LpPool and the global forms within the pooling bound (docs/operators/pooling.md, evaluated by
tests/helpers/onnx_compute.pooling_bound); the forms DirectML cannot express refused saying why."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_compute import pooling_bound  # noqa: E402

RNG = np.random.default_rng(47)
ELEMENT = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.uint8: TensorProto.UINT8}


def _model(node: Any, x: Any, inits: dict[str, Any] | None = None) -> Any:
    graph = helper.make_graph(
        [node],
        "pooling",
        [helper.make_tensor_value_info("x", ELEMENT[x.dtype.type], list(x.shape))],
        [helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None) for name in node.output],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (inits or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    return onnx.shape_inference.infer_shapes(model)  # onnx.checker asks for the outputs' shapes


def _run(node: Any, x: Any, device: Any) -> tuple[list[Any], list[Any]]:
    model = _model(node, x)
    got = DmlBackend.prepare(model, dml_device=device).run([x])
    want = ReferenceEvaluator(model).run(None, {"x": x})
    for result, expected in zip(got, want, strict=True):
        assert result.dtype == expected.dtype and result.shape == expected.shape, (result.shape, expected.shape)
    return got, want


# SAME_LOWER is the node tests' only (maxpool_2d_same_lower, ...): onnx.reference's output size disagrees with
# ONNX's page and shape inference (ceil(in / stride)) on odd total padding, 7 rows at stride 2 giving 3, not 4.
WINDOWS = [
    ((2, 3, 11), {"kernel_shape": [3], "strides": [2], "ceil_mode": 1}),
    ((1, 2, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "pads": [1, 0, 0, 1], "dilations": [1, 2]}),
    ((1, 2, 7, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 1, 5, 6, 7), {"kernel_shape": [2, 3, 2], "strides": [2, 2, 3], "dilations": [2, 1, 1], "ceil_mode": 1}),
]


@pytest.mark.parametrize(("shape", "attributes"), WINDOWS)
def test_max_pool_values_and_indices_are_onnx_references_and_max_unpool_puts_them_back(
    device: Any, shape: Any, attributes: Any
) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    (values, indices), (want_values, want_indices) = _run(
        helper.make_node("MaxPool", ["x"], ["y", "i"], **attributes), x, device
    )
    assert np.array_equal(values, want_values) and np.array_equal(indices, want_indices)
    assert indices.dtype == np.int64 and np.array_equal(x.reshape(-1)[indices], values)
    if len(shape) == 4 and "dilations" not in attributes and "auto_pad" not in attributes:
        unpool = helper.make_node(
            "MaxUnpool", ["x", "i"], ["u"], kernel_shape=attributes["kernel_shape"], strides=attributes["strides"]
        )
        graph = helper.make_graph(
            [unpool],
            "unpool",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(values.shape))],
            [helper.make_tensor_value_info("u", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(indices, "i")],
        )
        model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)]))
        # A copy: dmlpy's outputs are read-only, and graph_calls binds a read-only array in place (reported).
        (got,) = DmlBackend.prepare(model, dml_device=device).run([values.copy()])
        (want,) = ReferenceEvaluator(model).run(None, {"x": values})
        assert np.array_equal(got, want)


@pytest.mark.parametrize(("shape", "attributes"), WINDOWS)
def test_average_and_lp_pools_lie_within_the_pooling_bound_of_onnx_reference(
    device: Any, shape: Any, attributes: Any
) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    for op_type, extra in (("AveragePool", {}), ("AveragePool", {"count_include_pad": 1}), ("LpPool", {"p": 2})):
        if extra and attributes.get("ceil_mode"):
            continue  # refused: test_what_directml_cannot_express_is_refused_saying_why
        node = helper.make_node(op_type, ["x"], ["y"], **attributes, **extra)
        (got,), (want,) = _run(node, x, device)
        np.testing.assert_allclose(got, want, rtol=0, atol=2 * pooling_bound(node, x), err_msg=op_type)


def test_global_pools_reduce_every_spatial_dimension(device: Any) -> None:
    x = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    for op_type in ("GlobalAveragePool", "GlobalMaxPool"):
        node = helper.make_node(op_type, ["x"], ["y"])
        (got,), (want,) = _run(node, x, device)
        atol = 0 if op_type == "GlobalMaxPool" else 2 * pooling_bound(node, x)
        np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=op_type)
    # onnx.reference has no GlobalLpPool: its p-norm over the spatial axes in float64.
    node = helper.make_node("GlobalLpPool", ["x"], ["y"], p=2)
    (got,) = DmlBackend.prepare(_model(node, x), dml_device=device).run([x])
    want = np.sqrt(np.sum(np.float64(x) ** 2, axis=(2, 3), keepdims=True))
    np.testing.assert_allclose(got, want, rtol=0, atol=pooling_bound(node, x))
    h = RNG.standard_normal((1, 2, 5, 5)).astype(np.float16)
    (got,), (want,) = _run(helper.make_node("GlobalMaxPool", ["x"], ["y"]), h, device)
    assert np.array_equal(got, want)


def test_what_directml_cannot_express_is_refused_saying_why() -> None:
    """Column-major indices; count_include_pad with ceil_mode's extra end padding (ONNX does not count it,
    DirectML's IncludePadding would), refused at the first run, where the shape decides it."""
    x = np.zeros((1, 1, 4, 4), np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], storage_order=1)
    with pytest.raises(NodeRefused, match="storage_order 1: DirectML's MAX_POOLING2 writes row-major indices"):
        DmlBackend.prepare(_model(node, x))
    node = helper.make_node(
        "AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1, count_include_pad=1
    )
    rep = DmlBackend.prepare(_model(node, x))
    with pytest.raises(
        NodeRefused, match=r"count_include_pad 1 with ceil_mode or auto_pad adding end padding \[1, 1\]"
    ):
        rep.run([x])
