"""Blocked quantization through the one-liners: ONNX's form (``axis`` + ``block_size``, the last block possibly
partial) against onnx.reference's QuantizeLinear / DequantizeLinear at opset 21, and WebNN's form (a scale of the
input's rank: broadcast, per element or per block along any axes) against the exact oracle (quantize_oracle, no
dmlpy code) given the scale repeated over its blocks with NumPy. Views run where they lie: non-contiguous inputs,
``out=`` views, masked arrays, pyopencl arrays; shapes neither form takes are refused naming the rule."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl.array as cl_array
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx.reference import ReferenceEvaluator  # noqa: E402

F32, F16, U8, I8 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.uint8), np.dtype(np.int8)


def _onnx_reference(op_type: str, x: Any, scale: Any, zero_point: Any, axis: int, block_size: int) -> Any:
    """onnx.reference's ``op_type`` at opset 21 with ``axis`` and ``block_size``."""
    names = ["x", "scale"] + ([] if zero_point is None else ["zero_point"])
    arrays = [x, scale] + ([] if zero_point is None else [zero_point])
    node = onnx.helper.make_node(op_type, names, ["y"], axis=axis, block_size=block_size)
    inputs = [
        onnx.helper.make_tensor_value_info(n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in zip(names, arrays, strict=True)
    ]
    graph = onnx.helper.make_graph([node], "g", inputs, [onnx.helper.make_tensor_value_info("y", 0, None)])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model).run(None, dict(zip(names, arrays, strict=True)))[0]


def _floats(shape: tuple[int, ...], seed: int, dtype: np.dtype[Any] = F32) -> npt.NDArray[Any]:
    return (np.random.default_rng(seed).standard_normal(shape) * 40).astype(dtype)


def _scales(shape: tuple[int, ...], seed: int, dtype: np.dtype[Any] = F32) -> npt.NDArray[Any]:
    return np.random.default_rng(seed).uniform(0.05, 2.0, shape).astype(dtype)


def _integers(shape: tuple[int, ...], seed: int, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    limits = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(limits.min, limits.max, shape, endpoint=True).astype(dtype)


def _repeated(parameter: npt.NDArray[Any], shape: tuple[int, ...]) -> npt.NDArray[Any]:
    """WebNN's scale of ``shape``'s rank as one value per element of ``shape``: each entry repeated over its
    block (NumPy's repeat, then broadcast where the scale has 1)."""
    for axis, (length, count) in enumerate(zip(shape, parameter.shape, strict=True)):
        if count not in (1, length):
            parameter = np.repeat(parameter, length // count, axis=axis)
    return np.broadcast_to(parameter, shape)


def _onnx_scale_shape(shape: tuple[int, ...], axis: int, block_size: int) -> tuple[int, ...]:
    return tuple(-(-n // block_size) if d == axis % len(shape) else n for d, n in enumerate(shape))


ONNX_CASES = [
    pytest.param((3, 12), 1, 4, id="3x12-axis1-block4"),
    pytest.param((3, 10), 1, 3, id="3x10-axis1-block3-partial"),
    pytest.param((9, 4), 0, 2, id="9x4-axis0-block2-partial"),
    pytest.param((2, 5, 6), -1, 6, id="2x5x6-axis-1-one-block"),
    pytest.param((2, 5, 6), 1, 7, id="2x5x6-axis1-block7-only-partial"),
    pytest.param((11,), 0, 4, id="11-axis0-block4-partial"),
    pytest.param((2, 3, 4, 8), 3, 1, id="block1-per-element"),
]


@pytest.mark.parametrize(("shape", "axis", "block_size"), ONNX_CASES)
@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
@pytest.mark.parametrize("out_dtype", [U8, I8], ids=["uint8", "int8"])
@pytest.mark.parametrize("with_zero_point", [True, False], ids=["zero_point", "no_zero_point"])
def test_onnx_form_quantize_equals_onnx_reference(
    shape: tuple[int, ...], axis: int, block_size: int, dtype: Any, out_dtype: Any, with_zero_point: bool
) -> None:
    x = _floats(shape, 1, dtype)
    scale = _scales(_onnx_scale_shape(shape, axis, block_size), 2, dtype)
    zero_point = _integers(scale.shape, 3, out_dtype) if with_zero_point else None
    got = dml.quantize_linear(x, scale, zero_point, axis, out_dtype, block_size=block_size)
    if zero_point is None:  # onnx.reference's output_dtype attribute: the output type with no zero point
        zero = np.zeros(scale.shape, out_dtype)
        expected = _onnx_reference("QuantizeLinear", x, scale, zero, axis, block_size)
    else:
        expected = _onnx_reference("QuantizeLinear", x, scale, zero_point, axis, block_size)
    assert got.dtype == out_dtype and got.shape == shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("shape", "axis", "block_size"), ONNX_CASES)
@pytest.mark.parametrize("dtype", [U8, I8], ids=["uint8", "int8"])
@pytest.mark.parametrize("with_zero_point", [True, False], ids=["zero_point", "no_zero_point"])
def test_onnx_form_dequantize_equals_onnx_reference(
    shape: tuple[int, ...], axis: int, block_size: int, dtype: Any, with_zero_point: bool
) -> None:
    x = _integers(shape, 4, dtype)
    scale = _scales(_onnx_scale_shape(shape, axis, block_size), 5)
    zero_point = _integers(scale.shape, 6, dtype) if with_zero_point else None
    got = dml.dequantize_linear(x, scale, zero_point, axis, block_size=block_size)
    expected = _onnx_reference("DequantizeLinear", x, scale, zero_point, axis, block_size)
    assert got.dtype == F32
    np.testing.assert_array_equal(got, expected)


def test_onnx_form_float16_dequantize_equals_the_oracle() -> None:
    # A float16 scale: the exact product rounded to float32, then to float16 (the oracle's rule).
    x = _integers((4, 9), 7, I8)
    scale = _scales((4, 3), 8, F16)
    zero_point = _integers((4, 3), 9, I8)
    got = dml.dequantize_linear(x, scale, zero_point, axis=1, block_size=3)
    expected = oracle.dequantize(x, _repeated(scale, x.shape), _repeated(zero_point, x.shape))
    assert got.dtype == F16
    np.testing.assert_array_equal(got, expected)


def test_per_block_on_a_non_contiguous_input() -> None:
    base = _floats((12, 10), 10)
    x = base.T[::2]  # (5, 12), strides (8, 40) bytes: neither C- nor F-contiguous
    assert not x.flags.c_contiguous and not x.flags.f_contiguous
    scale = _scales((5, 3), 11)
    zero_point = _integers((5, 3), 12, U8)
    got = dml.quantize_linear(x, scale, zero_point, axis=1, block_size=4)
    np.testing.assert_array_equal(got, _onnx_reference("QuantizeLinear", x.copy(), scale, zero_point, 1, 4))
    partial = x[:, :11]  # blocks of 4, 4 and 3
    got = dml.quantize_linear(partial, scale, zero_point, axis=1, block_size=4)
    np.testing.assert_array_equal(got, _onnx_reference("QuantizeLinear", partial.copy(), scale, zero_point, 1, 4))
    q = _integers((12, 10), 13, I8).T[::2]
    got = dml.dequantize_linear(q, scale, axis=1, block_size=4)
    np.testing.assert_array_equal(got, _onnx_reference("DequantizeLinear", q.copy(), scale, None, 1, 4))


@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
def test_webnn_form_blocks_along_two_axes(dtype: Any) -> None:
    x = _floats((6, 8), 14, dtype)
    scale = _scales((3, 2), 15, dtype)  # blocks of 2 x 4
    zero_point = _integers((3, 2), 16, I8)
    got = dml.quantize_linear(x, scale, zero_point)
    expected = oracle.quantize(x, _repeated(scale, x.shape), _repeated(zero_point, x.shape), out_dtype=I8)
    np.testing.assert_array_equal(got, expected)
    # onnx.reference blocks one axis at a time: the same answer as two blocked axes, row block by row block.
    for row in range(3):
        rows = slice(2 * row, 2 * row + 2)
        one_axis = _onnx_reference(
            "QuantizeLinear",
            x[rows],
            np.repeat(scale[row : row + 1], 2, 0),
            np.repeat(zero_point[row : row + 1], 2, 0),
            1,
            4,
        )
        np.testing.assert_array_equal(got[rows], one_axis)
    back = dml.dequantize_linear(got, scale.astype(F32), zero_point)
    np.testing.assert_array_equal(
        back, oracle.dequantize(got, _repeated(scale.astype(F32), x.shape), _repeated(zero_point, x.shape))
    )


def test_webnn_form_mixes_broadcast_per_element_and_blocks() -> None:
    x = _floats((4, 6, 10), 17)
    scale = _scales((1, 3, 10), 18)  # broadcast along 0, blocks of 2 along 1, per element along 2
    got = dml.quantize_linear(x, scale, np.uint8(128))
    np.testing.assert_array_equal(got, oracle.quantize(x, _repeated(scale, x.shape), 128, out_dtype=U8))
    per_element = _scales(x.shape, 19)
    np.testing.assert_array_equal(dml.quantize_linear(x, per_element), oracle.quantize(x, per_element))


def test_out_views_keep_the_bytes_between_their_elements() -> None:
    x = _floats((4, 12), 20)
    scale = _scales((4, 3), 21)
    memory = np.full((4, 24), 7, U8)
    out = memory[:, ::2]
    assert dml.quantize_linear(x, scale, axis=1, block_size=4, out=out) is out
    np.testing.assert_array_equal(out, oracle.quantize(x, _repeated(scale, x.shape)))
    assert (memory[:, 1::2] == 7).all()
    partial = np.full((4, 11), 7, U8)
    dml.quantize_linear(x[:, :11], scale, axis=1, block_size=4, out=partial)
    np.testing.assert_array_equal(partial, oracle.quantize(x[:, :11], _repeated(scale, x.shape)[:, :11]))


def test_masked_input_keeps_its_mask() -> None:
    data = _floats((2, 8), 22)
    mask = np.zeros(data.shape, bool)
    mask[0, 3] = mask[1, 7] = True
    x = np.ma.masked_array(data, mask)
    scale = _scales((2, 2), 23)
    got = dml.quantize_linear(x, scale)
    assert isinstance(got, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), mask)
    np.testing.assert_array_equal(np.ma.getdata(got), oracle.quantize(data, _repeated(scale, data.shape)))


def test_pyopencl_arrays_run_blocked_on_the_device(device: Any) -> None:
    x = _floats((6, 10), 24)
    scale = _scales((6, 3), 25)
    zero_point = _integers((6, 3), 26, U8)
    on_device = cl_array.to_device(device.queue, x)
    got = dml.quantize_linear(on_device, scale, zero_point, axis=1, block_size=4, device=device)
    assert isinstance(got, cl_array.Array) and got.shape == x.shape and got.events
    np.testing.assert_array_equal(got.get(), _onnx_reference("QuantizeLinear", x, scale, zero_point, 1, 4))
    columns = on_device[:, 2:]  # a view at an offset: blocks of 4 and 4
    out = cl_array.zeros(device.queue, (6, 8), np.float32)
    webnn = _scales((3, 2), 27)
    dml.dequantize_linear(dml.quantize_linear(columns, webnn, device=device), webnn, out=out, device=device)
    q = oracle.quantize(x[:, 2:], _repeated(webnn, (6, 8)))
    np.testing.assert_array_equal(out.get(), oracle.dequantize(q, _repeated(webnn, (6, 8))))


def test_blocked_rounding_modes_run_the_extension() -> None:
    x = (np.arange(24, dtype=np.float32).reshape(2, 12) - 11.5) / 2
    scale = np.array([[0.5, 1.0, 2.0], [1.0, 0.25, 4.0]], np.float32)
    got = dml.quantize_linear(x, scale, np.int8(0), mode="ROUND_UP", axis=1, block_size=4)
    expected = oracle.quantize(x, _repeated(scale, x.shape), 0, out_dtype=I8, mode="UP")
    np.testing.assert_array_equal(got, expected)


def test_refusals_name_the_rule() -> None:
    x = np.zeros((4, 6), F32)
    with pytest.raises(dml.InvalidArgumentError, match=r"scale has 4 entries along axis 1, where the input") as error:
        dml.quantize_linear(x, np.ones((4, 4), F32))
    assert "must be 1, the input's own, or a divisor of it" in str(error.value)
    assert "one of [1, 2, 3, 6] entries" in str(error.value)
    eight = np.zeros((2, 2, 2, 2, 2, 2, 4, 4), F32)
    with pytest.raises(dml.InvalidArgumentError, match=r"into 10 dimensions") as error:
        dml.quantize_linear(eight, np.ones((2, 2, 2, 2, 2, 2, 2, 2), F32))
    assert "take at most 8" in str(error.value)
    with pytest.raises(dml.InvalidArgumentError, match=r"into 9 dimensions"):  # one blocked axis of eight
        dml.quantize_linear(eight, np.ones((1, 1, 1, 1, 1, 1, 4, 2), F32))
    with pytest.raises(dml.InvalidArgumentError, match=r"must have shape \(4, 2\)"):
        dml.quantize_linear(x, np.ones((4, 3), F32), axis=1, block_size=4)
    with pytest.raises(dml.InvalidArgumentError, match=r"zero_point has shape \(4,\)"):
        dml.quantize_linear(x, np.ones((4, 2), F32), np.zeros(4, U8))
    with pytest.raises(dml.InvalidArgumentError, match="takes no axis"):
        dml.dequantize_linear(np.zeros((4, 6), U8), np.ones((4, 2), F32), axis=1)


def test_seven_dimensions_with_one_blocked_axis_fit_eight() -> None:
    x = _floats((2, 1, 3, 1, 2, 1, 8), 28)
    scale = _scales((2, 1, 1, 1, 1, 1, 2), 29)
    np.testing.assert_array_equal(dml.quantize_linear(x, scale), oracle.quantize(x, _repeated(scale, x.shape)))


def test_dask_arrays_refuse_per_block_values() -> None:
    da = pytest.importorskip("dask.array")
    x = da.zeros((4, 6), chunks=2, dtype=np.float32)
    with pytest.raises(dml.InvalidArgumentError, match=r"^scale has shape \(4, 2\): a scale per block"):
        dml.quantize_linear(x, np.ones((4, 2), F32))
    with pytest.raises(dml.InvalidArgumentError, match=r"^block_size is 3: a scale per block"):
        dml.dequantize_linear(x.astype(np.uint8), np.ones((4, 2), F32), axis=1, block_size=3)


def test_a_block_size_with_a_one_number_scale_is_refused_not_ignored() -> None:
    # ONNX reads block_size only in its blocked form, whose scale has x's rank (ceil(D / block_size) along axis);
    # one number applies to the whole tensor, so block_size would go unread (onnx.reference ignores it).
    one_number = r"^block_size is 4, but scale is one number, which applies to the whole tensor and would leave "
    x = _floats((3, 10), 30)
    for scale in (0.5, np.float32(0.5)):
        with pytest.raises(dml.InvalidArgumentError, match=one_number + r".*pass block_size=None for one scale"):
            dml.quantize_linear(x, scale, block_size=4)
    with pytest.raises(dml.InvalidArgumentError, match=one_number):
        dml.dequantize_linear(np.zeros((3, 10), U8), 0.5, axis=0, block_size=4)
    # One value of x's rank is read as ONNX's blocked form: refused where that needs more blocks, run where it
    # is the one block.
    with pytest.raises(
        dml.InvalidArgumentError, match=r"block_size 4 \(ONNX's blocked form\) it must have shape \(3, 3\)"
    ):
        dml.quantize_linear(x, np.full((1, 1), 0.5, F32), np.full((1, 1), 3, U8), axis=1, block_size=4)
    one_block, scale = _floats((1, 3), 31), np.full((1, 1), 0.5, F32)
    got = dml.quantize_linear(one_block, scale, axis=1, block_size=4)
    np.testing.assert_array_equal(got, _onnx_reference("QuantizeLinear", one_block, scale, np.zeros((1, 1), U8), 1, 4))


@pytest.mark.parametrize("count", [12, 1, 3], ids=["per-element", "one-value", "blocks-of-4"])
def test_a_1d_input_reads_a_1d_scale_with_no_axis_as_webnn_does(count: int) -> None:
    # ONNX's default axis, 1, does not exist in a 1-D input: WebNN's reading (the scale of x's rank: x's size, 1
    # or a divisor of it) is the only one left.
    x = _floats((12,), 33)
    scale, zero_point = _scales((count,), 34), _integers((count,), 35, I8)
    got = dml.quantize_linear(x, scale, zero_point)
    scales, zero_points = np.repeat(scale, 12 // count), np.repeat(zero_point, 12 // count).astype(np.int64)
    want = np.clip(np.rint(x / scales).astype(np.int64) + zero_points, -128, 127).astype(I8)
    assert got.dtype == I8
    np.testing.assert_array_equal(got, want)
    back = dml.dequantize_linear(got, scale, zero_point)
    np.testing.assert_array_equal(back, (got.astype(np.int64) - zero_points).astype(F32) * scales)


def test_a_1d_input_refuses_what_neither_reading_takes() -> None:
    x = _floats((12,), 36)
    with pytest.raises(
        dml.InvalidArgumentError, match=r"^scale has 5 entries along axis 0, where the input \(shape \(12,\)\)"
    ):
        dml.quantize_linear(x, _scales((5,), 37))
    # axis= given is ONNX's per-axis form, one value per index: blocks need block_size.
    with pytest.raises(dml.InvalidArgumentError, match=r"^scale has 3 values but the input's axis 0 has 12 entries"):
        dml.quantize_linear(x, _scales((3,), 38), axis=0)


def test_an_out_over_the_input_memory_reads_the_input_as_it_was(device: Any) -> None:
    # The partial last block is a second dispatch: the first must not overwrite what it reads.
    x = _floats((3, 10), 31)
    before = x.copy()
    out = x.view(np.uint8)[:, 30:40]  # the whole blocks' bytes overlap x[:, 8:10], the partial block's input
    scale = _scales((3, 3), 32)
    dml.quantize_linear(x, scale, axis=1, block_size=4, out=out)
    np.testing.assert_array_equal(out, _onnx_reference("QuantizeLinear", before, scale, np.zeros((3, 3), U8), 1, 4))
    on_device = cl_array.to_device(device.queue, np.zeros((3, 40), np.uint8))
    floats = on_device.view(np.float32)
    with pytest.raises(dml.InvalidArgumentError, match="x and out share memory on the device"):
        dml.quantize_linear(floats, scale, axis=1, block_size=4, out=on_device[:, 30:40], device=device)
