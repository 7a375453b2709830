"""The lowering of the operators that move elements to or from places an index tensor names (``opencl/indexing.cl``):
GATHER and its forms, the scatters, ONE_HOT. Each operator describes its move as an ``IndexedView``: an index space
walked over three tensors (the source, IndicesTensor, the target), each tensor's strides its view of that space, and
the dimensions the indices choose along; the kernel is the same for every shape rule."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.elementwise import ELEMENTS_PER_ITEM, TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec


@dataclass(frozen=True)
class IndexedView:
    """An index space of ``sizes`` walked over the source, IndicesTensor and the target (``strides``: one view per
    tensor, in that order), and the dimensions the indices choose along: index t of each tuple (``tuple_stride``
    elements apart in IndicesTensor) along a dimension of ``axis_sizes[t]`` elements ``axis_strides[t]`` apart in
    the tensor it chooses in."""

    sizes: tuple[int, ...]
    strides: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    axis_sizes: tuple[int, ...] = ()
    axis_strides: tuple[int, ...] = ()
    tuple_stride: int = 0


def indexing_kernel(
    kernel_name: Literal["gather", "scatter"],
    element_type: AnyDataType,
    index_type: AnyDataType,
    view: IndexedView,
    profile: LaunchProfile,
) -> LoweredOperator:
    """indexing.cl's gather or scatter over ``view``, coalesced (the chosen dimensions are added per element, so
    the walked ones merge freely)."""
    layout = coalesce(view.sizes, view.strides)
    parameters = (
        KernelParameter("uint8", view.axis_sizes),
        KernelParameter("uint8", view.axis_strides),
        KernelParameter("ulong", (view.tuple_stride,)),
    )
    return _lowered(kernel_name, element_type, index_type, len(view.axis_sizes), layout, parameters, profile)


def one_hot_kernel(
    element_type: AnyDataType,
    index_type: AnyDataType,
    view: IndexedView,
    axis: int,
    on_offset: int,
    profile: LaunchProfile,
) -> LoweredOperator:
    """indexing.cl's one_hot over ``view`` uncoalesced (the kernel reads the coordinate along ``axis``): OffValue at
    the source view's element, OnValue ``on_offset`` elements further."""
    layout = ElementwiseLayout(math.prod(view.sizes), view.sizes, view.strides)
    parameters = (KernelParameter("uint8", (axis, view.sizes[axis])), KernelParameter("ulong", (on_offset,)))
    return _lowered("one_hot", element_type, index_type, 1, layout, parameters, profile)


def _lowered(
    kernel_name: str,
    element_type: AnyDataType,
    index_type: AnyDataType,
    tuple_size: int,
    layout: ElementwiseLayout,
    parameters: Sequence[KernelParameter],
    profile: LaunchProfile,
) -> LoweredOperator:
    index = DATA_TYPES[index_type].opencl_storage
    defines = (
        ("ELEMENT_T", bits_type(element_type).storage),
        ("INDEX_T", index),
        ("INDEX_SIGNED", "1" if DATA_TYPES[index_type].numpy.kind == "i" else "0"),
        ("TUPLE", str(tuple_size)),
        ("RANK", str(layout.rank)),
    )
    spec = KernelSpec("indexing.cl", kernel_name, defines, TEMPLATE_OPTIONS)
    return profile.lowered(spec, layout, ELEMENTS_PER_ITEM, parameters=tuple(parameters))
