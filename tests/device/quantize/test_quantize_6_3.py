"""FL 6_3's DML_OPERATOR_QUANTIZE and DEQUANTIZE on a device, through the object model, under both launch
profiles: every int4 and uint4 value dequantized, every float16 bit pattern and a float32 sweep quantized into
INT4, UINT4, INT8 and UINT8, against quantize_oracle (and a NumPy step-by-step reference the oracle checks);
per-tensor, per-axis and blocked (one and two axes) quantization tensors, with and without a zero point (SCALE:
the unsigned types' midpoint); odd element counts (the pad nibble 0, no byte past the last element written);
a strided 4-bit output refused; ELEMENT_WISE_DEQUANTIZE_LINEAR's exact 32-bit difference for every integer type
at its extremes; DEQUANTIZE(int4, blocked) -> ROUND -> QUANTIZE(int4) fused into one kernel, bit-identical to
the nodes one by one, and 4-bit temporaries and constants of graphs.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle
from tests.helpers.dtypes import INTEGER_DTYPES_32
from tests.helpers.object_model import run_operator
from tests.helpers.pairwise import pairwise_params
from tests.helpers.quantize_6_3 import (
    DTYPES,
    MIDPOINTS,
    NIBBLE_TYPES,
    chain,
    dequantize_desc,
    dequantize_reference,
    expand,
    extent_bytes,
    float32_sweep,
    pack_nibbles,
    quantize_desc,
    quantize_reference,
    quantized_values,
    run_packed_graph,
    run_quantization,
    tensor,
    unpack_nibbles,
)
from tests.helpers.references import round_reference

T = dml.TensorDataType
QT = dml.QuantizationType
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
REAL = {T.FLOAT32: F32, T.FLOAT16: F16}
QUANTIZED = (T.INT4, T.UINT4, T.INT8, T.UINT8)


def assert_same(got: npt.NDArray[Any], want: npt.NDArray[Any]) -> None:
    """Same dtype, shape and bits (so -0.0 != +0.0 and NaN payloads count)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    a, e = got.reshape(-1), want.reshape(-1)
    if a.dtype.kind == "f":
        a, e = a.view(f"u{a.itemsize}"), e.view(f"u{e.itemsize}")
    else:
        a, e = a.astype(np.int64), e.astype(np.int64)
    wrong = np.flatnonzero(a != e)
    assert wrong.size == 0, f"{wrong.size} of {a.size} differ at {wrong[:8]}: got {a[wrong[:8]]} want {e[wrong[:8]]}"


def assert_clean(run: Any) -> None:
    assert run.changed_outside == [], f"bytes outside the output's elements changed: {run.changed_outside[:8]}"
    assert run.pad_nibble in (None, 0), run.pad_nibble


# ------------------------------------------------------------------------------------------------ DEQUANTIZE

SIZES = (6, 20)  # 120 elements: every 4-bit value 7 or 8 times
SCALE_SIZES = {"per-tensor": (1, 1), "per-axis": (6, 1), "blocked": (6, 4)}
"""Blocked along two axes: test_dequantize_round_quantize_fuses_into_one_kernel's 6x20 case, node by node."""
SCALES = np.array([0.37, 2.5, 1e-3, 3e-6, 1.0, 0.0625, 7.25, 0.1, 1e-4, 3.3, 0.5, 11.0])
"""Scale values, cycled: 3e-6 times a 4-bit value is a float16 subnormal."""


@pytest.mark.one_profile  # values, not launch shapes: the operator rows run both profiles
@pytest.mark.parametrize(
    ("quantized", "real", "scale_kind", "zero_point"),
    pairwise_params(
        ([T.INT4, T.UINT4], ["int4", "uint4"]),
        ([T.FLOAT32, T.FLOAT16], ["float32", "float16"]),
        (list(SCALE_SIZES), list(SCALE_SIZES)),
        ([True, False], ["zero-point", "scale-only"]),
    ),
)
def test_every_4_bit_value_dequantized(device: Any, quantized: T, real: T, scale_kind: str, zero_point: bool) -> None:
    """By default the combinations of zero point, scale layout, real type and 4-bit type in which every pair of
    two choices' values occurs (tests/helpers/pairwise.py: 7 of 24), under both launch profiles; the other 17
    with --run-slow."""
    rng = np.random.default_rng(len(scale_kind) * 4 + zero_point * 2 + (real == T.FLOAT16))
    low = oracle.INTEGER_RANGES[NIBBLE_TYPES[quantized]][0]
    x = (np.arange(120) % 16 + low).reshape(SIZES)
    rng.shuffle(x, axis=1)
    scale_sizes = SCALE_SIZES[scale_kind]
    scale = np.resize(SCALES, scale_sizes).astype(REAL[real])
    zero = quantized_values(rng, quantized, scale_sizes) if zero_point else None
    desc = dequantize_desc(quantized, real, SIZES, scale_sizes, zero_point)
    run = run_quantization(device, desc, [x, scale] + ([zero] if zero_point else []))
    assert_same(run.got, dequantize_reference(x, scale, zero, quantized, real))
    assert_clean(run)


@pytest.mark.parametrize("quantized", [T.UINT4, T.UINT8, T.INT4, T.INT8], ids=["uint4", "uint8", "int4", "int8"])
def test_scale_only_zero_point_is_the_midpoint_or_0(device: Any, quantized: T) -> None:
    # Hand-written: x = the type's lowest and highest value, scale 1: (x - 8) for UINT4, (x - 128) for UINT8,
    # x itself for the signed types.
    low, high = oracle.INTEGER_RANGES[DTYPES[quantized]]
    desc = dequantize_desc(quantized, T.FLOAT32, (1, 2), (1, 1), False)
    run = run_quantization(device, desc, [np.array([[low, high]]), np.ones((1, 1), F32)])
    midpoint = MIDPOINTS.get(quantized, 0)
    assert run.got.tolist() == [[low - midpoint, high - midpoint]]
    assert midpoint == {T.UINT4: 8, T.UINT8: 128, T.INT4: 0, T.INT8: 0}[quantized]


# ------------------------------------------------------------------------------------------------ QUANTIZE

ALL_FLOAT16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(256, 256)
HALF_SCALES = np.array([0.1, 0.5, 3.3, 2.0**-10, 1000.0, 1.0, 0.0625, 7.0], F16)


def numpy_quantize(x: npt.NDArray[Any], scale: npt.NDArray[Any], zero: npt.NDArray[Any], out: T) -> npt.NDArray[Any]:
    """NumPy step by step: the float32 quotient (correctly rounded), for a float16 input rounded to float16
    (innocuous double rounding: 24 >= 2 * 11 + 2 bits), rint (ties to even), the zero point, NaN to 0, saturation."""
    low, high = oracle.INTEGER_RANGES[DTYPES[out]]
    with np.errstate(all="ignore"):
        quotient = x.astype(F32) / scale.astype(F32)
        if x.dtype == F16:
            quotient = quotient.astype(F16).astype(F32)
        shifted = np.rint(quotient).astype(np.float64) + zero
    return np.where(np.isnan(shifted), 0, np.clip(np.nan_to_num(shifted, posinf=high, neginf=low), low, high)).astype(
        np.int64
    )


@cache
def every_float16_parameters(out: T, zero_point: bool) -> tuple[Any, Any, Any]:
    """Blocked scales (256 rows, 4 blocks of 64), zero points, and the NumPy reference, checked against the oracle
    on every 31st element (ties, NaNs, infinities, subnormals among them)."""
    rng = np.random.default_rng(int(out) * 2 + zero_point)
    scale = np.resize(HALF_SCALES, (256, 4))
    rng.shuffle(scale.reshape(-1))
    zero = quantized_values(rng, out, (256, 4)) if zero_point else None
    zeros = expand(zero, ALL_FLOAT16.shape) if zero is not None else np.full(ALL_FLOAT16.shape, MIDPOINTS.get(out, 0))
    want = numpy_quantize(ALL_FLOAT16, expand(scale, ALL_FLOAT16.shape), zeros, out).astype(DTYPES[out])
    sample = np.zeros(ALL_FLOAT16.size, bool)
    sample[::31] = True
    sample = sample.reshape(ALL_FLOAT16.shape)
    scales = expand(scale, ALL_FLOAT16.shape)
    checked = [
        oracle.quantize_scalar(a, s, int(z), DTYPES[out])
        for a, s, z in zip(ALL_FLOAT16[sample], scales[sample], zeros[sample], strict=True)
    ]
    assert np.array_equal(want[sample].astype(np.int64), np.array(checked))
    return scale, zero, want


@pytest.mark.one_profile  # values, not launch shapes: the operator rows run both profiles
@pytest.mark.parametrize("zero_point", [True, False], ids=["zero-point", "scale-only"])
@pytest.mark.parametrize("out", QUANTIZED, ids=lambda t: t.name.lower())
def test_every_float16_quantized(device: Any, out: T, zero_point: bool) -> None:
    scale, zero, want = every_float16_parameters(out, zero_point)
    desc = quantize_desc(T.FLOAT16, out, ALL_FLOAT16.shape, scale.shape, zero_point)
    run = run_quantization(device, desc, [ALL_FLOAT16, scale] + ([zero] if zero_point else []))
    assert_same(run.got, want)
    assert_clean(run)


@cache
def float32_case(out: T, scale_kind: str) -> tuple[Any, Any, Any, Any]:
    rng = np.random.default_rng(int(out) * 10 + len(scale_kind))
    x = float32_sweep(rng, (24, 40))
    scale_sizes = {"per-tensor": (1, 1), "per-axis": (24, 1), "blocked-2-axes": (6, 5)}[scale_kind]
    scale = rng.uniform(0.05, 4.0, scale_sizes).astype(F32)
    zero = quantized_values(rng, out, scale_sizes)
    return x, scale, zero, quantize_reference(x, scale, zero, out)


@pytest.mark.one_profile  # values, not launch shapes: the operator rows run both profiles
@pytest.mark.parametrize("scale_kind", ["per-tensor", "per-axis", "blocked-2-axes"])  # one axis: every float16
@pytest.mark.parametrize("out", QUANTIZED, ids=lambda t: t.name.lower())
def test_float32_sweep_quantized(device: Any, out: T, scale_kind: str) -> None:
    x, scale, zero, want = float32_case(out, scale_kind)
    run = run_quantization(device, quantize_desc(T.FLOAT32, out, x.shape, scale.shape, True), [x, scale, zero])
    assert_same(run.got, want)
    assert_clean(run)


HAND_WRITTEN = [
    # (x, scale, zero point, output type, expected)
    (2.5, 1.0, 0, T.INT4, 2),  # a tie to even
    (3.5, 1.0, 0, T.INT4, 4),
    (-7.5, 1.0, 0, T.INT4, -8),
    (-8.5, 1.0, 0, T.INT4, -8),  # -8 is even, and the lowest INT4
    (7.5, 1.0, 0, T.INT4, 7),  # 8 saturates to 7
    (100.0, 1.0, -8, T.INT4, 7),
    (-100.0, 1.0, 7, T.INT4, -8),
    (float("nan"), 1.0, 5, T.INT4, 0),  # NaN gives 0 whatever the zero point
    (float("inf"), 1.0, 0, T.UINT4, 15),
    (float("-inf"), 1.0, 3, T.UINT4, 0),
    (-0.5, 1.0, 0, T.UINT4, 0),
    (14.5, 1.0, 0, T.UINT4, 14),
    (15.5, 1.0, 0, T.UINT4, 15),
    (3.0, 2.0, 8, T.UINT4, 10),  # 1.5 to 2, plus 8
]


@pytest.mark.parametrize(("x", "scale", "zero", "out", "expected"), HAND_WRITTEN)
def test_hand_written(device: Any, x: float, scale: float, zero: int, out: T, expected: int) -> None:
    values = np.array([[x]], F32), np.array([[scale]], F32), np.array([[zero]])
    assert oracle.quantize_scalar(values[0][0, 0], values[1][0, 0], zero, DTYPES[out]) == expected
    run = run_quantization(device, quantize_desc(T.FLOAT32, out, (1, 1), (1, 1), True), list(values))
    assert run.got.astype(np.int64).tolist() == [[expected]]
    assert_clean(run)


# ------------------------------------------------------------------------------------------------ odd counts


@pytest.mark.parametrize("shape", [(1,), (3,), (5, 7), (3, 15)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("out", [T.INT4, T.UINT4], ids=["int4", "uint4"])
def test_odd_counts_quantized_with_offsets(device: Any, out: T, shape: tuple[int, ...]) -> None:
    # Every binding at a byte offset (a 4-bit tensor at 32 bytes is element 64); the pad nibble must be 0 and
    # no byte past the last element's (those up to TotalTensorSizeInBytes and the slack past it) written.
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    scale_sizes = (*shape[:-1], 1 if shape[-1] % 5 else 3)  # blocks of 5 along the last axis where it divides
    x = float32_sweep(rng, shape)
    scale = rng.uniform(0.1, 3.0, scale_sizes).astype(F32)
    zero = quantized_values(rng, out, scale_sizes)
    desc = quantize_desc(T.FLOAT32, out, shape, scale_sizes, True)
    run = run_quantization(device, desc, [x, scale, zero], offsets=[16, 48, 32, 32])
    assert_same(run.got, quantize_reference(x, scale, zero, out))
    assert_clean(run)
    assert extent_bytes(desc.output_tensor.desc) == (int(np.prod(shape)) + 1) // 2


@pytest.mark.parametrize(
    "strides", [None, (9, 1), (1, 3), (0, 1)], ids=["packed", "padded-odd-rows", "column-major", "broadcast-rows"]
)
@pytest.mark.parametrize("quantized", [T.INT4, T.UINT4], ids=["int4", "uint4"])
def test_odd_counts_and_strided_4_bit_inputs_dequantized(
    device: Any, quantized: T, strides: tuple[int, int] | None
) -> None:
    # 3 rows of 7 (21 elements): rows start mid-byte when padded to 9, elements step over nibbles of both halves
    # when column-major, one row is read three times when broadcast; the pad nibble of the input's last byte
    # holds junk (PAD_NIBBLE) it must not read.
    rng = np.random.default_rng(7 + (strides or (0,))[0])
    x = quantized_values(rng, quantized, (3, 7))
    if strides == (0, 1):
        x = np.broadcast_to(x[:1], x.shape)  # one row of 7 nibbles read for every row
    scale, zero = rng.uniform(0.1, 2.0, (3, 1)).astype(F16), quantized_values(rng, quantized, (3, 1))
    desc = dequantize_desc(quantized, T.FLOAT16, (3, 7), (3, 1), True, input_strides=strides)
    run = run_quantization(device, desc, [x, scale, zero], offsets=[16, 0, 16, 48])
    assert_same(run.got, dequantize_reference(x, scale, zero, quantized, T.FLOAT16))
    assert_clean(run)


@pytest.mark.parametrize("out", [T.INT4, T.UINT4], ids=["int4", "uint4"])
def test_strided_float_input_quantized_into_odd_counts(device: Any, out: T) -> None:
    # A column-major (3, 7) input steps by 3 along its rows: no row loop, the strided walk, whose work-items must
    # still store both nibbles of each output byte themselves (NIBBLE_PAIRS).
    rng = np.random.default_rng(21)
    x = float32_sweep(rng, (3, 7))
    scale, zero = rng.uniform(0.1, 2.0, (3, 1)).astype(F32), quantized_values(rng, out, (3, 1))
    desc = dml.QuantizeOperatorDesc(
        InputTensor=tensor(T.FLOAT32, (3, 7), (1, 3)),
        QuantizationType=QT.SCALE_ZERO_POINT,
        QuantizationTensors=[tensor(T.FLOAT32, (3, 1)), tensor(out, (3, 1))],
        OutputTensor=tensor(out, (3, 7)),
    )
    run = run_quantization(device, desc, [x, scale, zero])
    assert_same(run.got, quantize_reference(x, scale, zero, out))
    assert_clean(run)


@pytest.mark.parametrize("op", ["QUANTIZE", "DEQUANTIZE"])
def test_strided_and_broadcast_quantization_tensors(device: Any, op: str) -> None:
    # Blocked (4, 2) of a (4, 6) tensor, the scale's rows padded to 3 elements, the zero point one row for all
    # (strides (0, 1)); and the ELEMENT_WISE form, Sizes the input's with 0 strides, for a per-row scale.
    rng = np.random.default_rng(46)
    real, quantized = T.FLOAT32, T.UINT4
    for scale_desc, zero_desc, scale_sizes in (
        (tensor(real, (4, 2), (3, 1)), tensor(quantized, (4, 2), (0, 1)), (4, 2)),
        (tensor(real, (4, 6), (1, 0)), tensor(quantized, (4, 6), (1, 0)), (4, 1)),
    ):
        scale = np.broadcast_to(rng.uniform(0.1, 2.0, scale_sizes).astype(F32), scale_desc.sizes)
        zero = np.broadcast_to(
            quantized_values(rng, quantized, (1 if scale_sizes == (4, 2) else 4, scale_sizes[1])), scale_desc.sizes
        )
        source, target = (real, quantized) if op == "QUANTIZE" else (quantized, real)
        cls = dml.QuantizeOperatorDesc if op == "QUANTIZE" else dml.DequantizeOperatorDesc
        desc = cls(
            InputTensor=tensor(source, (4, 6)),
            QuantizationType=QT.SCALE_ZERO_POINT,
            QuantizationTensors=[scale_desc, zero_desc],
            OutputTensor=tensor(target, (4, 6)),
        )
        if op == "QUANTIZE":
            x = float32_sweep(rng, (4, 6))
            want = quantize_reference(x, scale, zero, quantized)
        else:
            x = quantized_values(rng, quantized, (4, 6))
            want = dequantize_reference(x, scale, zero, quantized, real)
        run = run_quantization(device, desc, [x, scale, zero])
        assert_same(run.got, want)
        assert_clean(run)


@pytest.mark.parametrize("out", [T.INT4, T.UINT4], ids=["int4", "uint4"])
def test_eight_dimensions_after_splitting(device: Any, out: T) -> None:
    # (4, 4, 4, 4) blocked in 2 along every axis walks 8 dimensions, the most the kernels hold; one more blocked
    # axis is refused when the operator is compiled.
    rng = np.random.default_rng(8)
    sizes, scale_sizes = (4, 4, 4, 4), (2, 2, 2, 2)
    x, scale = float32_sweep(rng, sizes), rng.uniform(0.1, 3.0, scale_sizes).astype(F32)
    zero = quantized_values(rng, out, scale_sizes)
    desc = quantize_desc(T.FLOAT32, out, sizes, scale_sizes, True)
    assert desc.lower().layout.rank == 8
    run = run_quantization(device, desc, [x, scale, zero])
    assert_same(run.got, quantize_reference(x, scale, zero, out))
    assert_clean(run)
    too_many = quantize_desc(T.FLOAT32, out, (4,) * 5, (2,) * 5, True)
    with pytest.raises(dml.UnsupportedError, match="its blocks split the input into 10 dimensions after merging"):
        device.compile_operator(device.create_operator(too_many), dml.ExecutionFlags.NONE)


def test_a_strided_4_bit_output_is_refused(device: Any) -> None:
    desc = dml.QuantizeOperatorDesc(
        InputTensor=tensor(T.FLOAT32, (3, 7)),
        QuantizationType=QT.SCALE,
        QuantizationTensors=[tensor(T.FLOAT32, (1, 1))],
        OutputTensor=tensor(T.UINT4, (3, 7), (8, 1)),
    )
    with pytest.raises(dml.UnsupportedError, match="dmlpy writes a 4-bit output packed only"):
        device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)


def test_the_helpers_pack_as_directml_documents() -> None:
    # ne-directml-dml_tensor_data_type.md: UINT4 [1, 2, 3, 4, 5] is the bytes [0x21, 0x43, 0x05] (the tail nibble
    # ignorable: PAD_NIBBLE here).
    assert pack_nibbles(np.array([1, 2, 3, 4, 5])).tolist() == [0x21, 0x43, 0xA5]
    assert unpack_nibbles(np.array([0x21, 0x43, 0xF5], np.uint8), 5, T.UINT4).astype(int).tolist() == [1, 2, 3, 4, 5]
    assert unpack_nibbles(np.array([0x8F], np.uint8), 2, T.INT4).astype(int).tolist() == [-1, -8]


# ------------------------------------------------------------------------------------------------ 32-bit exact


def dequantize_linear_reference(x: int, zero: int, scale: Any, out: np.dtype[Any]) -> float:
    """(x - zero) exact in integers, rounded once to float32, times the scale, rounded to float32 (the product
    of two float32 values is exact in float64), then to float16 for a float16 output."""
    difference = np.float32(oracle.round_to_float(Fraction(x - zero), F32))
    value = np.float32(np.float64(difference) * np.float64(scale))
    return float(value.astype(out)) if out == F16 else float(value)


def test_the_issues_example() -> None:
    # (23946213 - -2445234) = 26391447 rounds to the float32 26391448; times 0.28006872f it is 7391419.0 (through
    # float the operands would round first, giving 7391418.5).
    assert dequantize_linear_reference(23946213, -2445234, np.float32(0.28006872), F32) == 7391419.0


EXTREMES = [pytest.param(d, T.FLOAT32, id=f"{d.name}-float32") for d in INTEGER_DTYPES_32] + [
    pytest.param(d, T.FLOAT16, id=f"{d.name}-float16") for d in INTEGER_DTYPES_32 if d.itemsize == 4
]
"""Every integer type into FLOAT32; the 32-bit ones, whose difference is taken in 64 bits, into FLOAT16 too."""


@pytest.mark.one_profile  # values, not launch shapes: the operator rows run both profiles
@pytest.mark.parametrize(("integer", "real"), EXTREMES)
def test_element_wise_dequantize_linear_at_the_extremes(device: Any, integer: np.dtype[Any], real: T) -> None:
    low, high = oracle.INTEGER_RANGES[integer]
    xs = np.array(sorted({low, low + 1, -1 if low else 1, 0, 1, high // 2, high - 1, high}), np.int64)
    zeros = np.array(sorted({low, low + 1, 0, high - 1, high}), np.int64)
    if integer == np.int32:
        xs, zeros = np.append(xs, 23946213), np.append(zeros, -2445234)  # the issue's example
    sizes = (zeros.size, xs.size)
    out = REAL[real]
    scale = np.array(0.28006872 if real == T.FLOAT32 else 2.0**-17, out)  # float16: |products| < 2^15, finite
    data_type = dml.TensorDataType[integer.name.upper()]
    desc = dml.ElementWiseDequantizeLinearOperatorDesc(
        input_tensor=tensor(data_type, sizes),
        scale_tensor=tensor(real, sizes, (0, 0)),
        zero_point_tensor=tensor(data_type, sizes, (1, 0)),  # one zero point per row
        output_tensor=tensor(real, sizes),
    )
    run = run_operator(
        device,
        desc,
        {
            "input_tensor": lambda n: np.resize(xs, n).astype(integer),
            "scale_tensor": lambda n: np.full(n, scale),
            "zero_point_tensor": lambda n: zeros[:n].astype(integer),
        },
    )
    want = np.array([[dequantize_linear_reference(x, z, scale, out) for x in xs] for z in zeros], out)
    assert_same(run.got, want)
    assert run.changed_outside == []
    if integer == np.int32 and real == T.FLOAT32:
        assert float(run.got[-1, -1]) == 7391419.0


# ------------------------------------------------------------------------------------------------ fusion


@pytest.mark.parametrize(
    ("sizes", "scale_sizes"),
    [((16, 64), (16, 2)), ((3, 15), (3, 3)), ((6, 20), (3, 4))],
    ids=["16x64-blocks-of-32", "3x15-odd-blocks-of-5", "6x20-blocked-2-axes"],
)
@pytest.mark.parametrize("real", [T.FLOAT32, T.FLOAT16], ids=["float32", "float16"])
def test_dequantize_round_quantize_fuses_into_one_kernel(
    device: Any, real: T, sizes: tuple[int, int], scale_sizes: tuple[int, int]
) -> None:
    rng = np.random.default_rng(sizes[0] + (real == T.FLOAT16))
    x = quantized_values(rng, T.INT4, sizes)
    scale = rng.uniform(0.05, 2.0, scale_sizes).astype(REAL[real])
    scale.flat[0] = 0.5  # (x - zero) * 0.5: halves, ties for the Round
    zero = quantized_values(rng, T.INT4, scale_sizes)
    rounding = dml.ElementWiseRoundOperatorDesc(
        input_tensor=tensor(real, sizes),
        output_tensor=tensor(real, sizes),
        rounding_mode=dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    )
    desc = chain(
        [
            dequantize_desc(T.INT4, real, sizes, scale_sizes, True),
            rounding,
            quantize_desc(real, T.INT4, sizes, scale_sizes, True),
        ]
    )
    inputs = [pack_nibbles(x).tobytes(), scale.tobytes(), pack_nibbles(zero).tobytes()]
    count = int(np.prod(sizes))
    extent = (count + 1) // 2
    output_bytes = dml.calc_buffer_tensor_size(T.INT4, sizes)
    fused, fused_bytes = run_packed_graph(device, desc, inputs, output_bytes, fuse=True)
    separate, separate_bytes = run_packed_graph(device, desc, inputs, output_bytes, fuse=False)
    assert fused.kernel_count == 1 and separate.kernel_count == 3
    assert fused_bytes.tobytes() == separate_bytes.tobytes()
    assert fused_bytes[extent:].tolist() == [0xEE] * (fused_bytes.size - extent)
    real_values = dequantize_reference(x, scale, zero, T.INT4, real)
    want = quantize_reference(
        round_reference(real_values, dml.RoundingMode.HALVES_TO_NEAREST_EVEN), scale, zero, T.INT4
    )
    assert_same(unpack_nibbles(fused_bytes[:extent], count, T.INT4).reshape(sizes), want)


@pytest.mark.parametrize(
    ("requantized_sizes", "kernels"),
    [((16, 4), 2), ((16, 1), 1), ((4, 2), 1)],
    ids=["blocked-otherwise-2-kernels", "per-row-1-kernel", "blocked-on-both-axes-1-kernel"],
)
def test_a_chain_blocked_two_ways_along_one_axis_splits(
    device: Any, requantized_sizes: tuple[int, int], kernels: int
) -> None:
    # DEQUANTIZE in 2 blocks of 32 along axis 1 -> QUANTIZE with its own quantization tensors: in 4 blocks of
    # 16 along that axis one kernel cannot split it both ways, so two run; per row, or blocked along axis 0
    # (the first split along axis 1 kept), one kernel. Every way equals the nodes one by one and the reference.
    rng = np.random.default_rng(64)
    sizes, scale_sizes = (16, 64), (16, 2)
    x, zero = quantized_values(rng, T.INT4, sizes), quantized_values(rng, T.INT4, scale_sizes)
    scale = rng.uniform(0.05, 2.0, scale_sizes).astype(F32)
    scale2 = rng.uniform(0.05, 2.0, requantized_sizes).astype(F32)
    quantize = dml.QuantizeOperatorDesc(
        InputTensor=tensor(T.FLOAT32, sizes),
        QuantizationType=QT.SCALE,
        QuantizationTensors=[tensor(T.FLOAT32, requantized_sizes)],
        OutputTensor=tensor(T.INT4, sizes),
    )
    desc = chain([dequantize_desc(T.INT4, T.FLOAT32, sizes, scale_sizes, True), quantize], {1: (3,)})
    inputs = [pack_nibbles(x).tobytes(), scale.tobytes(), pack_nibbles(zero).tobytes(), scale2.tobytes()]
    output_bytes = dml.calc_buffer_tensor_size(T.INT4, sizes)
    fused, fused_bytes = run_packed_graph(device, desc, inputs, output_bytes, fuse=True)
    _, separate_bytes = run_packed_graph(device, desc, inputs, output_bytes, fuse=False)
    assert fused.kernel_count == kernels
    assert fused_bytes.tobytes() == separate_bytes.tobytes()
    want = quantize_reference(dequantize_reference(x, scale, zero, T.INT4, T.FLOAT32), scale2, None, T.INT4)
    assert_same(unpack_nibbles(fused_bytes[: x.size // 2], x.size, T.INT4).reshape(sizes), want)


@pytest.mark.parametrize("out", [T.INT4, T.UINT4], ids=["int4", "uint4"])
def test_fake_quantization_through_a_4_bit_temporary(device: Any, out: T) -> None:
    # QUANTIZE(blocked, 45 elements) -> DEQUANTIZE: node by node the 4-bit value lies in the temporary resource
    # (23 bytes, a half-filled last one); fused it never leaves the registers. Both equal the reference.
    rng = np.random.default_rng(45)
    sizes, scale_sizes = (3, 15), (3, 3)
    x = float32_sweep(rng, sizes)
    scale, zero = rng.uniform(0.1, 3.0, scale_sizes).astype(F32), quantized_values(rng, out, scale_sizes)
    desc = chain(
        [
            quantize_desc(T.FLOAT32, out, sizes, scale_sizes, True),
            dequantize_desc(out, T.FLOAT32, sizes, scale_sizes, True),
        ]
    )
    inputs = [x.tobytes(), scale.tobytes(), pack_nibbles(zero).tobytes()]
    fused, fused_bytes = run_packed_graph(device, desc, inputs, 4 * 45, fuse=True)
    separate, separate_bytes = run_packed_graph(device, desc, inputs, 4 * 45, fuse=False)
    assert fused.kernel_count == 1 and separate.kernel_count == 2
    assert fused_bytes.tobytes() == separate_bytes.tobytes()
    want = dequantize_reference(quantize_reference(x, scale, zero, out), scale, zero, out, T.FLOAT32)
    assert_same(fused_bytes[: 4 * 45].view(F32).reshape(sizes), want)


@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "node-by-node"])
def test_4_bit_constants_of_a_built_graph(device: Any, fuse: bool) -> None:
    # dml.Graph: a 3x3 INT4 zero point and the FLOAT16 scale as constant data nodes (9 nibbles: a half-filled
    # last byte, packed by the builder), DEQUANTIZE(3x15 INT4 input) -> QUANTIZE(UINT4, SCALE only).
    rng = np.random.default_rng(9)
    sizes, scale_sizes = (3, 15), (3, 3)
    x, zero = quantized_values(rng, T.INT4, sizes), quantized_values(rng, T.INT4, scale_sizes)
    scale = rng.uniform(0.05, 2.0, scale_sizes).astype(F16)
    g = dml.Graph(device)
    zero_node = g.constant(zero, tensor(T.INT4, scale_sizes))
    scale_node = g.constant(scale, tensor(T.FLOAT16, scale_sizes))
    real = g.add_operator(
        dequantize_desc(T.INT4, T.FLOAT16, sizes, scale_sizes, True),
        [g.input(tensor(T.INT4, sizes)), scale_node, zero_node],
    )
    y = g.add_operator(quantize_desc(T.FLOAT16, T.UINT4, sizes, scale_sizes, False), [real, scale_node])
    output_bytes = dml.calc_buffer_tensor_size(T.UINT4, sizes)
    compiled, got = run_packed_graph(device, g.desc_for([y]), [pack_nibbles(x).tobytes()], output_bytes, fuse=fuse)
    assert compiled.kernel_count == (1 if fuse else 2)
    want = quantize_reference(dequantize_reference(x, scale, zero, T.INT4, T.FLOAT16), scale, None, T.UINT4)
    assert_same(unpack_nibbles(got[:23], 45, T.UINT4).reshape(sizes), want)
    assert got[23:].tolist() == [0xEE] * (got.size - 23)
