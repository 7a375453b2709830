"""The lowering of an operator that reduces groups of elements along axes (the softmax family,
``opencl/softmax.cl``; REDUCE, ARGMIN and ARGMAX, ``opencl/reduce.cl``): the tensors' layout split into the kept
dimensions and the reduced ones, each part coalesced on its own, and the launch of one work-item per group.

The kernel takes the element-wise argument convention (dmlpy/kernels/source.py), so the runtime launches it as
any other: the layout's sizes are the kept dimensions, then the reduced ones (``KEPT_RANK`` and ``REDUCED_RANK``
in its -D options say where one part ends), and its element count is every element's."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from dmlpy.dtypes import DATA_TYPES, FLOATS, AnyDataType
from dmlpy.enums import ReduceFunction, TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
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
    prelude: str = "",
    groups_per_work_item: int = 1,
) -> LoweredOperator:
    """The kernel ``source_name`` over ``layout`` (``reduction_layout``'s), one work-item per group, or per
    ``groups_per_work_item`` groups (``prelude``: #define lines before the source, a FusedActivation's ACTIVATION):
    under the "cpu" profile exactly that many work-items; under the "gpu" one whole work-groups up to the profile's
    grid, the kernel's loop over groups covering the rest (the same program: the profiles differ in the launch
    only)."""
    spec = KernelSpec(
        source_name,
        kernel_name,
        (*defines, ("KEPT_RANK", str(kept_rank)), ("REDUCED_RANK", str(layout.rank - kept_rank))),
        TEMPLATE_OPTIONS,  # softmax divides: correctly rounded, as the template builds it (2.5 ULPs otherwise)
        prelude,
    )
    group_length = math.prod(layout.sizes[kept_rank:])
    return LoweredOperator(spec, layout, group_length * groups_per_work_item, profile)


LANES = 8
"""reduce.cl's vector walks read eight floats a load (a float8: one 256-bit register)."""
VECTOR_LIMIT = 2**32
"""The vector walks keep indices within a group as uint: groups shorter than this only."""


def vector_walks(function: int, input_type: AnyDataType) -> bool:
    """Whether reduce.cl's vector walks serve DML_REDUCE_FUNCTION ``function`` on ``input_type`` (and a split
    reduction, reduce_split.py): the float functions but LOG_SUM_EXP, whose terms reduce_walk's ``bands`` leave to
    LANES_WALK alone."""
    return input_type in FLOATS and function != ReduceFunction.LOG_SUM_EXP


BAND = 8 * LANES
"""Adjacent groups a work-item of BANDS_WALK takes at most: eight vectors a row, 256 bytes of FLOAT32 in a run. A SUM
over the outer axis of (4096, 4096) FLOAT32 as a micro-kernel (least of 15, the loaded 2-core machine): 16 groups
6.0-7.0 ms on PoCL, 6.2-15 on Intel; 64 groups 3.4-5.5 and 3.0-3.3; 256 groups 3.4-7.1 and 7.3-17 (a read of the
input 1.5-1.8); and the first 64 rows measured alike on (16, 1M). Wider bands leave fewer work-items (4096 columns:
16) and their state no longer fits the first-level cache with the input's lines."""


SHORT_COLUMNS = 64
"""Columns of fewer rows are short: BANDS_WALK walks them in the other order (reduce.cl's SHORT_COLUMNS), and the rows
plan (reduce_split.py) takes none of them, its chunks at least half this long."""


def reduce_walk(
    layout: ElementwiseLayout,
    kept_rank: int,
    vectorised: bool,
    walked: Sequence[int] = (0,),
    *,
    bands: bool = True,
) -> tuple[tuple[tuple[str, str], ...], int]:
    """reduce.cl's walk for ``layout`` (``reduction_layout``'s), as -D options, and the groups a work-item takes:
    LANES_WALK where the one reduced dimension is contiguous in every ``walked`` tensor (those the elements are
    read from: the input, or a fused prologue's) and at least LANES long, BANDS_WALK (up to BAND adjacent groups a
    work-item, where ``bands``) where the innermost kept dimension is contiguous in them and at least LANES long,
    else SCALAR_WALK; only SCALAR_WALK unless ``vectorised`` (``vector_walks``, or LOG_SUM_EXP's floats)."""
    length = math.prod(layout.sizes[kept_rank:])

    def contiguous(dimension: int) -> bool:
        return all(layout.strides[k][dimension] == 1 for k in walked)

    if vectorised and length < VECTOR_LIMIT:
        if layout.rank - kept_rank == 1 and contiguous(kept_rank) and length >= LANES:
            return (("WALK", "1"),), 1
        if bands and kept_rank and contiguous(kept_rank - 1) and layout.sizes[kept_rank - 1] >= LANES:
            return (("WALK", "2"), ("BAND", f"{BAND}u"), ("SHORT_COLUMNS", f"{SHORT_COLUMNS}u")), BAND
    return (("WALK", "0"),), 1


def reduce_defines(
    function: int, last_index: bool, input_type: AnyDataType, output_type: AnyDataType
) -> list[tuple[str, str]]:
    """reduce.cl's -D options for DML_REDUCE_FUNCTION ``function`` (ARGMIN and ARGMAX: the last extreme's index
    where ``last_index``) from ``input_type`` into ``output_type``, but the walk's."""
    storage = DATA_TYPES[input_type].opencl_storage
    floats = input_type in FLOATS
    defines = [
        ("FUNCTION", str(function)),
        ("LAST_INDEX", "1" if last_index else "0"),
        ("FLOAT_VALUES", "1" if floats else "0"),
        ("DML_FLOAT16", "1" if input_type == TensorDataType.FLOAT16 else "0"),
        ("INPUT_T", "ushort" if input_type == TensorDataType.FLOAT16 else storage),
        ("OUTPUT_T", "ushort" if output_type == TensorDataType.FLOAT16 else DATA_TYPES[output_type].opencl_storage),
    ]
    if not floats:
        signed = DATA_TYPES[input_type].numpy.kind == "i"
        defines += [("VALUE_T", storage), ("UVALUE_T", bits_type(input_type).storage)]
        defines += [("VALUE_SIGNED", "1" if signed else "0")]
    return defines


def reduce_kernel(
    function: int,
    last_index: bool,
    input_type: AnyDataType,
    output_type: AnyDataType,
    sizes: Sequence[int],
    strides: Sequence[Sequence[int]],
    axes: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator:
    """reduce.cl computing DML_REDUCE_FUNCTION ``function`` (ARGMIN and ARGMAX: the last extreme's index where
    ``last_index``) over ``axes`` of an input of ``sizes``, the input's and the output's ``strides`` (the output's
    0 along the axes, where it has one element)."""
    layout, kept_rank = reduction_layout(sizes, strides, axes)
    defines = reduce_defines(function, last_index, input_type, output_type)
    log_sum_exp = input_type in FLOATS and function == ReduceFunction.LOG_SUM_EXP
    vectorised = vector_walks(function, input_type) or log_sum_exp
    walk, groups_per_work_item = reduce_walk(layout, kept_rank, vectorised, bands=not log_sum_exp)
    defines += walk
    return reduction_kernel(
        "reduce.cl", "reduce", tuple(defines), layout, kept_rank, profile, groups_per_work_item=groups_per_work_item
    )


def normalization_kernel(
    kernel_name: str,
    defines: Sequence[tuple[str, str]],
    prelude: str,
    sizes: Sequence[int],
    tensors: Sequence[tuple[Sequence[int], Sequence[int]] | None],
    axes: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator:
    """normalize.cl's ``kernel_name`` over ``axes`` of an input of ``sizes``: ``tensors`` each (Sizes, strides),
    in the kernel's order (an absent one None: bound, never read); a tensor broadcast along a dimension (size 1)
    steps by 0 there. ``prelude`` defines ACTIVATION where a FusedActivation is given."""
    strides = [
        (0,) * len(sizes) if tensor is None else [0 if n == 1 else s for n, s in zip(*tensor, strict=True)]
        for tensor in tensors
    ]
    layout, kept_rank = reduction_layout(sizes, strides, axes)
    defines = (*defines, ("REDUCTION_TENSORS", str(len(tensors))))
    return reduction_kernel("normalize.cl", kernel_name, defines, layout, kept_rank, profile, prelude)


def _along_axis(
    source_name: str,
    kernel_name: str,
    defines: Sequence[tuple[str, str]],
    sizes: Sequence[int],
    strides: Sequence[Sequence[int]],
    axis: int,
    profile: LaunchProfile,
) -> LoweredOperator:
    """``source_name``'s ``kernel_name`` over the sequences along ``axis`` of tensors of ``sizes`` (the input's) and
    ``strides`` (one tuple per tensor, in the kernel's order), one work-item per sequence: the reduced part is the
    one axis, REDUCED_RANK 1, so the kernels reach a sequence's m-th place as its start + m * its stride."""
    layout, kept_rank = reduction_layout(sizes, strides, [axis])
    defines = (*defines, ("REDUCTION_TENSORS", str(len(strides))))
    return reduction_kernel(source_name, kernel_name, defines, layout, kept_rank, profile)


_INFINITY_BITS = {TensorDataType.FLOAT32: "0x7f800000", TensorDataType.FLOAT16: "0x7c00"}
"""Each float type's +inf as bits: a magnitude above it is a NaN."""


def top_k_kernel(
    value_type: AnyDataType,
    index_type: AnyDataType,
    sizes: Sequence[int],
    strides: Sequence[Sequence[int]],
    axis: int,
    k: int,
    largest: bool,
    profile: LaunchProfile,
) -> LoweredOperator:
    """top_k.cl selecting the ``k`` largest (or, not ``largest``, smallest) elements along ``axis`` of an input of
    ``sizes``: ``strides`` the input's, the values' and the indices' (theirs have ``k`` places along the axis).
    K is the kernel's ulong argument, so every K shares one program."""
    info = DATA_TYPES[value_type]
    order = "2" if value_type in FLOATS else "1" if info.numpy.kind == "i" else "0"  # top_k.cl's key_of
    defines = [
        ("LARGEST", "1" if largest else "0"),
        ("BITS_T", bits_type(value_type).storage),
        ("WIDTH", str(info.bits)),
        ("ORDER", order),
        ("INDEX_T", bits_type(index_type).storage),
    ]
    if value_type in FLOATS:
        defines.append(("INFINITY_BITS", _INFINITY_BITS[TensorDataType(value_type)]))
    lowered = _along_axis("top_k.cl", "top_k", defines, sizes, strides, axis, profile)
    return dataclasses.replace(lowered, parameters=(KernelParameter("ulong", (k,)),))


def cumulative_kernel(
    data_type: AnyDataType,
    product: bool,
    reversed_: bool,
    exclusive: bool,
    sizes: Sequence[int],
    strides: Sequence[Sequence[int]],
    axis: int,
    profile: LaunchProfile,
) -> LoweredOperator:
    """cumulative.cl: the running sum (or ``product``) along ``axis`` of tensors of ``sizes`` and ``strides`` (the
    input's, the output's), from the last element where ``reversed_``, each output before its element is taken in
    where ``exclusive``."""
    floats = data_type in FLOATS
    defines = (
        ("PRODUCT", "1" if product else "0"),
        ("REVERSED", "1" if reversed_ else "0"),
        ("EXCLUSIVE", "1" if exclusive else "0"),
        ("FLOAT_VALUES", "1" if floats else "0"),
        ("DML_FLOAT16", "1" if data_type == TensorDataType.FLOAT16 else "0"),
        ("STORAGE_T", "float" if data_type == TensorDataType.FLOAT32 else bits_type(data_type).storage),
    )
    return _along_axis("cumulative.cl", "cumulative", defines, sizes, strides, axis, profile)
