"""Plane geometry read from a picture's SVG, for the tests that check what a person sees without a browser: the
points along a path, whether a polyline enters a box or crosses another polyline, and the box a text occupies.

Text is measured conservatively (no font is at hand here; tests/helpers/browser.py measures it in Chromium):
every character as wide as 0.65 em, wider than DejaVu Sans's digits, capitals other than M and W, brackets,
commas and spaces, which are what the pictures' labels are made of; the height from the font's ascent (0.93 em)
above the baseline to its descent (0.24 em) below, DejaVu Sans's, the widest common sans-serif.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from itertools import pairwise

SVG = "{http://www.w3.org/2000/svg}"
Point = tuple[float, float]
Rect = tuple[float, float, float, float]
"""(x0, y0, x1, y1), x0 <= x1 and y0 <= y1."""

CHARACTER_WIDTH_EM = 0.65
ASCENT_EM = 0.93
DESCENT_EM = 0.24


def path_points(d: str, steps: int = 40) -> list[Point]:
    """Points along an SVG path of absolute M, L and C commands, each segment sampled ``steps`` times."""
    points: list[Point] = []
    for command, numbers in re.findall(r"([MLC])([^MLC]*)", d):
        values = [float(v) for v in re.findall(r"-?[0-9.]+(?:e-?[0-9]+)?", numbers)]
        xy = list(zip(values[0::2], values[1::2], strict=True))
        if command == "M":
            points += xy
            continue
        controls = [points[-1], *xy] if command == "C" else [points[-1], points[-1], xy[0], xy[0]]
        for t in (i / steps for i in range(1, steps + 1)):
            weights = ((1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3)
            x, y = (sum(w * c[axis] for w, c in zip(weights, controls, strict=True)) for axis in (0, 1))
            points.append((x, y))
    return points


def segment_enters(a: Point, b: Point, box: Rect) -> bool:
    """Whether the segment from ``a`` to ``b`` passes through the open box (touching its edge is not entering):
    Liang-Barsky clipping, the part of the segment inside having positive length."""
    (ax, ay), (bx, by) = a, b
    x0, y0, x1, y1 = box
    low, high = 0.0, 1.0
    for p, q in ((-(bx - ax), ax - x0), (bx - ax, x1 - ax), (-(by - ay), ay - y0), (by - ay, y1 - ay)):
        if p == 0:
            if q <= 0:
                return False  # parallel to this side and on or outside it
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
    return high - low > 1e-9


def bounds(points: Sequence[Point]) -> Rect:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)


def _apart(first: Rect, second: Rect) -> bool:
    return first[2] < second[0] or second[2] < first[0] or first[3] < second[1] or second[3] < first[1]


def polyline_enters(points: Sequence[Point], box: Rect) -> bool:
    if _apart(bounds(points), box):
        return False
    return any(segment_enters(a, b, box) for a, b in pairwise(points))


def crossings(first: Sequence[Point], second: Sequence[Point]) -> list[Point]:
    """Where two polylines cross (each proper intersection of a segment of one with a segment of the other, those
    within a pixel of each other counted once)."""
    found: list[Point] = []
    if _apart(bounds(first), bounds(second)):
        return found
    pieces = [(c, d, bounds((c, d))) for c, d in pairwise(second)]
    for a, b in pairwise(first):
        reach = bounds((a, b))
        for c, d, piece in pieces:
            if _apart(reach, piece):
                continue
            where = _intersection(a, b, c, d)
            if where is not None and all(abs(where[0] - x) + abs(where[1] - y) > 1 for x, y in found):
                found.append(where)
    return found


def _intersection(a: Point, b: Point, c: Point, d: Point) -> Point | None:
    rx, ry, sx, sy = b[0] - a[0], b[1] - a[1], d[0] - c[0], d[1] - c[1]
    denominator = rx * sy - ry * sx
    if abs(denominator) < 1e-12:
        return None
    t = ((c[0] - a[0]) * sy - (c[1] - a[1]) * sx) / denominator
    u = ((c[0] - a[0]) * ry - (c[1] - a[1]) * rx) / denominator
    if 0 < t < 1 and 0 < u < 1:
        return a[0] + t * rx, a[1] + t * ry
    return None


def grown(box: Rect, margin: float) -> Rect:
    x0, y0, x1, y1 = box
    return x0 - margin, y0 - margin, x1 + margin, y1 + margin


def text_rect(text: ET.Element, root: ET.Element) -> Rect:
    """The box a ``<text>`` occupies (see the module docstring for the measure), its anchor taken into account."""
    size = float(text.get("font-size") or root.get("font-size") or "16")
    x, y = float(text.get("x", "0")), float(text.get("y", "0"))
    width = CHARACTER_WIDTH_EM * size * len(text.text or "")
    anchor = text.get("text-anchor", "start")
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return left, y - ASCENT_EM * size, left + width, y + DESCENT_EM * size


def rect_of(element: ET.Element) -> Rect:
    x, y, width, height = (float(element.get(a, "0")) for a in ("x", "y", "width", "height"))
    return x, y, x + width, y + height


def border_segments(box: Rect) -> list[tuple[Point, Point]]:
    """The four sides of a box: an outline drawn as a rectangle's stroke."""
    x0, y0, x1, y1 = box
    return [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]
