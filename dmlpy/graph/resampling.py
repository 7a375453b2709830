"""The builder functions of the resampling operators, DirectMLX's ``dml::Resample`` (DML_OPERATOR_RESAMPLE2: the
output's Sizes the caller's, Scales and pixel offsets defaulting as DirectMLX's do), ``dml::Upsample2D`` and
``dml::ValueScale2D``, in snake_case. Each output is packed (``packed_output``): UPSAMPLE_2D's and VALUE_SCALE_2D's
Sizes by their operators' rules, RESAMPLE2's the ``output_sizes`` given, as its rule leaves them to the caller. An
enum argument takes whatever its field takes (C spelling, short name or number), refused by the descriptor's own
message where it is none of them."""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.enums import AxisDirection, InterpolationMode
from dmlpy.errors import argument_error
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.ops import Resample2OperatorDesc, Upsample2DOperatorDesc, ValueScale2DOperatorDesc
from dmlpy.ops.resample import PIXEL_CENTRES
from dmlpy.ops.size_2d import Size2D
from dmlpy.tensor import BufferTensorDesc


def _per_dimension(values: Sequence[float] | None, rank: int, where: str, name: str) -> tuple[float, ...] | None:
    """``values`` as a tuple of ``rank`` floats, or None where left out."""
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence) or len(values) != rank:
        raise argument_error(where, name, values, f"{rank} numbers, one per dimension of x, or None")
    return tuple(float(value) for value in values)


def resample(
    x: Expression,
    output_sizes: Sequence[int],
    interpolation_mode: InterpolationMode | str | int,
    rounding_direction: AxisDirection | str | int = AxisDirection.DECREASING,
    scales: Sequence[float] | None = None,
    input_pixel_offsets: Sequence[float] | None = None,
    output_pixel_offsets: Sequence[float] | None = None,
) -> Expression:
    """``dml::Resample``: DML_OPERATOR_RESAMPLE2, ``x`` resampled to ``output_sizes`` (NEAREST_NEIGHBOR rounding a
    fractional coordinate by ``rounding_direction``, or LINEAR). Left out, ``scales`` are output_sizes[i] /
    x.sizes[i] and the offsets pixel centres (InputPixelOffsets 0.5, OutputPixelOffsets -0.5), as DirectMLX's."""
    where = "dml.graph.resample"
    x = operand(x, where, "x")
    rank = len(x.sizes)
    if isinstance(output_sizes, str) or not isinstance(output_sizes, Sequence) or len(output_sizes) != rank:
        raise argument_error(where, "output_sizes", output_sizes, f"{rank} sizes, one per dimension of x")
    sizes = tuple(int(size) for size in output_sizes)
    chosen_scales = _per_dimension(scales, rank, where, "scales")
    fields = {
        "interpolation_mode": interpolation_mode,
        "rounding_direction": rounding_direction,
        "scales": chosen_scales or tuple(out / size for out, size in zip(sizes, x.sizes, strict=True)),
        "input_pixel_offsets": _per_dimension(input_pixel_offsets, rank, where, "input_pixel_offsets")
        or (PIXEL_CENTRES[0],) * rank,
        "output_pixel_offsets": _per_dimension(output_pixel_offsets, rank, where, "output_pixel_offsets")
        or (PIXEL_CENTRES[1],) * rank,
    }
    output = BufferTensorDesc(data_type=x.desc.data_type, sizes=sizes)
    return add_node(Resample2OperatorDesc, {"input_tensor": x}, {"output_tensor": output}, fields)[0]


def upsample_2d(
    x: Expression, scale_size: Size2D | tuple[int, int], interpolation_mode: InterpolationMode | str | int
) -> Expression:
    """``dml::Upsample2D``: DML_OPERATOR_UPSAMPLE_2D, the last two dimensions of a 4-D or 5-D ``x`` multiplied by
    ``scale_size`` (a ``dml.Size2D`` or (width, height), DML_SIZE_2D's order)."""
    where = "dml.graph.upsample_2d"
    x = operand(x, where, "x")
    if not isinstance(scale_size, Size2D):
        if isinstance(scale_size, str) or not isinstance(scale_size, Sequence) or len(scale_size) != 2:
            raise argument_error(where, "scale_size", scale_size, "a dml.Size2D or (width, height), whole factors")
        scale_size = Size2D(width=scale_size[0], height=scale_size[1])
    return operator_node(
        Upsample2DOperatorDesc, {"input_tensor": x}, scale_size=scale_size, interpolation_mode=interpolation_mode
    )


def value_scale_2d(x: Expression, scale: float, bias: Sequence[float]) -> Expression:
    """``dml::ValueScale2D``: DML_OPERATOR_VALUE_SCALE_2D, ``scale * x + bias[c]`` over a {N, C, H, W} ``x`` of 1
    or 3 channels, one bias per channel."""
    where = "dml.graph.value_scale_2d"
    x = operand(x, where, "x")
    if isinstance(bias, str) or not isinstance(bias, Sequence):
        raise argument_error(where, "bias", bias, "one number per channel of x (1 or 3)")
    terms = tuple(float(term) for term in bias)
    return operator_node(ValueScale2DOperatorDesc, {"input_tensor": x}, scale=float(scale), bias=terms)
