"""ONNX's Conv, ConvTranspose, ConvInteger and QLinearConv through dmlpy.onnx (dmlpy/onnx/convolution.py), on forms
ONNX's node tests leave out, against onnx.reference: Conv in 1-D, 2-D and 3-D with strides, dilations, asymmetric
pads, groups (depth-wise), bias and every auto_pad; ConvTranspose with output_shape (past its reach too), pads and
SAME_LOWER (its groups: the node tests; onnx.reference's grouped form fails on others); floats within
CONVOLUTION's bound (docs/operators/convolution.md, ``convolution_bound``), the integer forms (1-D read as 2-D,
per-channel filter zero points and scales, mixed signedness) exactly; two convolutions and a Relu as one graph; and
the forms DirectML does not express refused saying why."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_convolution import convolution_bound  # noqa: E402

ELEMENT = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.uint8): TensorProto.UINT8}
ELEMENT |= {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.int32): TensorProto.INT32}


def _model(op_type: str, inputs: dict[str, Any], output_type: int, **attributes: Any) -> Any:
    """A one-node model of ``op_type`` on ``inputs`` (name -> array, every one a graph input; None: left out)."""
    names = [name if value is not None else "" for name, value in inputs.items()]
    node = helper.make_node(op_type, names, ["y"], **attributes)
    values = [
        helper.make_tensor_value_info(name, ELEMENT[np.asarray(value).dtype], np.shape(value))
        for name, value in inputs.items()
        if value is not None
    ]
    y = helper.make_tensor_value_info("y", output_type, None)
    graph = helper.make_graph([node], "g", values, [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _declared(model: Any, shape: tuple[int, ...]) -> Any:
    """``model`` with its output declared of ``shape`` (onnx.checker asks for a shape)."""
    (y,) = model.graph.output
    y.CopyFrom(helper.make_tensor_value_info("y", y.type.tensor_type.elem_type, shape))
    return model


def _run(model: Any, inputs: dict[str, Any], device: Any) -> tuple[Any, Any]:
    """dmlpy's result and onnx.reference's (an integer 1-D one: onnx.reference's of the same node read as 2-D,
    (N, C, 1, W), its 1 dropped: onnx.reference's ConvInteger and QLinearConv take 2-D windows only)."""
    given = {name: value for name, value in inputs.items() if value is not None}
    (node,) = model.graph.node
    if node.op_type in ("ConvInteger", "QLinearConv") and np.ndim(given["x"]) == 3:
        as_2d = onnx.ModelProto()
        as_2d.CopyFrom(model)
        for attribute in as_2d.graph.node[0].attribute:
            if attribute.name == "pads":
                attribute.ints[:] = [0, attribute.ints[0], 0, attribute.ints[1]]
            elif attribute.name == "strides":
                attribute.ints[:] = [1, *attribute.ints]
        spatial = {"x", "w"}
        (want,) = ReferenceEvaluator(as_2d).run(
            None, {k: v[:, :, None] if k in spatial else v for k, v in given.items()}
        )
        want = want[:, :, 0]
    else:
        (want,) = ReferenceEvaluator(model).run(None, given)
    (got,) = DmlBackend.prepare(_declared(model, want.shape), dml_device=device).run(list(given.values()))
    return got, want


FLOAT_CASES = {
    "conv_1d_strides_dilations": ("Conv", (2, 3, 11), (4, 3, 3), {"strides": [2], "dilations": [2], "pads": [1, 2]}),
    "conv_2d_asymmetric_pads": ("Conv", (1, 4, 6, 5), (3, 4, 3, 2), {"pads": [0, 1, 2, 0], "strides": [1, 2]}),
    "conv_2d_depthwise": ("Conv", (1, 4, 5, 5), (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}),
    "conv_2d_groups": ("Conv", (2, 6, 5, 4), (4, 3, 2, 2), {"group": 2}),
    "conv_2d_same_lower": ("Conv", (1, 2, 7, 6), (2, 2, 4, 3), {"auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    "conv_2d_same_upper": ("Conv", (1, 2, 7, 6), (2, 2, 4, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 1]}),
    "conv_2d_valid": ("Conv", (1, 2, 7, 6), (2, 2, 3, 3), {"auto_pad": "VALID", "pads": [1, 1, 1, 1]}),
    "conv_3d": ("Conv", (1, 2, 4, 5, 3), (3, 2, 2, 3, 2), {"pads": [1, 0, 1, 0, 1, 1], "dilations": [1, 2, 1]}),
    "transpose_1d_strides_pads": ("ConvTranspose", (1, 3, 5), (3, 2, 3), {"strides": [2], "pads": [1, 0]}),
    "transpose_2d_output_shape": (
        "ConvTranspose",
        (1, 2, 3, 4),
        (2, 3, 3, 3),
        {"strides": [2, 2], "output_shape": [6, 9], "auto_pad": "SAME_UPPER"},
    ),
    "transpose_2d_pads": ("ConvTranspose", (1, 2, 3, 3), (2, 3, 2, 3), {"pads": [1, 0, 0, 1], "strides": [2, 1]}),
    "transpose_2d_same_lower_dilations": (
        "ConvTranspose",
        (1, 2, 4, 3),
        (2, 2, 3, 2),
        {"auto_pad": "SAME_LOWER", "strides": [2, 3], "dilations": [2, 1]},
    ),
}
"""Each float case: op type, X's and W's shapes, the attributes."""


@pytest.mark.parametrize("bias", [False, True], ids=["no_bias", "bias"])
@pytest.mark.parametrize("case", sorted(FLOAT_CASES))
def test_conv_and_conv_transpose_lie_within_the_bound_of_onnx_reference(device: Any, case: str, bias: bool) -> None:
    op_type, x_shape, w_shape, attributes = FLOAT_CASES[case]
    rng = np.random.default_rng(len(case))
    group = attributes.get("group", 1)
    channels = w_shape[1] * group if op_type == "ConvTranspose" else w_shape[0]
    inputs = {
        "x": rng.standard_normal(x_shape).astype(np.float32),
        "w": rng.standard_normal(w_shape).astype(np.float32),
        "b": rng.standard_normal(channels).astype(np.float32) if bias else None,
    }
    model = _model(op_type, inputs, TensorProto.FLOAT, **attributes)
    got, want = _run(model, inputs, device)
    assert got.shape == want.shape and got.dtype == np.float32
    exact = ReferenceEvaluator(model).run(None, {k: np.float64(v) for k, v in inputs.items() if v is not None})[0]
    bound = convolution_bound(model, [v for v in inputs.values() if v is not None])
    assert np.all(np.abs(got - exact) <= bound), np.max(np.abs(got - exact) - bound)


def test_conv_transpose_output_shape_beyond_its_reach_is_bias_there(device: Any) -> None:
    """An output_shape one past what the transposed convolution reaches: the extra end is OutputPadding (ONNX's
    formula gives end padding -1), holding the bias alone, as onnx.reference's col2im leaves it."""
    rng = np.random.default_rng(3)
    inputs = {
        "x": rng.standard_normal((1, 1, 3)).astype(np.float32),
        "w": rng.standard_normal((1, 1, 2)).astype(np.float32),
        "b": np.array([0.5], np.float32),
    }
    model = _declared(_model("ConvTranspose", inputs, TensorProto.FLOAT, output_shape=[5]), (1, 1, 5))
    (got,) = DmlBackend.prepare(model, dml_device=device).run(list(inputs.values()))
    # onnx.reference's col2im takes no output past the reach: its output of the reach (4), and the bias after it.
    (reached,) = ReferenceEvaluator(_model("ConvTranspose", inputs, TensorProto.FLOAT)).run(None, inputs)
    want = np.concatenate([reached, np.full((1, 1, 1), 0.5, np.float32)], axis=2)
    assert got.shape == want.shape == (1, 1, 5) and got[0, 0, -1] == 0.5
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


INTEGER_TYPES = [(np.uint8, np.uint8), (np.int8, np.int8), (np.uint8, np.int8), (np.int8, np.uint8)]


def _integers(rng: Any, dtype: Any, shape: tuple[int, ...]) -> Any:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize(("x_type", "w_type"), INTEGER_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("spatial", [(9,), (5, 6)], ids=["1d", "2d"])
def test_conv_integer_is_onnx_references_exactly(
    device: Any, spatial: tuple[int, ...], x_type: Any, w_type: Any
) -> None:
    """1-D read as (N, C, 1, W); a per-output-channel w_zero_point, pads, strides and groups."""
    rng = np.random.default_rng(7)
    rank = len(spatial)
    inputs = {
        "x": _integers(rng, x_type, (2, 4, *spatial)),
        "w": _integers(rng, w_type, (6, 2, *(3,) * rank)),
        "x_zero_point": _integers(rng, x_type, ()),
        "w_zero_point": _integers(rng, w_type, (6,)),
    }
    attributes = {"group": 2, "pads": [1] * rank + [0] * rank, "strides": [2] * rank}
    model = _model("ConvInteger", inputs, TensorProto.INT32, **attributes)
    got, want = _run(model, inputs, device)
    assert got.dtype == np.int32 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("output_type", [np.uint8, np.int8], ids=["uint8", "int8"])
@pytest.mark.parametrize("spatial", [(8,), (5, 4)], ids=["1d", "2d"])
def test_qlinear_conv_per_channel_with_bias_is_onnx_references(
    device: Any, spatial: tuple[int, ...], output_type: Any
) -> None:
    """Per-channel w_scale and w_zero_point, an INT32 bias; the result equal to onnx.reference's, or one step off
    where the value lies within float32 rounding of a half (onnx.reference rounds a float64 product, DirectML's
    operator a float32 one: docs/operators/convolution.md)."""
    rng = np.random.default_rng(11)
    rank = len(spatial)
    x = _integers(rng, np.uint8, (1, 3, *spatial))
    w = _integers(rng, np.int8, (4, 3, *(2,) * rank))
    inputs = {
        "x": x,
        "x_scale": np.float32(0.02),
        "x_zero_point": np.uint8(120),
        "w": w,
        "w_scale": rng.uniform(0.002, 0.01, 4).astype(np.float32),
        "w_zero_point": np.zeros(4, np.int8),
        "y_scale": np.float32(0.05),
        "y_zero_point": output_type(3),
        "b": rng.integers(-2000, 2000, 4).astype(np.int32),
    }
    model = _model("QLinearConv", inputs, ELEMENT[np.dtype(output_type)], pads=[1] * 2 * rank)
    got, want = _run(model, inputs, device)
    assert got.dtype == output_type and got.shape == want.shape
    off = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert off.max() <= 1 and np.count_nonzero(off) <= max(1, off.size // 100), off


def test_two_convolutions_and_a_relu_run_as_one_graph(device: Any) -> None:
    """Conv -> Relu -> Conv (its W an initializer): the ONNX graph lowers to one DirectML graph."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w1 = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    w2 = rng.standard_normal((2, 3, 1, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r"]),
        helper.make_node("Conv", ["r", "w2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 2, 6, 6))],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x])
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    # Each convolution within its bound (K <= 27 terms), the second's inputs off by the first's error.
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * float(np.max(np.abs(want))))


def test_forms_directml_does_not_express_are_refused_saying_why() -> None:
    rng = np.random.default_rng(2)
    cases = [
        (
            "ConvInteger",
            {"x": _integers(rng, np.uint8, (1, 1, 3, 3, 3)), "w": _integers(rng, np.uint8, (1, 1, 2, 2, 2))},
            TensorProto.INT32,
            {},
            "a 3-D convolution has no integer DirectML form",
        ),
        (
            "ConvInteger",
            {
                "x": _integers(rng, np.uint8, (1, 2, 3, 3)),
                "w": _integers(rng, np.uint8, (2, 2, 2, 2)),
                "x_zero_point": np.array([1, 2], np.uint8),
            },
            TensorProto.INT32,
            {},
            "x_zero_point 'x_zero_point' has shape [2]; DirectML's integer convolutions take one value",
        ),
        (
            "ConvTranspose",
            {"x": np.ones((1, 1, 3), np.float32), "w": np.ones((1, 1, 2), np.float32)},
            TensorProto.FLOAT,
            {"output_shape": [7]},
            "needs start padding -1",
        ),
    ]
    for op_type, inputs, output_type, attributes, reason in cases:
        model = _declared(_model(op_type, inputs, output_type, **attributes), ())
        with pytest.raises(NodeRefused, match=reason.replace("[", r"\[").replace("]", r"\]")):
            DmlBackend.prepare(model).run(list(inputs.values()))
