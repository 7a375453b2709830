"""What the operators that are not element-wise draw above their tensors: the meaning of the descriptor, from plain
numbers an operator family gives (``OperatorDescBase.drawn_shape``): a matrix product's M, K and N
(``dmlpy.drawing.matrices``), a convolution's window over the padded input (``dmlpy.drawing.windows``), a
reduction's axes and the parts of JOIN and SPLIT along their axis (``dmlpy.drawing.axes``). This module holds what
they share: the protocol the operators' numbers keep, and the marks (lines, arrows, dashed frames) none of the
older pictures needed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from dmlpy.drawing.svg import COLOURS, Picture, text

ACCENT = "#e08a00"
"""The window, the reduced axes, the row and column a product reads: the tensor pictures' broadcast orange."""
TALL = 16
"""Pixels between lines of caption text."""


class DrawnShape(Protocol):
    """The numbers of an operator's meaning, which draw themselves (each module's dataclass)."""

    def picture(self) -> Picture: ...


def line(x1: float, y1: float, x2: float, y2: float, *, cls: str, colour: str = "#666", dashed: bool = False) -> str:
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    return (
        f'<line class="{cls}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}" '
        f'stroke-width="1"{dash}/>'
    )


def arrow(x1: float, y1: float, x2: float, y2: float, *, cls: str, colour: str = "#666") -> list[str]:
    """A straight line from (x1, y1) with an arrowhead at (x2, y2)."""
    length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    back_x, back_y = x2 - 6 * ux, y2 - 6 * uy
    left = (back_x - 3 * uy, back_y + 3 * ux)
    right = (back_x + 3 * uy, back_y - 3 * ux)
    head = f"{x2:g},{y2:g} {left[0]:g},{left[1]:g} {right[0]:g},{right[1]:g}"
    return [
        line(x1, y1, back_x, back_y, cls=cls, colour=colour),
        f'<polygon class="{cls} head" points="{head}" fill="{colour}"/>',
    ]


def frame(x: float, y: float, width: float, height: float, *, cls: str, colour: str, dashed: bool = False) -> str:
    """An unfilled rectangle: a window's extent, drawn over what it covers."""
    dash = ' stroke-dasharray="4 3"' if dashed else ""
    return (
        f'<rect class="{cls}" x="{x:g}" y="{y:g}" width="{max(width, 0):g}" height="{max(height, 0):g}" fill="none" '
        f'stroke="{colour}" stroke-width="2"{dash}/>'
    )


def captions(x: float, y: float, lines: Sequence[tuple[str, str]]) -> list[str]:
    """Lines of text ``(class, words)``, TALL pixels apart, the first baseline at ``y``; a ``problem`` line red."""
    return [
        text(x, y + TALL * k, words, cls=cls, colour=COLOURS["problem"] if cls == "problem" else None)
        for k, (cls, words) in enumerate(lines)
    ]


def listed(sizes: Sequence[int]) -> str:
    """Sizes as the messages print them: ``[1, 3, 5, 5]``."""
    return str(list(sizes))
