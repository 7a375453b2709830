"""A reduction of few long groups as two launches (issue 44): one work-item per group leaves a CPU's other cores
idle where there are fewer groups than cores (L2 over every axis of 16M elements: one group on one core), so
reduce.cl's first launch (PARTIAL 1) walks each group's reduced range in chunks, a work-item per chunk, and stores
each chunk's state in a temporary region: the compensated sum and its compensation unrounded, the extreme and its
index within the chunk, or the product; its second (reduce_combine, COMBINE 1) folds each group's records in chunk
order into the result. The bounds and the indices are the one launch's (opencl/reduce.cl's PARTIAL and COMBINE).

Tall columns (a reduced outer axis of many rows, the kept innermost dimension contiguous) take the same two launches
another way: one work-item per chunk of rows and strip of columns reads the strip's rows in order, each column's
state kept in its record in the temporary (reduce.cl's ROWS_WALK, opencl/reduce_rows.h), where one launch's bands
step a whole row between their short loads."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from dmlpy.dtypes import AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.reduction import (
    LANES,
    SHORT_COLUMNS,
    VECTOR_LIMIT,
    reduce_defines,
    reduction_kernel,
    reduction_layout,
    vector_walks,
)
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
COMPENSATED_BLOCK = 4096
"""opencl/compensated.h's: the terms of one block of a compensated sum."""


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
    """REDUCE, ARGMIN or ARGMAX (reduce_kernel's arguments) as a partial launch and a combine: few long groups in
    chunks, or tall columns in chunks of rows; else None (one launch)."""
    call = _Reduction(function, last_index, input_type, output_type, sizes, strides, axes, profile)
    return _chunks_plan(call) or _rows_plan(call)


@dataclasses.dataclass(frozen=True)
class _Reduction:
    """reduce_kernel's arguments, which each plan reads."""

    function: int
    last_index: bool
    input_type: AnyDataType
    output_type: AnyDataType
    sizes: Sequence[int]
    strides: Sequence[Sequence[int]]
    axes: Sequence[int]
    profile: LaunchProfile

    def defines(self, more: dict[str, str]) -> tuple[tuple[str, str], ...]:
        """reduce.cl's defines for the function and types, with ``more``."""
        return tuple(
            (dict(reduce_defines(self.function, self.last_index, self.input_type, self.output_type)) | more).items()
        )


def _chunks_plan(call: _Reduction) -> OperatorPlan | None:
    """The groups in chunks, where they are
    fewer than SPLIT_GROUPS, each one contiguous run of the input (after coalescing) that cuts into equal chunks of
    at least MIN_CHUNK elements, and reduce.cl's vector walks serve the function; else None (one launch)."""
    layout, kept_rank = reduction_layout(call.sizes, call.strides, call.axes)
    groups = math.prod(layout.sizes[:kept_rank])
    if not vector_walks(call.function, call.input_type) or layout.rank - kept_rank != 1 or groups >= SPLIT_GROUPS:
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
    partial_defines = call.defines({"OUTPUT_T": "uint", "PARTIAL": "1", "WALK": "1"})
    partial = reduction_kernel("reduce.cl", "reduce", partial_defines, partial_layout, kept_rank + 1, call.profile)
    combine_layout = ElementwiseLayout(groups * chunks, (*kept_sizes, chunks), ((*records, RECORD), (*output_kept, 0)))
    return _two_launches(call, partial, combine_layout, kept_rank, chunk, 1, groups * chunks * RECORD)


def _two_launches(
    call: _Reduction,
    partial: LoweredOperator,
    combine_layout: ElementwiseLayout,
    kept_rank: int,
    chunk: int,
    second: int,
    words: int,
    columns: bool = False,
) -> OperatorPlan:
    """The partial launch into a temporary region of ``words`` uint, then reduce_combine of its records (chunks of
    ``chunk`` elements, a record's second word ``second`` words after its first, through ``combine_layout``) into the
    output: a work-item per group, or where ``columns`` (ROWS_WALK's records) per LANES adjacent groups."""
    walk, groups_per_work_item = ("3", LANES) if columns else ("1", 1)
    combine_defines = call.defines({"INPUT_T": "uint", "COMBINE": "1", "WALK": walk})
    combine = reduction_kernel(
        "reduce.cl",
        "reduce_combine",
        combine_defines,
        combine_layout,
        kept_rank,
        call.profile,
        groups_per_work_item=groups_per_work_item,
    )
    parameters = (KernelParameter("ulong", (chunk,)), KernelParameter("ulong", (second,)))
    temporary = BufferTensorDesc(data_type=TensorDataType.UINT32, sizes=(words,))
    region = PlanRef("temporary", 0)
    return OperatorPlan(
        (
            PlannedStep(partial, (PlanRef("input", 0), region)),
            PlannedStep(dataclasses.replace(combine, parameters=parameters), (region, PlanRef("output", 0))),
        ),
        (temporary,),
    )


ROWS_STRIP = 4096
"""Columns a work-item of ROWS_WALK takes at most: a run of 16 KiB of FLOAT32 a row. SUM over axis 0 of (4096, 4096)
FLOAT32, least of 11 in one process on the loaded 2-core machine (a read of the input 1.5-1.7 ms): strips of 256,
512, 1024, 2048 and 4096 columns 3.5, 3.0, 2.9, 3.1, 2.8 ms on PoCL; 7.7, 3.1, 2.6, 2.7, 2.1 on Intel's runtime."""
ROWS_CHUNK = 256
"""The rows of a chunk ROWS_WALK aims at (a divisor of the rows near it): (4096, 4096) gives 16 chunks, 16 work-items,
and records of 1/128 of the input for the combine to read. SUM over axis 0 of (4096, 4096), least of 11 in one
process on the loaded 2-core machine: chunks of 128, 256 and 512 rows 4.4, 3.8, 3.5 ms on PoCL (MAX 4.3, 4.3, 3.7; a
read 3.0): the combine's share shrinks with the chunks, and fewer chunks leave a larger CPU idle."""
MIN_CHUNK_ROWS = SHORT_COLUMNS // 2
"""The fewest rows of a chunk, two chunks at least: columns shorter than SHORT_COLUMNS stay with one launch's bands
(which read few rows mostly in order already)."""


def _row_chunk(rows: int) -> int | None:
    """A chunk's rows: the divisor of ``rows`` nearest ROWS_CHUNK (by ratio) within MIN_CHUNK_ROWS .. COMPENSATED_BLOCK
    (a chunk's sum is one block) that makes two chunks at least (one would leave a strip's rows to one core), or
    None."""
    candidates = [d for d in range(MIN_CHUNK_ROWS, min(rows // 2, COMPENSATED_BLOCK) + 1) if rows % d == 0]
    return min(candidates, key=lambda d: abs(math.log(d / ROWS_CHUNK)), default=None)


def _rows_plan(call: _Reduction) -> OperatorPlan | None:
    """Tall columns in chunks of rows (ROWS_WALK), where one dimension is reduced after coalescing, at least
    SHORT_COLUMNS long (a chunk's rows divide it) and shorter than VECTOR_LIMIT (the combine's lanes keep
    indices as uint), the innermost kept one is contiguous in the input and a multiple
    of LANES, and reduce.cl's vector walks serve the function; else None. The records lie in two planes per chunk (the
    columns' first words, then their second words), so that eight columns' states are one run of each."""
    layout, kept_rank = reduction_layout(call.sizes, call.strides, call.axes)
    if not vector_walks(call.function, call.input_type) or layout.rank - kept_rank != 1 or kept_rank == 0:
        return None
    rows, columns = layout.sizes[kept_rank], layout.sizes[kept_rank - 1]
    input_strides, output_strides = layout.strides
    chunk = _row_chunk(rows) if rows >= SHORT_COLUMNS else None
    if chunk is None or input_strides[kept_rank - 1] != 1 or columns % LANES or rows >= VECTOR_LIMIT:
        return None
    chunks, row_step = rows // chunk, input_strides[kept_rank]
    outer = layout.sizes[: kept_rank - 1]
    records = _packed_strides((*outer, chunks), RECORD * columns)
    partial_layout = ElementwiseLayout(
        layout.element_count,
        (*outer, chunks, columns, chunk),
        ((*input_strides[: kept_rank - 1], chunk * row_step, 1, row_step), (*records, 1, 0)),
    )
    partial = reduction_kernel(
        "reduce.cl",
        "reduce",
        call.defines({"OUTPUT_T": "uint", "PARTIAL": "1", "WALK": "3", "BAND": f"{ROWS_STRIP}u"}),
        partial_layout,
        kept_rank + 1,
        call.profile,
        groups_per_work_item=ROWS_STRIP,
    )
    combine_layout = ElementwiseLayout(
        layout.element_count // chunk,
        (*outer, columns, chunks),
        ((*records[:-1], 1, records[-1]), (*output_strides[:kept_rank], 0)),
    )
    words = math.prod(outer) * chunks * RECORD * columns
    return _two_launches(call, partial, combine_layout, kept_rank, chunk, columns, words, columns=True)
