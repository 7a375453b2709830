"""The buffer's side of a tensor picture (dmlpy.drawing.tensor): which element slots the tensor's elements read
(``ReadCounts``), the slots as cells in rows (a 4-bit tensor's as the two halves of framed bytes), and under
each row the band of tracks its links arrive through (dmlpy.drawing.links)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from dmlpy.drawing.links import CLEARANCE, TRACK, band_height
from dmlpy.drawing.svg import CELL, box, cell, text

MAX_SLOTS = 96
SLOTS_PER_ROW = 16


def shown(count: int, cap: int) -> list[int | None]:
    """Indices 0..count-1 to draw, None marking an elided run: the first ones and the last ones."""
    if count <= cap:
        return list(range(count))
    head = cap - cap // 3
    return [*range(head), None, *range(count - (cap - head), count)]


class ReadCounts:
    """Whether none, one or several elements read each element slot: ``counts[offset]`` is the number of
    indices i (0 <= i_d < Sizes[d]) with sum(i_d * Strides[d]) == offset, counted up to 2 (a picture tells one
    reader from several; stopping there keeps overlapping strides of a huge refused tensor fast). Counted for the
    slots a picture draws only, so a tensor of a billion elements draws as fast as a small one: dimensions by
    decreasing stride, each coordinate bounded by what the remaining dimensions can still reach (one value per
    dimension for a packed or padded layout)."""

    def __init__(self, sizes: Sequence[int], strides: Sequence[int]) -> None:
        self._dims = sorted(((d, s) for s, d in zip(sizes, strides, strict=True) if s > 1 and d > 0), reverse=True)
        self._repeats = math.prod(s for s, d in zip(sizes, strides, strict=True) if d == 0)  # 0-strides broadcast
        self._empty = not all(sizes)
        reach = [0]
        for stride, size in reversed(self._dims):
            reach.append(reach[-1] + (size - 1) * stride)
        self._reach = list(reversed(reach))  # _reach[k]: the largest offset dimensions k.. can add

        @cache
        def count(k: int, offset: int) -> int:
            if k == len(self._dims):
                return 1 if offset == 0 else 0
            stride, size = self._dims[k]
            low = max(0, -(-(offset - self._reach[k + 1]) // stride))
            high = min(size - 1, offset // stride)
            found = 0
            for i in range(low, high + 1):
                found += count(k + 1, offset - i * stride)
                if found >= 2:
                    break
            return min(found, 2)

        self._count = count

    def __getitem__(self, offset: int) -> int:
        if self._empty or offset < 0 or offset > self._reach[0]:
            return 0
        return min(self._count(0, offset) * self._repeats, 2)

    def __contains__(self, offset: int) -> bool:
        return self[offset] > 0

    def get(self, offset: int, default: int = 0) -> int:
        return self[offset] or default


NIBBLE_WIDTH = CELL - 1
"""A 4-bit element's slot: half of a byte drawn as wide as two element cells less their gap."""
BYTE_PITCH = 2 * CELL + 4
"""A 4-bit tensor's byte and the gap to the next one, so that each byte's two nibbles read as a pair."""
BYTES_PER_ROW = SLOTS_PER_ROW // 2
BYTE_NUMBERS = 11
"""The strip above a row of bytes where their numbers are written."""


def _slot_kind(slot: int, slot_count: int, span: int, reads: ReadCounts, element_bits: int) -> str:
    """outside (past TotalTensorSizeInBytes), used, padding (between elements, or the high nibble an odd count
    of 4-bit elements leaves in its last byte), or rounding (to whole bytes and DWORDs)."""
    if slot >= slot_count:
        return "outside"
    if slot in reads:
        return "used"
    tail_nibble = element_bits == 4 and slot == span and span % 2
    return "padding" if slot < span or tail_nibble else "rounding"


def _slot_title(slot: int, kind: str, span: int, reads: ReadCounts, element_bits: int, total_bytes: int) -> str:
    if element_bits == 4:
        half = "high" if slot % 2 else "low"
        where = f"byte {slot // 2}, {half} nibble (bits {4 * (slot % 2)}-{4 * (slot % 2) + 3})"
    else:
        where = f"bits {slot * element_bits}-{(slot + 1) * element_bits - 1}"
    if slot in reads:
        what = "read by several elements" if reads[slot] > 1 else "read by one element"
    elif kind == "padding" and slot >= span:
        what = "padding: the tail nibble of a half-filled byte, never read"
    else:
        what = kind
    if kind == "outside":
        what += f", past TotalTensorSizeInBytes ({total_bytes})"
    return f"{where}: {what}"


def _slot_cell(
    x: float, y: float, slot: int, reads: ReadCounts, span: int, slot_count: int, element_bits: int, total_bytes: int
) -> str:
    kind = _slot_kind(slot, slot_count, span, reads, element_bits)
    fill = "broadcast" if reads.get(slot, 0) > 1 and kind == "used" else kind
    title = _slot_title(slot, kind, span, reads, element_bits, total_bytes)
    width = NIBBLE_WIDTH if element_bits == 4 else CELL - 2
    return cell(x, y, fill, str(slot), f"slot {kind}", title, width=width)


class Slots(NamedTuple):
    """The buffer's side of a picture: its parts, where each drawn slot's links end (the middle of its bottom
    edge), the height of the band track that leads there for each drawn slot elements read, the height of its
    rows and bands, and whether a gap marks slots left out."""

    parts: list[str]
    ends: dict[int, tuple[float, float]]
    tracks: dict[int, float]
    height: float
    elided: bool


def _band_tracks(row: Sequence[int | None], reads: ReadCounts, bottom: float, tracks: dict[int, float]) -> float:
    """The tracks of the band under a row of slots ending at ``bottom``, the row's first slot read highest
    (dmlpy.drawing.links); the band's height."""
    read = [slot for slot in row if slot is not None and slot in reads]
    for rank, slot in enumerate(read):
        tracks[slot] = bottom + CLEARANCE + rank * TRACK
    return band_height(len(read))


def element_slots(
    left: float, top: float, reads: ReadCounts, span: int, slot_count: int, element_bits: int, total_bytes: int
) -> Slots:
    """One slot per element of 8 bits or more, SLOTS_PER_ROW to a row, each row over the band of its links."""
    # A tensor whose elements reach past TotalTensorSizeInBytes shows the slots it would read beyond the end.
    slots = shown(max(slot_count, span), MAX_SLOTS)
    parts: list[str] = []
    ends: dict[int, tuple[float, float]] = {}
    tracks: dict[int, float] = {}
    y = top
    for first in range(0, len(slots), SLOTS_PER_ROW):
        row = slots[first : first + SLOTS_PER_ROW]
        for k, slot in enumerate(row):
            x = left + k * CELL
            if slot is None:
                parts.append(cell(x, y, "gap", "...", "slot gap"))
                continue
            parts.append(_slot_cell(x, y, slot, reads, span, slot_count, element_bits, total_bytes))
            ends[slot] = (x + (CELL - 2) / 2, y + CELL - 2)
        y += CELL - 2 + _band_tracks(row, reads, y + CELL - 2, tracks)
    return Slots(parts, ends, tracks, y - top, None in slots)


def nibble_slots(left: float, top: float, reads: ReadCounts, span: int, slot_count: int, total_bytes: int) -> Slots:
    """4-bit elements as DirectML packs them: each byte a framed pair of half-width slots, the low nibble (the
    even element) left, the byte's number above it (the band of links lies below). Bytes, not nibbles, are
    elided, so a pair is never split."""
    byte_list = shown(-(-max(slot_count, span) // 2), MAX_SLOTS // 2)
    parts: list[str] = []
    ends: dict[int, tuple[float, float]] = {}
    tracks: dict[int, float] = {}
    y = top
    for first in range(0, len(byte_list), BYTES_PER_ROW):
        row = byte_list[first : first + BYTES_PER_ROW]
        y += BYTE_NUMBERS
        for k, byte in enumerate(row):
            x = left + k * BYTE_PITCH
            if byte is None:
                parts.append(cell(x, y, "gap", "...", "slot gap", "bytes left out", width=2 * NIBBLE_WIDTH))
                continue
            for half in (0, 1):
                slot = 2 * byte + half
                nibble_x = x + half * NIBBLE_WIDTH
                parts.append(_slot_cell(nibble_x, y, slot, reads, span, slot_count, 4, total_bytes))
                ends[slot] = (nibble_x + NIBBLE_WIDTH / 2, y + CELL - 2)
            parts.append(
                box(x, y, 2 * NIBBLE_WIDTH, CELL - 2, fill="none", cls="byte", stroke="#333", stroke_width=1.4)
            )
            number_size = 8 if len(str(byte)) <= 7 else 6
            parts.append(text(x + NIBBLE_WIDTH, y - 2, str(byte), cls="byte number", anchor="middle", size=number_size))
        slots = [2 * byte + half for byte in row for half in (0, 1) if byte is not None]
        y += CELL - 2 + _band_tracks(slots, reads, y + CELL - 2, tracks)
    return Slots(parts, ends, tracks, y - top, None in byte_list)
