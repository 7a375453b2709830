"""Helpers shared by the device tests: bit-exact comparison against the independent NumPy oracle
(``dmlpy.reference``), and one full trip through DirectML's object model over sentinel-filled buffers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from dmlpy.reference import round_reference

MODES = (
    dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    dml.RoundingMode.TOWARD_ZERO,
    dml.RoundingMode.TOWARD_INFINITY,
)
MODE_IDS = [mode.name for mode in MODES]
DTYPES = (np.dtype(np.float32), np.dtype(np.float16))
DTYPE_IDS = [dtype.name for dtype in DTYPES]
DATA_TYPES = {np.dtype(np.float32): dml.TensorDataType.FLOAT32, np.dtype(np.float16): dml.TensorDataType.FLOAT16}

_BITS = {np.dtype(np.float16): np.dtype(np.uint16), np.dtype(np.float32): np.dtype(np.uint32)}
_SIGN = {np.dtype(np.float16): 0x8000, np.dtype(np.float32): 0x8000_0000}
_PAYLOAD = {np.dtype(np.float16): 0x01FF, np.dtype(np.float32): 0x003F_FFFF}  # mantissa without the quiet bit


def bits(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The raw bit patterns of a float16/float32 array, flattened (a copy, so views and 0-d arrays work)."""
    flat = np.array(array, copy=True).reshape(-1)
    return flat.view(_BITS[flat.dtype])


def assert_same_rounding(actual: npt.NDArray[Any], expected: npt.NDArray[Any], inputs: npt.NDArray[Any]) -> None:
    """``actual`` equals ``expected`` bit for bit, except that where ``expected`` is NaN ``actual`` must be a NaN
    with the same sign bit and payload, the quiet bit aside (a signalling NaN may come back quieted)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    dtype = expected.dtype
    got, want = bits(actual), bits(expected)
    source = bits(inputs) if inputs.size == expected.size else None
    want_nan = np.isnan(np.array(expected).reshape(-1))
    got_nan = np.isnan(np.array(actual).reshape(-1))
    keep = _SIGN[dtype] | _PAYLOAD[dtype]
    wrong = np.where(want_nan, ~got_nan | ((got & keep) != (want & keep)), got != want)
    if wrong.any():
        where = np.flatnonzero(wrong)
        got_values, want_values = np.array(actual).reshape(-1), np.array(expected).reshape(-1)

        def hex_bits(value: Any) -> str:
            return f"{int(value):#0{dtype.itemsize * 2 + 2}x}"

        lines = [
            f"  [{i}] "
            + (f"input {hex_bits(source[i])} " if source is not None else "")
            + f"got {hex_bits(got[i])} ({got_values[i]!r}) want {hex_bits(want[i])} ({want_values[i]!r})"
            for i in where[:12]
        ]
        raise AssertionError(f"{where.size} of {want.size} {dtype} results differ:\n" + "\n".join(lines))


def assert_rounds_like_reference(
    actual: npt.NDArray[Any], inputs: npt.NDArray[Any], mode: dml.RoundingMode | str | int
) -> None:
    """``actual`` is ``inputs`` rounded in ``mode`` per the independent oracle (see assert_same_rounding)."""
    assert_same_rounding(actual, round_reference(np.asarray(inputs), as_mode(mode)), inputs)


ROUND_MODE_NAMES = {
    "half_to_even": dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    "half_away_from_zero": dml.RoundingMode.TOWARD_INFINITY,
    "toward_zero": dml.RoundingMode.TOWARD_ZERO,
}
"""The names ``dml.round`` accepts besides DirectML's (DESIGN §2), written out here, not taken from dmlpy."""


def as_mode(mode: dml.RoundingMode | str | int) -> dml.RoundingMode:
    if isinstance(mode, str) and mode in ROUND_MODE_NAMES:
        return ROUND_MODE_NAMES[mode]
    return dml.RoundingMode.parse(mode)


def sentinel_bytes(size: int) -> npt.NDArray[np.uint8]:
    """A byte pattern that no rounding result reproduces by accident and that shows a shifted write."""
    return ((np.arange(size, dtype=np.int64) * 37 + 11) % 256).astype(np.uint8)


def interesting_values(count: int, dtype: np.dtype[Any], seed: int, *, nans: bool = False) -> npt.NDArray[Any]:
    """Random values with many ties, signed zeros and infinities; with ``nans``, also NaNs of both signs with
    payloads, quiet and signalling."""
    rng = np.random.default_rng(seed)
    quarters = rng.integers(-40, 41, count) / 4.0
    spread = rng.uniform(-1000.0, 1000.0, count)
    values = np.where(rng.random(count) < 0.5, quarters, spread).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 0.5, -0.5, 2.5, -2.5], dtype=dtype)
    picks = rng.random(count) < 0.1
    values[picks] = specials[rng.integers(0, specials.size, int(picks.sum()))]
    if nans:
        patterns = NAN_PATTERNS[dtype]
        picks = rng.random(count) < 0.2
        values[picks] = patterns[rng.integers(0, patterns.size, int(picks.sum()))]
    return values


NAN_PATTERNS = {
    np.dtype(np.float16): np.array([0x7E00, 0xFE00, 0x7E01, 0xFF23, 0x7D00, 0xFC01, 0x7FFF, 0x7C80], np.uint16).view(
        np.float16
    ),
    np.dtype(np.float32): np.array(
        [0x7FC0_0000, 0xFFC0_0000, 0x7FC1_2345, 0xFFDE_ADBE, 0x7F80_0001, 0xFFA0_0000, 0x7FFF_FFFF], np.uint32
    ).view(np.float32),
}
"""NaNs of both signs, with and without payload, quiet and signalling."""


def strided_view(
    memory: npt.NDArray[np.uint8], dtype: np.dtype[Any], offset: int, sizes: Sequence[int], strides: Sequence[int]
) -> npt.NDArray[Any]:
    """A view of ``memory`` (bytes) as a DirectML tensor: element strides, byte offset of the first element."""
    span = sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)) + 1
    elements = memory[offset : offset + span * dtype.itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(
        elements, shape=tuple(sizes), strides=tuple(s * dtype.itemsize for s in strides), writeable=True
    )


def packed(sizes: Sequence[int]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1]
    return tuple(strides)


def initialize(device: Any, compiled: Any) -> None:
    """Record a dispatch of an operator initializer for ``compiled``, as DirectML requires once before use."""
    initializer = device.create_operator_initializer([compiled])
    table = device.create_binding_table(initializer)
    device.create_command_recorder().record_dispatch(device.queue, initializer, table).wait()


def round_through_object_model(
    device: Any,
    dtype: np.dtype[Any],
    sizes: Sequence[int],
    mode: dml.RoundingMode,
    *,
    input_strides: Sequence[int] | None = None,
    output_strides: Sequence[int] | None = None,
    input_offset: int = 0,
    output_offset: int = 0,
    in_place: bool = False,
    seed: int = 0,
    nans: bool = False,
) -> None:
    """Round one tensor via create_operator .. record_dispatch and check the whole output buffer byte for byte:
    the tensor's elements hold the oracle's results, every other byte still holds what was there before."""
    data_type = DATA_TYPES[dtype]
    in_desc = dml.BufferTensorDesc(data_type=data_type, sizes=tuple(sizes), strides=input_strides)
    out_desc = dml.BufferTensorDesc(data_type=data_type, sizes=tuple(sizes), strides=output_strides)
    if in_place:
        assert input_offset == output_offset and input_strides == output_strides
    op_desc = dml.ElementWiseRoundOperatorDesc(input_tensor=in_desc, output_tensor=out_desc, rounding_mode=mode)

    in_strides = tuple(input_strides) if input_strides is not None else packed(sizes)
    out_strides = tuple(output_strides) if output_strides is not None else packed(sizes)
    in_total, out_total = in_desc.total_tensor_size_in_bytes, out_desc.total_tensor_size_in_bytes

    # Host images of the buffers: sentinel everywhere, then the input's memory span filled with values.
    in_size = input_offset + in_total + 48
    in_image = sentinel_bytes(in_size)
    span = (in_total // dtype.itemsize) if input_strides is not None else int(np.prod(sizes))
    in_image[input_offset : input_offset + span * dtype.itemsize] = interesting_values(
        span, dtype, seed, nans=nans
    ).view(np.uint8)
    logical_input = strided_view(in_image, dtype, input_offset, sizes, in_strides).copy()

    if in_place:
        expected = in_image.copy()
    else:
        out_size = output_offset + out_total + 48
        expected = sentinel_bytes(out_size)[::-1].copy()
    strided_view(expected, dtype, output_offset, sizes, out_strides)[...] = round_reference(logical_input, mode)

    compiled = device.compile_operator(device.create_operator(op_desc), dml.ExecutionFlags.NONE)
    initialize(device, compiled)
    in_buffer = device.create_buffer(in_image.size)
    in_buffer.write(in_image)
    if in_place:
        out_buffer = in_buffer
    else:
        out_buffer = device.create_buffer(expected.size)
        out_buffer.write(sentinel_bytes(expected.size)[::-1].copy())
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(in_buffer, input_offset, in_total)])
    table.bind_outputs([dml.BufferBinding(out_buffer, output_offset, out_total)])
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    got = out_buffer.read(np.uint8, out_buffer.size)
    if not in_place:
        assert np.array_equal(in_buffer.read(np.uint8, in_buffer.size), in_image), "the input buffer changed"

    # The tensor's elements: the oracle's results (NaN: sign and payload kept, quiet bit aside).
    got_elements = np.array(strided_view(got, dtype, output_offset, sizes, out_strides))
    assert_rounds_like_reference(got_elements, logical_input, mode)
    # Every other byte of the buffer: exactly what was there before the dispatch.
    mask = np.zeros(got.size, dtype=bool)
    for byte in range(dtype.itemsize):
        positions = output_offset + byte + dtype.itemsize * _element_offsets(sizes, out_strides)
        mask[positions] = True
    changed = np.flatnonzero((got != expected) & ~mask)
    assert changed.size == 0, (
        f"{changed.size} bytes outside the output tensor's elements changed, first at byte offsets {changed[:8]}"
    )


def _element_offsets(sizes: Sequence[int], strides: Sequence[int]) -> npt.NDArray[np.int64]:
    """Element offsets of every element of a strided tensor, flattened."""
    offsets = np.zeros((), dtype=np.int64)
    for size, stride in zip(sizes, strides, strict=True):
        offsets = offsets[..., None] + np.arange(size, dtype=np.int64) * stride
    return offsets.reshape(-1)
