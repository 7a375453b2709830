"""ELEMENT_WISE_IDENTITY's values on dmlpy's default device, through DirectML's object model, against NumPy.

Without ScaleBias every supported type is copied bit for bit (NaN payloads, signalling NaNs and -0 included) in
every layout class of helpers.layouts, every byte of the output buffer outside the tensor unchanged: the Identity
row of tests/device/test_operator_rows_layouts.py; here, the copies' special cases (NaNs through a transpose, ranks).

With ScaleBias the reference is NumPy float32 arithmetic, step by step: ``p = np.float32(x) * np.float32(scale)``
then ``p + np.float32(bias)``, each rounded to float32 (no fused multiply-add: the kernel turns FP_CONTRACT off).
FLOAT16 results are that float32 rounded to half; integer results are it truncated toward zero and saturated to
the type's range (NaN to 0), dmlpy's documented rule (docs/operators/element_wise_identity.md). Non-NaN results
must match bit for bit; a NaN result must be a NaN (IEEE arithmetic does not fix its payload).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.dtypes import element_size_in_bits
from tests.helpers.layouts import LAYOUTS, S4, padded, permuted, pick
from tests.helpers.object_model import compile_and_initialize, run_unary
from tests.helpers.pairwise import pairwise_params

T = dml.TensorDataType
# Written out by hand (not dmlpy.dtypes, which is under test).
NUMPY: dict[dml.TensorDataType, np.dtype[Any]] = {
    T.FLOAT32: np.dtype(np.float32),
    T.FLOAT16: np.dtype(np.float16),
    T.FLOAT64: np.dtype(np.float64),
    T.INT8: np.dtype(np.int8),
    T.UINT8: np.dtype(np.uint8),
    T.INT16: np.dtype(np.int16),
    T.UINT16: np.dtype(np.uint16),
    T.INT32: np.dtype(np.int32),
    T.UINT32: np.dtype(np.uint32),
    T.INT64: np.dtype(np.int64),
    T.UINT64: np.dtype(np.uint64),
}
COPY_TYPES = list(NUMPY)
SCALE_BIAS_TYPES = [t for t in NUMPY if NUMPY[t].itemsize <= 4]
FLOAT_SPECIAL_BITS = {
    # quiet and signalling NaNs with payloads, both signs; infinities; signed zeros; smallest subnormals
    2: [0x7E00, 0xFE00, 0x7C01, 0xFC2A, 0x7D55, 0xFFFF, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x8001, 0x03FF],
    4: [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF8ABCDE, 0x7FA55555, 0xFFFFFFFF, 0x7F800000, 0xFF800000,
        0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF],
    8: [0x7FF8000000000000, 0xFFF8000000000001, 0x7FF0000000000001, 0xFFF4000000ABCDEF, 0x7FF0000000000000,
        0xFFF0000000000000, 0x0000000000000000, 0x8000000000000000, 0x0000000000000001],
}  # fmt: skip


@pytest.fixture(scope="module")
def dev() -> Any:
    return dml.default_device()


def make_values(dtype: np.dtype[Any], rng: np.random.Generator, *, specials: bool = True) -> Any:
    """``values(count)`` for helpers.object_model.run_unary: random values of ``dtype`` with, for floats, the
    special bit patterns first (when ``specials``)."""

    def values(count: int) -> npt.NDArray[Any]:
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            edges = np.array([info.min, info.max, 0, 1, info.max - 1], dtype)
            out = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
            out[: min(count, edges.size)] = edges[: min(count, edges.size)]
            return out
        out = (rng.standard_normal(count) * rng.choice([1e-3, 1.0, 1e3], count)).astype(dtype)
        if specials:
            bits = np.array(FLOAT_SPECIAL_BITS[dtype.itemsize], f"u{dtype.itemsize}")
            out[: min(count, bits.size)] = bits[: min(count, bits.size)].view(dtype)
        return out

    return values


def identity_desc(
    data_type: dml.TensorDataType, layout: dict[str, Any], scale_bias: dict[str, float] | None = None
) -> dml.ElementWiseIdentityOperatorDesc:
    sizes = layout["sizes"]
    return dml.ElementWiseIdentityOperatorDesc(
        input_tensor=dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=layout.get("input_strides")),
        output_tensor=dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=layout.get("output_strides")),
        scale_bias=scale_bias,
    )


def bits(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")


def scale_bias_reference(x: npt.NDArray[Any], scale: float, bias: float) -> npt.NDArray[Any]:
    """NumPy float32 arithmetic, one rounding per step, then the output type's conversion."""
    with np.errstate(all="ignore"):
        product = x.astype(np.float32) * np.float32(scale)
        result = product + np.float32(bias)
        if x.dtype.kind == "f":
            return result.astype(x.dtype)
        info = np.iinfo(x.dtype)
        wide = np.trunc(result.astype(np.float64))
        wide[np.isnan(wide)] = 0
        return np.clip(wide, info.min, info.max).astype(x.dtype)


def assert_scale_bias_equal(got: npt.NDArray[Any], want: npt.NDArray[Any]) -> None:
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])
    else:
        np.testing.assert_array_equal(got, want)


def _type_id(data_type: dml.TensorDataType) -> str:
    return data_type.name.lower()


# --------------------------------------------------------------------------------------------------------- copy


@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
@pytest.mark.parametrize("data_type", COPY_TYPES, ids=_type_id)
def test_a_copy_compiles_without_scale_bias_in_every_layout(
    dev: Any, data_type: dml.TensorDataType, layout: str
) -> None:
    """(The copy's values in every layout, bit for bit, with the bytes around the tensor unchanged, are the
    Identity row of tests/device/test_operator_rows_layouts.py.)"""
    compiled = dev.compile_operator(
        dev.create_operator(identity_desc(data_type, LAYOUTS[layout])), dml.ExecutionFlags.NONE
    )
    # The copy: both tensors as the unsigned integer of the element's width, no arithmetic.
    prelude = compiled.lowered.kernel.prelude
    bits_type = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}[element_size_in_bits(data_type)]
    assert f"#define TENSOR0_T {bits_type}\n" in prelude and "scale_bias" not in prelude


def test_copy_keeps_nan_payloads_through_a_transpose(dev: Any) -> None:
    # The object model written out (upload, bind, dispatch, read): FLOAT16 NaNs with payloads, signalling ones
    # included, read through a transposed input and written packed.
    sizes = (3, 5, 7)
    x = np.arange(105, dtype=np.uint16).reshape(7, 5, 3)
    x[::2, 1, :] = 0x7C01 + np.arange(12, dtype=np.uint16).reshape(4, 3)  # signalling NaNs with payloads
    x[1::2, 3, :] = 0xFE00 + np.arange(9, dtype=np.uint16).reshape(3, 3)  # negative quiet NaNs
    desc = dml.ElementWiseIdentityOperatorDesc(
        input_tensor=dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=sizes, strides=permuted(sizes, (2, 1, 0))),
        output_tensor=dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=sizes),
    )
    compiled = dev.compile_operator(dev.create_operator(desc))
    recorder = dev.create_command_recorder()
    initializer = dev.create_operator_initializer([compiled])
    recorder.record_dispatch(dev.queue, initializer, dev.create_binding_table(initializer)).wait()
    source = dev.upload(x.view(np.float16))
    target = dev.create_buffer(desc.output_tensor.desc.total_tensor_size_in_bytes)
    table = dev.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(source, 0, desc.input_tensor.desc.total_tensor_size_in_bytes)])
    table.bind_outputs([dml.BufferBinding(target, 0, desc.output_tensor.desc.total_tensor_size_in_bytes)])
    recorder.record_dispatch(dev.queue, compiled, table).wait()
    got = target.read(np.float16, sizes)
    np.testing.assert_array_equal(got.view(np.uint16), x.transpose(2, 1, 0))


@pytest.mark.parametrize("rank", range(1, 9), ids=lambda r: f"rank{r}")
@pytest.mark.parametrize("data_type", [T.FLOAT16, T.INT8, T.UINT32, T.FLOAT64], ids=_type_id)
def test_copy_every_rank(dev: Any, data_type: dml.TensorDataType, rank: int) -> None:
    sizes = (2, 3, 1, 2, 3, 2, 2, 3)[:rank]
    case = {"sizes": sizes, "input_strides": padded(sizes), "output_strides": permuted(sizes, tuple(range(rank))[::-1])}
    dtype = NUMPY[data_type]
    run = run_unary(dev, identity_desc(data_type, case), dtype, make_values(dtype, np.random.default_rng(rank)))
    np.testing.assert_array_equal(bits(run.got), bits(run.logical_input))
    assert run.changed_outside == []


def test_copy_longer_than_one_work_item(dev: Any) -> None:
    # Several work-items, a partial last one, packed and strided.
    from dmlpy.kernels.elementwise import ELEMENTS_PER_ITEM

    count = 3 * ELEMENTS_PER_ITEM + 5
    for case in ({"sizes": (count,)}, {"sizes": (count,), "input_strides": (3,)}, {"sizes": (5, count // 5)}):
        run = run_unary(
            dev,
            identity_desc(T.INT16, case),
            np.dtype(np.int16),
            make_values(np.dtype(np.int16), np.random.default_rng(1)),
        )
        np.testing.assert_array_equal(run.got, run.logical_input)
        assert run.changed_outside == []


def test_copy_at_feature_level_1_0_five_dimensions() -> None:
    old = dml.create_device(max_feature_level=dml.FeatureLevel.FL_1_0)
    case = {"sizes": (2, 1, 3, 2, 5), "input_strides": (0, 30, 10, 5, 1), "output_offset": 32}
    run = run_unary(
        old,
        identity_desc(T.FLOAT16, case),
        np.dtype(np.float16),
        make_values(np.dtype(np.float16), np.random.default_rng(3)),
        output_offset=32,
    )
    np.testing.assert_array_equal(bits(run.got), bits(run.logical_input))


# ------------------------------------------------------------------------------------------------- scale, bias

SCALE_BIAS_VALUES = {
    "affine": {"Scale": 1.5, "Bias": -2.0},
    "negate": {"Scale": -1.0, "Bias": 0.0},
    "inexact": {"Scale": 0.1, "Bias": 3.3},  # neither is a float32: the kernel uses them rounded to float32
    "large": {"Scale": 2.0**20, "Bias": -7.0},  # overflows: infinities, saturated integers
}
SCALE_BIAS_LAYOUTS = pick(
    "packed", "packed_odd_count", "strided_padded_input", "permuted_input", "broadcast_input_mixed",
    "offsets_strided", "in_place_packed", "in_place_strided",
)  # fmt: skip


@pytest.mark.parametrize(
    ("data_type", "values", "layout"),
    pairwise_params(
        (SCALE_BIAS_TYPES, [_type_id(t) for t in SCALE_BIAS_TYPES]),
        (list(SCALE_BIAS_VALUES), list(SCALE_BIAS_VALUES)),
        (list(SCALE_BIAS_LAYOUTS), list(SCALE_BIAS_LAYOUTS)),
    ),
)
def test_scale_bias_against_numpy_float32(
    dev: Any, data_type: dml.TensorDataType, values: str, layout: str, tally: Any
) -> None:
    """By default the combinations of type, Scale and Bias and layout in which every pair of two choices' values
    occurs (tests/helpers/pairwise.py: every type with every Scale and Bias, each in several layouts), the rest of
    the grid with --run-slow; the operator rows run the copy's every layout at every type."""
    case, scale_bias = SCALE_BIAS_LAYOUTS[layout], SCALE_BIAS_VALUES[values]
    dtype = NUMPY[data_type]
    run = run_unary(
        dev,
        identity_desc(data_type, case, scale_bias),
        dtype,
        make_values(dtype, np.random.default_rng(len(layout) + len(values))),
        input_offset=case.get("input_offset", 0),
        output_offset=case.get("output_offset", 0),
        in_place=case.get("in_place", False),
    )
    assert_scale_bias_equal(run.got, scale_bias_reference(run.logical_input, scale_bias["Scale"], scale_bias["Bias"]))
    assert run.changed_outside == []
    tally["identity elements compared"] += run.got.size


def _packed_run(dev: Any, x: npt.NDArray[Any], data_type: dml.TensorDataType, scale: float, bias: float) -> Any:
    return run_unary(
        dev,
        identity_desc(data_type, {"sizes": x.shape}, {"Scale": scale, "Bias": bias}),
        x.dtype,
        lambda count: x.reshape(-1)[:count],
    ).got


def test_no_fused_multiply_add(dev: Any) -> None:
    # x * s = 1 + 2^-22 + 2^-46 exactly, 1 + 2^-22 once rounded to float32; + b then gives 0. An fma would keep
    # the 2^-46 (and give 2^-46 * 3 for the second element).
    one_ulp = np.float32(1 + 2.0**-23)
    x = np.array([one_ulp, np.float32(1 + 2.0**-22)], np.float32)
    scale, bias = float(one_ulp), -float(np.float32(1 + 2.0**-22))
    want = scale_bias_reference(x, scale, bias)
    assert want[0] == 0  # the separate rounding the test is about
    for data_type in (T.FLOAT32,):
        np.testing.assert_array_equal(bits(_packed_run(dev, x, data_type, scale, bias)), bits(want))
    # Strided too (the walk's code path).
    run = run_unary(
        dev,
        identity_desc(T.FLOAT32, {"sizes": (2,), "input_strides": (3,)}, {"Scale": scale, "Bias": bias}),
        np.dtype(np.float32),
        lambda count: np.resize(x, count),
    )
    np.testing.assert_array_equal(bits(run.got), bits(scale_bias_reference(run.logical_input, scale, bias)))


def test_float16_results_are_float32_rounded_once_to_half(dev: Any) -> None:
    # Every finite half through x * 0.1 + 0.3: the float32 result rounded to nearest-even half, subnormal halves
    # and overflow to infinity included.
    halves = np.arange(0x10000, dtype=np.uint32).astype(np.uint16).view(np.float16)
    halves = halves[np.isfinite(halves)]
    for scale, bias in ((0.1, 0.3), (3.0, -0.0), (2.0**-10, 0.0), (1000.0, 1.0)):
        assert_scale_bias_equal(
            _packed_run(dev, halves, T.FLOAT16, scale, bias), scale_bias_reference(halves, scale, bias)
        )


def test_signed_zeros_and_special_scales(dev: Any) -> None:
    x = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 3.0e38, 1e-45], np.float32)
    for scale, bias in ((-0.0, -0.0), (0.0, 0.0), (-1.0, -0.0), (np.inf, 0.0), (1e39, 0.0), (np.nan, 1.0)):
        got = _packed_run(dev, x, T.FLOAT32, scale, bias)
        assert_scale_bias_equal(got, scale_bias_reference(x, scale, bias))


def test_integers_truncate_and_saturate(dev: Any) -> None:
    # dmlpy's documented rule for integers: float32 arithmetic, then toward zero, then the type's range.
    x8 = np.array([-128, -3, -1, 0, 1, 3, 100, 127], np.int8)
    np.testing.assert_array_equal(_packed_run(dev, x8, T.INT8, 0.5, 0.0), [-64, -1, 0, 0, 0, 1, 50, 63])
    np.testing.assert_array_equal(_packed_run(dev, x8, T.INT8, -1.0, 0.0), [127, 3, 1, 0, -1, -3, -100, -127])
    np.testing.assert_array_equal(_packed_run(dev, x8, T.INT8, 2.0, 0.5), [-128, -5, -1, 0, 2, 6, 127, 127])
    u32 = np.array([0, 1, 2**24 + 1, 2**32 - 1], np.uint32)  # 2^24 + 1 is no float32: it rounds to 2^24
    np.testing.assert_array_equal(_packed_run(dev, u32, T.UINT32, 1.0, 0.0), [0, 1, 2**24, 2**32 - 1])
    np.testing.assert_array_equal(_packed_run(dev, u32, T.UINT32, -1.0, 0.0), [0, 0, 0, 0])
    i32 = np.array([-(2**31), 2**31 - 1, 5, -5], np.int32)
    np.testing.assert_array_equal(
        _packed_run(dev, i32, T.INT32, np.inf, 0.0), [-(2**31), 2**31 - 1, 2**31 - 1, -(2**31)]
    )
    np.testing.assert_array_equal(_packed_run(dev, i32, T.INT32, 0.0, np.nan), [0, 0, 0, 0])


def test_in_place_scale_bias_through_one_binding(dev: Any) -> None:
    # The same buffer bound as InputTensor and OutputTensor (DirectML allows Identity in place).
    sizes = (2, 3, 4, 5)
    desc = identity_desc(T.FLOAT32, {"sizes": sizes}, {"Scale": 0.25, "Bias": 1.0})
    compiled = compile_and_initialize(dev, desc)
    x = np.random.default_rng(7).standard_normal(sizes).astype(np.float32)
    buffer = dev.upload(x)
    size = desc.input_tensor.desc.total_tensor_size_in_bytes
    table = dev.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer, 0, size)])
    table.bind_outputs([dml.BufferBinding(buffer, 0, size)])
    dev.create_command_recorder().record_dispatch(dev.queue, compiled, table).wait()
    np.testing.assert_array_equal(buffer.read(np.float32, sizes), scale_bias_reference(x, 0.25, 1.0))


def test_each_scale_bias_is_its_own_program(dev: Any) -> None:
    one = identity_desc(T.FLOAT32, {"sizes": S4}, {"Scale": 2.0, "Bias": 0.0}).lower().kernel
    other = identity_desc(T.FLOAT32, {"sizes": S4}, {"Scale": 3.0, "Bias": 0.0}).lower().kernel
    same_kind = identity_desc(T.FLOAT32, {"sizes": (7, 9)}, {"Scale": 2.0, "Bias": 0.0}).lower().kernel
    assert one != other and one == same_kind  # the shape is a kernel argument, Scale and Bias are not
    assert "scale_bias(in0, 0x1p+1f, 0x0p+0f)" in one.prelude and "scale_bias(in0, 0x1.8p+1f, 0x0p+0f)" in other.prelude


@pytest.mark.parametrize(
    ("options", "kernel"),
    [
        ((), "elementwise"),
        (("-DMAY_ALIAS=1",), "elementwise"),
        (("-DFUSED=1",), "fused_elementwise"),
        (("-DGRID_STRIDE=1",), "elementwise"),
    ],
    ids=["defaults", "may_alias", "fused", "grid_stride"],
)
def test_kernel_file_compiles_on_its_own(dev: Any, options: tuple[str, ...], kernel: str) -> None:
    # The element-wise template as shipped (its #include lines resolved by -I, not by dmlpy), with its own
    # defaults: a float32 copy.
    import pyopencl as cl

    from dmlpy.kernels import opencl_source_dir

    folder = opencl_source_dir()
    source = (folder / "elementwise.cl").read_text()
    program = cl.Program(dev.context, source).build(options=["-cl-std=CL1.2", f"-I{folder}", *options])
    assert program.get_info(cl.program_info.KERNEL_NAMES) == kernel
