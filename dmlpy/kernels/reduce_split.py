"""A reduction of few long groups as two launches (issue 44): one work-item per group leaves a CPU's other cores
idle where there are fewer groups than cores (L2 over every axis of 16M elements: one group on one core), so
reduce.cl's first launch (PARTIAL 1) walks each group's reduced range in chunks, a work-item per chunk, and stores
each chunk's state in a temporary region: the compensated sum and its compensation unrounded, the extreme and its
index within the chunk, or the product; its second (reduce_combine, COMBINE 1) folds each group's records in chunk
order into the result. The bounds and the indices are the one launch's (opencl/reduce.cl's PARTIAL and COMBINE)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from dmlpy.dtypes import AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.launch import KernelParameter, LaunchProfile
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.reduction import LANES, reduce_defines, reduction_kernel, reduction_layout, vector_walks
from dmlpy.tensor import BufferTensorDesc

SPLIT_GROUPS = 16
"""Fewer groups than this are split: four per compute unit of a 4-core CPU (the issue's rule: fewer groups than
compute units x 4), where one work-item per group leaves cores idle."""
CHUNKS = 512
"""The work-items the first launch aims at, over all groups: several per core of a 64-core CPU, and still few records
for the combine (64 and 512 measured alike within the noise of a loaded 2-core machine)."""
MIN_CHUNK = 512 * LANES
"""The shortest chunk (LANES_WALK's, eight elements a load): a record of two words per 4096 elements read, so the
combine reads 1/2048 of the input."""
RECORD = 2
"""Words (uint) per chunk's record."""


def _chunks(length: int, groups: int) -> int:
    """How many equal chunks to cut a group of ``length`` into: a divisor of ``length`` near CHUNKS / groups whose
    chunks are at least MIN_CHUNK long, or 1 (not split)."""
    wanted = max(2, CHUNKS // groups)
    candidates = [c for c in range(2, 2 * wanted + 1) if length % c == 0 and length // c >= MIN_CHUNK]
    return min(candidates, key=lambda c: abs(c - wanted), default=1)


def _packed_strides(sizes: Sequence[int], scale: int) -> tuple[int, ...]:
    """Row-major strides of ``sizes``, each times ``scale``."""
    strides = []
    step = scale
    for size in reversed(sizes):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def split_reduce_plan(
    function: int,
    last_index: bool,
    input_type: AnyDataType,
    output_type: AnyDataType,
    sizes: Sequence[int],
    strides: Sequence[Sequence[int]],
    axes: Sequence[int],
    profile: LaunchProfile,
) -> OperatorPlan | None:
    """REDUCE, ARGMIN or ARGMAX (reduce_kernel's arguments) as a partial launch and a combine, where the groups are
    fewer than SPLIT_GROUPS, each one contiguous run of the input (after coalescing) that cuts into equal chunks of
    at least MIN_CHUNK elements, and reduce.cl's vector walks serve the function; else None (one launch)."""
    layout, kept_rank = reduction_layout(sizes, strides, axes)
    groups = math.prod(layout.sizes[:kept_rank])
    if not vector_walks(function, input_type) or layout.rank - kept_rank != 1 or groups >= SPLIT_GROUPS:
        return None
    length = layout.sizes[kept_rank]
    input_step = layout.strides[0][kept_rank]
    chunks = _chunks(length, groups)
    if input_step != 1 or chunks == 1:
        return None
    chunk = length // chunks
    kept_sizes = layout.sizes[:kept_rank]
    input_kept, output_kept = (tensor[:kept_rank] for tensor in layout.strides)
    records = _packed_strides(kept_sizes, chunks * RECORD)
    partial_layout = ElementwiseLayout(
        layout.element_count,
        (*kept_sizes, chunks, chunk),
        ((*input_kept, chunk, 1), (*records, RECORD, 0)),
    )
    defines = dict(reduce_defines(function, last_index, input_type, output_type))
    partial = reduction_kernel(
        "reduce.cl",
        "reduce",
        tuple((defines | {"OUTPUT_T": "uint", "PARTIAL": "1", "WALK": "1"}).items()),
        partial_layout,
        kept_rank + 1,
        profile,
    )
    combine_layout = ElementwiseLayout(groups * chunks, (*kept_sizes, chunks), ((*records, RECORD), (*output_kept, 0)))
    combine = reduction_kernel(
        "reduce.cl",
        "reduce_combine",
        tuple((defines | {"INPUT_T": "uint", "COMBINE": "1", "WALK": "1"}).items()),
        combine_layout,
        kept_rank,
        profile,
    )
    combine_with_length = dataclasses.replace(combine, parameters=(KernelParameter("ulong", (chunk,)),))
    temporary = BufferTensorDesc(data_type=TensorDataType.UINT32, sizes=(groups * chunks * RECORD,))
    region = PlanRef("temporary", 0)
    return OperatorPlan(
        (
            PlannedStep(partial, (PlanRef("input", 0), region)),
            PlannedStep(combine_with_length, (region, PlanRef("output", 0))),
        ),
        (temporary,),
    )
