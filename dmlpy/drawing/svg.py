"""What every picture is made of: the SVG document, text, cells and boxes, the palette, and ``Picture``, the
object Jupyter shows and the CLI saves. Plain strings, no plotting library: a picture is a few hundred tags."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape as escape_html
from pathlib import Path

CELL = 22
COLOURS = {
    "element": "#cfe3ff",
    "used": "#cfe3ff",
    "padding": "#e6e6e6",
    "rounding": "#b9b9b9",
    "broadcast": "#ffd79a",
    "gap": "#ffffff",
    "outside": "#f4a4a4",
    "input": "#7a9cc6",
    "output": "#5aa469",
    "temporary": "#a0a0a0",
    "intermediate": "#8e7cc3",
    "problem": "#c0392b",
    "allowed": "#2e8b57",
}
"""The palette. Outside/problem red marks where a refused descriptor or binding breaks."""
WRAP_COLUMNS = 110
"""Characters per line of a wrapped message (about 660 px at font-size 11)."""


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 forbids, even escaped, and lone surrogates, which no encoding writes: any text a picture shows
(a Name holds any C string) becomes savable XML."""


def escape(words: str) -> str:
    """Text for an SVG element or attribute: markup escaped, characters XML cannot hold replaced by U+FFFD."""
    return escape_html(_NOT_XML.sub("\ufffd", words))


@dataclass(frozen=True)
class Picture:
    """dmlpy's picture of a DirectML concept (a DML_BUFFER_TENSOR_DESC's layout, an IDMLBindingTable's buffers, a
    DML_GRAPH_DESC) as SVG text, ``width`` x ``height`` pixels: Jupyter shows it (``_repr_svg_``), ``save``
    writes it."""

    svg: str
    width: float
    height: float

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: str | Path) -> None:
        """Write the SVG to ``path``."""
        Path(path).write_text(self.svg, encoding="utf-8")


def document(width: float, height: float, parts: Sequence[str]) -> str:
    """A standalone SVG of ``width`` x ``height`` pixels on a white ground."""
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" font-family="sans-serif" font-size="11">',
            f'<rect width="{width:g}" height="{height:g}" fill="#ffffff"/>',
            *parts,
            "</svg>",
        ]
    )


def text(
    x: float,
    y: float,
    words: str,
    *,
    bold: bool = False,
    cls: str | None = None,
    colour: str | None = None,
    anchor: str | None = None,
    size: float | None = None,
) -> str:
    attributes = "".join(
        [
            ' font-weight="bold"' if bold else "",
            f' class="{cls}"' if cls else "",
            f' fill="{colour}"' if colour else "",
            f' text-anchor="{anchor}"' if anchor else "",
            f' font-size="{size:g}"' if size else "",
        ]
    )
    return f'<text x="{x:g}" y="{y:g}"{attributes}>{escape(words)}</text>'


def wrapped(x: float, y: float, words: str, *, cls: str, colour: str, columns: int = WRAP_COLUMNS) -> list[str]:
    """``words`` as lines of at most ``columns`` characters, 14 px apart, the first baseline at ``y``."""
    return [text(x, y + 14 * k, line, cls=cls, colour=colour) for k, line in enumerate(textwrap.wrap(words, columns))]


def wrapped_height(words: str, columns: int = WRAP_COLUMNS) -> int:
    return 14 * len(textwrap.wrap(words, columns))


def cell(x: float, y: float, fill: str, label: str, cls: str, title: str = "", width: float = CELL - 2) -> str:
    """One element or buffer slot: a square (``width`` wide: a nibble or a byte of nibbles is not) with a label
    and a tooltip."""
    tip = f"<title>{escape(title)}</title>" if title else ""
    size = 9 if len(label) <= 3 else 7 if len(label) <= 4 else 5.5  # long offsets still fit the cell
    return (
        f'<g class="{cls}"><rect x="{x:g}" y="{y:g}" width="{width:g}" height="{CELL - 2}" fill="{COLOURS[fill]}" '
        f'stroke="#666" stroke-width="0.6"/>{tip}<text x="{x + width / 2:g}" y="{y + 14:g}" '
        f'text-anchor="middle" font-size="{size}">{escape(label)}</text></g>'
    )


def box(
    x: float,
    y: float,
    width: float,
    height: float,
    *,
    fill: str,
    cls: str,
    stroke: str = "#666",
    stroke_width: float = 0.8,
    opacity: float = 1.0,
) -> str:
    return (
        f'<rect class="{cls}" x="{x:g}" y="{y:g}" width="{max(width, 0):g}" height="{height:g}" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{stroke_width:g}" opacity="{opacity:g}"/>'
    )


def legend(x: float, y: float, entries: Sequence[tuple[str, str]], *, pitch: float = 170) -> list[str]:
    """Colour swatches with their meaning, in one row."""
    parts = []
    for k, (colour, words) in enumerate(entries):
        left = x + k * pitch
        parts.append(f'<rect x="{left:g}" y="{y:g}" width="12" height="12" fill="{colour}" stroke="#666"/>')
        parts.append(text(left + 16, y + 10, words))
    return parts


def stacked(title: str, pictures: Sequence[Picture], *, problem: str | None = None) -> Picture:
    """Several pictures one below the other under a bold title, a refusal in red on top."""
    top: float = 24 + (wrapped_height(problem) + 6 if problem else 0)
    parts = [text(10, 16, title, bold=True)]
    if problem:
        parts += wrapped(10, 34, problem, cls="problem", colour=COLOURS["problem"])
    width = max([picture.width for picture in pictures] + [700])
    for picture in pictures:
        inner = picture.svg[picture.svg.index(">") + 1 : picture.svg.rindex("</svg>")]
        parts.append(f'<g transform="translate(0 {top:g})">{inner}</g>')
        top += picture.height + 8
    return Picture(document(width, top, parts), width, top)
