"""The lowering of the resampling operators (``opencl/resample.cl``): RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3 and
UPSAMPLE_2D. One work-item per run of output elements (the element-wise template's run lengths) under the "cpu"
profile, the grid-stride walk under the "gpu" one; each output element maps, per dimension, to the input coordinate
(o - OutputPixelOffset) / Scale - InputPixelOffset and reads the nearest element or interpolates.

The output keeps every dimension (each has its own map, so none coalesce); the input is read through its own sizes
and strides, kernel arguments beside the Scales' and offsets' float bits, so every shape and every Scale of one
kind (interpolation, rounding, antialiasing, data type, rank) shares one program."""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.errors import UnsupportedError
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.elementwise import ELEMENTS_PER_ITEM, TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec

EXACT_COORDINATES = 2**24
"""resample.cl holds coordinates as floats, whose integers are exact below 2^24."""


class Rounding(IntEnum):
    """How NEAREST_NEIGHBOR rounds an input coordinate (resample.cl's ROUNDING)."""

    HALF_UP = 0
    """floor(x + 0.5): RESAMPLE, RESAMPLE1, UPSAMPLE_2D."""
    DOWN = 1
    """floor(x): RoundingDirection DECREASING."""
    UP = 2
    """ceil(x): RoundingDirection INCREASING."""


@dataclass(frozen=True)
class ResampleMap:
    """Per dimension, the pages' OutputX = (InputX + InputPixelOffset) * Scale + OutputPixelOffset, and how an
    output element reads the input: nearest (``linear`` False, rounded by ``rounding``) or interpolated (with
    RESAMPLE3's ``antialiased`` filter)."""

    scales: tuple[float, ...]
    input_offsets: tuple[float, ...]
    output_offsets: tuple[float, ...]
    linear: bool
    rounding: Rounding = Rounding.HALF_UP
    antialiased: bool = False


def float_bits(values: Sequence[float]) -> tuple[int, ...]:
    """Each value as its FLOAT32 encoding (the C FLOAT DirectML's descriptor holds)."""
    return tuple(struct.unpack("<I", struct.pack("<f", value))[0] for value in values)


def resample_kernel(
    data_type: AnyDataType,
    mapping: ResampleMap,
    input_sizes: Sequence[int],
    input_strides: Sequence[int],
    output_sizes: Sequence[int],
    output_strides: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator:
    """resample.cl from an input of ``input_sizes`` and ``input_strides`` into an output of ``output_sizes`` and
    ``output_strides`` by ``mapping``."""
    rank = len(output_sizes)
    if any(size >= EXACT_COORDINATES for size in (*input_sizes, *output_sizes)):
        raise UnsupportedError(
            f"a resample between Sizes {list(input_sizes)} and {list(output_sizes)}: resample.cl computes coordinates "
            f"in float, exact below 2^24 = {EXACT_COORDINATES} along a dimension; split the tensor along that "
            "dimension"
        )
    defines: list[tuple[str, str]] = [("RANK", str(rank))]
    if mapping.linear:
        defines.append(("INTERPOLATION", "1"))
        defines.append(("ANTIALIASED", "1" if mapping.antialiased else "0"))
        defines += _value_defines(data_type)
    else:
        defines += [("INTERPOLATION", "0"), ("ROUNDING", str(int(mapping.rounding)))]
        defines.append(("ELEMENT_T", bits_type(data_type).storage))
    layout = ElementwiseLayout(
        element_count=math.prod(output_sizes),
        sizes=tuple(output_sizes),
        strides=((0,) * rank, tuple(output_strides)),
    )
    spec = KernelSpec("resample.cl", "resample", tuple(defines), TEMPLATE_OPTIONS)
    parameters = (
        KernelParameter("uint8", tuple(input_sizes)),
        KernelParameter("uint8", tuple(input_strides)),
        KernelParameter("uint8", float_bits(mapping.scales)),
        KernelParameter("uint8", float_bits(mapping.input_offsets)),
        KernelParameter("uint8", float_bits(mapping.output_offsets)),
    )
    return profile.lowered(spec, layout, ELEMENTS_PER_ITEM, parameters=parameters)


def _value_defines(data_type: AnyDataType) -> list[tuple[str, str]]:
    """How LINEAR reads and writes ``data_type``: FLOAT32 and FLOAT16 through float_tensors.h, an integer type as
    its own storage with its range (the sum rounded and saturated)."""
    if data_type in (TensorDataType.FLOAT32, TensorDataType.FLOAT16):
        return [("VALUE_INTEGER", "0"), ("DML_FLOAT16", "1" if data_type == TensorDataType.FLOAT16 else "0")]
    info = DATA_TYPES[data_type]
    limits = np.iinfo(np.dtype(info.numpy.str))
    return [
        ("VALUE_INTEGER", "1"),
        ("STORAGE_T", info.opencl_storage),
        ("VALUE_MIN", str(int(limits.min))),
        ("VALUE_MAX", str(int(limits.max))),
    ]
