"""Conformance against onnx.reference's QuantizeLinear / DequantizeLinear, bit for bit, and nGraph's rounding
modes (the dmlpy extension) against the oracle.

Documented divergences from the ONNX reference (so the inputs below are restricted to where both are defined):
- NaN and |x / scale| >= 2^31: ONNX does ``np.rint(x).astype(np.int32)``, undefined for NaN and out-of-range
  values (NumPy gives INT_MIN, which then clips to the minimum); dmlpy documents NaN -> 0 and saturation.
- INT32 input to QuantizeLinear: ONNX divides in float64 (int32 / float32 promotes), dmlpy in float32 like
  DirectML's FLOAT32 scale. Compared only where the float32 quotient is exact (power-of-two scales, |x| <= 2^24).
- INT32/UINT32 DequantizeLinear: ONNX computes ``x.astype(float32) - zero_point`` in float64; equal to dmlpy's
  float32 arithmetic while |x|, |zero_point| <= 2^23 and, for a float16 scale, |x - zero_point| <= 2^13 (so the
  float32 product is exact and both round once to float16).
"""

from __future__ import annotations

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle
from tests.helpers.dtypes import INTEGER_DTYPES_32 as INTEGER_DTYPES
from tests.helpers.modes import NGRAPH_MODES

from .test_quantize_values import assert_same

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

ONNX_TYPES = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.uint32): TensorProto.UINT32,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(np.uint16): TensorProto.UINT16,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
}
U8, I8, F32, F16 = (np.dtype(t) for t in (np.uint8, np.int8, np.float32, np.float16))


def onnx_run(op: str, x, scale, zero_point, axis: int, out_dtype) -> np.ndarray:
    names = ["x", "scale"] + (["zero_point"] if zero_point is not None else [])
    arrays = [np.asarray(x), np.asarray(scale)] + ([np.asarray(zero_point)] if zero_point is not None else [])
    inputs = [
        helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype], a.shape) for n, a in zip(names, arrays, strict=True)
    ]
    output = helper.make_tensor_value_info("y", ONNX_TYPES[np.dtype(out_dtype)], np.shape(x))
    attributes: dict[str, int] = {"axis": axis}
    if op == "QuantizeLinear" and zero_point is None:
        attributes["output_dtype"] = ONNX_TYPES[np.dtype(out_dtype)]  # without a zero point ONNX defaults to uint8
    node = helper.make_node(op, names, ["y"], **attributes)
    model = helper.make_model(
        helper.make_graph([node], "g", inputs, [output]), opset_imports=[helper.make_opsetid("", 21)]
    )
    return ReferenceEvaluator(model).run(None, dict(zip(names, arrays, strict=True)))[0]


def _finite_values(rng, shape, dtype):
    n = int(np.prod(shape))
    values = np.where(rng.random(n) < 0.5, rng.integers(-1200, 1200, n) / 4.0, rng.uniform(-500, 500, n))
    values[: min(n, 6)] = [0.0, -0.0, 0.5, -0.5, 2.5, -1e4][: min(n, 6)]
    return values.astype(dtype).reshape(shape)


QUANTIZE_CASES = [
    pytest.param(
        in_dtype, out_dtype, shape, axis, zp, id=f"{in_dtype.name}-{out_dtype.name}-{len(shape)}d-axis{axis}-{zp}"
    )
    for in_dtype in (F32, F16)
    for out_dtype in (U8, I8)
    for shape, axis in (((257,), 0), ((2, 3, 5, 7), 1), ((4, 6, 9), -1), ((3, 5, 2), 0))
    for zp in ("zp", "nozp")
]


@pytest.mark.parametrize(("in_dtype", "out_dtype", "shape", "axis", "zp"), QUANTIZE_CASES)
def test_quantize_matches_onnx(in_dtype, out_dtype, shape, axis, zp):
    rng = np.random.default_rng(len(shape) * 7 + axis + in_dtype.itemsize)
    x = _finite_values(rng, shape, in_dtype)
    for per_axis in (False, True):
        n = shape[axis] if per_axis else 1
        scale = rng.uniform(0.01, 4.0, n).astype(in_dtype)
        zero_point = rng.integers(*oracle.INTEGER_RANGES[out_dtype], size=n).astype(out_dtype) if zp == "zp" else None
        if not per_axis:
            scale = scale.reshape(())
            zero_point = zero_point.reshape(()) if zero_point is not None else None
        want = onnx_run("QuantizeLinear", x, scale, zero_point, axis, out_dtype)
        got = dml.quantize_linear(x, scale, zero_point, axis=axis, dtype=out_dtype)
        assert_same(got, want)
        assert_same(got, oracle.quantize(x, scale, zero_point, axis=axis, out_dtype=out_dtype))


def test_quantize_edges_match_onnx():
    # Ties after division, saturation at both ends, infinities (ONNX's rint(inf) -> int32 is undefined, so
    # infinities are left out), values where x * (1/scale) and x / scale differ.
    from .test_quantize_values import TRAP_SCALE, TRAP_X

    x = np.array([5, 7, -5, -7, 255.5, 254.5, -0.5, -1.5, 127.5, -128.5, 1e6, -1e6, 3, -3], F32)
    for out_dtype in (U8, I8):
        for zero_point in (0, 1, oracle.INTEGER_RANGES[out_dtype][1]):
            zp = np.array(zero_point, out_dtype)
            assert_same(
                dml.quantize_linear(x, np.float32(2), zp),
                onnx_run("QuantizeLinear", x, np.float32(2), zp, 1, out_dtype),
            )
        traps = TRAP_X.reshape(-1, 1)
        zps = np.zeros(TRAP_SCALE.size, out_dtype)
        got = dml.quantize_linear(traps, TRAP_SCALE, zps, axis=0)
        assert_same(got, onnx_run("QuantizeLinear", traps, TRAP_SCALE, zps, 0, out_dtype))


def test_quantize_int32_matches_onnx_where_exact():
    rng = np.random.default_rng(3)
    x = rng.integers(-(2**24), 2**24, 2000).astype(np.int32)
    x[:6] = [5, 7, -5, -7, 2**24, -(2**24)]
    for scale in (2.0, 0.5, 2.0**17, 2.0**-3):
        for out_dtype in (U8, I8):
            zp = np.array(3, out_dtype)
            s = np.float32(scale)
            assert_same(dml.quantize_linear(x, s, zp), onnx_run("QuantizeLinear", x, s, zp, 1, out_dtype))


def _dequantize_inputs(rng, in_dtype, scale_dtype, n):
    low, high = oracle.INTEGER_RANGES[in_dtype]
    if in_dtype.itemsize == 4:
        low, high = max(low, -(2**23)), min(high, 2**23)
    if scale_dtype == F16 and in_dtype.itemsize >= 2:
        low, high = max(low, -(2**12)), min(high, 2**12)
    x = np.concatenate([[low, high, 0], rng.integers(low, high, n, endpoint=True)]).astype(in_dtype)
    return x, low, high


@pytest.mark.parametrize("scale_dtype", [F32, F16], ids=["float32", "float16"])
@pytest.mark.parametrize("in_dtype", INTEGER_DTYPES, ids=[d.name for d in INTEGER_DTYPES])
def test_dequantize_matches_onnx(in_dtype, scale_dtype):
    rng = np.random.default_rng(in_dtype.itemsize * 13 + scale_dtype.itemsize)
    x, low, high = _dequantize_inputs(rng, in_dtype, scale_dtype, 600)
    x = x[: (x.size // 3) * 3].reshape(-1, 3)
    for per_axis in (False, True):
        n = 3 if per_axis else 1
        scale = rng.uniform(0.001, 5.0, n).astype(scale_dtype)
        zp = rng.integers(low, high, n, endpoint=True).astype(in_dtype)
        if not per_axis:
            scale, zp = scale.reshape(()), zp.reshape(())
        for zero_point in (zp, None):
            want = onnx_run("DequantizeLinear", x, scale, zero_point, 1, scale_dtype)
            assert_same(dml.dequantize_linear(x, scale, zero_point, axis=1), want)


# ---------------------------------------------------------------------------------------------------------------
# nGraph's rounding modes (dmlpy extension, not DirectML).

MODE_X = np.array(
    [
        2.5,
        -2.5,
        3.5,
        -3.5,
        0.5,
        -0.5,
        1.25,
        -1.25,
        1.75,
        -1.75,
        0.0,
        -0.0,
        5,
        7,
        -5,
        -7,
        0.1,
        -0.1,
        0.9,
        -0.9,
        254.5,
        255.5,
        -128.5,
        127.5,
        1e-30,
        -1e-30,
        np.inf,
        -np.inf,
        np.nan,
        1e9,
        -1e9,
    ],
    F32,
)


@pytest.mark.parametrize("mode", NGRAPH_MODES)
@pytest.mark.parametrize("out_dtype", [U8, I8], ids=["uint8", "int8"])
def test_extension_modes(mode, out_dtype):
    rng = np.random.default_rng(len(mode))
    for scale in (1.0, 2.0, 0.5):
        for zero_point in (0, 3):
            zp = np.array(zero_point, out_dtype)
            got = dml.quantize_linear(MODE_X, np.float32(scale), zp, mode=f"ROUND_{mode}")
            assert_same(got, oracle.quantize(MODE_X, np.float32(scale), zp, out_dtype=out_dtype, mode=mode))
    x = rng.uniform(-300, 300, (4, 50)).astype(F32)
    scale = rng.uniform(0.1, 3, 4).astype(F32)
    zp = rng.integers(*oracle.INTEGER_RANGES[out_dtype], 4).astype(out_dtype)
    got = dml.quantize_linear(x, scale, zp, axis=0, mode=f"ROUND_{mode}")
    assert_same(got, oracle.quantize(x, scale, zp, axis=0, out_dtype=out_dtype, mode=mode))


@pytest.mark.parametrize("mode", ["NEAREST_UPWARD", "TOWARD_INFINITY", "DOWN"])
def test_extension_modes_float16_and_int32(mode):
    x16 = MODE_X[:26].astype(F16)
    assert_same(
        dml.quantize_linear(x16, np.float16(0.5), np.int8(1), mode=f"ROUND_{mode}"),
        oracle.quantize(x16, np.float16(0.5), np.int8(1), out_dtype=I8, mode=mode),
    )
    x32 = np.array([5, 7, -5, -7, 1, -1, 2, -2, 300, -300], np.int32)
    assert_same(
        dml.quantize_linear(x32, np.float32(2), np.uint8(100), mode=f"ROUND_{mode}"),
        oracle.quantize(x32, np.float32(2), np.uint8(100), out_dtype=U8, mode=mode),
    )


@pytest.mark.parametrize(
    ("alias", "mode"),
    [
        ("half_away_from_zero", "NEAREST_TOWARD_INFINITY"),
        ("toward_zero", "TOWARD_ZERO"),
        ("TOWARD_INFINITY", "NEAREST_TOWARD_INFINITY"),
        ("half_to_even", "NEAREST_TOWARD_EVEN"),
    ],
)
def test_directml_mode_names(alias, mode):
    got = dml.quantize_linear(MODE_X, np.float32(1), np.int8(0), mode=alias)
    assert_same(got, oracle.quantize(MODE_X, np.float32(1), np.int8(0), out_dtype=I8, mode=mode))


@pytest.mark.parametrize("mode", [m for m in NGRAPH_MODES if m != "NEAREST_TOWARD_EVEN"])
def test_extension_mode_refused_on_plain_device(device, mode):
    with pytest.raises(dml.UnsupportedError, match="extension"):
        dml.quantize_linear(MODE_X, np.float32(1), np.uint8(0), mode=f"ROUND_{mode}", device=device)


def test_halves_to_even_runs_on_plain_device(device):
    got = dml.quantize_linear(MODE_X, np.float32(1), np.uint8(0), mode="ROUND_NEAREST_TOWARD_EVEN", device=device)
    assert_same(got, oracle.quantize(MODE_X, np.float32(1), np.uint8(0), out_dtype=U8))


def test_unknown_mode_refused():
    with pytest.raises(dml.InvalidArgumentError, match="not a rounding mode"):
        dml.quantize_linear(MODE_X, np.float32(1), mode="ROUND_SIDEWAYS")
