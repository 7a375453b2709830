"""Tensor layouts the device tests share: stride builders (packed, padded, gapped, permuted, column-major), the
table of layout classes every unary operator runs through the object model in, and host images of buffers
(sentinel bytes, strided views, element offsets). Strides are in elements, offsets in bytes, as in DirectML."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt


def packed(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides with no gaps (DirectML's default when Strides is null)."""
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1]
    return tuple(strides)


def padded(sizes: Sequence[int], pad: int = 1) -> tuple[int, ...]:
    """Row-major strides with ``pad`` unused elements after every row of every dimension (innermost stride 1)."""
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1] + pad
    return tuple(strides)


def gapped(sizes: Sequence[int], gap: int = 1, order: Sequence[int] | None = None) -> tuple[int, ...]:
    """Strides with ``gap`` unused elements after every element of every dimension, the innermost included
    (the last dimension of ``order`` is innermost; row-major by default). ``gap=0`` with a reversed ``order`` is
    column-major."""
    order = tuple(order) if order is not None else tuple(range(len(sizes)))
    strides = [0] * len(sizes)
    reach = 1
    for dim in reversed(order):
        strides[dim] = reach + gap
        reach += (sizes[dim] - 1) * strides[dim]
    return tuple(strides)


def permuted(sizes: Sequence[int], order: Sequence[int]) -> tuple[int, ...]:
    """Strides that read a packed tensor of sizes ``sizes[order]`` transposed back to ``sizes``."""
    base = packed(tuple(sizes[d] for d in order))
    strides = [0] * len(sizes)
    for position, dim in enumerate(order):
        strides[dim] = base[position]
    return tuple(strides)


def column_major(sizes: Sequence[int]) -> tuple[int, ...]:
    """Packed strides with the first dimension fastest."""
    return permuted(sizes, tuple(range(len(sizes) - 1, -1, -1)))


S4 = (2, 3, 4, 5)
LAYOUTS: dict[str, dict[str, Any]] = {
    "packed": {"sizes": S4},
    "packed_odd_count": {"sizes": (3, 7, 11)},
    "packed_one_element": {"sizes": (1, 1, 1, 1)},
    "packed_rank_1_one_element": {"sizes": (1,)},
    "packed_large": {"sizes": (1, 3, 129, 257)},
    "strided_padded_input": {"sizes": S4, "input_strides": padded(S4)},
    "strided_padded_output": {"sizes": S4, "output_strides": padded(S4, 3)},
    "strided_padded_both": {"sizes": S4, "input_strides": padded(S4, 2), "output_strides": padded(S4, 5)},
    "broadcast_input_outer": {"sizes": S4, "input_strides": (0, 20, 5, 1)},
    "broadcast_input_inner": {"sizes": S4, "input_strides": (60, 20, 5, 0)},
    "broadcast_input_scalar": {"sizes": S4, "input_strides": (0, 0, 0, 0)},
    "broadcast_input_mixed": {"sizes": S4, "input_strides": (1, 0, 2, 0)},
    "permuted_input": {"sizes": S4, "input_strides": permuted(S4, (3, 2, 1, 0))},
    "permuted_input_nchw_nhwc": {"sizes": S4, "input_strides": permuted(S4, (0, 2, 3, 1))},
    "permuted_output": {"sizes": S4, "output_strides": permuted(S4, (1, 3, 0, 2))},
    "rank_8_column_major_output": {
        "sizes": (2, 1, 2, 3, 1, 2, 2, 3),
        "output_strides": column_major((2, 1, 2, 3, 1, 2, 2, 3)),
    },
    # Transposes whose contiguous dimensions are both at least 8 long: the tiled kernels (dmlpy.kernels.tile_order),
    # with partial tiles at both edges, several outer indices, and an offset.
    "transposed_tiled": {"sizes": (3, 2, 19, 13), "input_strides": permuted((3, 2, 19, 13), (0, 1, 3, 2))},
    "transposed_tiled_nchw_nhwc": {
        "sizes": (2, 9, 11, 16),
        "input_strides": permuted((2, 9, 11, 16), (0, 3, 1, 2)),
        "input_offset": 48,
    },
    "offsets_packed": {"sizes": S4, "input_offset": 48, "output_offset": 80},
    "offsets_odd_count": {"sizes": (3, 5, 7), "input_offset": 16, "output_offset": 32},
    "offsets_strided": {
        "sizes": S4,
        "input_strides": permuted(S4, (3, 1, 2, 0)),
        "output_strides": padded(S4),
        "input_offset": 64,
        "output_offset": 16,
    },
    "offsets_broadcast": {"sizes": S4, "input_strides": (0, 5, 0, 1), "input_offset": 112, "output_offset": 240},
    "in_place_packed": {"sizes": S4, "in_place": True},
    "in_place_packed_offset": {"sizes": (3, 7, 11), "in_place": True, "input_offset": 64, "output_offset": 64},
    "in_place_strided": {
        "sizes": S4,
        "in_place": True,
        "input_strides": padded(S4, 2),
        "output_strides": padded(S4, 2),
    },
    "in_place_strided_offset": {
        "sizes": S4,
        "in_place": True,
        "input_strides": permuted(S4, (2, 0, 3, 1)),
        "output_strides": permuted(S4, (2, 0, 3, 1)),
        "input_offset": 48,
        "output_offset": 48,
    },
}
"""Layout classes of a unary element-wise operator, by id: keyword arguments of ``object_model.run_unary``
(``sizes``, ``input_strides``, ``output_strides``, ``input_offset``, ``output_offset``, ``in_place``)."""


def pick(*names: str) -> dict[str, dict[str, Any]]:
    """The entries of LAYOUTS named, in that order."""
    return {name: LAYOUTS[name] for name in names}


# ------------------------------------------------------------------------------------------------ buffer images


def sentinel_bytes(size: int, salt: int = 0) -> npt.NDArray[np.uint8]:
    """A byte pattern that no operator result reproduces by accident and that shows a shifted write."""
    return ((np.arange(size, dtype=np.int64) * 37 + 11 + salt) % 256).astype(np.uint8)


def span_elements(sizes: Sequence[int], strides: Sequence[int]) -> int:
    """Elements from a tensor's first to its last, inclusive (its memory span, padding and gaps included)."""
    return sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)) + 1


def strided_view(
    memory: npt.NDArray[np.uint8], dtype: np.dtype[Any], offset: int, sizes: Sequence[int], strides: Sequence[int]
) -> npt.NDArray[Any]:
    """A writeable view of ``memory`` (bytes) as a DirectML tensor: element strides, byte offset of the first
    element."""
    elements = memory[offset : offset + span_elements(sizes, strides) * dtype.itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(
        elements, shape=tuple(sizes), strides=tuple(s * dtype.itemsize for s in strides), writeable=True
    )


def element_offsets(sizes: Sequence[int], strides: Sequence[int]) -> npt.NDArray[np.int64]:
    """Element offsets of every element of a strided tensor, in row-major order of its indices."""
    offsets = np.zeros((), dtype=np.int64)
    for size, stride in zip(sizes, strides, strict=True):
        offsets = offsets[..., None] + np.arange(size, dtype=np.int64) * stride
    return offsets.reshape(-1)


def byte_mask(size: int, offset: int, itemsize: int, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Of a ``size``-byte buffer, the bytes of the elements at element ``positions`` past byte ``offset``."""
    mask = np.zeros(size, dtype=bool)
    for byte in range(itemsize):
        mask[offset + byte + itemsize * positions] = True
    return mask
