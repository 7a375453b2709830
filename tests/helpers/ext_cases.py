"""Inputs for the extension tests (edge values per format, seeded random values) and two ways to run
DMLPY_EXT_ELEMENT_WISE_ROUND: on NumPy arrays (the one-liners' array runner) and through DirectML's
object model over sentinel-filled buffers (create_operator .. binding table .. record_dispatch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from dmlpy.arrays.dispatch import ArrayCall
from dmlpy.arrays.runner import run
from dmlpy.extensions import ExtElementWiseRoundOperatorDesc, ExtRoundingMode
from tests.helpers.ext_oracle import Format, format_of
from tests.helpers.modes import NGRAPH_MODES as MODES

MODE_IDS = list(MODES)

FLOAT_DTYPES = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32), np.dtype(np.float64))


def ext_mode(mode: str) -> ExtRoundingMode:
    return ExtRoundingMode[mode]


def run_ext_round(device: Any, values: npt.NDArray[Any], mode: str) -> npt.NDArray[Any]:
    """``values`` (any shape, packed) rounded by the extension operator; a new array of the same dtype."""
    source = np.ascontiguousarray(values).reshape(-1)
    result = np.empty_like(source)
    run(ArrayCall(ExtElementWiseRoundOperatorDesc, (("rounding_mode", ext_mode(mode)),), [source], result), device)
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
