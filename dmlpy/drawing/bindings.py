"""The picture of a binding table: each bound buffer as a bar of its bytes, and under it one lane per tensor
bound to it, the range at its offset. An input and an output bound in place (DirectML allows it when range and
layout are identical) are marked allowed; a refused binding (a partial overlap, a range past the buffer's end)
is drawn red where it breaks, with the rule it breaks underneath: the picture of the error message.

Classes: ``buffer``, ``range input``, ``range output``, ``range temporary``, ``in-place``, ``conflict``,
``problem``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dmlpy.drawing.svg import COLOURS, Picture, box, document, legend, text, wrapped, wrapped_height

BAR_WIDTH = 560
LANE = 22


@dataclass(frozen=True)
class DrawnRange:
    """One binding as the picture needs it: which buffer (an index into the picture's buffer sizes) and bytes."""

    name: str
    role: Literal["input", "output", "temporary"]
    buffer: int
    offset: int
    end: int


def bindings_picture(
    title: str,
    buffer_sizes: Sequence[int | None],
    ranges: Sequence[DrawnRange],
    *,
    in_place: Sequence[tuple[int, int]] = (),
    conflict: Sequence[int] = (),
    problem: str | None = None,
) -> Picture:
    """The picture. A buffer size of None is a released buffer (drawn as long as its ranges). ``in_place``
    holds pairs of indices into ``ranges`` bound in place; ``conflict`` the indices of the ranges a refusal
    (``problem``, its message) is about: where they overlap, or where one runs past its buffer, is drawn red."""
    bar_left = 30 + 6 * max([len(bound.name) for bound in ranges] + [20])  # the lane names fit left of the bars
    parts = [text(10, 16, title, bold=True)]
    y = 36
    allowed = {index for pair in in_place for index in pair}
    for buffer, known_size in enumerate(buffer_sizes):
        lanes = [k for k, bound in enumerate(ranges) if bound.buffer == buffer]
        size = known_size if known_size is not None else max(ranges[k].end for k in lanes)
        reach = max([size, *(ranges[k].end for k in lanes)]) or 1

        def at(byte: int, reach: int = reach, bar_left: float = bar_left) -> float:
            return bar_left + BAR_WIDTH * byte / reach

        state = f"{size} bytes" if known_size is not None else "released"
        parts.append(text(10, y + 13, f"buffer {buffer + 1}: {state}", bold=True))
        parts.append(box(at(0), y, at(size) - at(0), 16, fill="#f4f4f4", cls="buffer"))
        parts.append(text(at(0), y + 28, "0", size=9))
        parts.append(text(at(size), y + 28, str(size), size=9, anchor="middle"))
        if reach > size:  # a range running past the buffer's end: the bytes that do not exist, in red
            parts.append(box(at(size), y, at(reach) - at(size), 16, fill=COLOURS["outside"], cls="conflict"))
        y += 34
        for k in lanes:
            bound = ranges[k]
            left, right = at(bound.offset), max(at(bound.end), at(bound.offset) + 3)
            parts.append(text(10, y + 12, bound.name, size=10))
            parts.append(
                box(
                    left,
                    y,
                    right - left,
                    14,
                    fill=COLOURS[bound.role],
                    cls=f"range {bound.role}",
                    opacity=0.85,
                )
            )
            words = f"[{bound.offset}, {bound.end})"
            if k in allowed:
                words += "  in place: allowed (identical range and layout)"
                parts.append(
                    box(
                        left,
                        y - 2,
                        right - left,
                        18,
                        fill="none",
                        cls="in-place",
                        stroke=COLOURS["allowed"],
                        stroke_width=2,
                    )
                )
            parts.append(text(min(right + 6, bar_left + BAR_WIDTH + 6), y + 11, words, size=10))
            y += LANE
        for k in conflict:
            for j in conflict:
                a, b = ranges[k], ranges[j]
                if j <= k or a.buffer != buffer or b.buffer != buffer:
                    continue
                start, stop = max(a.offset, b.offset), min(a.end, b.end)
                if start < stop:
                    top = y - LANE * len(lanes) - 36
                    parts.append(
                        box(
                            at(start),
                            top,
                            at(stop) - at(start),
                            y - top,
                            fill=COLOURS["outside"],
                            cls="conflict",
                            stroke=COLOURS["problem"],
                            opacity=0.45,
                        )
                    )
        y += 12
    width = bar_left + BAR_WIDTH + 280
    if problem:
        parts += wrapped(10, y + 6, problem, cls="problem", colour=COLOURS["problem"], columns=150)
        y += wrapped_height(problem, 150) + 8
    parts += legend(
        10,
        y + 6,
        [
            (COLOURS["input"], "input range"),
            (COLOURS["output"], "output range"),
            (COLOURS["temporary"], "temporary resource"),
            (COLOURS["outside"], "refused: overlap / past the end"),
        ],
        pitch=190,
    )
    height = y + 30
    return Picture(document(width, height, parts), width, height)
