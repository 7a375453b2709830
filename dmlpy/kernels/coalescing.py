"""How the tensors of an element-wise operator are walked: their sizes and strides coalesced (size-1
dimensions dropped, contiguous neighbours merged) into an ``ElementwiseLayout``, and a transpose reordered for
tile-by-tile kernels."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MAX_RANK = 8
"""Dimensions a layout holds at most (the kernels' uint8 sizes and strides)."""


@dataclass(frozen=True)
class ElementwiseLayout:
    """Sizes and per-tensor strides after coalescing; ``packed`` when every tensor is one contiguous run."""

    element_count: int
    sizes: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]
    """One tuple per tensor, in binding order (inputs, then outputs)."""

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def packed(self) -> bool:
        return self.rank == 1 and all(s == (1,) for s in self.strides)


def coalesce(sizes: Sequence[int], strides: Sequence[Sequence[int]]) -> ElementwiseLayout:
    """Drop size-1 dimensions and merge neighbours that are contiguous in every tensor.

    A packed tensor of any shape becomes rank 1, so it runs the 1-D vectorised kernel; a transposed or
    broadcast one keeps only the dimensions that really differ.
    """
    kept = [d for d, size in enumerate(sizes) if size != 1] or [len(sizes) - 1]
    merged_sizes = [sizes[kept[0]]]
    merged_strides = [[tensor[kept[0]]] for tensor in strides]
    for dim in kept[1:]:
        size = sizes[dim]
        if all(
            tensor_merged[-1] == tensor[dim] * size
            for tensor_merged, tensor in zip(merged_strides, strides, strict=True)
        ):
            merged_sizes[-1] *= size
            for tensor_merged, tensor in zip(merged_strides, strides, strict=True):
                tensor_merged[-1] = tensor[dim]
        else:
            merged_sizes.append(size)
            for tensor_merged, tensor in zip(merged_strides, strides, strict=True):
                tensor_merged.append(tensor[dim])
    if len(kept) == 1 and sizes[kept[0]] == 1:
        merged_strides = [[1] for _ in strides]  # a single element: any stride reads the same address
    return ElementwiseLayout(
        element_count=math.prod(sizes),
        sizes=tuple(merged_sizes),
        strides=tuple(tuple(s) for s in merged_strides),
    )


def block_counts(sizes: Sequence[int], tensor_sizes: Sequence[int]) -> dict[int, int]:
    """The dimensions along which a tensor of ``tensor_sizes`` holds one element per block of ``sizes``' elements
    (a size other than 1 and the full one), with its number of blocks there."""
    return {d: n for d, (full, n) in enumerate(zip(sizes, tensor_sizes, strict=True)) if n not in (1, full)}


def blocked_layout(sizes: Sequence[int], tensors: Sequence[tuple[Sequence[int], Sequence[int]]]) -> ElementwiseLayout:
    """``coalesce`` for tensors (sizes, strides) that may hold fewer elements than ``sizes`` along a dimension: 1
    (broadcast) or a divisor n, one element per block of sizes[d] / n consecutive indices (FL 6_3's blocked
    scales). Each blocked dimension is split in two, (n, block), with the small tensor stepping by 0 along the
    block: the 0-stride form ELEMENT_WISE_QUANTIZE_LINEAR would be given. Every blocked tensor of a dimension has
    the same n (callers keep it so)."""
    split_sizes: list[int] = []
    split_strides: list[list[int]] = [[] for _ in tensors]
    for dim, size in enumerate(sizes):
        counts = {block_counts(sizes, tensor_sizes).get(dim) for tensor_sizes, _ in tensors} - {None}
        assert len(counts) <= 1, f"dimension {dim} is blocked in more than one way: {counts}"
        blocks = counts.pop() if counts else None
        for split, (tensor_sizes, strides) in zip(split_strides, tensors, strict=True):
            stride = 0 if tensor_sizes[dim] == 1 else strides[dim]
            if blocks is None:
                split.append(stride)
            elif tensor_sizes[dim] == blocks:
                split += [stride, 0]
            else:
                split += [stride * (size // blocks), stride]
        split_sizes += [size] if blocks is None else [blocks, size // blocks]
    return coalesce(split_sizes, split_strides)


TILE = 8
"""Elements per side of a tiled transpose's square tile (tile_order): eight vectors of eight."""


def tile_order(layout: ElementwiseLayout) -> ElementwiseLayout | None:
    """``layout`` reordered for a tiled transpose, or None where it is not one.

    A transpose here: the input (the first tensor) steps by 1 along one dimension and the output (the last)
    along another, each at least TILE long. Walking the output's order then reads every element from another
    cache line; a kernel that goes tile by tile reads rows of the input and writes rows of the output instead.
    The dimensions are reordered (the same order for every tensor, which an element-wise operator does not
    notice) so that the input's contiguous one is second to last and the output's last."""
    if layout.rank < 2:
        return None
    source, target = layout.strides[0], layout.strides[-1]
    read_along = next((d for d, stride in enumerate(source) if stride == 1), None)
    write_along = next((d for d, stride in enumerate(target) if stride == 1), None)
    if read_along is None or write_along is None or read_along == write_along:
        return None
    if min(layout.sizes[read_along], layout.sizes[write_along]) < TILE:
        return None
    order = [d for d in range(layout.rank) if d not in (read_along, write_along)] + [read_along, write_along]
    return ElementwiseLayout(
        element_count=layout.element_count,
        sizes=tuple(layout.sizes[d] for d in order),
        strides=tuple(tuple(tensor[d] for d in order) for tensor in layout.strides),
    )
