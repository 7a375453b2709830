"""The picture of how a buffer tensor lies in memory: the logical index grid beside the buffer's element slots,
each element's cell linked to the slot it reads, padding between elements and the rounding of
TotalTensorSizeInBytes to whole DWORDs shaded, a broadcast drawn as several cells linked to one slot, and, for a
refused tensor, the elements that read past TotalTensorSizeInBytes in red. A 4-bit tensor's buffer is drawn in
bytes, each framed and split into two half-width slots, the low nibble (the even element) left, as DirectML packs
them; an odd count's last high nibble is padding.

Large tensors stay readable: rows and columns beyond the caps are elided with a marked gap, and the picture says
how many elements it leaves out. The parts carry classes (``element``, ``element outside``, ``slot used``,
``slot padding``, ``slot rounding``, ``slot outside``, ``slot gap``, ``gap``, ``link``, ``link broadcast``,
``elided``, ``problem``; ``byte`` and ``byte number`` for 4-bit tensors) so tests and style sheets can find them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from dmlpy.drawing.svg import CELL, COLOURS, Picture, box, cell, document, legend, text, wrapped, wrapped_height

MAX_ROWS = 8
MAX_COLUMNS = 12
MAX_SLOTS = 96
SLOTS_PER_ROW = 16
LEGEND_PITCH = 170


def _shown(count: int, cap: int) -> list[int | None]:
    """Indices 0..count-1 to draw, None marking an elided run: the first ones and the last ones."""
    if count <= cap:
        return list(range(count))
    head = cap - cap // 3
    return [*range(head), None, *range(count - (cap - head), count)]


def _width(bits: int) -> str:
    return f"{bits // 8}-byte" if bits % 8 == 0 else f"{bits}-bit"


def _unravel(flat: int, sizes: Sequence[int]) -> tuple[int, ...]:
    """The row-major coordinates of position ``flat`` in an array of ``sizes``."""
    index = []
    for size in reversed(sizes):
        flat, coordinate = divmod(flat, size)
        index.append(coordinate)
    return tuple(reversed(index))


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
BYTE_ROW_PITCH = CELL + 20
"""A row of bytes and the byte numbers written under it."""


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


class _Slots(NamedTuple):
    """The buffer's side of a picture: its parts, where each drawn slot's links end (the middle of its bottom
    edge), the height of its rows and whether a gap marks slots left out."""

    parts: list[str]
    position: dict[int, tuple[float, float]]
    height: float
    elided: bool


def _element_slots(
    left: float, top: float, reads: ReadCounts, span: int, slot_count: int, element_bits: int, total_bytes: int
) -> _Slots:
    """One slot per element of 8 bits or more, SLOTS_PER_ROW to a row."""
    # A tensor whose elements reach past TotalTensorSizeInBytes shows the slots it would read beyond the end.
    slots = _shown(max(slot_count, span), MAX_SLOTS)
    parts: list[str] = []
    position: dict[int, tuple[float, float]] = {}
    for k, slot in enumerate(slots):
        x = left + (k % SLOTS_PER_ROW) * CELL
        y = top + (k // SLOTS_PER_ROW) * (CELL + 8)
        if slot is None:
            parts.append(cell(x, y, "gap", "...", "slot gap"))
            continue
        parts.append(_slot_cell(x, y, slot, reads, span, slot_count, element_bits, total_bytes))
        position[slot] = (x + CELL / 2, y + CELL)
    height = (math.ceil(len(slots) / SLOTS_PER_ROW) or 1) * (CELL + 8)
    return _Slots(parts, position, height, None in slots)


def _nibble_slots(left: float, top: float, reads: ReadCounts, span: int, slot_count: int, total_bytes: int) -> _Slots:
    """4-bit elements as DirectML packs them: each byte a framed pair of half-width slots, the low nibble (the
    even element) left, the byte's number under it. Bytes, not nibbles, are elided, so a pair is never split."""
    byte_list = _shown(-(-max(slot_count, span) // 2), MAX_SLOTS // 2)
    parts: list[str] = []
    position: dict[int, tuple[float, float]] = {}
    for k, byte in enumerate(byte_list):
        x = left + (k % BYTES_PER_ROW) * BYTE_PITCH
        y = top + (k // BYTES_PER_ROW) * BYTE_ROW_PITCH
        if byte is None:
            parts.append(cell(x, y, "gap", "...", "slot gap", "bytes left out", width=2 * NIBBLE_WIDTH))
            continue
        for half in (0, 1):
            slot = 2 * byte + half
            nibble_x = x + half * NIBBLE_WIDTH
            parts.append(_slot_cell(nibble_x, y, slot, reads, span, slot_count, 4, total_bytes))
            position[slot] = (nibble_x + NIBBLE_WIDTH / 2, y + CELL)
        parts.append(box(x, y, 2 * NIBBLE_WIDTH, CELL - 2, fill="none", cls="byte", stroke="#333", stroke_width=1.4))
        number_size = 8 if len(str(byte)) <= 7 else 6
        parts.append(
            text(x + NIBBLE_WIDTH, y + CELL + 8, str(byte), cls="byte number", anchor="middle", size=number_size)
        )
    height = (math.ceil(len(byte_list) / BYTES_PER_ROW) or 1) * BYTE_ROW_PITCH
    return _Slots(parts, position, height, None in byte_list)


def tensor_picture(
    *,
    data_type: str,
    element_bits: int,
    sizes: Sequence[int],
    strides: Sequence[int],
    given_strides: Sequence[int] | None,
    total_bytes: int,
    caption: str = "DML_BUFFER_TENSOR_DESC",
    problem: str | None = None,
) -> Picture:
    """The tensor's picture. ``strides`` are the effective ones, in elements;
    ``problem`` is the message of a refusal, drawn in red under the picture."""
    nibbles = element_bits == 4
    outer_sizes, columns = list(sizes[:-1]), sizes[-1] if sizes else 1
    rows = _shown(math.prod(outer_sizes), MAX_ROWS)
    cols = _shown(columns, MAX_COLUMNS)
    span = sum((s - 1) * d for s, d in zip(sizes, strides, strict=True)) + 1 if all(sizes) else 0
    slot_count = total_bytes * 8 // element_bits if element_bits else 0
    reads = ReadCounts(sizes, strides)
    grid_width = len(cols) * CELL
    left, top = 70, 64
    memory_left = left + max(grid_width, 250) + 40
    if nibbles:
        slots = _nibble_slots(memory_left, top, reads, span, slot_count, total_bytes)
        memory_width = BYTES_PER_ROW * BYTE_PITCH
        bytes_spanned = f" = {-(-span // 2)} byte(s){' (the last half-filled)' if span % 2 else ''}"
        buffer_title = "buffer bytes (numbered below): the low nibble, bits 0-3, first"
    else:
        slots = _element_slots(memory_left, top, reads, span, slot_count, element_bits, total_bytes)
        memory_width = SLOTS_PER_ROW * CELL
        bytes_spanned = ""
        buffer_title = f"buffer, one slot per {_width(element_bits)} element"
    width = max(memory_left + memory_width, 5 * LEGEND_PITCH) + 20
    body = max(top + len(rows) * CELL, top + slots.height)
    height = body + 70 + (wrapped_height(problem) + 4 if problem else 0)
    parts = [
        text(
            10,
            16,
            f"{caption}: DataType {data_type}, Sizes {list(sizes)}, "
            f"Strides {list(given_strides) if given_strides is not None else 'null (packed)'}",
            bold=True,
        ),
        text(
            10,
            32,
            f"TotalTensorSizeInBytes {total_bytes}; DMLCalcBufferTensorSize: {span} element(s) spanned x "
            f"{_width(element_bits)}{bytes_spanned}, rounded up to a multiple of 4 bytes = "
            f"{math.ceil(span * element_bits / 32) * 4}",
        ),
        text(left, top - 8, "logical elements (row: outer coordinates)"),
        text(memory_left, top - 8, buffer_title),
    ]
    header_parts = len(parts)
    parts += slots.parts
    links: list[str] = []
    for r, row in enumerate(rows):
        y = top + r * CELL
        if row is None:
            parts.append(cell(left, y, "gap", "...", "gap", "rows left out"))
            continue
        outer = _unravel(row, outer_sizes)
        parts.append(text(6, y + 15, ",".join(map(str, outer)) or "-"))
        for c, col in enumerate(cols):
            x = left + c * CELL
            if col is None:
                parts.append(cell(x, y, "gap", "...", "gap", "columns left out"))
                continue
            index = (*outer, col) if sizes else ()  # DimensionCount 0: one element, drawn though refused
            offset = sum(i * d for i, d in zip(index, strides, strict=True))
            broadcast = reads.get(offset, 0) > 1
            outside = offset >= slot_count
            fill = "outside" if outside else "broadcast" if broadcast else "element"
            where = (
                f"nibble {offset} (byte {offset // 2}, {'high' if offset % 2 else 'low'})"
                if nibbles
                else f"slot {offset}"
            )
            title = f"element {list(index)} reads {where}" + (", past the end" if outside else "")
            parts.append(cell(x, y, fill, str(offset), "element outside" if outside else "element", title))
            if offset in slots.position:
                sx, sy = slots.position[offset]
                kind = "link broadcast" if broadcast else "link"
                colour = "#e08a00" if broadcast else "#7a9cc6"
                links.append(
                    f'<line class="{kind}" x1="{x + CELL - 2}" y1="{y + CELL / 2}" x2="{sx}" y2="{sy - CELL}" '
                    f'stroke="{colour}" stroke-width="0.8" opacity="0.6"/>'
                )
    drawn = sum(1 for r in rows if r is not None) * sum(1 for c in cols if c is not None)
    total = math.prod(sizes)
    parts[header_parts:header_parts] = links  # under the cells, so a line never strikes through a label
    entries = [
        (COLOURS["used"], "read by one element"),
        (COLOURS["broadcast"], "read by several (0-stride)"),
        (COLOURS["padding"], "padding (never read)"),
        (COLOURS["rounding"], "rounding to 4 bytes"),
    ]
    if span > slot_count:
        entries.append((COLOURS["outside"], "past TotalTensorSizeInBytes"))
    parts += legend(10, body + 30, entries, pitch=LEGEND_PITCH)
    if drawn < total or slots.elided:
        shown_slots = sum(1 for slot in slots.position if slot < max(slot_count, span))
        parts.append(
            text(
                10,
                body + 58,
                f"drawn: {drawn} of {total} elements and {shown_slots} of {max(slot_count, span)} slots; "
                "'...' marks what is left out",
                cls="elided",
            )
        )
    if problem:
        parts += wrapped(10, body + 76, problem, cls="problem", colour=COLOURS["problem"])
    return Picture(document(width, height, parts), width, height)
