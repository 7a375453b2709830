"""The lowering of an operator that reduces groups of elements along axes (the softmax family,
``opencl/softmax.cl``): the tensors' layout split into the kept dimensions and the reduced ones, each part
coalesced on its own, and the launch of one work-item per group.

The kernel takes the element-wise argument convention (dmlpy/kernels/source.py), so the runtime launches it as
any other: the layout's sizes are the kept dimensions, then the reduced ones (``KEPT_RANK`` and ``REDUCED_RANK``
in its -D options say where one part ends), and its element count is every element's."""

from __future__ import annotations

import math
from collections.abc import Sequence

from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS
from dmlpy.kernels.launch import LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec


def _part(sizes: Sequence[int], strides: Sequence[Sequence[int]], dims: Sequence[int]) -> ElementwiseLayout:
    """The dimensions ``dims`` of every tensor, coalesced (none: rank 0)."""
    if not dims:
        return ElementwiseLayout(1, (), tuple(() for _ in strides))
    return coalesce([sizes[d] for d in dims], [[tensor[d] for d in dims] for tensor in strides])


def reduction_layout(
    sizes: Sequence[int], strides: Sequence[Sequence[int]], axes: Sequence[int]
) -> tuple[ElementwiseLayout, int]:
    """The layout of tensors of ``sizes`` and ``strides`` (one tuple per tensor) reduced along ``axes``: the kept
    dimensions coalesced, then the reduced ones coalesced, in one ElementwiseLayout of every element; and the rank
    of its kept part. Each part keeps its dimensions' order, so a group's elements are walked in row-major order
    of the reduced axes (HARDMAX's first maximum is the first in that order)."""
    kept = _part(sizes, strides, [d for d in range(len(sizes)) if d not in axes])
    reduced = _part(sizes, strides, sorted(axes))
    layout = ElementwiseLayout(
        element_count=math.prod(sizes),
        sizes=(*kept.sizes, *reduced.sizes),
        strides=tuple((*k, *r) for k, r in zip(kept.strides, reduced.strides, strict=True)),
    )
    return layout, kept.rank


def reduction_kernel(
    source_name: str,
    kernel_name: str,
    defines: tuple[tuple[str, str], ...],
    layout: ElementwiseLayout,
    kept_rank: int,
    profile: LaunchProfile,
) -> LoweredOperator:
    """The kernel ``source_name`` over ``layout`` (``reduction_layout``'s), one work-item per group: under the
    "cpu" profile exactly one per group; under the "gpu" one whole work-groups up to the profile's grid, the
    kernel's loop over groups covering the rest (the same program: the profiles differ in the launch only)."""
    spec = KernelSpec(
        source_name,
        kernel_name,
        (*defines, ("KEPT_RANK", str(kept_rank)), ("REDUCED_RANK", str(layout.rank - kept_rank))),
        TEMPLATE_OPTIONS,  # softmax divides: correctly rounded, as the template builds it (2.5 ULPs otherwise)
    )
    group_length = math.prod(layout.sizes[kept_rank:])
    return LoweredOperator(spec, layout, group_length, profile)
