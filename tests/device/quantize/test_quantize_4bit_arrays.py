"""4-bit values through the public API: ``dml.quantize_linear`` / ``dml.dequantize_linear`` with ml_dtypes.int4 and
uint4 arrays (FL 6_3's QUANTIZE and DEQUANTIZE underneath, packed two a byte at the boundary) against
onnx.reference at opset 21 and plain NumPy, views that start mid-byte (an odd element) in and out, and the
object model's upload, write and read of 4-bit arrays."""

from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx.reference import ReferenceEvaluator  # noqa: E402

INT4, UINT4 = np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)
F32 = np.dtype(np.float32)


def _onnx(op_type: str, arrays: dict[str, Any], **attributes: int) -> Any:
    """onnx.reference's ``op_type`` at opset 21 on ``arrays`` (x, scale[, zero_point])."""
    node = onnx.helper.make_node(op_type, list(arrays), ["y"], **attributes)
    inputs = [
        onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for name, a in arrays.items()
    ]
    graph = onnx.helper.make_graph([node], "g", inputs, [onnx.helper.make_tensor_value_info("y", 0, None)])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model).run(None, arrays)[0]


def _values(dtype: np.dtype[Any]) -> Any:
    info = ml_dtypes.iinfo(dtype)  # type: ignore[no-untyped-call]
    return np.arange(info.min, info.max + 1)


@pytest.mark.parametrize("dtype", [INT4, UINT4], ids=["int4", "uint4"])
@pytest.mark.parametrize("form", ["per-tensor", "per-axis", "blocked", "partial-block"])
def test_quantize_into_4_bits_matches_onnx_reference(dtype: np.dtype[Any], form: str) -> None:
    rng = np.random.default_rng(29)
    columns = 45 if form == "partial-block" else 48
    # Ties, saturation on both sides, NaN and infinities among ordinary values.
    x = (rng.normal(size=(3, columns)) * 6).astype(F32)
    x.flat[:6] = [0.5, 1.5, -2.5, np.nan, np.inf, -np.inf]
    zero_values = _values(dtype)
    attributes: dict[str, int] = {"axis": 1}
    if form == "per-tensor":
        scale, zero = np.float32(0.75), np.array(zero_values[3], dtype)
        attributes = {}
    elif form == "per-axis":
        scale = rng.uniform(0.25, 2, columns).astype(F32)
        zero = rng.choice(zero_values, columns).astype(dtype)
    else:
        blocks = -(-columns // 16)
        scale = rng.uniform(0.25, 2, (3, blocks)).astype(F32)
        zero = rng.choice(zero_values, (3, blocks)).astype(dtype)
        attributes["block_size"] = 16
    got = dml.quantize_linear(x, scale, zero, **attributes)
    want = _onnx("QuantizeLinear", {"x": x, "scale": np.asarray(scale), "zero_point": np.asarray(zero)}, **attributes)
    assert got.dtype == dtype and want.dtype == dtype
    finite = np.isfinite(x)
    np.testing.assert_array_equal(got[finite].astype(np.int8), want[finite].astype(np.int8))
    # onnx.reference casts non-finite quotients as NumPy happens to (int8: -128 for NaN and +inf, int4: other
    # values); dmlpy saturates infinities and maps NaN to 0, as its 8-bit QuantizeLinear does.
    info = ml_dtypes.iinfo(dtype)  # type: ignore[no-untyped-call]
    assert got[0, 3:6].astype(np.int8).tolist() == [0, info.max, info.min]


@pytest.mark.parametrize("dtype", [INT4, UINT4], ids=["int4", "uint4"])
def test_a_partial_last_block_after_a_size_1_dimension_runs(dtype: np.dtype[Any]) -> None:
    # The last block's piece of the (1, 5, 5) output is (1, 2, 5) with strides (25, 5, 1): packed, though its
    # size-1 dimension's stride is not the packed 10.
    x = (np.random.default_rng(41).normal(size=(1, 5, 5)) * 6).astype(F32)
    scale = np.random.default_rng(42).uniform(0.25, 2, (1, 2, 5)).astype(F32)
    got = dml.quantize_linear(x, scale, None, 1, dtype, block_size=3)
    # Blocked along axis 1 by 3: rows 0-2 take scale[:, 0], rows 3-4 (the partial block) scale[:, 1].
    repeated = np.repeat(scale, 3, axis=1)[:, :5]
    want = oracle.quantize(x, repeated, out_dtype=dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.astype(np.int8), want.astype(np.int8))


def test_a_4_bit_output_with_strides_on_size_1_dimensions_is_packed() -> None:
    def lowered(strides: tuple[int, ...] | None) -> Any:
        return dml.QuantizeOperatorDesc(
            InputTensor=dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 3, 5)),
            QuantizationType="SCALE",
            QuantizationTensors=[dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 1))],
            OutputTensor=dml.BufferTensorDesc(data_type="INT4", sizes=(1, 3, 5), strides=strides),
        ).lower()

    assert lowered((25, 5, 1)).layout == lowered(None).layout  # a size-1 dimension's stride moves no element
    with pytest.raises(dml.UnsupportedError, match=r"Strides \(25, 6, 1\); dmlpy writes a 4-bit output packed"):
        lowered((25, 6, 1))  # padded rows: still refused


@pytest.mark.parametrize("dtype", [INT4, UINT4], ids=["int4", "uint4"])
def test_dequantize_every_4_bit_value_blocked_matches_onnx_reference(dtype: np.dtype[Any]) -> None:
    values = _values(dtype)
    x = np.tile(values, (4, 2)).astype(dtype)  # (4, 32): every value in every block of 8
    rng = np.random.default_rng(4)
    scale = rng.uniform(0.1, 3, (4, 4)).astype(F32)
    zero = rng.choice(values, (4, 4)).astype(dtype)
    got = dml.dequantize_linear(x, scale, zero, axis=1, block_size=8)
    want = _onnx("DequantizeLinear", {"x": x, "scale": scale, "zero_point": zero}, axis=1, block_size=8)
    assert got.dtype == F32
    np.testing.assert_array_equal(got, want)
    webnn = dml.dequantize_linear(x, scale, zero)  # the same blocks in WebNN's form: a scale of x's rank
    np.testing.assert_array_equal(webnn, want)


def test_a_missing_zero_point_is_0_for_unsigned_4_bits_as_onnx_says() -> None:
    """DirectML's QuantizationType SCALE would mean the midpoint 8 for UINT4; the one-liners follow ONNX."""
    x = np.array([0.0, 1.0, 3.0, 100.0, -1.0], F32)
    got = dml.quantize_linear(x, 0.5, dtype=UINT4)
    np.testing.assert_array_equal(got.astype(np.int8), [0, 2, 6, 15, 0])
    back = dml.dequantize_linear(np.arange(16).astype(UINT4), 0.5)
    np.testing.assert_array_equal(back, np.arange(16, dtype=F32) * 0.5)


def test_views_that_start_mid_byte_in_and_out() -> None:
    """A 4-bit view that starts at an odd element packs from that element (a binding counts bytes, so a tensor
    never starts mid-byte on the device); an out= view with gaps is written where it lies, its neighbours kept."""
    values = np.arange(-8, 8).astype(INT4)
    x = np.concatenate([values, values])[1:30]  # odd start, odd count
    got = dml.dequantize_linear(x, np.float32(0.5), np.array(-1, INT4))
    np.testing.assert_array_equal(got, (x.astype(F32) + 1) * np.float32(0.5))
    out = np.full(61, 7, INT4)
    source = np.linspace(-5, 5, 30).astype(F32)
    dml.quantize_linear(source, np.float32(0.5), np.array(0, INT4), out=out[1::2])
    np.testing.assert_array_equal(out[1::2].astype(np.int8), np.clip(np.rint(source / np.float32(0.5)), -8, 7))
    assert np.all(out[0::2].astype(np.int8) == 7)


def test_int4_and_uint4_calls_of_one_shape_run_their_own_operators() -> None:
    """ml_dtypes' int4 and uint4 share dtype.str ('<V1'); the compiled-operator cache told them apart by it."""
    x = np.array([-3.0, 20.0, 7.0, -9.0], F32)
    signed = dml.quantize_linear(x, 1.0, np.array(0, INT4))
    unsigned = dml.quantize_linear(x, 1.0, np.array(0, UINT4))
    np.testing.assert_array_equal(signed.astype(np.int8), [-3, 7, 7, -8])
    np.testing.assert_array_equal(unsigned.astype(np.int8), [0, 15, 7, 0])


def test_4_bit_refusals_name_the_fix() -> None:
    x = np.ones(4, F32)
    with pytest.raises(dml.InvalidArgumentError, match="QUANTIZE rounds halves to even"):
        dml.quantize_linear(x, 1.0, dtype=INT4, mode="TOWARD_ZERO")
    with pytest.raises(dml.InvalidArgumentError, match=r"ml_dtypes\.uint4 or ml_dtypes\.int4"):
        dml.quantize_linear(x, 1.0, dtype=np.int16)
    with pytest.raises(dml.InvalidArgumentError, match="int4 or uint4"):
        dml.dequantize_linear(np.ones(4, np.float64), 1.0)


@pytest.mark.parametrize("count", [1, 2, 7, 33])
def test_the_object_model_packs_4_bit_arrays_two_a_byte(count: int) -> None:
    device = dml.create_device()
    values = (np.arange(count) % 16 - 8).astype(INT4)
    buffer = device.upload(values)
    packed_bytes = (count + 1) // 2
    assert buffer.size == max(4, (packed_bytes + 3) // 4 * 4)
    packed = buffer.read(np.uint8, packed_bytes)
    low_first = [(int(v) & 0x0F) for v in values.astype(np.int8)]
    expected = [low_first[i] | ((low_first[i + 1] if i + 1 < count else 0) << 4) for i in range(0, count, 2)]
    assert packed.tolist() == expected
    np.testing.assert_array_equal(buffer.read(INT4, count), values)
    buffer.write(values[::-1].copy())
    np.testing.assert_array_equal(buffer.read(INT4, count), values[::-1])


def test_4_bit_pyopencl_arrays_and_views_are_refused_not_misread() -> None:
    """A pyopencl array holds one 4-bit element a byte, where DirectML's tensors hold two: misread, so refused."""
    cl_array = pytest.importorskip("pyopencl.array")
    device = dml.create_device()
    x = cl_array.to_device(device.queue, np.array([5, 2, 0, -4], INT4))
    with pytest.raises(dml.InvalidArgumentError, match="a pyopencl array holds one a byte"):
        dml.dequantize_linear(x, 1.0, np.array(0, INT4))
    floats = cl_array.to_device(device.queue, np.ones(4, F32))
    with pytest.raises(dml.InvalidArgumentError, match="a pyopencl array holds one a byte"):
        dml.quantize_linear(floats, 1.0, dtype=INT4)
    with pytest.raises(dml.InvalidArgumentError, match=r"read them with Buffer\.read"):
        device.upload(np.arange(8).astype(INT4)).as_array(INT4, 8)


@pytest.mark.parametrize("op_type", ["DequantizeLinear", "QuantizeLinear"])
def test_onnx_4_bit_nodes_without_a_zero_point_use_onnx_zero(op_type: str, tmp_path: Any) -> None:
    """ONNX's missing zero point is 0; the 4-bit node becomes QUANTIZE / DEQUANTIZE with an explicit 0 of the
    scale's Sizes (DirectML's SCALE would mean UINT4's midpoint). The 4-bit initializer of an odd count is stored
    as external data, whose bytes are packed as DirectML's are."""
    import dmlpy.onnx as dml_onnx

    helper, tensor_proto = onnx.helper, onnx.TensorProto
    if op_type == "DequantizeLinear":
        x = np.array([1, -2, 3, 7, -8, 0, 5], INT4)
        attributes: dict[str, int] = {}
        out_type = tensor_proto.FLOAT
    else:
        x = np.array([1.0, -2.0, 3.5, 7.0, -8.0, 0.0, 20.0], F32)
        attributes = {"output_dtype": tensor_proto.UINT4}
        out_type = tensor_proto.UINT4
    scale = np.array(0.5, F32)
    node = helper.make_node(op_type, ["x", "s"], ["y"], **attributes)
    weight = onnx.numpy_helper.from_array(x, "x")
    graph = helper.make_graph(
        [node], "g", [], [helper.make_tensor_value_info("y", out_type, [7])], initializer=[weight]
    )
    graph.initializer.append(onnx.numpy_helper.from_array(scale, "s"))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.external_data_helper.convert_model_to_external_data(model, location="weights.bin", size_threshold=0)
    onnx.save_model(model, str(tmp_path / "model.onnx"))
    (got,) = dml_onnx.prepare(str(tmp_path / "model.onnx")).run([])
    want = _onnx(op_type, {"x": x, "s": scale}, **attributes)
    np.testing.assert_array_equal(np.asarray(got).astype(np.float32), np.asarray(want).astype(np.float32))


def test_the_builders_number_zero_point_takes_the_blocked_scales_sizes() -> None:
    device = dml.create_device()
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(2, 4)))
    y = dml.graph.dequantize(dml.graph.quantize(x, np.full((2, 2), 0.5, F32), 0, dtype="INT4"), 0.5, 0)
    (op,) = [node.desc.op for node in g.desc_for([y]).nodes if hasattr(node.desc, "op")][:1]
    assert op.quantization_tensors[1].desc.sizes == (2, 2)
    assert op.quantization_tensors[1].desc.effective_strides == (0, 0)
