"""ONNX opset 21's blocked QuantizeLinear / DequantizeLinear (``block_size``) through dmlpy's ONNX backend, as
DirectML graphs express them: the blocked input read split, (blocks, block) along the axis, the scale and zero
point with the split Sizes and a 0 stride along each block. Results are compared with onnx.reference, bit for
bit; a partial last block takes its own scale and zero point (repeated over each block by a copy and cut to the
axis's length); what one DirectML graph cannot express (a split node's output read whole, more than 8 split
dimensions, a partial block's 4-bit zero point) is refused naming the node and the reason. The blocked node tests
shipped with onnx run in test_onnx_backend.py."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402

F, F16, U8, I8 = onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.UINT8, onnx.TensorProto.INT8


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: list[Any] | None = None) -> Any:
    graph = onnx.helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers or [])
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])


def _tensor(name: str, elem: int, shape: list[int]) -> Any:
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return list(ReferenceEvaluator(model).run(None, feeds))


def _same(got: Any, expected: Any) -> None:
    assert len(got) == len(expected)
    for result, want in zip(got, expected, strict=True):
        assert result.dtype == want.dtype and result.shape == want.shape
        assert result.tobytes() == want.tobytes()


@pytest.mark.parametrize(
    ("shape", "axis", "block_size"),
    [((4, 12), 1, 4), ((8, 3), 0, 2), ((2, 6, 5), -2, 3), ((2, 6, 5), 1, 6)],
    ids=["axis1", "axis0", "axis-2", "one-block"],
)
def test_quantize_then_dequantize_blocked_equals_onnx_reference(
    shape: tuple[int, ...], axis: int, block_size: int
) -> None:
    # The scale and zero point are initializers (weights' usual home), shared by both nodes: each reads them split.
    along = axis % len(shape)
    scale_shape = [n // block_size if d == along else n for d, n in enumerate(shape)]
    rng = np.random.default_rng(1)
    scale = rng.uniform(0.05, 2.0, scale_shape).astype(np.float32)
    zero = rng.integers(-20, 20, scale_shape).astype(np.int8)
    initializers = [onnx.numpy_helper.from_array(scale, "s"), onnx.numpy_helper.from_array(zero, "z")]
    nodes = [
        onnx.helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=axis, block_size=block_size),
        onnx.helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=axis, block_size=block_size),
        onnx.helper.make_node("Round", ["y"], ["r"]),
    ]
    model = _model(
        nodes,
        [_tensor("x", F, list(shape))],
        [_tensor("q", I8, list(shape)), _tensor("r", F, list(shape))],
        initializers,
    )
    x = (rng.standard_normal(shape) * 30).astype(np.float32)
    _same(DmlBackend.prepare(model).run([x]), _reference(model, {"x": x}))


def test_blocked_scale_as_graph_input_and_output_dtype() -> None:
    node = onnx.helper.make_node("QuantizeLinear", ["x", "s"], ["q"], axis=1, block_size=2, output_dtype=U8)
    model = _model([node], [_tensor("x", F16, [3, 4]), _tensor("s", F16, [3, 2])], [_tensor("q", U8, [3, 4])])
    x = (np.random.default_rng(2).standard_normal((3, 4)) * 50).astype(np.float16)
    s = np.array([[0.5, 1.0], [2.0, 0.25], [1.5, 3.0]], np.float16)
    _same(DmlBackend.prepare(model).run([x, s]), _reference(model, {"x": x, "s": s}))


def test_a_one_value_scale_is_per_tensor_whatever_block_size() -> None:
    # onnx.reference reads a one-element scale as one value, block_size or not; so does dmlpy.
    node = onnx.helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=1, block_size=2)
    model = _model([node], [_tensor("x", U8, [2, 4]), _tensor("s", F, [1, 1])], [_tensor("y", F, [2, 4])])
    x = np.arange(8, dtype=np.uint8).reshape(2, 4)
    s = np.array([[0.5]], np.float32)
    _same(DmlBackend.prepare(model).run([x, s]), _reference(model, {"x": x, "s": s}))


def _blocked(op_type: str, x_shape: list[int], scale_shape: list[int], axis: int, block_size: int) -> Any:
    node = onnx.helper.make_node(op_type, ["x", "s"], ["y"], axis=axis, block_size=block_size)
    x_type, y_type = (F, U8) if op_type == "QuantizeLinear" else (U8, F)
    return _model(
        [node], [_tensor("x", x_type, x_shape), _tensor("s", F, scale_shape)], [_tensor("y", y_type, x_shape)]
    )


@pytest.mark.parametrize(
    ("shape", "axis", "block_size", "zero_type"),
    [((3, 10), 1, 4, I8), ((10, 3), 0, 4, U8), ((2, 7, 3), 1, 32, I8), ((4, 9), 1, 2, None)],
    ids=["axis1", "axis0", "one-partial-block", "no-zero-point"],
)
def test_a_partial_last_block_takes_its_own_scale_as_onnx_reference(
    device: Any, shape: tuple[int, ...], axis: int, block_size: int, zero_type: int | None
) -> None:
    """The last block shorter than block_size (10 = 4 + 4 + 2), its scale and zero point its own: each value
    repeated over its block and cut to the axis's length, as onnx.reference; QuantizeLinear then DequantizeLinear,
    a computed x between element-wise nodes, bit for bit."""
    along = axis % len(shape)
    scale_shape = [-(-n // block_size) if d == along else n for d, n in enumerate(shape)]
    rng = np.random.default_rng(3)
    scale = rng.uniform(0.05, 2.0, scale_shape).astype(np.float32)
    initializers = [onnx.numpy_helper.from_array(scale, "s")]
    names = ["s"]
    if zero_type is not None:
        low = -20 if zero_type == I8 else 0
        zero = rng.integers(low, 20, scale_shape).astype(np.int8 if zero_type == I8 else np.uint8)
        initializers.append(onnx.numpy_helper.from_array(zero, "z"))
        names.append("z")
    q_type = zero_type if zero_type is not None else U8
    nodes = [
        onnx.helper.make_node("Neg", ["x"], ["n"]),
        onnx.helper.make_node("QuantizeLinear", ["n", *names], ["q"], axis=axis, block_size=block_size),
        onnx.helper.make_node("DequantizeLinear", ["q", *names], ["y"], axis=axis, block_size=block_size),
        onnx.helper.make_node("Abs", ["y"], ["r"]),
    ]
    model = _model(
        nodes,
        [_tensor("x", F, list(shape))],
        [_tensor("q", q_type, list(shape)), _tensor("r", F, list(shape))],
        initializers,
    )
    x = (rng.standard_normal(shape) * 30).astype(np.float32)
    _same(DmlBackend.prepare(model, dml_device=device).run([x]), _reference(model, {"x": x}))


def test_a_partial_last_block_with_a_4_bit_zero_point_is_refused_saying_why() -> None:
    """Its zero point would be repeated over each block by an ELEMENT_WISE_IDENTITY copy, which takes no INT4."""
    zero = onnx.helper.make_tensor("z", onnx.TensorProto.INT4, [3, 3], [1] * 9)
    node = onnx.helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1, block_size=4)
    x_value = onnx.helper.make_tensor("x", onnx.TensorProto.INT4, [3, 10], [2] * 30)
    model = _model([node], [_tensor("s", F, [3, 3])], [_tensor("y", F, [3, 10])], [x_value, zero])
    rep = DmlBackend.prepare(model)
    with pytest.raises(NodeRefused, match=r"its last block is partial, and its INT4 zero point would be repeated"):
        rep.run([np.ones((3, 3), np.float32)])


def test_scale_shapes_onnx_does_not_take_are_refused() -> None:
    rep = DmlBackend.prepare(_blocked("DequantizeLinear", [3, 8], [3, 3], 1, 4))
    with pytest.raises(dml.InvalidArgumentError, match=r"scale has shape \(3, 3\); with axis 1 and block_size 4"):
        rep.run([np.zeros((3, 8), np.uint8), np.ones((3, 3), np.float32)])


def test_more_than_eight_split_dimensions_are_refused() -> None:
    shape, scale_shape = [2] * 7 + [4], [2] * 7 + [2]
    rep = DmlBackend.prepare(_blocked("DequantizeLinear", shape, scale_shape, 7, 2))
    with pytest.raises(NodeRefused, match=r"DirectML cannot express it: .* into 9 dimensions"):
        rep.run([np.zeros(shape, np.uint8), np.ones(scale_shape, np.float32)])


@pytest.mark.parametrize("second", ["per_axis", "other_blocks"])
def test_a_split_output_read_another_way_is_read_through_a_view(second: str) -> None:
    """A node's output computed split (blocked quantization's Sizes) is read whole or split another way through a
    view of the same packed bytes (DirectML's reinterpretation of an edge)."""
    scales = [onnx.numpy_helper.from_array(np.ones((2, 4), np.float32), "s")]
    if second == "per_axis":
        scales.append(onnx.numpy_helper.from_array(np.ones(2, np.float32), "t"))
        then = onnx.helper.make_node("QuantizeLinear", ["y", "t"], ["q"], axis=0)
    else:
        scales.append(onnx.numpy_helper.from_array(np.ones((2, 2), np.float32), "t"))
        then = onnx.helper.make_node("QuantizeLinear", ["y", "t"], ["q"], axis=1, block_size=4)
    nodes = [onnx.helper.make_node("DequantizeLinear", ["x", "s"], ["y"], axis=1, block_size=2), then]
    model = _model(nodes, [_tensor("x", U8, [2, 8])], [_tensor("q", U8, [2, 8])], scales)
    feeds = {"x": np.random.default_rng(7).integers(0, 256, (2, 8), dtype=np.uint8)}
    _same(DmlBackend.prepare(model).run(feeds), _reference(model, feeds))


def test_a_one_value_zero_point_is_broadcast_over_the_blocks() -> None:
    node = onnx.helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1, block_size=2)
    inputs = [_tensor("x", F, [3, 4]), _tensor("s", F, [3, 2]), _tensor("z", I8, [1])]
    model = _model([node], inputs, [_tensor("y", I8, [3, 4])])
    feeds = {
        "x": (np.random.default_rng(5).standard_normal((3, 4)) * 30).astype(np.float32),
        "s": np.array([[0.5, 1.0], [2.0, 0.25], [1.5, 3.0]], np.float32),
        "z": np.array([-7], np.int8),
    }
    _same(DmlBackend.prepare(model).run(feeds), _reference(model, feeds))
