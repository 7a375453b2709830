"""The convolutions' cases, shared by their device tests and Oclgrind variants: a descriptor, its inputs by slot, the
reference result and the bound the result must meet.

The reference is written here from the definitions, independently of dmlpy's plan: FORWARD slides the (dilated)
filter over the zero-padded input, one slice of the input per filter element; BACKWARD (the transposed convolution)
scatters each input element times the filter into the output, ONNX ConvTranspose's definition, then crops
StartPadding and EndPadding; OutputPadding adds outputs at the end (FORWARD: zeros before the bias; BACKWARD: the
scatter's own values there). Floats in float64, integers in int64. onnx.reference's Conv, ConvTranspose, ConvInteger
and QLinearConv check this reference itself (test_reference_matches_onnx).

The float bound (docs/operators/convolution.md): each output is one chain of K = InputChannelCount / GroupCount x
the filter's elements products and sums, then the bias: |r - r*| <= gamma_(K+1) (sum |x||w| + |b|); a FLOAT16
output adds its rounding to half, u_h (|r*| + bound)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.matrix.cases import U16, gamma, integers, scales, values
from tests.device.movement.cases import padded_strides, tensor
from tests.device.normalization.cases import past_bound as past_bound

T = dml.TensorDataType
RELU = dml.FusedActivation(type="ACTIVATION_RELU")


class Case(NamedTuple):
    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: npt.NDArray[np.float64]
    allowed: npt.NDArray[np.float64]


class Shape(NamedTuple):
    """A convolution's shape: the input's Sizes, the filter's spatial Sizes, the output channels and the fields."""

    input_sizes: tuple[int, ...]
    kernel: tuple[int, ...]
    output_channels: int
    strides: tuple[int, ...] | None = None
    dilations: tuple[int, ...] | None = None
    start: tuple[int, ...] | None = None
    end: tuple[int, ...] | None = None
    output_padding: tuple[int, ...] | None = None
    groups: int = 1
    backward: bool = False

    def field(self, values: tuple[int, ...] | None, default: int) -> tuple[int, ...]:
        return values if values is not None else (default,) * len(self.kernel)

    @property
    def filter_sizes(self) -> tuple[int, ...]:
        channels = self.input_sizes[1]
        if self.backward:
            return (channels, self.output_channels // self.groups, *self.kernel)
        return (self.output_channels, channels // self.groups, *self.kernel)

    def fields(self) -> dict[str, Any]:
        return {
            "strides": self.field(self.strides, 1),
            "dilations": self.field(self.dilations, 1),
            "start_padding": self.field(self.start, 0),
            "end_padding": self.field(self.end, 0),
            "group_count": self.groups,
        }


def reference(shape: Shape, x: npt.NDArray[Any], w: npt.NDArray[Any], flipped: bool = False) -> npt.NDArray[Any]:
    """The convolution of ``x`` with ``w`` (float64 or int64 arrays, as given) before any bias: ``flipped`` reverses
    the filter along its spatial axes first."""
    if flipped:
        w = w[(slice(None), slice(None), *(slice(None, None, -1) for _ in shape.kernel))]
    strides, dilations = shape.field(shape.strides, 1), shape.field(shape.dilations, 1)
    start, end, extra = shape.field(shape.start, 0), shape.field(shape.end, 0), shape.field(shape.output_padding, 0)
    n, channels, *spatial = x.shape
    g = shape.groups
    if shape.backward:
        return _transposed(x, w, g, strides, dilations, start, end, extra)
    padded = np.pad(x, [(0, 0), (0, 0), *zip(start, end, strict=True)])
    valid = [
        (size + a + b - d * (k - 1) - 1) // s + 1
        for size, a, b, k, s, d in zip(spatial, start, end, shape.kernel, strides, dilations, strict=True)
    ]
    grouped_w = w.reshape(g, shape.output_channels // g, channels // g, *shape.kernel)
    out = np.zeros((n, g, shape.output_channels // g, *valid), dtype=np.result_type(x, w))
    for taps in itertools.product(*(range(k) for k in shape.kernel)):
        window = tuple(
            slice(t * d, t * d + s * (v - 1) + 1, s) for t, d, s, v in zip(taps, dilations, strides, valid, strict=True)
        )
        patch = padded[(slice(None), slice(None), *window)].reshape(n, g, channels // g, *valid)
        out += np.einsum("ngc...,goc->ngo...", patch, grouped_w[(..., *taps)])
    out = out.reshape(n, shape.output_channels, *valid)
    return np.pad(out, [(0, 0), (0, 0), *((0, e) for e in extra)])


def _transposed(
    x: npt.NDArray[Any],
    w: npt.NDArray[Any],
    g: int,
    strides: Sequence[int],
    dilations: Sequence[int],
    start: Sequence[int],
    end: Sequence[int],
    extra: Sequence[int],
) -> npt.NDArray[Any]:
    """ONNX ConvTranspose: out[i * s + k * d - start] += x[i] * w[k], cropped to its Sizes."""
    n, channels, *spatial = x.shape
    kernel = w.shape[2:]
    rows = w.shape[1]
    full = [
        (i - 1) * s + d * (k - 1) + 1 + e
        for i, s, d, k, e in zip(spatial, strides, dilations, kernel, extra, strict=True)
    ]
    out = np.zeros((n, g, rows, *full), dtype=np.result_type(x, w))
    grouped_x = x.reshape(n, g, channels // g, *spatial)
    grouped_w = w.reshape(g, channels // g, rows, *kernel)
    for taps in itertools.product(*(range(k) for k in kernel)):
        window = tuple(
            slice(t * d, t * d + s * (i - 1) + 1, s)
            for t, d, s, i in zip(taps, dilations, strides, spatial, strict=True)
        )
        out[(slice(None), slice(None), slice(None), *window)] += np.einsum(
            "ngc...,gco->ngo...", grouped_x, grouped_w[(..., *taps)]
        )
    sizes = [f - a - b for f, a, b in zip(full, start, end, strict=True)]
    crop = tuple(slice(a, a + size) for a, size in zip(start, sizes, strict=True))
    return out.reshape(n, g * rows, *full)[(slice(None), slice(None), *crop)]


def _layout(data_type: Any, sizes: tuple[int, ...], gaps: Mapping[str, int], slot: str) -> Any:
    return tensor(data_type, sizes, padded_strides(sizes, gaps[slot]) if slot in gaps else None)


def convolution_case(
    data_type: Any,
    shape: Shape,
    *,
    mode: str = "CROSS_CORRELATION",
    bias: bool = True,
    fused: Any = None,
    gaps: Mapping[str, int] | None = None,
) -> Case:
    """CONVOLUTION over ``shape``; ``gaps`` pads the innermost rows of the named slots; ``fused`` RELU or None."""
    gaps = gaps or {}
    x, w = values(data_type, shape.input_sizes, 1), values(data_type, shape.filter_sizes, 2)
    flipped = mode == "CONVOLUTION"  # CROSS_CORRELATION BACKWARD is ConvTranspose's scatter as stored
    fields = shape.fields()
    inputs = {"input_tensor": x, "filter_tensor": w}
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    exact, magnitude = reference(shape, x64, w64, flipped), reference(shape, np.abs(x64), np.abs(w64), flipped)
    rank = len(shape.input_sizes)
    bias_desc = None
    if bias:
        b = values(data_type, (1, shape.output_channels, *(1,) * (rank - 2)), 3)
        inputs["bias_tensor"], bias_desc = b, _layout(data_type, b.shape, gaps, "bias_tensor")
        exact, magnitude = exact + b.astype(np.float64), magnitude + np.abs(b.astype(np.float64))
    depth = shape.filter_sizes[1] * int(np.prod(shape.kernel)) if not shape.backward else None
    if depth is None:  # BACKWARD: K is a group's input channels times the filter's elements
        depth = shape.input_sizes[1] // shape.groups * int(np.prod(shape.kernel))
    allowed = gamma(depth + 1) * magnitude
    if data_type == T.FLOAT16:
        allowed = allowed + U16 * (np.abs(exact) + allowed)
    if fused is not None:
        exact = np.maximum(exact, 0)  # RELU: 1-Lipschitz, so the bound carries over
    desc = dml.ConvolutionOperatorDesc(
        input_tensor=_layout(data_type, shape.input_sizes, gaps, "input_tensor"),
        filter_tensor=_layout(data_type, shape.filter_sizes, gaps, "filter_tensor"),
        bias_tensor=bias_desc,
        output_tensor=_layout(data_type, exact.shape, gaps, "output_tensor"),
        mode=mode,
        direction="BACKWARD" if shape.backward else "FORWARD",
        output_padding=shape.field(shape.output_padding, 0),
        fused_activation=fused,
        **fields,
    )
    return Case(desc, inputs, exact, allowed)


def integer_case(
    operator: str,
    input_type: Any,
    filter_type: Any,
    shape: Shape,
    *,
    per_channel: bool = True,
    zero_points: bool = True,
    bias: bool = True,
    output_type: Any = T.INT8,
    gaps: Mapping[str, int] | None = None,
) -> Case:
    """CONVOLUTION_INTEGER or QUANTIZED_LINEAR_CONVOLUTION (``operator``) over ``shape``, exact (``allowed`` 0): the
    filter's scale and zero point one per output channel where ``per_channel``; ``zero_points`` False leaves them
    out. QUANTIZED_LINEAR_CONVOLUTION's expected values follow gemm.cl's float32 arithmetic: the exact sum plus the
    bias rounded once to float, times the filter's scale (gemm.cl's A), times the input's (its B), quantized
    halves to even (opencl/requantize.h)."""
    gaps = gaps or {}
    rank = len(shape.input_sizes)
    one, per_out = (1,) * rank, (1, shape.output_channels, *(1,) * (rank - 2))
    filter_parameter = per_out if per_channel else one
    x, w = integers(input_type, shape.input_sizes, 4), integers(filter_type, shape.filter_sizes, 5)
    inputs: dict[str, Any] = {"input_tensor": x, "filter_tensor": w}
    fields: dict[str, Any] = {
        "input_tensor": _layout(input_type, x.shape, gaps, "input_tensor"),
        "filter_tensor": _layout(filter_type, w.shape, gaps, "filter_tensor"),
        **shape.fields(),
    }

    def add(slot: str, data_type: Any, sizes: tuple[int, ...], value: Any) -> npt.NDArray[Any]:
        inputs[slot], fields[slot] = value, tensor(data_type, sizes)
        return np.asarray(value)

    zx = add("input_zero_point_tensor", input_type, one, integers(input_type, one, 6)) if zero_points else 0
    zw = add("filter_zero_point_tensor", filter_type, filter_parameter, integers(filter_type, filter_parameter, 7))
    if not zero_points:
        del inputs["filter_zero_point_tensor"], fields["filter_zero_point_tensor"]
        zw = np.zeros(filter_parameter, np.int64)
    dx = x.astype(np.int64) - np.asarray(zx, np.int64)
    # Padding holds the zero point: padding x with it is padding dx with 0.
    dw = w.astype(np.int64) - np.asarray(zw, np.int64).reshape(-1, *(1,) * (rank - 1))
    sums = reference(shape, dx, dw)
    if operator == "CONVOLUTION_INTEGER":
        fields["output_tensor"] = _layout(T.INT32, sums.shape, gaps, "output_tensor")
        desc = dml.ConvolutionIntegerOperatorDesc(**fields)
        exact = sums.astype(np.int32)
        return Case(desc, inputs, exact.astype(np.float64), np.zeros(exact.shape))
    sx = add("input_scale_tensor", T.FLOAT32, one, scales(T.FLOAT32, one, 8))
    sw = add("filter_scale_tensor", T.FLOAT32, filter_parameter, scales(T.FLOAT32, filter_parameter, 9))
    so = add("output_scale_tensor", T.FLOAT32, one, scales(T.FLOAT32, one, 10) * 4)
    zo = add("output_zero_point_tensor", output_type, one, integers(output_type, one, 11)) if zero_points else 0
    if bias:
        b = np.random.default_rng(12).integers(-5000, 5000, per_out).astype(np.int32)
        add("bias_tensor", T.INT32, per_out, b)
        sums = sums + b.astype(np.int64)
    product = (sums.astype(np.int32).astype(np.float32) * sw.reshape(1, -1, *(1,) * (rank - 2))) * sx.reshape(-1)[0]
    info = np.iinfo(np.dtype(np.int8 if output_type == T.INT8 else np.uint8))
    q = np.clip(np.rint(product / so.reshape(-1)[0]) + np.float32(np.asarray(zo).reshape(-1)[0]), info.min, info.max)
    fields["output_tensor"] = _layout(output_type, q.shape, gaps, "output_tensor")
    desc = dml.QuantizedLinearConvolutionOperatorDesc(**fields)
    return Case(desc, inputs, q.astype(np.float64), np.zeros(q.shape))
