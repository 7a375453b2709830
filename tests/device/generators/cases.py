"""The generators' cases, shared by their device tests and their Oclgrind script: each a descriptor built for one
data type and layout, its inputs by slot (DIAGONAL_MATRIX1's InputTensor, or none), and the expected output from an
independent reference written in NumPy: np.full of the value's bits, start + i * delta in Python integers modulo
2^width or in float64 (exact for these values) rounded as the page's types round, np.eye with k = Offset, and
DIAGONAL_MATRIX1's XOR band rule over np.arange coordinates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import MovementCase, padded_strides, random_bits, table_types, tensor
from tests.helpers.dtypes import NUMPY_DTYPE

T = dml.TensorDataType
GeneratorCase = MovementCase
"""A generator's case has the movement cases' parts: descriptor, inputs, expected outputs, byte offsets."""
OUTPUT = "output_tensor"
OFFSET = 32
"""The byte offset a strided case binds its output at."""
SPECIAL_BITS = {2: 0x7D01, 4: 0x7FA12345, 8: 0xFFF0000000000123}
"""A float value by width: a signalling NaN with a payload, which only a copy of the bits keeps."""


def _bytes(bits: int) -> dml.ScalarUnion:
    return dml.ScalarUnion(bytes=tuple(bits.to_bytes(8, "little")))


def _layout(sizes: Sequence[int], strided: bool) -> tuple[tuple[int, ...] | None, dict[str, int]]:
    return (padded_strides(sizes, 3), {OUTPUT: OFFSET}) if strided else (None, {})


def _of_bits(data_type: Any, bits: Sequence[int], sizes: Sequence[int]) -> npt.NDArray[Any]:
    dtype = NUMPY_DTYPE[data_type]
    return np.array(bits, f"u{dtype.itemsize}").view(dtype).reshape(sizes)


def special_value(data_type: Any) -> int:
    """A value's bits for ``data_type``: a float's signalling NaN, an integer's most negative or largest value."""
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        return SPECIAL_BITS[dtype.itemsize]
    width = 8 * dtype.itemsize
    return 1 << (width - 1) if dtype.kind == "i" else (1 << width) - 1


def constant_case(data_type: Any, strided: bool, bits: int | None = None) -> GeneratorCase:
    """FILL_VALUE_CONSTANT over { 2, 3, 4, 5 }, Value given as Bytes: np.full of its bits."""
    sizes = (2, 3, 4, 5)
    bits = special_value(data_type) if bits is None else bits
    strides, offsets = _layout(sizes, strided)
    desc = dml.FillValueConstantOperatorDesc(
        output_tensor=tensor(data_type, sizes, strides), value_data_type=data_type, value=_bytes(bits)
    )
    return GeneratorCase(desc, {}, {OUTPUT: _of_bits(data_type, [bits] * int(np.prod(sizes)), sizes)}, offsets)


def sequence_reference(data_type: Any, start: float | int, delta: float | int, count: int) -> npt.NDArray[Any]:
    """start + i * delta for i in [0, count): integers in Python's, modulo 2^width; FLOAT32 the float64 value
    (exact for the tests' values: 24-bit start and delta, i below 2^7) rounded once; FLOAT16 that float32 rounded to
    half, as generators.cl rounds."""
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind in "iu":
        width = 8 * dtype.itemsize
        return _of_bits(data_type, [(int(start) + i * int(delta)) % 2**width for i in range(count)], (count,))
    exact = np.float64(start) + np.arange(count, dtype=np.float64) * np.float64(delta)
    exact[:1] = start  # element 0 is ValueStart itself: -0 stays -0, and 0 * a NaN or infinite delta is not added
    return exact.astype(np.float32).astype(dtype)


def sequence_case(
    data_type: Any, strided: bool, start: float | int | None = None, delta: float | int | None = None
) -> GeneratorCase:
    """FILL_VALUE_SEQUENCE over { 2, 3, 4, 5 }: by default an integer's start 5 below its largest value and delta
    -3 (wrapping at both ends for the narrow types), a float's 0.1 and -0.3 in the type."""
    sizes = (2, 3, 4, 5)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        start = float(dtype.type(0.1 if start is None else start))
        delta = float(dtype.type(-0.3 if delta is None else delta))
    else:
        start = int(np.iinfo(dtype).max) - 5 if start is None else start
        delta = -3 if delta is None else delta
    strides, offsets = _layout(sizes, strided)
    desc = dml.FillValueSequenceOperatorDesc(
        output_tensor=tensor(data_type, sizes, strides),
        value_data_type=data_type,
        value_start=_union(start, data_type),
        value_delta=_union(delta, data_type),
    )
    expected = sequence_reference(data_type, start, delta, int(np.prod(sizes))).reshape(sizes)
    return GeneratorCase(desc, {}, {OUTPUT: expected}, offsets)


def _union(value: float | int, data_type: Any) -> dml.ScalarUnion:
    """``value`` in its type's member; a negative one for an unsigned type as its bits (the page's -2 in UINT8)."""
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "u" and value < 0:
        value += 2 ** (8 * dtype.itemsize)
    return dml.ScalarUnion.of(value, data_type)


def float_field_in(value: float, data_type: Any) -> Any:
    """A FLOAT field's value in ``data_type``: floats rounded, integers truncated and saturated, NaN 0 (dmlpy's
    documented rule for PADDING's and DIAGONAL_MATRIX's FLOAT fields)."""
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return dtype.type(value)
    limits = np.iinfo(dtype)
    return dtype.type(0 if np.isnan(value) else np.clip(np.trunc(value), limits.min, limits.max))


def diagonal_case(data_type: Any, strided: bool, offset: int = 1, value: float = 10.6) -> GeneratorCase:
    """DIAGONAL_MATRIX over { 2, 3, 4, 6 }: np.eye(4, 6, k=Offset) times Value in the type, for each matrix."""
    sizes = (2, 3, 4, 6)
    strides, offsets = _layout(sizes, strided)
    desc = dml.DiagonalMatrixOperatorDesc(output_tensor=tensor(data_type, sizes, strides), offset=offset, value=value)
    dtype = NUMPY_DTYPE[data_type]
    eye = np.eye(4, 6, k=offset, dtype=bool) if abs(offset) < 6 else np.zeros((4, 6), bool)
    expected = np.where(eye, float_field_in(value, data_type), dtype.type(0)).astype(dtype)
    return GeneratorCase(desc, {}, {OUTPUT: np.broadcast_to(expected, sizes).copy()}, offsets)


def band(height: int, width: int, begin: int, end: int) -> npt.NDArray[np.bool_]:
    """DIAGONAL_MATRIX1's page's rule: (end >= begin) ^ (topX >= begin) ^ (topX < end), topX = x - y."""
    top = np.arange(width)[None, :] - np.arange(height)[:, None]
    return np.asarray((end >= begin) ^ (top >= begin) ^ (top < end))


def diagonal1_case(data_type: Any, strided: bool, begin: int = -1, end: int = 2, given: bool = True) -> GeneratorCase:
    """DIAGONAL_MATRIX1 over { 3, 4, 6 }: the band's elements Value (random bits, as Bytes), the others
    InputTensor's (random bits) or 0 without it."""
    sizes = (3, 4, 6)
    strides, offsets = _layout(sizes, strided)
    bits = int(random_bits(T.UINT64, (1,), 5)[0]) % 2 ** (8 * NUMPY_DTYPE[data_type].itemsize)
    x = random_bits(data_type, sizes, 6)
    desc = dml.DiagonalMatrix1OperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 1) if strided else None) if given else None,
        output_tensor=tensor(data_type, sizes, strides),
        value_data_type=data_type,
        value=_bytes(bits),
        diagonal_fill_begin=begin,
        diagonal_fill_end=end,
    )
    value = _of_bits(data_type, [bits], ())
    elsewhere = x if given else np.zeros(sizes, x.dtype)
    expected = np.where(band(4, 6, begin, end), value, elsewhere)
    return GeneratorCase(desc, {"input_tensor": x} if given else {}, {OUTPUT: expected}, offsets)


CASES: dict[str, Callable[[Any, bool], GeneratorCase]] = {
    "FILL_VALUE_CONSTANT": constant_case,
    "FILL_VALUE_SEQUENCE": sequence_case,
    "DIAGONAL_MATRIX": diagonal_case,
    "DIAGONAL_MATRIX1": diagonal1_case,
}
"""Each runnable generator's default case, for a data type and whether its tensors are strided at an offset."""


__all__ = ["CASES", "GeneratorCase", "band", "table_types", "tensor"]
