"""Where a graph picture's edges run (dmlpy.drawing.graph draws them): an edge that skips columns runs beneath the
node boxes it passes, on a lane of its own, kept apart from other lanes and from kernel outlines' borders.

The indexes answer each edge in O(log n) (a per-width index of the boxes' bottoms with a sparse table, a segment
tree of lane and border heights), so a picture of 100,000 nodes lays out in seconds;
tests/device/graph/test_graph_scaling.py checks them against plain scans of every box and lane.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

LANE_GAP = 8
"""Vertical distance between edges routed beneath the same nodes."""
LANE_MARGIN = 12
"""Distance from the lowest box an edge passes to its lane."""
LANE_OVERHANG = 10
"""How far a lane runs on beyond the first and last box it passes."""


def route(x1: float, y1: float, x2: float, y2: float, boxes: Obstacles, lanes: Lanes, run: float) -> str:
    """The SVG path of an edge from (x1, y1) to (x2, y2) past the other nodes' boxes, ending in a level ``run``
    (where the tensor labels of the edges into a column sit: no other edge passes there). It first runs level past
    any box its start lies over (a constant or operator node wider than the edge's source in the same column),
    then makes one S-curve where no box stands between; otherwise it runs beneath those boxes on a lane of its
    own, kept LANE_GAP from the lanes and the kernel outlines' borders it runs beside, so an edge that skips
    columns never passes under a node or along a border. Its curves keep out of every column's labels: the lane
    is reached before the labels of the first column it passes (a lane starts ``run`` + LANE_OVERHANG before a
    box), runs beneath the labels of the columns it passes (they sit beside their nodes, above the lowest
    bottom), and is left before the end's run."""
    clear = boxes.clear_of(x1)
    level = f"M{x1:g},{y1:g} L{clear:g},{y1:g}" if clear > x1 else f"M{x1:g},{y1:g}"
    arrive = x2 - run
    between = boxes.between(clear, x2)
    if between is None:
        middle = (clear + arrive) / 2
        return f"{level} C{middle:g},{y1:g} {middle:g},{y2:g} {arrive:g},{y2:g} L{x2:g},{y2:g}"
    first_left, last_right, lowest = between
    down_at, up_at = first_left - run - LANE_OVERHANG, last_right + LANE_OVERHANG
    lane = lanes.place(max(y1, lowest + LANE_MARGIN), down_at, up_at)
    down, up = (clear + down_at) / 2, (up_at + arrive) / 2
    return (
        f"{level} C{down:g},{y1:g} {down:g},{lane:g} {down_at:g},{lane:g} L{up_at:g},{lane:g} "
        f"C{up:g},{lane:g} {up:g},{y2:g} {arrive:g},{y2:g} L{x2:g},{y2:g}"
    )


class Boxes:
    """The node boxes edges are routed past, indexed for the two questions an edge asks of them, each answered in
    O(log n) rather than by a scan of every box (a picture of n nodes and e edges takes O((n + e) log n)): which
    boxes its start lies over, and which lie between its ends. Boxes are grouped by width (operator and constant
    nodes), and within a width by their left side (their column), where they share their right side too."""

    def __init__(self, boxes: Sequence[tuple[int, float, float, int, int]]) -> None:
        """``boxes``: (node, x, y, width, height) of every node box."""
        rows: dict[int, dict[float, list[Any]]] = {}
        for node, x, y, width, height in boxes:
            row = rows.setdefault(width, {}).setdefault(x, [x + width, 0, node, y + height])
            row[1] += 1
            row[3] = max(row[3], y + height)
        self.widths = [_Width(sorted(by_left.items())) for _, by_left in sorted(rows.items())]

    def without(self, node: int | None) -> Obstacles:
        """The boxes an edge ending at ``node`` (None: at a graph output) is routed past: all but its own ends."""
        return Obstacles(self, node)

    def lane_ends(self, run: float) -> list[float]:
        """Where a lane may start and end: ``run`` (the labels' level run) and LANE_OVERHANG before a box's left
        side, LANE_OVERHANG beyond its right."""
        return [
            end
            for width in self.widths
            for left, right in zip(width.lefts, width.rights, strict=True)
            for end in (left - run - LANE_OVERHANG, right + LANE_OVERHANG)
        ]


class _Width:
    """The boxes of one width, by left side: sorted lefts and their rights, how many boxes stand at each and the
    node of a lone one, and the lowest bottom of any run of lefts (a sparse table: max over a range in O(1))."""

    def __init__(self, by_left: Sequence[tuple[float, list[Any]]]) -> None:
        self.lefts = [left for left, _ in by_left]
        self.rights = [row[0] for _, row in by_left]
        self.lone = [row[2] if row[1] == 1 else None for _, row in by_left]
        self.bottoms: list[list[float]] = [[row[3] for _, row in by_left]]
        span = 1
        while 2 * span <= len(self.lefts):
            below = self.bottoms[-1]
            self.bottoms.append([max(below[k], below[k + span]) for k in range(len(below) - span)])
            span *= 2

    def lowest(self, first: int, end: int) -> float:
        """The lowest bottom of the boxes at lefts first to end - 1."""
        level = (end - first).bit_length() - 1
        table = self.bottoms[level]
        return max(table[first], table[end - (1 << level)])


class Obstacles:
    """The boxes an edge is routed past: every box but its end node's (its start node's box never counts: the
    edge starts at its right side, and ``between`` starts further right still)."""

    def __init__(self, boxes: Boxes, end: int | None) -> None:
        self.boxes = boxes
        self.end = end

    def clear_of(self, x: float) -> float:
        """Where the boxes that x lies over (left <= x < right) end, the furthest right; ``x`` when it lies over
        none."""
        clear = x
        for width in self.boxes.widths:
            k = bisect.bisect_right(width.lefts, x) - 1  # the rightest column at or left of x: the widest reach
            if k >= 0 and width.lone[k] is not None and width.lone[k] == self.end:
                k -= 1
            if k >= 0 and x < width.rights[k]:
                clear = max(clear, width.rights[k])
        return clear

    def between(self, start: float, end: float) -> tuple[float, float, float] | None:
        """Of the boxes between ``start`` and ``end`` (start < left, right < end), the leftest left, the rightest
        right and the lowest bottom; None when there are none. The edge's end node is never between: its box
        starts at or right of ``end``."""
        found: list[tuple[float, float, float]] = []
        for width in self.boxes.widths:
            first = bisect.bisect_right(width.lefts, start)
            last = bisect.bisect_left(width.rights, end)
            if first < last:
                found.append((width.lefts[first], width.rights[last - 1], width.lowest(first, last)))
        if not found:
            return None
        return min(f[0] for f in found), max(f[1] for f in found), max(f[2] for f in found)


class Lanes:
    """The lanes placed so far and the kernel outlines' borders, each a height over an x range, indexed so that
    placing a lane takes O(log^2 n) rather than a scan of every lane and border: a segment tree over the pieces
    between the x coordinates ranges start and end at. A range is kept in the tree nodes that cover it
    (``covering``) and in every tree node above those (``within``); the ranges beside a new lane's are then
    ``within`` the nodes that cover it and ``covering`` the nodes above those."""

    def __init__(self, ends: Sequence[float], outlines: Sequence[tuple[float, float, float, float]]) -> None:
        coordinates = sorted({*ends, *(x for x0, _, x1, _ in outlines for x in (x0, x1))})
        self.piece = {x: k for k, x in enumerate(coordinates)}
        self.size = 1 << max(0, len(coordinates) - 2).bit_length()
        self.covering: dict[int, _Heights] = {}
        self.within: dict[int, _Heights] = {}
        self.placed: list[float] = []
        for x0, top, x1, bottom in outlines:
            self._add(top, x0, x1)
            self._add(bottom, x0, x1)

    def place(self, height: float, start: float, end: float) -> float:
        """Place a lane from ``start`` to ``end`` at the lowest height from ``height`` on that keeps LANE_GAP
        from every lane and border beside it (overlapping it in x); that height."""
        covering = self._covering(start, end)
        beside = [self.within[n] for n in covering if n in self.within]
        beside += [self.covering[n] for n in _above(covering, itself=False) if n in self.covering]
        moved = True
        while moved:  # until every set of heights leaves it where it is
            moved = False
            for heights in beside:
                free = heights.free_from(height)
                moved = moved or free != height
                height = free
        self._add(height, start, end)
        self.placed.append(height)
        return height

    def _add(self, height: float, start: float, end: float) -> None:
        covering = self._covering(start, end)
        for node in covering:
            self.covering.setdefault(node, _Heights()).add(height)
        for node in _above(covering, itself=True):
            self.within.setdefault(node, _Heights()).add(height)

    def _covering(self, start: float, end: float) -> list[int]:
        """The tree nodes that together cover the pieces from x ``start`` to x ``end``, and nothing else."""
        low, high = self.piece[start] + self.size, self.piece[end] + self.size
        nodes = []
        while low < high:
            if low & 1:
                nodes.append(low)
                low += 1
            if high & 1:
                high -= 1
                nodes.append(high)
            low, high = low >> 1, high >> 1
        return nodes


def _above(nodes: Sequence[int], *, itself: bool) -> set[int]:
    """The tree nodes above ``nodes`` (node k's parent is k // 2), and ``nodes`` themselves when ``itself``."""
    return {node >> shift for node in nodes for shift in range(0 if itself else 1, node.bit_length())}


class _Heights:
    """Heights that a lane keeps LANE_GAP from, as runs: heights each less than 2 * LANE_GAP above the one
    before, so that a run leaves no height free from (first - LANE_GAP) to (last + LANE_GAP), both excluded,
    and the runs' sorted firsts and lasts answer where a lane is free in O(log n)."""

    def __init__(self) -> None:
        self.firsts: list[float] = []
        self.lasts: list[float] = []

    def add(self, height: float) -> None:
        k = bisect.bisect_right(self.firsts, height) - 1  # the run that starts at or below it
        if k >= 0 and height <= self.lasts[k]:
            return
        joins_below = k >= 0 and height - self.lasts[k] < 2 * LANE_GAP
        joins_above = k + 1 < len(self.firsts) and self.firsts[k + 1] - height < 2 * LANE_GAP
        if joins_below and joins_above:
            self.lasts[k] = self.lasts[k + 1]
            del self.firsts[k + 1], self.lasts[k + 1]
        elif joins_below:
            self.lasts[k] = height
        elif joins_above:
            self.firsts[k + 1] = height
        else:
            self.firsts.insert(k + 1, height)
            self.lasts.insert(k + 1, height)

    def free_from(self, height: float) -> float:
        """The lowest height from ``height`` on that keeps LANE_GAP from every height here."""
        k = bisect.bisect_left(self.firsts, height + LANE_GAP) - 1  # the last run that could reach it
        if k >= 0 and height < self.lasts[k] + LANE_GAP:
            return self.lasts[k] + LANE_GAP
        return height
