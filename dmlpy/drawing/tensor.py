"""The picture of how a buffer tensor lies in memory: the logical index grid beside the buffer's element slots,
each element's cell linked to the slot it reads, padding between elements and the rounding of
TotalTensorSizeInBytes to whole DWORDs shaded, a broadcast drawn as several cells linked to one slot, and, for a
refused tensor, the elements that read past TotalTensorSizeInBytes in red.

Large tensors stay readable: rows and columns beyond the caps are elided with a marked gap, and the picture says
how many elements it leaves out. The parts carry classes (``element``, ``element outside``, ``slot used``,
``slot padding``, ``slot rounding``, ``slot outside``, ``slot gap``, ``gap``, ``link``, ``link broadcast``,
``elided``, ``problem``) so tests and style sheets can find them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from dmlpy.drawing.svg import CELL, COLOURS, Picture, cell, document, legend, text, wrapped, wrapped_height

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
    outer_sizes, columns = list(sizes[:-1]), sizes[-1] if sizes else 1
    rows = _shown(math.prod(outer_sizes), MAX_ROWS)
    cols = _shown(columns, MAX_COLUMNS)
    span = sum((s - 1) * d for s, d in zip(sizes, strides, strict=True)) + 1 if all(sizes) else 0
    slot_count = total_bytes * 8 // element_bits if element_bits else 0
    reads = ReadCounts(sizes, strides)
    # A tensor whose elements reach past TotalTensorSizeInBytes shows the slots it would read beyond the end.
    slots = _shown(max(slot_count, span), MAX_SLOTS)
    grid_width = len(cols) * CELL
    left, top = 70, 64
    memory_left = left + max(grid_width, 250) + 40
    slot_rows = math.ceil(len(slots) / SLOTS_PER_ROW) or 1
    width = max(memory_left + SLOTS_PER_ROW * CELL, 5 * LEGEND_PITCH) + 20
    body = max(top + len(rows) * CELL, top + slot_rows * (CELL + 8))
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
            f"{_width(element_bits)}, rounded up to a multiple of 4 bytes = {math.ceil(span * element_bits / 32) * 4}",
        ),
        text(left, top - 8, "logical elements (row: outer coordinates)"),
        text(memory_left, top - 8, f"buffer, one slot per {_width(element_bits)} element"),
    ]
    header_parts = len(parts)
    slot_position: dict[int, tuple[float, float]] = {}
    for k, slot in enumerate(slots):
        x = memory_left + (k % SLOTS_PER_ROW) * CELL
        y = top + (k // SLOTS_PER_ROW) * (CELL + 8)
        if slot is None:
            parts.append(cell(x, y, "gap", "...", "slot gap"))
            continue
        if slot >= slot_count:
            kind = "outside"
        else:
            kind = "used" if slot in reads else ("padding" if slot < span else "rounding")
        fill = "broadcast" if reads.get(slot, 0) > 1 and kind == "used" else kind
        title = f"bits {slot * element_bits}-{(slot + 1) * element_bits - 1}: " + (
            ("read by several elements" if reads[slot] > 1 else "read by one element") if slot in reads else kind
        )
        if kind == "outside":
            title += f", past TotalTensorSizeInBytes ({total_bytes})"
        parts.append(cell(x, y, fill, str(slot), f"slot {kind}", title))
        slot_position[slot] = (x + CELL / 2, y + CELL)
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
            title = f"element {list(index)} reads slot {offset}" + (", past the end" if outside else "")
            parts.append(cell(x, y, fill, str(offset), "element outside" if outside else "element", title))
            if offset in slot_position:
                sx, sy = slot_position[offset]
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
    if drawn < total or any(s is None for s in slots):
        shown_slots = len([s for s in slots if s is not None])
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
