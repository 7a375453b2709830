"""The values the binary operators' tests pair: each float type's special values, each integer type's edges, and
every ordered pair of them; the operator's name and its row's case of a type."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.ops._binary import BinaryArithmeticDesc
from tests.helpers.ext_oracle import format_of
from tests.helpers.operators import Case, OperatorRow

Array = npt.NDArray[Any]
F16, F32 = np.dtype(np.float16), np.dtype(np.float32)
NAN_PATTERNS = {
    # quiet with a payload, signalling with a payload (the quiet bit clear), negative quiet and signalling ones
    F32: (0x7FC00123, 0x7F800001, 0x7FA00000, 0xFFC00456, 0xFF800321),
    F16: (0x7E01, 0x7C01, 0x7D00, 0xFE02, 0xFC03),
}


def operator_name(desc: type[BinaryArithmeticDesc]) -> str:
    return desc.OPERATOR_TYPE.name.removeprefix("ELEMENT_WISE_")


def float_specials(dtype: np.dtype[Any]) -> Array:
    """The special values of a float type, both signs, and its NaNs."""
    fmt, info = format_of(dtype), np.finfo(dtype)
    one, zero, infinity = dtype.type(1), dtype.type(0), dtype.type(np.inf)
    tiny = np.nextafter(zero, one)
    overflow_half_ulp = dtype.type(2.0 ** (int(info.maxexp) - 2 - fmt.mantissa_bits))  # max + it ties to infinity
    overflow_root = dtype.type(2.0 ** (int(info.maxexp) // 2))  # its square is 2^maxexp: infinity
    tie_exponent = int(info.minexp) - fmt.mantissa_bits - 1  # half the smallest subnormal
    underflow_roots = [dtype.type(2.0 ** (tie_exponent // 2)), dtype.type(2.0 ** (tie_exponent - tie_exponent // 2))]
    magnitudes = [
        zero,
        tiny,
        dtype.type(info.smallest_normal) - tiny,  # the largest subnormal
        dtype.type(info.smallest_normal),
        dtype.type(2.0 ** -(fmt.mantissa_bits + 1)),  # half an ulp of 1: 1 + it ties to even
        one,
        np.nextafter(one, infinity),
        dtype.type(3),
        dtype.type(info.max),
        np.nextafter(dtype.type(info.max), zero),
        overflow_half_ulp,
        np.nextafter(overflow_half_ulp, zero),
        overflow_root,
        np.nextafter(overflow_root, zero),
        *underflow_roots,
        *(np.nextafter(root, infinity) for root in underflow_roots),
        infinity,
    ]
    values = np.array(magnitudes, dtype=dtype)
    nans = np.array(NAN_PATTERNS[dtype], dtype=fmt.bits_dtype).view(dtype)
    return np.concatenate([values, -values, nans])


def integer_edges(dtype: np.dtype[Any]) -> Array:
    info = np.iinfo(dtype)
    edges = {int(info.min), int(info.min) + 1, 0, 1, 2, int(info.max) - 1, int(info.max)}
    if info.min:
        edges.add(-1)
    return np.array(sorted(edges), dtype=dtype)


def cross_product(values: Array) -> tuple[Array, Array]:
    """Every ordered pair of ``values``, as ATensor's and BTensor's elements."""
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.reshape(-1), b.reshape(-1)


def case_of(row: OperatorRow, dtype: np.dtype[Any]) -> Case:
    (case,) = [case for case in row.cases if case.dtypes["a_tensor"] == dtype]
    return case
