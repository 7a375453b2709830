"""``dml.round``: NumPy in, NumPy out, for any shape and memory layout, in place, into views, with every
spelling of the mode; its argument errors; and that new shapes reuse the built programs."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.arrays import host_memory
from dmlpy.arrays.dispatch import ArrayCall
from tests.helpers.modes import DML_MODE_IDS as MODE_IDS
from tests.helpers.modes import DML_ROUNDING_MODES as MODES
from tests.helpers.references import round_reference
from tests.helpers.round_checks import DTYPE_IDS, DTYPES, assert_rounds_like_reference, interesting_values
from tests.helpers.turns import one_run_product


def values(shape, dtype, seed=0):
    count = int(np.prod(shape))
    return interesting_values(count, np.dtype(dtype), seed).reshape(shape)


SHAPES = [
    (),
    (0,),
    (3, 0, 2),
    (1,),
    (7,),
    (8,),
    (9,),
    (1000,),
    (3, 4),
    (2, 3, 4, 5, 6),
    (2,) * 8,
    (1, 1, 1, 1, 1, 1, 1, 1),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=[f"shape{s}".replace(" ", "") for s in SHAPES])
def test_any_shape(device, shape, dtype):
    x = values(shape, dtype, seed=len(shape))
    for mode in MODES:
        got = dml.round(x, mode=mode, device=device)
        assert isinstance(got, np.ndarray) and got.shape == shape and got.dtype == dtype
        assert got is not x
        assert_rounds_like_reference(got, x, mode)


def test_default_mode_and_device_and_python_scalars():
    assert dml.round(np.float32(2.5)).item() == 2.0
    got = dml.round(np.array(-2.5, dtype=np.float16))
    assert got.shape == () and got.dtype == np.float16 and got.item() == -2.0
    np.testing.assert_array_equal(dml.round(np.array([0.5, 1.5], np.float32)), np.array([0.0, 2.0], np.float32))


def _views(base: np.ndarray) -> dict[str, np.ndarray]:
    b2 = base.reshape(12, 20)
    b4 = base.reshape(2, 3, 4, 10)
    return {
        "c_contiguous": b4,
        "row_slice": b2[2:9],
        "column_slice": b2[:, 3:17],
        "step_slice": b2[::3, ::2],
        "transpose": b2.T,
        "transpose_4d": b4.transpose(3, 1, 0, 2),
        "fortran": np.asfortranarray(b4),
        "negative_strides": b2[::-1, ::-2],
        "negative_then_transpose": b4[:, ::-1].transpose(1, 3, 2, 0),
        "broadcast_to": np.broadcast_to(b2[3], (5, 20)),
        "broadcast_column": np.broadcast_to(b2[:, 4:5], (12, 7)),
        "zero_strides_3d": np.broadcast_to(base[:6].reshape(1, 6, 1), (4, 6, 3)),
        "scalar_broadcast": np.broadcast_to(base[17], (3, 5)),
        "misaligned_start": np.frombuffer(bytearray(b"\0" + base.tobytes()), base.dtype, 238, 1).reshape(14, 17),
    }


VIEW_NAMES = list(_views(np.zeros(240, np.float32)))


@pytest.mark.parametrize(
    ("view", "dtype", "mode"), one_run_product((VIEW_NAMES, VIEW_NAMES), (DTYPES, DTYPE_IDS), (MODES, MODE_IDS))
)
def test_input_layouts(device, view, dtype, mode):
    """Each view, type and mode on one (device, launch profile) pair, taking turns (tests/helpers/turns.py)."""
    base = values((240,), dtype, seed=3)
    x = _views(base)[view]
    before = base.copy()
    got = dml.round(x, mode=mode, device=device)
    assert got.shape == x.shape
    assert_rounds_like_reference(got, np.array(x), mode)
    np.testing.assert_array_equal(base.view(np.uint8), before.view(np.uint8))  # the input is not modified


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("view", ["c_contiguous", "row_slice", "step_slice", "transpose", "negative_strides"])
def test_in_place(device, view, dtype):
    base = values((240,), dtype, seed=4)
    x = _views(base)[view]
    original = np.array(x)
    outside = np.ones(base.shape, bool)
    _views(outside)[view][...] = False
    base_before = base.copy()
    got = dml.round(x, mode="half_away_from_zero", out=x, device=device)
    assert got is x
    assert_rounds_like_reference(x, original, dml.RoundingMode.TOWARD_INFINITY)
    np.testing.assert_array_equal(base[outside].view(np.uint8), base_before[outside].view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    "out_view", ["step_slice", "transpose", "negative_strides", "column_slice"], ids=lambda v: f"out_{v}"
)
def test_out_as_non_contiguous_view(device, out_view, dtype):
    sentinel = values((240,), dtype, seed=9)
    out_base = sentinel.copy()
    out = _views(out_base)[out_view]
    x = values(out.shape, dtype, seed=10)
    written = np.zeros(240, bool)
    _views(written)[out_view][...] = True
    got = dml.round(x, mode="toward_zero", out=out, device=device)
    assert got is out
    assert_rounds_like_reference(out, x, "toward_zero")
    np.testing.assert_array_equal(out_base[~written].view(np.uint8), sentinel[~written].view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    ("x_slice", "out_slice"),
    [((0, 200, 1), (8, 208, 1)), ((8, 208, 1), (0, 200, 1)), ((0, 200, 2), (1, 201, 2)), ((2, 202, 1), (201, 1, -1))],
    ids=["out_ahead", "out_behind", "interleaved_no_overlap", "reversed_overlap"],
)
def test_out_partially_overlapping_x(device, dtype, x_slice, out_slice):
    base = values((240,), dtype, seed=11)
    x = base[slice(*x_slice)]
    out = base[slice(*out_slice)]
    original = x.copy()
    for mode in MODES:
        base[...] = values((240,), dtype, seed=11)
        dml.round(x, mode=mode, out=out, device=device)
        assert_rounds_like_reference(out, original, mode)


@pytest.mark.parametrize(
    "x",
    # float64, bfloat16 and integer arrays run the Round extension (tests/device/extensions); these run nowhere.
    [np.zeros(4, np.complex64), np.zeros(4, bool), np.array(["0.5"]), np.zeros(4, "datetime64[s]"), [0.5j]],
    ids=["complex64", "bool", "str", "datetime64", "python_complex_list"],
)
def test_unsupported_dtypes(x):
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.round(x)
    assert "float32" in str(error.value) and "float16" in str(error.value)


def test_more_than_8_dimensions():
    with pytest.raises(dml.InvalidArgumentError, match="9 dimensions"):
        dml.round(np.zeros((1,) * 9, np.float32))


@pytest.mark.parametrize(
    "out",
    [
        np.zeros((3, 5), np.float32),
        np.zeros((4, 3), np.float32),
        np.zeros((3, 4), np.float16),
        np.zeros(12, np.float32),
    ],
    ids=["wrong_shape", "transposed_shape", "wrong_dtype", "flat"],
)
def test_out_of_wrong_shape_or_dtype(out):
    before = out.copy()
    with pytest.raises(dml.InvalidArgumentError, match="out has shape"):
        dml.round(np.full((3, 4), 2.5, np.float32), out=out)
    np.testing.assert_array_equal(out, before)


def test_read_only_out():
    out = np.zeros(4, np.float32)
    out.flags.writeable = False
    with pytest.raises(dml.InvalidArgumentError, match="read-only"):
        dml.round(np.ones(4, np.float32), out=out)


@pytest.mark.parametrize("mode", ["ceil", "HALF_EVEN", 3, -1, "half to even", ""], ids=lambda m: f"mode_{m!r}")
def test_unknown_mode(mode):
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.round(np.ones(3, np.float32), mode=mode)
    assert repr(mode) in str(error.value) and "half_to_even" in str(error.value)


MODE_SPELLINGS = [
    ("half_to_even", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
    ("HALF_TO_EVEN", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
    ("half_away_from_zero", dml.RoundingMode.TOWARD_INFINITY),
    ("toward_zero", dml.RoundingMode.TOWARD_ZERO),
    (dml.RoundingMode.HALVES_TO_NEAREST_EVEN, dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
    (dml.RoundingMode.TOWARD_ZERO, dml.RoundingMode.TOWARD_ZERO),
    (dml.RoundingMode.TOWARD_INFINITY, dml.RoundingMode.TOWARD_INFINITY),
    ("DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
    ("DML_ROUNDING_MODE_TOWARD_ZERO", dml.RoundingMode.TOWARD_ZERO),
    ("DML_ROUNDING_MODE_TOWARD_INFINITY", dml.RoundingMode.TOWARD_INFINITY),
    ("TOWARD_INFINITY", dml.RoundingMode.TOWARD_INFINITY),
    ("HALVES_TO_NEAREST_EVEN", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
    (0, dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
    (1, dml.RoundingMode.TOWARD_ZERO),
    (2, dml.RoundingMode.TOWARD_INFINITY),
    ("2", dml.RoundingMode.TOWARD_INFINITY),
]


@pytest.mark.parametrize(("spelling", "mode"), MODE_SPELLINGS, ids=[repr(s) for s, _ in MODE_SPELLINGS])
def test_mode_spellings(device, spelling, mode):
    x = np.array([-2.5, -1.75, -1.5, -0.5, -0.0, 0.5, 1.25, 1.5, 2.5, 3.5], np.float32)
    got = dml.round(x, mode=spelling, device=device)
    np.testing.assert_array_equal(got.view(np.uint32), round_reference(x, mode).view(np.uint32))


def test_new_shape_builds_no_new_program(device):
    x = np.linspace(-5, 5, 12, dtype=np.float32).reshape(3, 4)
    assert_rounds_like_reference(dml.round(x, mode="toward_zero", device=device), x, "toward_zero")
    programs = len(device.programs)
    y = np.linspace(-7, 7, 70, dtype=np.float32).reshape(5, 7, 2)
    assert_rounds_like_reference(dml.round(y, mode="toward_zero", device=device), y, "toward_zero")
    z = np.linspace(-7, 7, 1001, dtype=np.float32)
    assert_rounds_like_reference(dml.round(z, mode="toward_zero", device=device), z, "toward_zero")
    assert len(device.programs) == programs


def test_new_strided_shape_of_same_rank_builds_no_new_program(device):
    x = np.linspace(-5, 5, 60, dtype=np.float32).reshape(6, 10)[:, ::2]  # rank-2 strided layout
    assert_rounds_like_reference(dml.round(x, mode="toward_zero", device=device), x, "toward_zero")
    programs = len(device.programs)
    y = np.linspace(-9, 9, 99, dtype=np.float32).reshape(9, 11)[:, 1:10:3]
    assert_rounds_like_reference(dml.round(y, mode="toward_zero", device=device), y, "toward_zero")
    assert len(device.programs) == programs


@pytest.mark.slow
def test_more_than_2_31_float16_elements_in_place(device):
    # 2^31 + 1 half elements (4 GiB + 2 bytes): element indices and byte offsets beyond 2^31 must not wrap. Where
    # the device allocates less at once (PoCL here: 4 GiB), dml.round splits the array at that limit, and each
    # piece still spans more than 2^31 bytes.
    count = 2**31 + 1
    if device.cl_device.max_mem_alloc_size <= 2**31 + 64:
        pytest.skip(f"{device.name} allocates at most {device.cl_device.max_mem_alloc_size} bytes at once")
    x = np.empty(count, dtype=np.float16)
    x[...] = np.float16(2.5)
    samples = np.array([0, 1, 2**30, 2**30 + 1, count - 9, count - 8, count - 2, count - 1], dtype=np.int64)
    sample_values = np.array([0.5, -1.5, 3.5, -4.5, 5.5, -6.5, 7.5, -8.5], dtype=np.float16)
    x[samples] = sample_values
    dml.round(x, mode="half_away_from_zero", out=x, device=device)
    assert_rounds_like_reference(x[samples], sample_values, "half_away_from_zero")
    probe = np.setdiff1d(np.arange(0, count, 2**20 + 3), samples)
    np.testing.assert_array_equal(x[probe], np.float16(3.0))
    np.testing.assert_array_equal(x[-64:-10], np.float16(3.0))


@pytest.mark.slow
def test_packed_array_larger_than_one_allocation_is_rounded_in_pieces(device):
    limit = device.cl_device.max_mem_alloc_size
    if limit > 2**33:
        pytest.skip(f"{device.name} allocates up to {limit} bytes at once; the array would be too large here")
    x = np.full(limit // 4 + 4, 2.5, dtype=np.float32)
    x[-1] = -3.5
    dml.round(x, out=x, device=device)
    assert x[0] == 2.0 and x[limit // 4 - 1] == 2.0 and x[limit // 4] == 2.0 and x[-1] == -4.0


@pytest.mark.slow
def test_strided_array_larger_than_one_allocation_raises_dml_error(device):
    limit = device.cl_device.max_mem_alloc_size
    if limit > 2**33:
        pytest.skip(f"{device.name} allocates up to {limit} bytes at once; the array would be too large here")
    x = np.zeros((limit // 8 + 4, 2), dtype=np.float32)
    with pytest.raises(dml.OutOfMemoryError, match="CL_DEVICE_MAX_MEM_ALLOC_SIZE"):
        dml.round(x.T, device=device)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_pieces_for_arrays_beyond_one_allocation(device, dtype):
    # The piece-by-piece path that packed arrays beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE take, with a small limit
    # standing in for the device's: three whole pieces of 4096 elements and a short last one.
    x = values((3 * 4096 + 77,), dtype, seed=13)
    out = np.empty_like(x)
    call = ArrayCall(
        dml.ElementWiseRoundOperatorDesc, (("rounding_mode", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),), [x], out
    )
    host_memory.run(call, device, max_buffer_bytes=4096 * x.itemsize)
    assert_rounds_like_reference(out, x, "half_to_even")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_out_is_the_transpose_of_x(device, dtype):
    # The same memory, another element order: every output element depends on an input element it overwrites.
    base = values((16, 16), dtype, seed=12)
    original = base.copy()
    dml.round(base, mode="half_to_even", out=base.T, device=device)
    assert_rounds_like_reference(base.T, original, "half_to_even")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_in_place_zero_dimensional_and_empty(device, dtype):
    scalar = np.array(-2.5, dtype=dtype)
    assert dml.round(scalar, mode="half_away_from_zero", out=scalar, device=device) is scalar
    assert scalar.item() == -3.0
    empty = np.zeros((4, 0), dtype=dtype)
    assert dml.round(empty, out=empty, device=device) is empty


def test_repeated_calls_read_each_calls_arrays(device):
    # After its first call a layout launches without the binding table (dmlpy.arrays.dispatch.dispatch): every
    # later call must still read its own input, write its own output, and keep in place apart from out-of-place.
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 64)) * 50).astype(np.float32)
    out = np.empty_like(x)
    for _ in range(3):
        x[...] = (rng.standard_normal(x.shape) * 50).astype(np.float32) + 0.5
        expected = np.rint(x)
        assert dml.round(x, out=out, device=device) is out
        np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(dml.round(x, device=device), expected)
        fresh = x.copy()
        dml.round(fresh, out=fresh, device=device)
        np.testing.assert_array_equal(fresh, expected)


def test_calls_from_threads_each_get_their_own_result(device):
    rng = np.random.default_rng(6)
    inputs = [(rng.standard_normal(1000) * 100).astype(np.float32) for _ in range(8)]
    results: list[np.ndarray | None] = [None] * len(inputs)

    def work(index: int) -> None:
        for _ in range(20):
            results[index] = dml.round(inputs[index], mode="toward_zero", device=device)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for x, got in zip(inputs, results, strict=True):
        np.testing.assert_array_equal(got, np.trunc(x))
