"""Where a tensor picture's links run (dmlpy.drawing.tensor draws them), so that a person can follow each one from
an element's cell to the slot it reads without it passing under another cell.

A link leaves the top of its element's cell and climbs to a track of its own in the channel above the cell's
row: the row's first cell on the highest track, its last on the lowest, so a track runs right above the rises
of the cells after it and never crosses them. Past the grid it makes one S-curve to a track of the band below
the slot's row of the buffer, the row's first slot on the band's highest track, and rises onto the middle of the
slot's bottom edge under an arrowhead: the tracks of later slots run beneath that rise.

Every S-curve spans the same x range with the same control abscissas, so between two links the difference in
height is a blend of their differences at the two ends that moves monotonically from one to the other: two links
cross there once when the slots' order reverses the elements' row-major order (a broadcast, a transposed view)
and never otherwise. Links to one slot end on one track and share their last stretch, one arrowhead.
"""

from __future__ import annotations

TRACK = 5
"""Distance between neighbouring tracks."""
CLEARANCE = 6
"""Distance from a cell's edge to the nearest track (room for an arrowhead)."""
MIDDLE = 90
"""Width of the S-curves' region between the grid and the buffer."""


def band_height(tracks: int) -> float:
    """Height of a channel or band holding ``tracks`` tracks, with CLEARANCE on either side."""
    return 2 * CLEARANCE + max(tracks - 1, 0) * TRACK


def link_path(
    start: tuple[float, float],
    track: float,
    curve: tuple[float, float],
    band: float,
    end: tuple[float, float],
) -> str:
    """The SVG path of a link from ``start`` (the top middle of an element's cell) up to the height ``track``,
    right to ``curve[0]``, in an S-curve to ``(curve[1], band)``, right beneath ``end`` (the bottom middle of its
    slot) and up onto it."""
    (x, y), (left, right), (slot_x, slot_y) = start, curve, end
    middle = (left + right) / 2
    return (
        f"M{x:g},{y:g} L{x:g},{track:g} L{left:g},{track:g} C{middle:g},{track:g} {middle:g},{band:g} "
        f"{right:g},{band:g} L{slot_x:g},{band:g} L{slot_x:g},{slot_y:g}"
    )


def arrowhead(end: tuple[float, float], colour: str, cls: str) -> str:
    """An arrowhead pointing up, its tip at ``end``."""
    x, y = end
    return f'<polygon class="{cls}" points="{x:g},{y:g} {x - 3:g},{y + 5:g} {x + 3:g},{y + 5:g}" fill="{colour}"/>'
