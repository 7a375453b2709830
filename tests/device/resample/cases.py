"""What the resampling tests share: descriptors, an independent NumPy reference written from DirectML's pages, the
float bound docs/operators/resample.md states, and onnx.reference's Resize for ONNX's coordinate modes.

The reference builds, per dimension, the matrix of weights each output coordinate gives the input's elements
(float64), from the input coordinate x = (o - OutputPixelOffset) / Scale - InputPixelOffset computed in float32 as
the page's formula reads (the kernel divides correctly rounded, so both hold the same x), and contracts the input
with each dimension's matrix in float64: nearest an exact gather, linear the separable filter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx.reference
from onnx import TensorProto, helper

import dmlpy as dml

T = dml.TensorDataType
NUMPY_DTYPE = {T.FLOAT32: np.dtype(np.float32), T.FLOAT16: np.dtype(np.float16), T.INT8: np.dtype(np.int8)}
NUMPY_DTYPE[T.UINT8] = np.dtype(np.uint8)
U32 = 2.0**-24
"""FLOAT32's unit roundoff."""


def tensor(data_type: Any, sizes: Sequence[int], strides: Sequence[int] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=tuple(sizes), strides=None if strides is None else strides)


def coordinates(out_size: int, scale: float, input_offset: float, output_offset: float) -> npt.NDArray[np.float32]:
    """The page's input coordinate of each output coordinate, in float32 operation by operation."""
    o = np.arange(out_size, dtype=np.float32)
    with np.errstate(all="ignore"):
        return (o - np.float32(output_offset)) / np.float32(scale) - np.float32(input_offset)


def nearest_indices(x: npt.NDArray[np.float32], size: int, rounding: str) -> npt.NDArray[np.int64]:
    """x rounded (``half_up``: floor(x + 0.5) in float32; ``down``; ``up``) and clamped to [0, size): a NaN to the
    last element."""
    with np.errstate(all="ignore"):
        r = {"half_up": np.floor(x + np.float32(0.5)), "down": np.floor(x), "up": np.ceil(x)}[rounding]
    return np.fmax(np.fmin(r.astype(np.float64), size - 1), 0).astype(np.int64)


def linear_weights(x: npt.NDArray[np.float32], size: int, scale: float, antialiased: bool) -> npt.NDArray[np.float64]:
    """Per output coordinate, the weights of the input's ``size`` elements: the triangle filter of half-width 1 / s
    (s = 1, or min(Scale, 1) antialiased, then normalised), each tap's index clamped to the input."""
    s = min(float(np.float32(scale)), 1.0) if antialiased else 1.0
    weights = np.zeros((x.size, size))
    for row, xf in enumerate(x.astype(np.float64)):
        xf = min(max(xf, -1 - 1 / s), size + 1 / s) if not np.isnan(xf) else size + 1 / s
        taps = np.arange(np.floor(xf - 1 / s) + 1, np.ceil(xf + 1 / s))
        w = np.maximum(0.0, 1 - np.abs(xf - taps) * s)
        taps, w = taps[w > 0], w[w > 0]
        np.add.at(weights[row], np.clip(taps, 0, size - 1).astype(np.int64), w / w.sum())
    return weights


def resample_reference(
    x: npt.NDArray[Any],
    out_sizes: Sequence[int],
    scales: Sequence[float],
    input_offsets: Sequence[float],
    output_offsets: Sequence[float],
    *,
    linear: bool,
    rounding: str = "half_up",
    antialiased: bool = False,
) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64]]:
    """The exact result (nearest: x's own elements; linear: float64) and, for linear, the float32 bound per
    element: ``float_bound``."""
    value = x.astype(np.float64) if linear else x
    magnitude = np.abs(x.astype(np.float64))
    taps_sum, taps_product = 0, 1
    for d, out_size in enumerate(out_sizes):
        xd = coordinates(out_size, scales[d], input_offsets[d], output_offsets[d])
        if not linear:
            value = np.take(value, nearest_indices(xd, x.shape[d], rounding), axis=d)
            continue
        w = linear_weights(xd, x.shape[d], scales[d], antialiased)
        taps = int(max(1, (w > 0).sum(axis=1).max()))
        taps_sum, taps_product = taps_sum + taps, taps_product * taps
        value = np.moveaxis(np.tensordot(w, value, axes=([1], [d])), 0, d)
        magnitude = np.moveaxis(np.tensordot((w > 0).astype(np.float64), magnitude, axes=([1], [d])), 0, d)
    return value, float_bound(magnitude, len(out_sizes), taps_sum, taps_product)


def float_bound(magnitude: npt.NDArray[np.float64], rank: int, taps_sum: int, taps_product: int) -> Any:
    """The bound docs/operators/resample.md derives for LINEAR in float32: (4 * rank + taps_sum + taps_product)
    units of roundoff times the sum of |v| over the taps read (``magnitude``). Per dimension a weight
    max(0, 1 - |x - i| * s) / norm is off by at most 4 units absolutely (|x - i|, the product, the difference, the
    division) plus the normalisation's sum of its taps (antialiased; ``taps_sum`` counts them for every
    dimension); the product of rank weights and the element adds rank roundings, the sum of ``taps_product`` terms
    as many."""
    return (4 * rank + taps_sum + taps_product) * U32 * magnitude


def check_linear(
    got: npt.NDArray[Any], exact: npt.NDArray[np.float64], bound: npt.NDArray[np.float64], data_type: Any
) -> None:
    """``got`` within ``bound`` of ``exact`` (FLOAT16: plus the final rounding to half, 2^-11 relative); an integer
    type the nearest integer, halves to even, saturated, but where ``exact`` lies within ``bound`` of a half."""
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        expected = np.clip(np.rint(exact), limits.min, limits.max)
        near_half = np.abs(np.abs(exact - np.floor(exact)) - 0.5) <= bound
        wrong = (got.astype(np.float64) != expected) & ~(near_half & (np.abs(got - exact) <= 0.5 + bound))
        assert not wrong.any(), f"{wrong.sum()} elements off: got {got[wrong][:5]}, exact {exact[wrong][:5]}"
        return
    allowed = bound + (2.0**-11 * np.abs(exact) if dtype == np.float16 else 0)
    error = np.abs(got.astype(np.float64) - exact)
    assert (error <= allowed).all(), f"worst error {error.max()} against bound {allowed[np.argmax(error - allowed)]}"


def values(data_type: Any, shape: Sequence[int], seed: int) -> npt.NDArray[Any]:
    """Floats: normals; integers: the type's whole range."""
    rng = np.random.default_rng(seed)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    limits = np.iinfo(dtype)
    return rng.integers(limits.min, limits.max, shape, endpoint=True, dtype=dtype)


ONNX_OFFSETS = {
    "half_pixel": (0.5, -0.5),
    "asymmetric": (0.0, 0.0),
    "tf_half_pixel_for_nn": (0.0, -0.5),
}
"""onnxruntime's DirectML provider's InputPixelOffset and OutputPixelOffset per coordinate_transformation_mode
(/work/shared/onnx-lowering-facts.md); pytorch_half_pixel and align_corners also recompute Scale: ``onnx_mapping``."""
NEAREST_MODES = {
    "round_prefer_floor": ("up", 0.5),
    "round_prefer_ceil": ("down", -0.5),
    "floor": ("down", 0.0),
    "ceil": ("up", 0.0),
}
"""RESAMPLE2's RoundingDirection (as the reference's rounding) and the adjustment added to every InputPixelOffset,
per ONNX nearest_mode, as the provider maps them (ceil(x - 0.5) is round_prefer_floor)."""


def onnx_mapping(
    mode: str, in_sizes: Sequence[int], out_sizes: Sequence[int], scales: Sequence[float]
) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """RESAMPLE2's Scales, InputPixelOffsets and OutputPixelOffsets for a coordinate_transformation_mode, as the
    provider computes them (FLT_MAX for a single pixel: every output reads element 0)."""
    big = float(np.finfo(np.float32).max)
    new_scales, inputs, outputs = [], [], []
    for n, m, s in zip(in_sizes, out_sizes, scales, strict=True):
        if mode == "align_corners":
            new_scales.append(big if n <= 1 or m <= 1 else float(np.float32(m - 1) / np.float32(n - 1)))
            inputs.append(0.0)
            outputs.append(0.0)
        elif mode == "pytorch_half_pixel" and n <= 1:
            new_scales.append(big)
            inputs.append(0.0)
            outputs.append(0.0)
        else:
            offsets = ONNX_OFFSETS["half_pixel" if mode == "pytorch_half_pixel" else mode]
            new_scales.append(s)
            inputs.append(offsets[0])
            outputs.append(offsets[1])
    return tuple(new_scales), tuple(inputs), tuple(outputs)


def onnx_resize(x: npt.NDArray[Any], scales: Sequence[float], **attributes: Any) -> npt.NDArray[Any]:
    """ONNX Resize (opset 19) of float32 ``x`` by ``scales``, by onnx.reference."""
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
            helper.make_tensor_value_info("scales", TensorProto.FLOAT, (len(scales),)),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    feeds = {"x": x, "scales": np.asarray(scales, dtype=np.float32)}
    return np.asarray(onnx.reference.ReferenceEvaluator(model).run(None, feeds)[0])
