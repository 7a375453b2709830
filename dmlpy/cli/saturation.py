"""How many elements ``dmlpy quantize`` saturated, for its summary line.

An element saturated when ``round(x / scale) + zero_point`` lay outside the output type's range, so that the
clamp changed it. Only an element at one of the type's two extremes can have been; for those the count
recomputes the quotient as the kernel does (x as float32, a correctly rounded float32 division, rounded to half
for a float16 input: elementwise_ops.h's ``quantize_quotient``) and rounds it with ``dml.round`` in the
conversion's mode on the same device, so the rounding is the kernel's own, ties included: the count is exact.
A NaN quotient (which becomes 0) is not counted: nothing was clamped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dmlpy.modes import AnyRoundingMode

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device


PIECE = 2**18  # elements counted at once: 1 MiB of float32, a few MiB of temporaries


@dataclass
class Saturation:
    """The elements a quantization to ``dtype`` clamped to its lowest and highest values, counted chunk by chunk
    (``count``); ``mode`` is the conversion's."""

    dtype: np.dtype[Any]
    mode: AnyRoundingMode
    low: int = 0
    high: int = 0

    @property
    def limits(self) -> tuple[int, int]:
        return int(np.iinfo(self.dtype).min), int(np.iinfo(self.dtype).max)

    def count(
        self,
        x: npt.NDArray[Any],
        out: npt.NDArray[Any],
        scale: npt.NDArray[Any],
        zero_point: npt.NDArray[Any] | None,
        axis: int | None,
        device: Device | None,
    ) -> None:
        """Add the saturated elements of one chunk: ``out`` quantized on ``device`` from ``x`` with ``scale``
        and ``zero_point`` (along ``axis`` of ``x``, or one for all).

        The chunk is counted in slices of its first dimension of about ``PIECE`` elements, so that the count's
        temporaries stay small beside the chunk itself: the streaming commands run in bounded memory
        (tests/device/scale/test_cli_bounded_memory.py limits the process to less than the file)."""
        if x.ndim == 0:
            x, out = x.reshape(1), out.reshape(1)
        shape = (-1,) + (1,) * (x.ndim - 1 - axis) if axis is not None else ()
        zero = np.zeros((), np.int64) if zero_point is None else zero_point.astype(np.int64)
        scales = np.broadcast_to(scale.reshape(shape) if scale.ndim else scale, x.shape)
        zeros = np.broadcast_to(zero.reshape(shape) if zero.ndim else zero, x.shape)
        rows = max(1, PIECE // max(1, x[:1].size))
        for start in range(0, x.shape[0], rows):
            piece = slice(start, start + rows)
            self._count_piece(x[piece], out[piece], scales[piece], zeros[piece], device)

    def _count_piece(
        self,
        x: npt.NDArray[Any],
        out: npt.NDArray[Any],
        scales: npt.NDArray[Any],
        zeros: npt.NDArray[Any],
        device: Device | None,
    ) -> None:
        from dmlpy.arrays import round as dml_round

        lowest, highest = self.limits
        extreme = (out == lowest) | (out == highest)
        if not extreme.any():
            return
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # as the kernel: infinities, NaN
            quotient = x[extreme].astype(np.float32) / scales[extreme].astype(np.float32)
            if x.dtype == np.float16:
                quotient = quotient.astype(np.float16).astype(np.float32)
        with np.errstate(invalid="ignore"):  # NaN compares False: not saturated
            unclamped = dml_round(quotient, mode=self.mode, device=device).astype(np.float64) + zeros[extreme]
            self.low += int(np.count_nonzero(unclamped < lowest))
            self.high += int(np.count_nonzero(unclamped > highest))

    def summary(self) -> str:
        """``no element saturated``, or how many did, at each end."""
        total = self.low + self.high
        if not total:
            return "no element saturated"
        lowest, highest = self.limits
        ends = [f"{count} to {limit}" for count, limit in ((self.low, lowest), (self.high, highest)) if count]
        return f"{total} element{'' if total == 1 else 's'} saturated ({', '.join(ends)})"
