"""Pictures of how a buffer tensor lies in memory, as SVG text (no plotting library): the logical index grid
beside the buffer's element slots, each element's cell linked to the slot it reads, padding between elements and
the rounding of TotalTensorSizeInBytes to whole DWORDs shaded, a broadcast drawn as several cells linked to one
slot. ``BufferTensorDesc`` shows it in Jupyter (``_repr_svg_``).

Large tensors stay readable: rows and columns beyond the caps are elided with a marked gap, and the picture says
how many elements it leaves out. The picture's parts carry classes (``element``, ``slot used``, ``slot padding``,
``slot rounding``, ``link``, ``link broadcast``, ``gap``) so tests and style sheets can find them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from itertools import product

CELL = 22
GAP = 14
MAX_ROWS = 8
MAX_COLUMNS = 12
MAX_SLOTS = 96
SLOTS_PER_ROW = 16
COLOURS = {
    "element": "#cfe3ff",
    "used": "#cfe3ff",
    "padding": "#e6e6e6",
    "rounding": "#b9b9b9",
    "broadcast": "#ffd79a",
    "gap": "#ffffff",
}


def _shown(count: int, cap: int) -> list[int | None]:
    """Indices 0..count-1 to draw, None marking an elided run: the first ones and the last ones."""
    if count <= cap:
        return list(range(count))
    head = cap - cap // 3
    return [*range(head), None, *range(count - (cap - head), count)]


def tensor_picture(
    *,
    data_type: str,
    element_bytes: int,
    sizes: Sequence[int],
    strides: Sequence[int],
    given_strides: Sequence[int] | None,
    total_bytes: int,
) -> str:
    """The SVG of a buffer tensor (see the module docstring). ``strides`` are the effective ones, in elements."""
    outer_sizes, columns = list(sizes[:-1]), sizes[-1] if sizes else 1
    outer = list(product(*(range(s) for s in outer_sizes))) if outer_sizes else [()]
    rows = _shown(len(outer), MAX_ROWS)
    cols = _shown(columns, MAX_COLUMNS)
    span = sum((s - 1) * d for s, d in zip(sizes, strides, strict=True)) + 1 if all(sizes) else 0
    slot_count = math.ceil(total_bytes / element_bytes) if element_bytes else 0
    reads: dict[int, int] = {}
    for index in product(*(range(s) for s in sizes)):
        offset = sum(i * d for i, d in zip(index, strides, strict=True))
        reads[offset] = reads.get(offset, 0) + 1
    slots = _shown(slot_count, MAX_SLOTS)
    grid_width = len(cols) * CELL
    left, top = 70, 64
    memory_left = left + max(grid_width, 250) + 40
    slot_rows = math.ceil(len(slots) / SLOTS_PER_ROW) or 1
    width = max(memory_left + SLOTS_PER_ROW * CELL, 700) + 20
    height = max(top + len(rows) * CELL, top + slot_rows * (CELL + 8)) + 70
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        _text(
            10,
            16,
            f"DML_BUFFER_TENSOR_DESC: DataType {data_type}, Sizes {list(sizes)}, "
            f"Strides {list(given_strides) if given_strides is not None else 'null (packed)'}",
            bold=True,
        ),
        _text(
            10,
            32,
            f"TotalTensorSizeInBytes {total_bytes} ({span} element(s) spanned x {element_bytes} byte(s), "
            "rounded up to a multiple of 4)",
        ),
        _text(left, top - 8, "logical elements (row: outer coordinates)"),
        _text(memory_left, top - 8, f"buffer, one slot per {element_bytes}-byte element"),
    ]
    slot_position: dict[int, tuple[float, float]] = {}
    for k, slot in enumerate(slots):
        x = memory_left + (k % SLOTS_PER_ROW) * CELL
        y = top + (k // SLOTS_PER_ROW) * (CELL + 8)
        if slot is None:
            parts.append(_cell(x, y, "gap", "...", "slot gap"))
            continue
        kind = "used" if slot in reads else ("padding" if slot < span else "rounding")
        fill = "broadcast" if reads.get(slot, 0) > 1 else kind
        label = str(slot)
        title = f"bytes {slot * element_bytes}-{(slot + 1) * element_bytes - 1}: " + (
            f"read by {reads[slot]} element(s)" if slot in reads else kind
        )
        parts.append(_cell(x, y, fill, label, f"slot {kind}", title))
        slot_position[slot] = (x + CELL / 2, y + CELL)
    links: list[str] = []
    for r, row in enumerate(rows):
        y = top + r * CELL
        if row is None:
            parts.append(_cell(left, y, "gap", "...", "gap", "rows left out"))
            continue
        parts.append(_text(6, y + 15, ",".join(map(str, outer[row])) or "-"))
        for c, col in enumerate(cols):
            x = left + c * CELL
            if col is None:
                parts.append(_cell(x, y, "gap", "...", "gap", "columns left out"))
                continue
            index = (*outer[row], col)
            offset = sum(i * d for i, d in zip(index, strides, strict=True))
            broadcast = reads.get(offset, 0) > 1
            parts.append(
                _cell(
                    x,
                    y,
                    "broadcast" if broadcast else "element",
                    str(offset),
                    "element",
                    f"element {list(index)} reads slot {offset}",
                )
            )
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
    legend_y = height - 40
    parts += links
    legend = [
        ("used", "read by one element"),
        ("broadcast", "read by several (0-stride)"),
        ("padding", "padding (never read)"),
        ("rounding", "rounding to 4 bytes"),
    ]
    for k, (kind, words) in enumerate(legend):
        x = 10 + k * 170
        parts.append(f'<rect x="{x}" y="{legend_y}" width="12" height="12" fill="{COLOURS[kind]}" stroke="#666"/>')
        parts.append(_text(x + 16, legend_y + 10, words))
    if drawn < total or any(s is None for s in slots):
        parts.append(
            _text(
                10,
                height - 12,
                f"drawn: {drawn} of {total} elements and {len([s for s in slots if s is not None])} "
                f"of {slot_count} slots; '...' marks what is left out",
                cls="elided",
            )
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _text(x: float, y: float, words: str, *, bold: bool = False, cls: str | None = None) -> str:
    weight = ' font-weight="bold"' if bold else ""
    klass = f' class="{cls}"' if cls else ""
    return f'<text x="{x}" y="{y}"{weight}{klass}>{escape(words)}</text>'


def _cell(x: float, y: float, fill: str, label: str, cls: str, title: str = "") -> str:
    tip = f"<title>{escape(title)}</title>" if title else ""
    size = 9 if len(label) <= 3 else 7 if len(label) <= 4 else 5.5  # long offsets still fit the cell
    return (
        f'<g class="{cls}"><rect x="{x}" y="{y}" width="{CELL - 2}" height="{CELL - 2}" fill="{COLOURS[fill]}" '
        f'stroke="#666" stroke-width="0.6"/>{tip}<text x="{x + (CELL - 2) / 2}" y="{y + 14}" text-anchor="middle" '
        f'font-size="{size}">{escape(label)}</text></g>'
    )
