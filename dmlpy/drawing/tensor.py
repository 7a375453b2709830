"""The picture of how a buffer tensor lies in memory: the logical index grid beside the buffer's element slots,
each element's cell linked to the slot it reads by a line a person can follow (it leaves the top of the cell,
passes under no other cell, crosses another link only where the slots' order reverses the elements' and ends
under an arrowhead on the middle of the slot's bottom edge: dmlpy.drawing.links), padding between elements and
the rounding of TotalTensorSizeInBytes to whole DWORDs shaded, a broadcast drawn as several links joining into
one slot, and, for a refused tensor, the elements that read past TotalTensorSizeInBytes in red. A 4-bit
tensor's buffer is drawn in bytes, each framed and split into two half-width slots, the low nibble (the even
element) left, as DirectML packs them; an odd count's last high nibble is padding (dmlpy.drawing.slots).

Large tensors stay readable: rows and columns beyond the caps are elided with a marked gap, and the picture says
how many elements it leaves out. The parts carry classes (``element``, ``element outside``, ``slot used``,
``slot padding``, ``slot rounding``, ``slot outside``, ``slot gap``, ``gap``, ``link``, ``link broadcast``,
``arrow``, ``arrow broadcast``, ``elided``, ``problem``; ``byte`` and ``byte number`` for 4-bit tensors) so
tests and style sheets can find them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from dmlpy.drawing.links import CLEARANCE, MIDDLE, TRACK, arrowhead, band_height, link_path
from dmlpy.drawing.slots import (
    BYTE_PITCH,
    BYTES_PER_ROW,
    SLOTS_PER_ROW,
    ReadCounts,
    Slots,
    element_slots,
    nibble_slots,
    shown,
)
from dmlpy.drawing.svg import CELL, COLOURS, Picture, cell, document, legend, text, wrapped, wrapped_height

MAX_ROWS = 8
MAX_COLUMNS = 12
LEGEND_PITCH = 170


def _width(bits: int) -> str:
    return f"{bits // 8}-byte" if bits % 8 == 0 else f"{bits}-bit"


def _unravel(flat: int, sizes: Sequence[int]) -> tuple[int, ...]:
    """The row-major coordinates of position ``flat`` in an array of ``sizes``."""
    index = []
    for size in reversed(sizes):
        flat, coordinate = divmod(flat, size)
        index.append(coordinate)
    return tuple(reversed(index))


class _Cell(NamedTuple):
    """An element drawn: its column's position in the grid, its coordinates and the slot its offset names."""

    position: int
    coordinates: tuple[int, ...]
    offset: int


class _Row(NamedTuple):
    outer: tuple[int, ...]
    """The row's outer coordinates (all but the last)."""
    cells: list[_Cell]


def _rows(sizes: Sequence[int], strides: Sequence[int]) -> tuple[list[_Row | None], int]:
    """The rows of elements drawn (None: rows left out) and how many column positions they span (a gap one
    included)."""
    outer_sizes, columns = list(sizes[:-1]), sizes[-1] if sizes else 1
    cols = shown(columns, MAX_COLUMNS)
    rows: list[_Row | None] = []
    for row in shown(math.prod(outer_sizes), MAX_ROWS):
        if row is None:
            rows.append(None)
            continue
        outer = _unravel(row, outer_sizes)
        cells = []
        for position, col in enumerate(cols):
            if col is not None:
                index = (*outer, col) if sizes else ()  # DimensionCount 0: one element, drawn though refused
                cells.append(_Cell(position, index, sum(i * d for i, d in zip(index, strides, strict=True))))
        rows.append(_Row(outer, cells))
    return rows, len(cols)


def _element_cell(x: float, y: float, element: _Cell, reads: ReadCounts, slot_count: int, nibbles: bool) -> str:
    offset = element.offset
    outside = offset >= slot_count
    fill = "outside" if outside else "broadcast" if reads.get(offset, 0) > 1 else "element"
    where = f"nibble {offset} (byte {offset // 2}, {'high' if offset % 2 else 'low'})" if nibbles else f"slot {offset}"
    title = f"element {list(element.coordinates)} reads {where}" + (", past the end" if outside else "")
    return cell(x, y, fill, str(offset), "element outside" if outside else "element", title)


def _grid(
    left: float,
    top: float,
    rows: Sequence[_Row | None],
    columns: int,
    slots: Slots,
    curve: tuple[float, float],
    reads: ReadCounts,
    slot_count: int,
    nibbles: bool,
) -> tuple[list[str], float]:
    """The logical elements, a row per outer coordinate, each under the channel its links climb to (a track per
    linked cell, dmlpy.drawing.links), and their links to ``slots``, drawn over the cells they never cross; the
    parts and the grid's bottom."""
    parts: list[str] = []
    links: list[str] = []
    heads: dict[int, str] = {}
    y = top
    for row in rows:
        linked = [element for element in row.cells if element.offset in slots.ends] if row else []
        y += band_height(len(linked))
        if row is None:
            parts.append(cell(left, y, "gap", "...", "gap", "rows left out"))
            y += CELL
            continue
        parts.append(text(6, y + 15, ",".join(map(str, row.outer)) or "-"))
        gaps = set(range(columns)) - {element.position for element in row.cells}
        parts += [cell(left + c * CELL, y, "gap", "...", "gap", "columns left out") for c in sorted(gaps)]
        parts += [
            _element_cell(left + element.position * CELL, y, element, reads, slot_count, nibbles)
            for element in row.cells
        ]
        for rank, element in enumerate(linked):
            broadcast = reads.get(element.offset, 0) > 1
            colour = "#e08a00" if broadcast else "#5b82b5"
            track = y - CLEARANCE - (len(linked) - 1 - rank) * TRACK  # the row's first cell highest
            start = (left + element.position * CELL + (CELL - 2) / 2, y)
            end = slots.ends[element.offset]
            path = link_path(start, track, curve, slots.tracks[element.offset], end)
            links.append(
                f'<path class="link{" broadcast" if broadcast else ""}" d="{path}" fill="none" stroke="{colour}" '
                'stroke-width="1"/>'
            )
            heads[element.offset] = arrowhead(end, colour, f"arrow{' broadcast' if broadcast else ''}")
        y += CELL
    return parts + links + list(heads.values()), y


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
    span = sum((s - 1) * d for s, d in zip(sizes, strides, strict=True)) + 1 if all(sizes) else 0
    slot_count = total_bytes * 8 // element_bits if element_bits else 0
    reads = ReadCounts(sizes, strides)
    rows, columns = _rows(sizes, strides)
    grid_width = columns * CELL
    left, top = 70, 64
    memory_left = left + max(grid_width, 230) + MIDDLE
    if nibbles:
        slots = nibble_slots(memory_left, top, reads, span, slot_count, total_bytes)
        memory_width = BYTES_PER_ROW * BYTE_PITCH
        bytes_spanned = f" = {-(-span // 2)} byte(s){' (the last half-filled)' if span % 2 else ''}"
        buffer_title = "buffer bytes (numbered above): the low nibble, bits 0-3, first"
    else:
        slots = element_slots(memory_left, top, reads, span, slot_count, element_bits, total_bytes)
        memory_width = SLOTS_PER_ROW * CELL
        bytes_spanned = ""
        buffer_title = f"buffer, one slot per {_width(element_bits)} element"
    grid, grid_bottom = _grid(
        left, top, rows, columns, slots, (left + grid_width + 6, memory_left - 8), reads, slot_count, nibbles
    )
    width = max(memory_left + memory_width, 5 * LEGEND_PITCH) + 20
    body = max(grid_bottom, top + slots.height)
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
        *slots.parts,
        *grid,
    ]
    drawn = sum(len(row.cells) for row in rows if row is not None)
    total = math.prod(sizes)
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
        shown_slots = sum(1 for slot in slots.ends if slot < max(slot_count, span))
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
