"""quantize_linear and dequantize_linear on the one-liners' run path (dmlpy/arrays), like dml.round:
strided and broadcast inputs read where they lie (no packed copy), ``out=`` of any layout, big-endian inputs,
in pieces beyond one buffer. Every result is checked against the exact oracle (oracle.py, no dmlpy code)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.arrays import dispatch, host_memory
from tests.helpers import quantize_oracle as oracle

F32, F16, U8, I8 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.uint8), np.dtype(np.int8)


def _floats(shape: tuple[int, ...], seed: int, dtype: np.dtype[Any] = F32) -> npt.NDArray[Any]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 40).astype(dtype)


def _views(base: npt.NDArray[Any]) -> dict[str, npt.NDArray[Any]]:
    """Input layouts over a (6, 8, 10) array: each a view of ``base``'s memory."""
    return {
        "packed": base,
        "transposed": base.transpose(2, 0, 1),
        "every_other_row": base[:, ::2, :],
        "reversed": base[::-1],
        "broadcast_row": np.broadcast_to(base[:1, :1, :], base.shape),
        "misaligned_view": base.reshape(-1)[1:].reshape(479)[:478].reshape(2, 239),
    }


VIEWS = list(_views(np.zeros((6, 8, 10), np.float32)))


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
def test_quantize_views(view: str, dtype: np.dtype[Any]) -> None:
    x = _views(_floats((6, 8, 10), seed=VIEWS.index(view), dtype=dtype))[view]
    got = dml.quantize_linear(x, dtype.type(0.5), np.int8(3))
    np.testing.assert_array_equal(got, oracle.quantize(np.array(x), dtype.type(0.5), np.int8(3), out_dtype=I8))


@pytest.mark.parametrize("view", VIEWS)
def test_dequantize_views(view: str) -> None:
    rng = np.random.default_rng(7)
    base = rng.integers(0, 256, (6, 8, 10)).astype(np.uint8)
    x = _views(base)[view]
    got = dml.dequantize_linear(x, np.float32(0.25), np.uint8(128))
    np.testing.assert_array_equal(got, oracle.dequantize(np.array(x), np.float32(0.25), np.uint8(128)))


def test_strided_input_is_read_where_it_lies(monkeypatch: pytest.MonkeyPatch) -> None:
    # The descriptor that runs carries the view's own strides: no packed copy was made on the way.
    seen: list[tuple[int, ...]] = []
    original = dispatch.compile_initialized

    def spy(device: Any, desc: Any) -> Any:
        seen.append(desc.input_tensor.desc.effective_strides)
        return original(device, desc)

    monkeypatch.setattr(dispatch, "compile_initialized", spy)
    x = _floats((5, 12), seed=3)[:, ::3]  # strides (12, 3) in elements; shape unique to this test
    got = dml.quantize_linear(x, np.float32(2.0))
    np.testing.assert_array_equal(got, oracle.quantize(np.array(x), np.float32(2.0), out_dtype=U8))
    assert seen == [(12, 3)]


OUT_LAYOUTS = {
    "packed": lambda canvas: canvas[:8, :6],
    "transposed": lambda canvas: canvas[:6, :8].T,
    "reversed": lambda canvas: canvas[7::-1, :6],
    "every_other": lambda canvas: canvas[::2, ::2],
}


@pytest.mark.parametrize("layout", list(OUT_LAYOUTS))
def test_out_of_any_layout(layout: str) -> None:
    x = _floats((8, 6), seed=11)
    expected = oracle.quantize(x, np.float32(0.75), np.uint8(7), out_dtype=U8)
    canvas = np.full((16, 12), 0xAB, np.uint8)
    out = OUT_LAYOUTS[layout](canvas)
    assert dml.quantize_linear(x, np.float32(0.75), np.uint8(7), out=out) is out
    np.testing.assert_array_equal(out, expected)
    outside = np.ones(canvas.shape, bool)
    OUT_LAYOUTS[layout](outside)[...] = False
    assert (canvas[outside] == 0xAB).all(), "bytes outside out were written"


def test_dequantize_out_and_refusals() -> None:
    x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = np.empty((3, 4), np.float16)
    assert dml.dequantize_linear(x, np.float16(0.5), out=out) is out
    np.testing.assert_array_equal(out, oracle.dequantize(x, np.float16(0.5)))
    with pytest.raises(dml.InvalidArgumentError, match="out"):
        dml.dequantize_linear(x, np.float32(0.5), out=np.empty((3, 4), np.float16))
    with pytest.raises(dml.InvalidArgumentError, match="out"):
        dml.quantize_linear(x.astype(np.float32), np.float32(0.5), out=np.empty((4, 3), np.uint8))
    frozen = np.empty((3, 4), np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(dml.InvalidArgumentError, match="read-only"):
        dml.quantize_linear(x.astype(np.float32), np.float32(0.5), out=frozen)


def test_out_overlapping_the_input_reads_a_snapshot() -> None:
    # uint8 output written over the float32 input's own bytes: the kernel must read the input as it was.
    x = _floats((64,), seed=5)
    expected = oracle.quantize(x, np.float32(0.5), out_dtype=U8)
    out = x.view(np.uint8)[:64]
    dml.quantize_linear(x, np.float32(0.5), out=out)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("order", [">", "<"], ids=["big_endian", "little_endian"])
def test_byte_order(order: str) -> None:
    x = _floats((37,), seed=9).astype(np.dtype(np.float32).newbyteorder(order))
    got = dml.quantize_linear(x, np.float32(0.25), np.int8(-2))
    np.testing.assert_array_equal(
        got, oracle.quantize(x.astype(np.float32), np.float32(0.25), np.int8(-2), out_dtype=I8)
    )
    q = np.arange(-50, 50, dtype=np.dtype(np.int16).newbyteorder(order))
    scale = np.float32(0.125)
    np.testing.assert_array_equal(dml.dequantize_linear(q, scale), oracle.dequantize(q.astype(np.int16), scale))


@pytest.mark.parametrize("axis", [0, 1])
def test_pieces_beyond_one_buffer_keep_per_axis_scales_aligned(device: Any, axis: int) -> None:
    # A small buffer limit stands in for CL_DEVICE_MAX_MEM_ALLOC_SIZE: the (40, 300) array runs as pieces of
    # rows, and the per-axis scale (a 0-stride view) is cut with them.
    x = _floats((40, 300), seed=axis)
    scale = np.linspace(0.1, 3.0, x.shape[axis]).astype(np.float32)
    zero_point = np.arange(x.shape[axis]).astype(np.uint8)
    out = np.empty(x.shape, np.uint8)
    along = [1, 1]
    along[axis] = x.shape[axis]
    call = dispatch.ArrayCall(
        dml.ElementWiseQuantizeLinearOperatorDesc,
        (),
        [x, np.broadcast_to(scale.reshape(along), x.shape), np.broadcast_to(zero_point.reshape(along), x.shape)],
        out,
    )
    host_memory.run(call, device, max_buffer_bytes=7 * 300 * 4)  # 7 rows of float32 per piece
    np.testing.assert_array_equal(out, oracle.quantize(x, scale, zero_point, axis=axis, out_dtype=U8))


def test_refusals_point_to_directmls_newer_quantize_operators() -> None:
    # 4-bit or wider outputs are DML_OPERATOR_QUANTIZE's job; the message says so. (Blocked scales, refused here
    # before, run split through ELEMENT_WISE_QUANTIZE_LINEAR: test_quantize_blocked.py.)
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(dml.InvalidArgumentError, match="DML_OPERATOR_QUANTIZE") as wide:
        dml.quantize_linear(x, np.float32(1), dtype=np.int16)
    assert "uint8 or int8" in str(wide.value)
