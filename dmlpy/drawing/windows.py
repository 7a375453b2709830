"""The picture of a convolution's window: the input's last two spatial dimensions (height by width; a 1-D input one
row, a 3-D one's depth stated) as a grid inside its StartPadding and EndPadding border, the filter's taps at the
window's first position (Dilations apart, its extent framed) with its next position a stride along the width
dashed, and beside it the output's plane, the element that first window makes shaded. Under them, per spatial
dimension, the fields and the output size's arithmetic with the numbers (the operator's own words: this module
computes no size). A BACKWARD (transposed) convolution spreads each input element's window over the output
instead; its picture shows the planes and the arithmetic, not a window over the input.

Classes: ``padding``, ``input``, ``grid``, ``tap``, ``window``, ``window next``, ``output``, ``first``,
``dimension`` (the planes' sizes), ``fields``, ``arithmetic``, ``rule``, ``elided``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmlpy.drawing.shapes import ACCENT, TALL, arrow, captions, frame, line, listed
from dmlpy.drawing.svg import CELL, COLOURS, Picture, box, document, text, wrapped, wrapped_height

PLANE = 300
"""Pixels the padded input's longer side may take."""
OUTPUT_PLANE = 200
MAX_TAPS = 400
"""Taps drawn one by one up to this many; a larger filter is only framed."""
NAMES = ("depth", "height", "width")


@dataclass(frozen=True)
class WindowDimension:
    """One spatial dimension: its axis in Sizes (2 + i), the input's size, the filter's, its extent with the
    dilation, the fields' entries, the output's size and the arithmetic that gives it, in words."""

    axis: int
    size: int
    kernel: int
    dilated: int
    stride: int
    dilation: int
    start: int
    end: int
    output: int
    arithmetic: str


@dataclass(frozen=True)
class ConvolutionWindow:
    """A convolution's numbers: the tensors' Sizes, GroupCount, the direction, each spatial dimension and the
    output rule."""

    input_sizes: tuple[int, ...]
    filter_sizes: tuple[int, ...]
    output_sizes: tuple[int, ...]
    groups: int
    backward: bool
    dims: tuple[WindowDimension, ...]
    formula: str
    """The output rule in words (the operator's, with its numbers)."""

    def picture(self) -> Picture:
        return window_picture(self)


def _name(dim: WindowDimension, count: int) -> str:
    index = dim.axis - 2 + len(NAMES) - count
    return NAMES[index] if 0 <= index < len(NAMES) else f"spatial {dim.axis - 2}"


def _plane(
    left: float, top: float, rows: WindowDimension | None, columns: WindowDimension, pitch: float, padded: bool
) -> list[str]:
    """The input's plane: the padding border (``padded``), the input's elements and grid lines."""
    start_r, size_r, end_r = (rows.start, rows.size, rows.end) if rows and padded else (0, rows.size if rows else 1, 0)
    start_c, end_c = (columns.start, columns.end) if padded else (0, 0)
    height, width = (start_r + size_r + end_r) * pitch, (start_c + columns.size + end_c) * pitch
    parts = [
        box(left, top, width, height, fill=COLOURS["padding"], cls="padding"),
        box(left + start_c * pitch, top + start_r * pitch, columns.size * pitch, size_r * pitch,
            fill=COLOURS["element"], cls="input"),
    ]  # fmt: skip
    if pitch >= 6:
        rows_drawn, columns_drawn = start_r + size_r + end_r, start_c + columns.size + end_c
        parts += [line(left, top + r * pitch, left + width, top + r * pitch, cls="grid") for r in range(1, rows_drawn)]
        parts += [
            line(left + c * pitch, top, left + c * pitch, top + height, cls="grid") for c in range(1, columns_drawn)
        ]
    return parts


def _window(left: float, top: float, rows: WindowDimension | None, columns: WindowDimension, pitch: float) -> list[str]:
    """The filter's taps at the first position, its extent framed, the next position a stride along dashed."""
    kernel_r, dilation_r, extent_r = (rows.kernel, rows.dilation, rows.dilated) if rows else (1, 1, 1)
    parts = []
    if kernel_r * columns.kernel <= MAX_TAPS:
        parts += [
            box(left + c * columns.dilation * pitch, top + r * dilation_r * pitch, pitch, pitch, fill=ACCENT,
                cls="tap", stroke=ACCENT, opacity=0.7)
            for r in range(kernel_r)
            for c in range(columns.kernel)
        ]  # fmt: skip
    parts.append(frame(left, top, columns.dilated * pitch, extent_r * pitch, cls="window", colour=ACCENT))
    if columns.output > 1:
        step = columns.stride * pitch
        parts.append(
            frame(left + step, top, columns.dilated * pitch, extent_r * pitch, cls="window next", colour=ACCENT,
                  dashed=True)
        )  # fmt: skip
        parts += arrow(left + 2, top - 8, left + step + 2, top - 8, cls="stride", colour=ACCENT)
        parts.append(text(left + step + 8, top - 4, f"Strides[{columns.axis - 2}] = {columns.stride}", cls="stride"))
    return parts


def window_picture(window: ConvolutionWindow) -> Picture:
    """The picture of ``window``."""
    dims = window.dims
    rows, columns = (dims[-2] if len(dims) >= 2 else None), dims[-1]
    direction = "BACKWARD, the transposed convolution" if window.backward else "FORWARD"
    header = [
        (
            "rule",
            f"InputTensor {listed(window.input_sizes)}: BatchCount, InputChannelCount, then the spatial dimensions",
        ),
        ("rule", f"FilterTensor {listed(window.filter_sizes)}, GroupCount {window.groups}, {direction}"),
        ("rule", f"OutputTensor.Sizes {listed(window.output_sizes)}"),
    ]
    padded = not window.backward
    span_r = (rows.start + rows.size + rows.end if padded else rows.size) if rows else 1
    span_c = columns.start + columns.size + columns.end if padded else columns.size
    pitch = max(3.0, min(float(CELL), PLANE / max(span_r, span_c, 1)))
    left, top = 20, 8 + TALL * len(header) + 40
    parts = captions(10, 12, header)
    parts.append(text(left, top - 22, "InputTensor's plane" + (", padded" if padded else ""), cls="dimension"))
    parts += _plane(left, top, rows, columns, pitch, padded)
    if not window.backward:
        parts += _window(left, top, rows, columns, pitch)
    out_rows, out_columns = rows.output if rows else 1, columns.output
    out_left = left + span_c * pitch + 70
    parts.append(text(out_left, top - 22, f"OutputTensor's plane: {out_rows} x {out_columns}", cls="dimension"))
    out_rows, out_columns = max(out_rows, 0), max(out_columns, 0)  # a refused window's sizes, drawn as none
    out_pitch = max(3.0, min(float(CELL), OUTPUT_PLANE / max(out_rows, out_columns, 1)))
    parts += [
        box(out_left, top, out_columns * out_pitch, out_rows * out_pitch, fill=COLOURS["element"], cls="output",
            stroke=COLOURS["output"]),
    ]  # fmt: skip
    if out_pitch >= 6:
        parts += [
            line(out_left, top + r * out_pitch, out_left + out_columns * out_pitch, top + r * out_pitch, cls="grid")
            for r in range(1, out_rows)
        ]
        parts += [
            line(out_left + c * out_pitch, top, out_left + c * out_pitch, top + out_rows * out_pitch, cls="grid")
            for c in range(1, out_columns)
        ]
    if not window.backward and out_rows > 0 and out_columns > 0:
        parts.append(box(out_left, top, out_pitch, out_pitch, fill=ACCENT, cls="first", stroke=ACCENT, opacity=0.7))
        parts += arrow(left + columns.dilated * pitch, top + pitch / 2, out_left - 2, top + out_pitch / 2,
                       cls="makes", colour=ACCENT)  # fmt: skip
    bottom = top + max(span_r * pitch, out_rows * out_pitch) + 24
    lines = []
    for dim in dims:
        i, name = dim.axis - 2, _name(dim, len(dims))
        lines.append(
            (
                "fields",
                f"{name} (Sizes[{dim.axis}]): input {dim.size}, filter {dim.kernel}, Dilations[{i}] {dim.dilation} "
                f"(extent {dim.dilated}), Strides[{i}] {dim.stride}, StartPadding[{i}] {dim.start}, "
                f"EndPadding[{i}] {dim.end}",
            )
        )
        lines.append(("arithmetic", f"output {name} (OutputTensor.Sizes[{dim.axis}]) = {dim.arithmetic}"))
    notes: list[tuple[str, str]] = []
    if len(dims) == 3:
        notes.append(("elided", "drawn: the height x width plane; the window spans the depth as its line says"))
    if window.backward:
        notes += [
            ("rule", "BACKWARD: each input element spreads the window over the output, Strides apart;"),
            ("rule", "the padding crops the output's ends"),
        ]
    else:
        notes += [
            ("rule", "shaded: the filter's taps at the window's first position (grey: padding),"),
            ("rule", "which make the output's first element; dashed: the next position, a stride along"),
        ]
    parts += captions(10, bottom, [*lines, *notes])
    rule_top = bottom + TALL * (len(lines) + len(notes))
    parts += wrapped(10, rule_top, f"the rule: {window.formula}", cls="rule", colour="#000000")
    width = max(
        out_left + out_columns * out_pitch + 20, 700, 10 + 6.2 * max(len(words) for _, words in [*lines, *notes])
    )
    height = rule_top + wrapped_height(f"the rule: {window.formula}") + 4
    return Picture(document(width, height, parts), width, height)
