"""The lowering of the regions-of-interest operators (``opencl/roi.cl``): ROI_ALIGN and ROI_ALIGN1 (``roi_align``),
ROI_POOLING (``roi_pooling``). One work-item per run of output elements under the "cpu" profile, the grid-stride walk
under the "gpu" one; each output element reads its region's row and (ROI_ALIGN) batch index and reduces its samples.

The walk steps through the output {NumROIs, ChannelCount, OutputHeight, OutputWidth}; InputTensor's walk strides are
only its channel stride, ROITensor's and BatchIndicesTensor's only their stride along NumROIs, so each work-item finds
its channel's plane, its region's row and its batch index without a division. The rest of the geometry and the float
fields reach the kernel as ``uint8`` parameters (the floats as their FLOAT32 bits), never as source: every shape and
every field value of one kind (data type, index type, interpolation, reduction) shares one program."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.resample import float_bits
from dmlpy.kernels.source import KernelSpec

RUN_LENGTH = 16
"""Output elements a work-item takes under the "cpu" profile: each reads a region's samples (4 elements each when
bilinear), so a short run already outweighs a work-item's start."""


@dataclass(frozen=True)
class RegionTensors:
    """The tensors' Sizes and strides, each 4-D but ROITensor's and BatchIndicesTensor's, which keep their own."""

    input_sizes: Sequence[int]
    input_strides: Sequence[int]
    roi_strides: Sequence[int]
    output_sizes: Sequence[int]
    output_strides: Sequence[int]


@dataclass(frozen=True)
class AlignFields:
    """ROI_ALIGN1's fields as roi.cl reads them (ROI_ALIGN's: InputPixelOffset 0.5, OutputPixelOffset -0.5,
    AlignRegionsToCorners FALSE)."""

    average: bool
    linear: bool
    spatial_scale_x: float
    spatial_scale_y: float
    input_pixel_offset: float
    output_pixel_offset: float
    out_of_bounds_input_value: float
    minimum_samples: int
    maximum_samples: int
    align_to_corners: bool


def _geometry(tensors: RegionTensors, corners: bool) -> KernelParameter:
    """roi.cl's ``geometry``: BatchCount, InputHeight, InputWidth, the input's strides along N, H and W, ROITensor's
    along its row, AlignRegionsToCorners."""
    n, _, h, w = tensors.input_sizes
    n_stride, _, h_stride, w_stride = tensors.input_strides
    return KernelParameter("uint8", (n, h, w, n_stride, h_stride, w_stride, tensors.roi_strides[-1], int(corners)))


def _float_defines(data_type: AnyDataType) -> tuple[str, str]:
    return ("DML_FLOAT16", "1" if data_type == TensorDataType.FLOAT16 else "0")


def roi_align_kernel(
    data_type: AnyDataType,
    index: tuple[AnyDataType, Sequence[int]],
    tensors: RegionTensors,
    fields: AlignFields,
    profile: LaunchProfile,
) -> LoweredOperator:
    """roi.cl's roi_align over ``tensors`` of ``data_type``; ``index``: BatchIndicesTensor's type and strides."""
    index_type, index_strides = index
    layout = ElementwiseLayout(
        math.prod(tensors.output_sizes),
        tuple(tensors.output_sizes),
        (
            (0, tensors.input_strides[1], 0, 0),
            (tensors.roi_strides[-2], 0, 0, 0),
            (index_strides[-1], 0, 0, 0),
            tuple(tensors.output_strides),
        ),
    )
    defines = (
        ("REDUCTION", "0" if fields.average else "1"),
        ("LINEAR", str(int(fields.linear))),
        ("INDEX_T", DATA_TYPES[index_type].opencl_storage),
        _float_defines(data_type),
    )
    spec = KernelSpec("roi.cl", "roi_align", defines, TEMPLATE_OPTIONS)
    scalars = (
        fields.spatial_scale_x,
        fields.spatial_scale_y,
        fields.input_pixel_offset,
        fields.output_pixel_offset,
        fields.out_of_bounds_input_value,
    )
    parameters = (
        _geometry(tensors, fields.align_to_corners),
        KernelParameter("uint8", (fields.minimum_samples, fields.maximum_samples)),
        KernelParameter("uint8", float_bits(scalars)),
    )
    return profile.lowered(spec, layout, RUN_LENGTH, parameters=parameters)


def roi_pooling_kernel(
    data_type: AnyDataType, tensors: RegionTensors, spatial_scale: float, profile: LaunchProfile
) -> LoweredOperator:
    """roi.cl's roi_pooling over ``tensors`` of ``data_type`` (the bins are the output's last two Sizes)."""
    layout = ElementwiseLayout(
        math.prod(tensors.output_sizes),
        tuple(tensors.output_sizes),
        ((0, tensors.input_strides[1], 0, 0), (tensors.roi_strides[-2], 0, 0, 0), tuple(tensors.output_strides)),
    )
    spec = KernelSpec("roi.cl", "roi_pooling", (("POOLING", "1"), _float_defines(data_type)), TEMPLATE_OPTIONS)
    parameters = (_geometry(tensors, False), KernelParameter("uint8", float_bits((spatial_scale,))))
    return profile.lowered(spec, layout, RUN_LENGTH, parameters=parameters)
