"""What the regions-of-interest tests share (test_roi_align.py, test_roi_pooling.py, oclgrind_roi_variants.py): the
descriptors, the inputs and an independent reference written from DirectML's documented logic (docs/operators/roi.md:
the ROI_ALIGN1 page's sample positions, computed in float32 in the page's order as roi.cl does, then interpolated and
reduced in float64; ROI_POOLING's bins in exact integers), with the bound that page states."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.helpers.dtypes import NUMPY_DTYPE

T = dml.TensorDataType
f32 = np.float32
ALIGN_BOUND = 2.0**-20
"""FLOAT32 results of ROI_ALIGN(1): |got - reference| <= ALIGN_BOUND * max(|InputTensor|, |OutOfBoundsInputValue|)
(docs/operators/roi.md); a FLOAT16 result may be one FLOAT16 spacing off besides (its one rounding)."""

_ALIGN1 = {"InputPixelOffset": 0.5, "OutputPixelOffset": -0.5, "AlignRegionsToCorners": False}


@dataclass(frozen=True)
class Align:
    """ROI_ALIGN1's fields (ROI_ALIGN takes those it has; its pixel offsets are the defaults here)."""

    reduction: str = "AVERAGE"
    interpolation: str = "LINEAR"
    scale_x: float = 1.0
    scale_y: float = 1.0
    input_offset: float = 0.5
    output_offset: float = -0.5
    outside: float = 0.0
    minimum: int = 1
    maximum: int = 2**32 - 1
    corners: bool = False

    def fields(self, desc_class: Any) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "ReductionFunction": self.reduction,
            "InterpolationMode": self.interpolation,
            "SpatialScaleX": self.scale_x,
            "SpatialScaleY": self.scale_y,
            "OutOfBoundsInputValue": self.outside,
            "MinimumSamplesPerOutput": self.minimum,
            "MaximumSamplesPerOutput": self.maximum,
        }
        if desc_class is dml.RoiAlign1OperatorDesc:
            fields.update(
                InputPixelOffset=self.input_offset,
                OutputPixelOffset=self.output_offset,
                AlignRegionsToCorners=self.corners,
            )
        return fields


@dataclass
class Case:
    """A descriptor, its inputs by slot and the reference output (float64)."""

    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: npt.NDArray[Any]
    data_type: Any = T.FLOAT32
    exact: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def image(data_type: Any, sizes: Sequence[int], seed: int) -> npt.NDArray[Any]:
    """Inputs of ``data_type``: multiples of 1/16 from -4 to 4 (a FLOAT16's exactly), with repeats for MAX's ties."""
    rng = np.random.default_rng(seed)
    return (rng.integers(-64, 65, size=tuple(sizes)) / 16).astype(NUMPY_DTYPE[data_type])


def regions(count: int, height: int, width: int, seed: int) -> npt.NDArray[np.float64]:
    """``count`` rows [x1, y1, x2, y2] in input coordinates: ordinary regions, then by turns one reaching past the
    input, one inverted (x2 < x1: mirrored), one empty (a point) and one wholly outside."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(count):
        x1, y1 = rng.uniform(-0.5, width * 0.6), rng.uniform(-0.5, height * 0.6)
        x2, y2 = x1 + rng.uniform(0.3, width * 0.7), y1 + rng.uniform(0.3, height * 0.7)
        kind = r % 5
        if kind == 1:
            x2, y2 = width + 2.5, height + 1.75
        elif kind == 2:
            x1, x2 = x2, x1
        elif kind == 3:
            x2, y2 = x1, y1
        elif kind == 4:
            x1, y1, x2, y2 = -6.0, height + 3.0, -3.0, height + 5.0
        rows.append((x1, y1, x2, y2))
    return np.round(np.array(rows) * 16) / 16  # exact in FLOAT16 too


def _axis(c1: Any, c2: Any, scale: float, size: int, align: Align) -> tuple[Any, Any, int]:
    """The page's per-dimension logic in float32: the region's scaled start, the step between samples, the samples
    per output element."""
    with np.errstate(all="ignore"):
        start = f32(c1) * f32(scale)
        extent = f32(c2) * f32(scale) - start
        wanted = np.fmax(np.ceil(np.abs(extent) / f32(size)), f32(1))
        count = min(max(int(wanted) if wanted < 2.0**32 else 2**32 - 1, align.minimum), align.maximum)
        samples = f32(size) * f32(count)
        corner_step = extent / (samples - f32(1)) if samples > 1 else f32(0)
        step = corner_step if align.corners else extent / samples
    return start, step, count


def _taps(x: Any, n: int, linear: bool) -> list[tuple[int, float]]:
    """A coordinate inside [-1, n]'s taps (index, weight): Caffe2's and ONNX's bilinear clamp, or the nearest."""
    x = max(float(x), 0.0)
    if not linear:
        return [(min(math.floor(float(f32(x) + f32(0.5))), n - 1), 1.0)]
    low = math.floor(x)
    if low >= n - 1:
        return [(n - 1, 1.0)]
    return [(low, 1.0 - (x - low)), (low + 1, x - low)]


def align_reference(
    x: npt.NDArray[Any], rois: npt.NDArray[Any], batches: Sequence[int], out_hw: tuple[int, int], align: Align
) -> npt.NDArray[np.float64]:
    """ROI_ALIGN1 from the page: {NumROIs, C, out_h, out_w} in float64."""
    out_h, out_w = out_hw
    n, channels, height, width = x.shape
    planes = x.astype(np.float64)
    y = np.zeros((len(rois), channels, out_h, out_w))
    for r, (x1, y1, x2, y2) in enumerate(np.asarray(rois, np.float32)):
        ay, ax = _axis(y1, y2, align.scale_y, out_h, align), _axis(x1, x2, align.scale_x, out_w, align)
        batch = int(batches[r])
        for oy in range(out_h):
            for ox in range(out_w):
                samples = []
                for ky in range(ay[2]):
                    sy = _sample(ay, oy, ky, align)
                    for kx in range(ax[2]):
                        sx = _sample(ax, ox, kx, align)
                        inside = batch < n and -1 <= sy <= height and -1 <= sx <= width
                        if not inside:
                            samples.append(np.full(channels, f32(align.outside), np.float64))
                            continue
                        value = np.zeros(channels)
                        for i, wy in _taps(sy, height, align.interpolation == "LINEAR"):
                            for j, wx in _taps(sx, width, align.interpolation == "LINEAR"):
                                value += wy * wx * planes[batch, :, i, j]
                        samples.append(value)
                stacked = np.stack(samples)
                y[r, :, oy, ox] = stacked.mean(0) if align.reduction == "AVERAGE" else _nan_max(stacked)
    return y


def _sample(axis: tuple[Any, Any, int], o: int, k: int, align: Align) -> Any:
    start, step, count = axis
    with np.errstate(all="ignore"):
        return (f32(o * count + k) - f32(align.output_offset)) * step + start - f32(align.input_offset)


def _nan_max(stacked: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.where(np.isnan(stacked).any(0), np.nan, np.nanmax(np.where(np.isnan(stacked), -np.inf, stacked), 0))


def align_case(
    desc_class: Any,
    data_type: Any,
    sizes: Sequence[int],
    out_hw: tuple[int, int],
    align: Align,
    *,
    count: int = 5,
    seed: int = 0,
    index_type: Any = T.UINT32,
    roi_sizes: Sequence[int] | None = None,
    gaps: Mapping[str, int] | None = None,
) -> Case:
    """A ROI_ALIGN(1) case: ``count`` regions (cases.regions) of an input of ``sizes``; ``gaps``: slots whose rows
    are padded by that many elements."""
    gaps = gaps or {}
    if desc_class is dml.RoiAlignOperatorDesc:  # ROI_ALIGN's fixed pixel centres
        align = replace(align, input_offset=0.5, output_offset=-0.5, corners=False)
    x = image(data_type, sizes, seed)
    rois = regions(count, sizes[2], sizes[3], seed).astype(NUMPY_DTYPE[data_type])
    batches = np.random.default_rng(seed).integers(0, sizes[0], count).astype(NUMPY_DTYPE[index_type])
    roi_sizes = tuple(roi_sizes or (count, 4))
    out_sizes = (count, sizes[1], *out_hw)

    def described(slot: str, element: Any, shape: Sequence[int]) -> Any:
        return tensor(element, shape, padded_strides(shape, gaps[slot]) if slot in gaps else None)

    desc = desc_class.model_validate(
        {
            "InputTensor": described("input_tensor", data_type, sizes),
            "ROITensor": described("roi_tensor", data_type, roi_sizes),
            "BatchIndicesTensor": described("batch_indices_tensor", index_type, (count,)),
            "OutputTensor": described("output_tensor", data_type, out_sizes),
            **align.fields(desc_class),
        }
    )
    expected = align_reference(x, rois.astype(np.float32), batches.tolist(), out_hw, align)
    inputs = {"input_tensor": x, "roi_tensor": rois.reshape(roi_sizes), "batch_indices_tensor": batches}
    return Case(desc, inputs, expected, data_type, extra={"align": align})


def align_mismatch(case: Case, got: npt.NDArray[Any], outside: float = 0.0) -> str | None:
    """Where ``got`` breaks ALIGN_BOUND (and, FLOAT16, the output's one rounding), or None."""
    x = case.inputs["input_tensor"].astype(np.float64)
    limit = ALIGN_BOUND * max(float(np.abs(x).max()), abs(outside))
    expected = case.expected
    if case.data_type == T.FLOAT16:
        limit = limit + np.spacing(np.abs(expected).astype(np.float16)).astype(np.float64)
    error = np.abs(got.astype(np.float64) - expected)
    same_nan = np.isnan(got) & np.isnan(expected)
    bad = ~same_nan & ~(error <= limit)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        return f"{int(bad.sum())} outputs off, first at {at}: got {got[at]}, reference {expected[at]}"
    return None


def pooling_reference(
    x: npt.NDArray[Any], rois: npt.NDArray[Any], pooled: tuple[int, int], scale: float
) -> npt.NDArray[Any]:
    """ROI_POOLING from the page, exactly: corners rounded halves away from zero, bins by integer floor and ceil
    division, clamped to the input; 0 for an empty bin or a BatchID outside [0, BatchCount)."""
    n, channels, height, width = x.shape
    y = np.zeros((len(rois), channels, *pooled), x.dtype)

    def corner(v: Any) -> int:
        scaled = float(f32(v) * f32(scale))
        return int(math.copysign(math.floor(abs(scaled) + 0.5), scaled))

    for r, row in enumerate(np.asarray(rois, np.float32)):
        batch = float(row[0])
        if not 0 <= batch < n:
            continue
        x1, y1, x2, y2 = (corner(v) for v in row[1:])
        extent_h, extent_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ph in range(pooled[0]):
            h0 = min(max(y1 + ph * extent_h // pooled[0], 0), height)
            h1 = min(max(y1 + -(-(ph + 1) * extent_h // pooled[0]), 0), height)
            for pw in range(pooled[1]):
                w0 = min(max(x1 + pw * extent_w // pooled[1], 0), width)
                w1 = min(max(x1 + -(-(pw + 1) * extent_w // pooled[1]), 0), width)
                if h1 > h0 and w1 > w0:
                    y[r, :, ph, pw] = x[int(batch), :, h0:h1, w0:w1].max(axis=(1, 2))
    return y


def pooling_case(
    data_type: Any,
    sizes: Sequence[int],
    pooled: tuple[int, int],
    scale: float = 1.0,
    *,
    count: int = 5,
    seed: int = 0,
    gaps: Mapping[str, int] | None = None,
) -> Case:
    """A ROI_POOLING case: ``count`` rows [BatchID, x1, y1, x2, y2] (cases.regions in 1/scale units, the last one's
    BatchID past BatchCount), pooled into ``pooled`` bins."""
    gaps = gaps or {}
    x = image(data_type, sizes, seed)
    corners = regions(count, sizes[2], sizes[3], seed) / scale
    batches = np.random.default_rng(seed).integers(0, sizes[0], count).astype(np.float64)
    batches[-1] = sizes[0] + 0.5
    rois = np.concatenate([batches[:, None], corners], 1).astype(NUMPY_DTYPE[data_type]).reshape(1, 1, count, 5)

    def described(slot: str, shape: Sequence[int]) -> Any:
        return tensor(data_type, shape, padded_strides(shape, gaps[slot]) if slot in gaps else None)

    desc = dml.RoiPoolingOperatorDesc.model_validate(
        {
            "InputTensor": described("input_tensor", sizes),
            "ROITensor": described("roi_tensor", (1, 1, count, 5)),
            "OutputTensor": described("output_tensor", (count, sizes[1], *pooled)),
            "SpatialScale": scale,
            "PooledSize": {"Height": pooled[0], "Width": pooled[1]},
        }
    )
    expected = pooling_reference(x, rois.reshape(count, 5), pooled, scale)
    return Case(desc, {"input_tensor": x, "roi_tensor": rois}, expected, data_type, exact=True)
