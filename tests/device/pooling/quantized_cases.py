"""QUANTIZED_LINEAR_AVERAGE_POOLING's cases (test_quantized_average_pooling.py, oclgrind_pooling_variants.py): the
descriptor, its inputs, and an independent reference from the page's formula in float64 NumPy: the window's quantized
differences summed exactly, (S / n) * (InputScale / OutputScale) rounded half to even, plus OutputZeroPoint,
saturated (a NaN to 0, QuantizeLinear's). docs/operators/pooling.md bounds the kernel's float32 against it: the two
may differ, by one, only where the reference lies within 3 units of roundoff of a half (``near_ties``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.pooling.cases import AVERAGE, U, Window, output_sizes, windows

T = dml.TensorDataType
QUANTIZED = dml.QuantizedLinearAveragePoolingOperatorDesc
SAME_WINDOW = AVERAGE[1]
"""AVERAGE_POOLING1: the quantized operator's window fields and rule (cases.py's helpers take its class)."""
PARAMETERS = ("input_scale_tensor", "input_zero_point_tensor", "output_scale_tensor", "output_zero_point_tensor")
RANGE = {T.INT8: (-128, 127), T.UINT8: (0, 255)}
ROUNDOFF = 3 * U * (1 + 2**-20)
"""The kernel's three float32 roundings, relative (docs/operators/pooling.md), with room for float64's own."""


@dataclass
class QuantizedCase:
    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    exact: npt.NDArray[np.float64]
    """(S / n) * (InputScale / OutputScale) per output element, float64: what the kernel rounds."""
    zero_point: npt.NDArray[np.float64]
    output_type: Any

    def expected(self, widen: float = 0.0) -> npt.NDArray[np.float64]:
        """The output from ``exact`` moved by ``widen`` (in units of its magnitude) before rounding."""
        with np.errstate(invalid="ignore"):
            rounded = np.rint(self.exact + widen * np.abs(self.exact)) + self.zero_point
        low, high = RANGE[self.output_type]
        return np.where(np.isnan(rounded), 0, np.clip(rounded, low, high))

    def near_ties(self) -> npt.NDArray[np.bool_]:
        """Where the kernel's float32 may round the other way: the reference within ROUNDOFF of a half."""
        return self.expected(-ROUNDOFF) != self.expected(ROUNDOFF)

    def mismatch(self, got: Mapping[str, npt.NDArray[Any]]) -> str | None:
        """Exactly the reference, but near a tie either neighbour."""
        value = got["output_tensor"].astype(np.float64)
        fine = (value == self.expected()) | (
            self.near_ties() & ((value == self.expected(-ROUNDOFF)) | (value == self.expected(ROUNDOFF)))
        )
        wrong = np.flatnonzero(~fine)
        return f"output_tensor: {wrong.size} elements wrong, first {wrong[:8].tolist()}" if wrong.size else None


def parameter_sizes(channels: int, per_channel: bool, rank: int, axis: int) -> tuple[int, ...]:
    """A scale's or zero point's Sizes: ``rank`` dimensions, ``channels`` at ``axis`` when ``per_channel``."""
    sizes = [1] * rank
    if per_channel:
        sizes[axis] = channels
    return tuple(sizes)


def quantized_case(
    types: tuple[Any, Any],
    sizes: Sequence[int],
    window: Window,
    *,
    include_padding: bool,
    per_channel: bool = True,
    zero_points: bool = True,
    layout: tuple[int, int] = (4, 1),
    gaps: Mapping[str, int] | None = None,
    seed: int = 1,
    scales: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = None,
) -> QuantizedCase:
    """A run over an input of ``sizes`` of ``types`` (InputTensor's, OutputTensor's): per-channel or single scales
    and zero points of ``layout`` (their DimensionCount, the axis holding the channels), the zero points absent
    without ``zero_points``, ``gaps`` padding a slot's rows (strided tensors); ``scales`` (InputScale, OutputScale)
    where given, else random ones of a few percent."""
    gaps = gaps or {}
    rng = np.random.default_rng(seed)
    channels = sizes[1]
    shape = parameter_sizes(channels, per_channel, *layout)
    count = channels if per_channel else 1
    low_in, high_in = RANGE[types[0]]
    low_out, high_out = RANGE[types[1]]
    dtype_in, dtype_out = np.dtype("i1" if types[0] == T.INT8 else "u1"), np.dtype("i1" if types[1] == T.INT8 else "u1")
    inputs: dict[str, npt.NDArray[Any]] = {
        "input_tensor": rng.integers(low_in, high_in, size=sizes, endpoint=True).astype(dtype_in),
        "input_scale_tensor": rng.uniform(0.01, 0.05, size=count).astype(np.float32).reshape(shape),
        "output_scale_tensor": rng.uniform(0.01, 0.05, size=count).astype(np.float32).reshape(shape),
    }
    if scales is not None:
        inputs["input_scale_tensor"], inputs["output_scale_tensor"] = (s.reshape(shape) for s in scales)
    if zero_points:
        inputs["input_zero_point_tensor"] = (
            rng.integers(low_in, high_in, size=count, endpoint=True).astype(dtype_in).reshape(shape)
        )
        inputs["output_zero_point_tensor"] = (
            rng.integers(low_out // 2, high_out // 2, size=count, endpoint=True).astype(dtype_out).reshape(shape)
        )
    out = output_sizes(SAME_WINDOW, sizes, window)

    def described(slot: str, element: Any, slot_sizes: Sequence[int]) -> Any:
        return tensor(element, slot_sizes, padded_strides(slot_sizes, gaps[slot]) if slot in gaps else None)

    types_of = {"input_tensor": types[0], "input_zero_point_tensor": types[0], "output_zero_point_tensor": types[1]}
    tensors = {slot: described(slot, types_of.get(slot, T.FLOAT32), array.shape) for slot, array in inputs.items()}
    tensors["output_tensor"] = described("output_tensor", types[1], out)
    desc = QUANTIZED(**tensors, **window.fields(SAME_WINDOW), include_padding=include_padding)
    exact, zero_point = reference(inputs, window, include_padding, out)
    return QuantizedCase(desc, inputs, exact, zero_point, types[1])


def _per_channel(inputs: Mapping[str, npt.NDArray[Any]], slot: str, channels: int) -> npt.NDArray[np.float64]:
    """A parameter as float64 of shape (1, C, 1, ...) broadcasting over the output (0 where absent)."""
    if slot not in inputs:
        return np.zeros((1, channels), np.float64)
    values = inputs[slot].astype(np.float64).ravel()
    return np.broadcast_to(values, (channels,)).reshape(1, channels)


def reference(
    inputs: Mapping[str, npt.NDArray[Any]], window: Window, include_padding: bool, out: Sequence[int]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per output element (S / n) * (InputScale / OutputScale) in float64, and OutputZeroPoint broadcast."""
    x = inputs["input_tensor"].astype(np.int64)
    channels = x.shape[1]
    zero_in = _per_channel(inputs, "input_zero_point_tensor", channels).astype(np.int64)
    ratio = _per_channel(inputs, "input_scale_tensor", channels) / _per_channel(inputs, "output_scale_tensor", channels)
    elements, _, whole = windows(x - zero_in.reshape(1, channels, *([1] * (x.ndim - 2))), SAME_WINDOW, window)
    with np.errstate(invalid="ignore"):
        exact = [e.sum(axis=2) / (whole if include_padding else e.shape[2]) * ratio for e in elements]
    spatial_first = np.stack(exact, axis=-1).reshape(tuple(out))
    zero_out = _per_channel(inputs, "output_zero_point_tensor", channels).reshape(1, channels, *([1] * (len(out) - 2)))
    return spatial_first, np.broadcast_to(zero_out, tuple(out))
