"""The pictures of operators that work along axes: a reduction (REDUCE, ARGMIN, ARGMAX) draws the input's Sizes as
a row of dimensions, the reduced ones (Axes) shaded, and under it the output's, those dimensions 1; JOIN and SPLIT
draw the joined tensor as a bar along Axis, each part a segment at its offset, and the parts apart above (JOIN's
inputs) or below (SPLIT's outputs), linked to where they lie.

Classes: ``axis kept``, ``axis reduced`` (one box per dimension), ``size`` (the numbers in them), ``whole``,
``part`` (a part's segment; ``part apart``, the part drawn alone), ``offset`` (a part's offset and size along the
axis), ``link``, ``rule``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmlpy.drawing.shapes import ACCENT, TALL, arrow, captions, listed
from dmlpy.drawing.svg import COLOURS, Picture, box, document, text

BOX = 54
"""Pixels per dimension of a reduction's rows."""
BAR = 600
"""Pixels of the joined tensor's bar."""
PART_COLOURS = ("#cfe3ff", "#ffd79a", "#d5ecd4", "#e4dcf4")
"""Segments alternate these, so that neighbours differ."""


@dataclass(frozen=True)
class ReducedAxes:
    """A reduction's numbers: the input's Sizes, Axes, the output's Sizes (the operator's rule), the function in
    words and whether the output holds indices."""

    input_sizes: tuple[int, ...]
    axes: tuple[int, ...]
    output_sizes: tuple[int, ...]
    function: str
    index_output: bool

    def picture(self) -> Picture:
        return reduction_picture(self)


@dataclass(frozen=True)
class PartsAlongAxis:
    """JOIN's or SPLIT's numbers: the axis, the joined tensor's field and Sizes (JOIN's output, SPLIT's input), the
    parts' field (``InputTensors``, ``OutputTensors``) and Sizes in order, and whether the parts are joined."""

    axis: int
    whole_name: str
    whole_sizes: tuple[int, ...]
    parts_name: str
    part_sizes: tuple[tuple[int, ...], ...]
    joined: bool

    def picture(self) -> Picture:
        return parts_picture(self)


def _dimensions(left: float, top: float, sizes: tuple[int, ...], axes: tuple[int, ...], name: str) -> list[str]:
    """One box per dimension, numbered above, its size inside; the dimensions of ``axes`` shaded."""
    parts = [text(10, top + 19, name, cls="dimension")]
    for dim, size in enumerate(sizes):
        x = left + dim * (BOX + 6)
        reduced = dim in axes
        fill = ACCENT if reduced else COLOURS["element"]
        parts.append(box(x, top, BOX, 28, fill=fill, cls="axis reduced" if reduced else "axis kept", opacity=1))
        parts.append(text(x + BOX / 2, top - 4, f"[{dim}]", anchor="middle", size=9))
        parts.append(text(x + BOX / 2, top + 18, str(size), cls="size", anchor="middle", bold=reduced))
    return parts


def reduction_picture(reduction: ReducedAxes) -> Picture:
    """The picture of ``reduction``."""
    left, top = 150, 36
    valid_axes = tuple(axis for axis in reduction.axes if axis < len(reduction.input_sizes))
    group = 1
    for axis in valid_axes:
        group *= reduction.input_sizes[axis]
    reduced = " x ".join(str(reduction.input_sizes[axis]) for axis in valid_axes) or "1"
    parts = captions(10, 12, [("rule", f"Axes {listed(reduction.axes)}: the shaded dimensions are reduced")])
    parts += _dimensions(left, top, reduction.input_sizes, valid_axes, "InputTensor.Sizes")
    middle = left + max(len(reduction.input_sizes), 1) * (BOX + 6) / 2
    parts += arrow(middle, top + 34, middle, top + 66, cls="reduces", colour=ACCENT)
    parts.append(text(middle + 8, top + 54, reduction.function, cls="function"))
    parts += _dimensions(left, top + 76, reduction.output_sizes, valid_axes, "OutputTensor.Sizes")
    what = (
        f"the index (0 to {group - 1}) of the {reduction.function} element among"
        if reduction.index_output
        else f"{reduction.function} of"
    )
    lines = [
        ("rule", f"each output element: {what} the {group} (= {reduced}) input elements that share its"),
        ("rule", "coordinates outside Axes; the reduced dimensions stay, each of size 1"),
    ]
    parts += captions(10, top + 136, lines)
    width = max(left + len(reduction.input_sizes) * (BOX + 6) + 20, 700)
    height = top + 136 + TALL * len(lines)
    return Picture(document(width, height, parts), width, height)


def _segment(x: float, y: float, width: float, colour: str, cls: str, label: str) -> list[str]:
    return [
        box(x, y, max(width, 2), 26, fill=colour, cls=cls),
        text(x + max(width, 2) / 2, y + 17, label, anchor="middle", size=10),
    ]


def parts_picture(parts_along: PartsAlongAxis) -> Picture:
    """The picture of ``parts_along``."""
    axis = parts_along.axis
    shares = [sizes[axis] if axis < len(sizes) else 0 for sizes in parts_along.part_sizes]
    whole = parts_along.whole_sizes[axis] if axis < len(parts_along.whole_sizes) else sum(shares)
    scale = BAR / max(whole, sum(shares), 1)
    left = 20
    apart_y, whole_y = (60, 150) if parts_along.joined else (150, 60)
    others = ", ".join(str(size) if dim != axis else "_" for dim, size in enumerate(parts_along.whole_sizes))
    what = (
        f"{parts_along.parts_name} joined along dimension {axis}, in order, into {parts_along.whole_name}"
        if parts_along.joined
        else f"{parts_along.whole_name} split along dimension {axis} into {parts_along.parts_name}, in order"
    )
    header = [
        ("rule", f"Axis {axis}: {what};"),
        ("rule", f"every other dimension as {parts_along.whole_name}'s: [{others}]"),
    ]
    picture = captions(10, 12, header)
    picture += _segment(left, whole_y, whole * scale, "#f4f4f4", "whole", "")
    picture.append(
        text(left + BAR + 8, whole_y + 17, f"{parts_along.whole_name}.Sizes[{axis}] = {whole}", cls="dimension")
    )
    offset, gap = 0, 8
    apart_x: float = left
    for index, share in enumerate(shares):
        colour = PART_COLOURS[index % len(PART_COLOURS)]
        name = f"{parts_along.parts_name}[{index}]"
        at = left + offset * scale
        label = f"[{index}] at {offset}"
        picture += _segment(at, whole_y, share * scale, colour, "part", label if share * scale > 6 * len(label) else "")
        width = share * scale * 0.9
        picture += _segment(apart_x, apart_y, width, colour, "part apart", name if width > 6.5 * len(name) else "")
        near, far = (apart_y + 26, whole_y) if parts_along.joined else (whole_y + 26, apart_y)
        tail_x, head_x = (apart_x + width / 2, at + share * scale / 2)
        if parts_along.joined:
            picture += arrow(tail_x, near, head_x, far - 2, cls="link")
        else:
            picture += arrow(head_x, near, tail_x, far - 2, cls="link")
        offset += share
        apart_x += max(width, 2) + gap
    listing = []
    offset = 0
    for index, (share, sizes) in enumerate(zip(shares, parts_along.part_sizes, strict=True)):
        listing.append(
            (
                "offset",
                f"{parts_along.parts_name}[{index}]: Sizes {listed(sizes)}, Sizes[{axis}] = {share} at offset "
                f"{offset} along Axis: [{offset}, {offset + share})",
            )
        )
        offset += share
    listing.append(("rule", f"the parts' Sizes[{axis}] sum to {' + '.join(map(str, shares))} = {sum(shares)}"))
    picture += captions(10, 222, listing)
    height = 222 + TALL * len(listing)
    width = left + BAR + 190
    return Picture(document(width, height, picture), width, height)
