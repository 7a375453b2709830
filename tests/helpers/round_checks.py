"""Helpers of Round's device tests (and of the runtime tests, which run Round): bit-exact comparison against the
independent NumPy oracle (``tests.helpers.references``), and one full trip through DirectML's object model over
sentinel-filled buffers (helpers.object_model)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.helpers.dtypes import ROUND_DTYPES as DTYPES
from tests.helpers.modes import ONE_LINER_MODE_NAMES
from tests.helpers.object_model import run_unary
from tests.helpers.operators import unary_descriptor
from tests.helpers.references import assert_rounded

DTYPE_IDS = [dtype.name for dtype in DTYPES]


def assert_rounds_like_reference(
    actual: npt.NDArray[Any], inputs: npt.NDArray[Any], mode: dml.RoundingMode | str | int
) -> None:
    """``actual`` is ``inputs`` rounded in ``mode`` per the independent oracle, bit for bit; a NaN keeps its sign
    and payload, the quiet bit aside (a signalling NaN may come back quieted): references.assert_rounded."""
    assert_rounded(np.asarray(inputs), np.asarray(actual), as_mode(mode))


def as_mode(mode: dml.RoundingMode | str | int) -> dml.RoundingMode:
    if isinstance(mode, str) and mode in ONE_LINER_MODE_NAMES:
        return ONE_LINER_MODE_NAMES[mode]
    return dml.RoundingMode.parse(mode)


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
    op_desc = unary_descriptor(
        dml.ElementWiseRoundOperatorDesc,
        tuple(sizes),
        dtype,
        input_strides=None if input_strides is None else tuple(input_strides),
        output_strides=None if output_strides is None else tuple(output_strides),
        rounding_mode=mode,
    )
    run = run_unary(
        device,
        op_desc,
        dtype,
        lambda count: interesting_values(count, dtype, seed, nans=nans),
        input_offset=input_offset,
        output_offset=output_offset,
        in_place=in_place,
    )
    # The tensor's elements: the oracle's results (NaN: sign and payload kept, quiet bit aside).
    assert_rounds_like_reference(run.got, run.logical_input, mode)
    # Every other byte of the buffer: exactly what was there before the dispatch.
    assert run.changed_outside == [], (
        f"{len(run.changed_outside or [])} bytes outside the output tensor's elements changed, first at byte "
        f"offsets {(run.changed_outside or [])[:8]}"
    )
