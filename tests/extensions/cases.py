"""Inputs for the extension tests (edge values per format, seeded random values) and two ways to run
DMLPY_EXT_ELEMENT_WISE_ROUND: on NumPy arrays (compile_initialized + run_on_arrays) and through DirectML's
object model over sentinel-filled buffers (create_operator .. binding table .. record_dispatch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

import dmlpy as dml
from dmlpy.extensions import ExtRoundingMode, ExtTensorDataType
from dmlpy.extensions.operators import ExtElementWiseRoundOperatorDesc
from dmlpy.runtime.host_arrays import compile_initialized, run_on_arrays

from .oracle import MODES, Format, format_of, round_values

MODE_IDS = list(MODES)

# Written out by hand (not dmlpy.dtypes.data_type_of, which is code under test).
DATA_TYPE: dict[np.dtype[Any], Any] = {
    np.dtype(np.float32): dml.TensorDataType.FLOAT32,
    np.dtype(np.float16): dml.TensorDataType.FLOAT16,
    np.dtype(np.float64): dml.TensorDataType.FLOAT64,
    np.dtype(ml_dtypes.bfloat16): ExtTensorDataType.BFLOAT16,
    np.dtype(np.int8): dml.TensorDataType.INT8,
    np.dtype(np.uint8): dml.TensorDataType.UINT8,
    np.dtype(np.int16): dml.TensorDataType.INT16,
    np.dtype(np.uint16): dml.TensorDataType.UINT16,
    np.dtype(np.int32): dml.TensorDataType.INT32,
    np.dtype(np.uint32): dml.TensorDataType.UINT32,
    np.dtype(np.int64): dml.TensorDataType.INT64,
    np.dtype(np.uint64): dml.TensorDataType.UINT64,
}
FLOAT_DTYPES = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32), np.dtype(np.float64))
INTEGER_DTYPES = tuple(
    np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
)


def ext_mode(mode: str) -> ExtRoundingMode:
    return ExtRoundingMode[mode]


def round_desc(
    dtype: np.dtype[Any],
    sizes: Sequence[int],
    mode: str,
    input_strides: Sequence[int] | None = None,
    output_strides: Sequence[int] | None = None,
) -> ExtElementWiseRoundOperatorDesc:
    data_type = DATA_TYPE[np.dtype(dtype)]
    return ExtElementWiseRoundOperatorDesc(
        input_tensor=dml.BufferTensorDesc(
            data_type=data_type, sizes=tuple(sizes), strides=None if input_strides is None else tuple(input_strides)
        ),
        output_tensor=dml.BufferTensorDesc(
            data_type=data_type, sizes=tuple(sizes), strides=None if output_strides is None else tuple(output_strides)
        ),
        rounding_mode=ext_mode(mode),
    )


def run_ext_round(device: Any, values: npt.NDArray[Any], mode: str) -> npt.NDArray[Any]:
    """``values`` (any shape, packed) rounded by the extension operator; a new array of the same dtype."""
    source = np.ascontiguousarray(values).reshape(-1)
    compiled = compile_initialized(device, round_desc(source.dtype, (source.size,), mode))
    result = np.empty_like(source)
    run_on_arrays(device, compiled, [source], result)
    return result.reshape(np.shape(values))


# ------------------------------------------------------------------------------------------------ inputs


def _patterns_to_values(patterns: Sequence[int], fmt: Format) -> npt.NDArray[Any]:
    return np.array(patterns, dtype=np.uint64).astype(fmt.bits_dtype).view(fmt.dtype)


def _pattern(value: float, fmt: Format) -> int | None:
    """The bit pattern of ``value`` when the format holds it exactly, else None."""
    array = np.array([value], dtype=np.float64).astype(fmt.dtype)
    if float(array[0]) != value:
        return None
    return int(array.view(fmt.bits_dtype)[0])


def edge_values(fmt: Format) -> npt.NDArray[Any]:
    """The issue's edge values for one format, both signs: ties, the floats next to ±0.5 (and next to other
    ties and integers), odd integers at and above 2^mantissa_bits, the largest tie, subnormals, ±0, ±inf,
    NaNs (quiet and signalling, with payloads)."""
    m = fmt.mantissa_bits
    big = 2.0**m
    exact: list[float] = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.5, 4.5, 5.5, 1e-3, 0.1, 0.9]
    exact += [k + 0.5 for k in range(0, 20)]
    exact += [big - 0.5, big - 1.5, big / 2 - 0.5, big / 2 + 0.5, big / 4 + 0.5, big - 1.0, big - 2.0]
    exact += [big, big + 1, big + 2, big + 3, 2 * big - 1, 2 * big + 2, 2 * big + 4, 4 * big - 2, 4 * big + 4]
    patterns: set[int] = set()
    for value in exact:
        pattern = _pattern(value, fmt)
        if pattern is None:
            continue
        # the value and its neighbours (for 0: the smallest subnormal)
        patterns.update({pattern, pattern + 1, max(pattern - 1, 0)})
    max_finite = ((fmt.exponent_mask - 1) << m) | fmt.mantissa_mask
    min_normal = 1 << m
    patterns.update({1, 2, 3, fmt.mantissa_mask, fmt.mantissa_mask - 1, min_normal, min_normal + 1})  # subnormals
    patterns.update({max_finite, max_finite - 1})
    infinity = fmt.exponent_mask << m
    patterns.update({infinity})
    nans = {infinity | fmt.quiet_bit, infinity | fmt.quiet_bit | 1, infinity | 1, infinity | fmt.mantissa_mask}
    nans |= {infinity | (fmt.quiet_bit >> 1), infinity | fmt.quiet_bit | (fmt.mantissa_mask >> 2)}
    patterns |= nans
    both_signs = sorted(patterns | {p | fmt.sign_bit for p in patterns})
    return _patterns_to_values(both_signs, fmt)


def random_values(fmt: Format, count: int, seed: int) -> npt.NDArray[Any]:
    """Seeded values of every kind: uniform random bit patterns (every exponent: huge, tiny, subnormal, NaN),
    values spread over (-2^m, 2^m) where fractions survive, small multiples of 1/4 (many ties), and
    magnitudes just around powers of two."""
    rng = np.random.default_rng(seed)
    quarter = count // 4
    bits_dtype = fmt.bits_dtype
    info = np.iinfo(bits_dtype)
    raw = rng.integers(0, int(info.max), quarter, dtype=bits_dtype, endpoint=True).view(fmt.dtype)
    spread = (rng.uniform(-1.0, 1.0, quarter) * 2.0 ** rng.integers(-30, fmt.mantissa_bits + 2, quarter)).astype(
        fmt.dtype
    )
    quarters = (rng.integers(-4096, 4097, quarter) / 4.0).astype(fmt.dtype)
    # around powers of two: a power of two's pattern plus a small signed bit offset
    exponent = rng.integers(fmt.bias - 4, fmt.bias + fmt.mantissa_bits + 2, count - 3 * quarter).astype(np.int64)
    around = (exponent << fmt.mantissa_bits) + rng.integers(-3, 4, exponent.size)
    around |= rng.integers(0, 2, exponent.size).astype(np.int64) << (fmt.width - 1)
    powers = (around.astype(np.uint64) & np.uint64((1 << fmt.width) - 1)).astype(bits_dtype).view(fmt.dtype)
    values = np.concatenate([raw, spread, quarters, powers])
    rng.shuffle(values)
    return values


def all_patterns(fmt: Format) -> npt.NDArray[Any]:
    assert fmt.width == 16
    return np.arange(1 << 16, dtype=np.uint16).view(fmt.dtype)


def is_nan(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    fmt = format_of(values.dtype)
    bits = values.view(fmt.bits_dtype).astype(np.uint64)
    exponent_field = np.uint64(fmt.exponent_mask << fmt.mantissa_bits)
    return ((bits & exponent_field) == exponent_field) & ((bits & np.uint64(fmt.mantissa_mask)) != 0)


# ------------------------------------------------------------------------------------------------ object model


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1]
    return tuple(strides)


def sentinel_bytes(size: int) -> npt.NDArray[np.uint8]:
    return ((np.arange(size, dtype=np.int64) * 37 + 11) % 256).astype(np.uint8)


def strided_view(
    memory: npt.NDArray[np.uint8], dtype: np.dtype[Any], offset: int, sizes: Sequence[int], strides: Sequence[int]
) -> npt.NDArray[Any]:
    span = sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)) + 1
    elements = memory[offset : offset + span * dtype.itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(
        elements, shape=tuple(sizes), strides=tuple(s * dtype.itemsize for s in strides), writeable=True
    )


def element_offsets(sizes: Sequence[int], strides: Sequence[int]) -> npt.NDArray[np.int64]:
    offsets = np.zeros((), dtype=np.int64)
    for size, stride in zip(sizes, strides, strict=True):
        offsets = offsets[..., None] + np.arange(size, dtype=np.int64) * stride
    return offsets.reshape(-1)


def fill_values(dtype: np.dtype[Any], count: int, seed: int) -> npt.NDArray[Any]:
    """Values for layout tests: for floats many ties, signed zeros, NaNs; for integers the full range."""
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), count, dtype=dtype, endpoint=True)
    fmt = format_of(dtype)
    values = (rng.integers(-40, 41, count) / 4.0).astype(dtype)
    specials = edge_values(fmt)
    picks = rng.random(count) < 0.3
    values[picks] = specials[rng.integers(0, specials.size, int(picks.sum()))]
    return values


def expected_rounding(values: npt.NDArray[Any], mode: str) -> npt.NDArray[Any]:
    """The oracle's result; integer types come back unchanged."""
    if values.dtype.kind in "iu":
        return values.copy()
    return round_values(np.ascontiguousarray(values), mode)


def round_through_object_model(
    device: Any,
    dtype: np.dtype[Any],
    sizes: Sequence[int],
    mode: str,
    *,
    input_strides: Sequence[int] | None = None,
    output_strides: Sequence[int] | None = None,
    input_offset: int = 0,
    output_offset: int = 0,
    in_place: bool = False,
    seed: int = 0,
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], list[int]]:
    """Run the extension operator via create_operator .. record_dispatch over sentinel-filled buffers.

    Returns (logical input, expected elements, got elements, byte offsets outside the output tensor whose
    bytes changed). NaN comparison is left to the caller."""
    dtype = np.dtype(dtype)
    desc = round_desc(dtype, sizes, mode, input_strides, output_strides)
    in_desc, out_desc = desc.input_tensor.desc, desc.output_tensor.desc
    in_strides = tuple(input_strides) if input_strides is not None else packed_strides(sizes)
    out_strides = tuple(output_strides) if output_strides is not None else packed_strides(sizes)
    in_total, out_total = in_desc.total_tensor_size_in_bytes, out_desc.total_tensor_size_in_bytes

    in_image = sentinel_bytes(input_offset + in_total + 48)
    span = sum((n - 1) * s for n, s in zip(sizes, in_strides, strict=True)) + 1
    in_image[input_offset : input_offset + span * dtype.itemsize] = fill_values(dtype, span, seed).view(np.uint8)
    logical_input = strided_view(in_image, dtype, input_offset, sizes, in_strides).copy()
    expected_elements = expected_rounding(logical_input, mode)

    before = in_image.copy() if in_place else sentinel_bytes(output_offset + out_total + 48)[::-1].copy()

    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    initializer = device.create_operator_initializer([compiled])
    device.create_command_recorder().record_dispatch(
        device.queue, initializer, device.create_binding_table(initializer)
    ).wait()
    in_buffer = device.create_buffer(in_image.size)
    in_buffer.write(in_image)
    if in_place:
        out_buffer = in_buffer
    else:
        out_buffer = device.create_buffer(before.size)
        out_buffer.write(before)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(in_buffer, input_offset, in_total)])
    table.bind_outputs([dml.BufferBinding(out_buffer, output_offset, out_total)])
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    got = out_buffer.read(np.uint8, out_buffer.size)
    if not in_place:
        assert np.array_equal(in_buffer.read(np.uint8, in_buffer.size), in_image), "the input buffer changed"

    got_elements = np.array(strided_view(got, dtype, output_offset, sizes, out_strides))
    mask = np.zeros(got.size, dtype=bool)
    for byte in range(dtype.itemsize):
        mask[output_offset + byte + dtype.itemsize * element_offsets(sizes, out_strides)] = True
    changed = np.flatnonzero((got != before) & ~mask).tolist()
    return logical_input, expected_elements, got_elements, changed
