"""The picture of a DML_GRAPH_DESC: graph inputs on the left, nodes in columns by how many nodes lie before
them, graph outputs on the right; every edge drawn with its tensor's data type and sizes, the label over the
level run the edge ends in, where no other line passes (dmlpy.drawing.routing) and clear of every kernel's
outline; the kernels a compiled graph runs outlined (a fused group around all its nodes); for a refused graph,
the nodes and edges its message names drawn red, with the message.

Classes: ``graph-input``, ``graph-output``, ``node``, ``node constant``, ``edge input``, ``edge intermediate``,
``edge output``, ``edge-label``, ``kernel fused``, ``kernel single``, ``kernel-caption``, ``flagged``,
``problem``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dmlpy.drawing.routing import Boxes, Lanes, route
from dmlpy.drawing.svg import COLOURS, Picture, document, escape, legend, text, wrapped, wrapped_height

NODE_WIDTH = 270
CONSTANT_WIDTH = 150
PORT_ZONE = 66
"""Left part of a node box, where its input fields are named at the heights their edges arrive."""
PILL_WIDTH = 90
PORT_PITCH = 16
"""Between the heights where a node's inputs arrive: room for a tensor label over each arriving edge."""
CURVE = 80
"""The width of the gap between columns where edges curve, left of the tensor labels."""
LABEL_SIZE = 9
LABEL_EM = 0.65
"""The most a label's character is wide, in ems: more than DejaVu Sans's (the widest common sans-serif) digits,
capitals but M and W, brackets, commas and spaces, of which a label ("FLOAT32 [1, 3, 4, 4]") is made."""
LABEL_END = 16
"""From a label's right end to the node its edge arrives at: room for the arrowhead and the outline of the
node's kernel (12 px out), so a label never meets it."""
ROW_GAP = 44
"""Between nodes stacked in a column: room for two kernel outlines, 10 px below the one and 24 px above the
other (its caption), apart."""
LEFT = 20
TOP = 46


@dataclass(frozen=True)
class DrawnNode:
    title: str
    """The operator (ELEMENT_WISE_ROUND) or "constant data"."""
    subtitle: str
    """Its Name and index: ``"round" (Nodes[1])``."""
    inputs: tuple[str, ...] = ()
    """The node's input fields in binding order (InputTensor, ScaleTensor, ...)."""
    constant: bool = False
    flagged: bool = False

    @property
    def width(self) -> int:
        return CONSTANT_WIDTH if self.constant else NODE_WIDTH

    @property
    def height(self) -> int:
        return max(52, PORT_PITCH * len(self.inputs) + 18)


@dataclass(frozen=True)
class DrawnEdge:
    kind: Literal["input", "intermediate", "output"]
    source: int
    """A graph input index (kind input) or a node index."""
    target: int
    """A node index, or a graph output index (kind output)."""
    label: str
    """The tensor the edge carries: ``FLOAT32 [1, 1, 2, 3]``."""
    port: int = 0
    """The node input it feeds (its index in binding order); where it arrives on the node box."""
    flagged: bool = False


@dataclass(frozen=True)
class DrawnKernel:
    nodes: tuple[int, ...]
    fused: bool


def _columns(nodes: Sequence[DrawnNode], edges: Sequence[DrawnEdge]) -> list[int]:
    """Each node's column: an operator node from 1, one right of the furthest operator node it reads (a refused
    cyclic graph broken where it closes); a constant node one left of its first reader (0: under the graph
    inputs)."""
    count = len(nodes)
    links = [
        (e.source, e.target)
        for e in edges
        if e.kind == "intermediate" and max(e.source, e.target) < count and not nodes[e.source].constant
    ]
    column = _longest_paths(count, links)
    readers: dict[int, list[int]] = {}
    for e in edges:
        if e.kind == "intermediate" and max(e.source, e.target) < count and nodes[e.source].constant:
            readers.setdefault(e.source, []).append(column[e.target])
    for index, columns in readers.items():
        column[index] = min(columns) - 1
    return column


def _longest_paths(count: int, links: Sequence[tuple[int, int]]) -> list[int]:
    """1 plus the most links on a path into each node, taking the nodes in a topological order: O(nodes + links).
    A refused graph's links may make a cycle: when no node is ready, the lowest-numbered node left is taken as if
    it were, one column right of the readers it has placed, so a cyclic graph draws in linear time too, its
    cycle closed by a link running back."""
    column = [1] * count
    after: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count
    for source, target in links:
        after[source].append(target)
        waiting[target] += 1
    placed = [False] * count
    ready = [node for node in range(count) if not waiting[node]]
    lowest_left = 0
    while True:
        while ready:
            source = ready.pop()
            placed[source] = True
            for target in after[source]:
                if placed[target]:
                    continue  # a link closing a cycle: it runs back
                column[target] = max(column[target], column[source] + 1)
                waiting[target] -= 1
                if not waiting[target]:
                    ready.append(target)
        while lowest_left < count and (placed[lowest_left] or not waiting[lowest_left]):
            lowest_left += 1
        if lowest_left == count:
            return column
        waiting[lowest_left] = 0  # break the cycle here
        ready.append(lowest_left)


MAX_PORTS = 24
"""Graph inputs or outputs drawn at most: InputCount follows the highest index an edge names, and a refused
graph may name 4,000,000,000."""


def _drawn_ports(count: int, named: Sequence[int]) -> list[int]:
    """The graph inputs (or outputs) to draw: those edges name, then the first ones, MAX_PORTS at most."""
    wanted = sorted({i for i in named if i < count}) + list(range(min(count, MAX_PORTS)))
    return sorted(dict.fromkeys(wanted[:MAX_PORTS]))


def _label_run(edges: Sequence[DrawnEdge]) -> float:
    """The level run each edge ends in, under its label: as long as the longest label needs."""
    longest = max((len(edge.label) for edge in edges), default=0)
    return LABEL_END + math.ceil(LABEL_EM * LABEL_SIZE * longest) + 6


def _x(column: int, gap: float) -> float:
    """The left side of a column: the graph inputs' and the constants under them, then operator nodes, ``gap``
    (the curves and the labels) apart."""
    return LEFT if column == 0 else LEFT + CONSTANT_WIDTH + gap + (column - 1) * (NODE_WIDTH + gap)


def graph_picture(
    title: str,
    input_count: int,
    output_count: int,
    nodes: Sequence[DrawnNode],
    edges: Sequence[DrawnEdge],
    *,
    kernels: Sequence[DrawnKernel] = (),
    problem: str | None = None,
) -> Picture:
    """The picture of a graph (see the module docstring). Operator nodes stand in rows by column, constant nodes
    in a band beneath them, graph inputs left and graph outputs right."""
    column = _columns(nodes, edges)
    run = _label_run(edges)
    gap = CURVE + run
    position: dict[tuple[str, int], tuple[float, float]] = {}
    heights: dict[int, float] = {}
    for index, node in enumerate(nodes):
        if node.constant:
            continue
        y = TOP + 20 + heights.get(column[index], 0)
        heights[column[index]] = heights.get(column[index], 0) + node.height + ROW_GAP
        position["node", index] = (_x(column[index], gap), y)
    inputs = _drawn_ports(input_count, [e.source for e in edges if e.kind == "input"])
    outputs = _drawn_ports(output_count, [e.target for e in edges if e.kind == "output"])
    for rank, index in enumerate(inputs):
        position["input", index] = (LEFT, TOP + 20 + rank * (52 + ROW_GAP))
    band = TOP + 20 + max([*heights.values(), len(inputs) * (52 + ROW_GAP)])
    constants_below: dict[int, float] = {}
    for index, node in enumerate(nodes):
        if node.constant:
            shift = constants_below.get(column[index], 0)
            constants_below[column[index]] = shift + node.height + ROW_GAP
            position["node", index] = (_x(column[index], gap), band + shift)
    last = max(column, default=0) + 1
    for rank, index in enumerate(outputs):
        position["output", index] = (_x(last, gap), TOP + 20 + rank * (52 + ROW_GAP))
    width = _x(last, gap) + PILL_WIDTH + 30
    bottom = max(
        [y + (nodes[i].height if kind == "node" else 52) for (kind, i), (_, y) in position.items()], default=TOP
    )
    parts = [text(10, 18, title, bold=True)]
    outlines: list[tuple[float, float, float, float]] = []
    for kernel_number, kernel in enumerate(kernels, start=1):
        boxes = [(position["node", n], nodes[n]) for n in kernel.nodes if ("node", n) in position]
        if not boxes:
            continue
        x0, y0 = min(x for (x, _), _ in boxes) - 12, min(y for (_, y), _ in boxes) - 24
        x1 = max(x + node.width for (x, _), node in boxes) + 12
        y1 = max(y + node.height for (_, y), node in boxes) + 10
        outlines.append((x0, y0, x1, y1))
        what = (
            f"kernel {kernel_number}: fused, {len(kernel.nodes)} nodes in one pass"
            if kernel.fused
            else f"kernel {kernel_number}: the operator's own"
        )
        parts.append(
            f'<rect class="kernel {"fused" if kernel.fused else "single"}" x="{x0:g}" y="{y0:g}" '
            f'width="{x1 - x0:g}" height="{y1 - y0:g}" rx="10" fill="{"#fff6e0" if kernel.fused else "none"}" '
            f'stroke="#d08c00" stroke-width="{1.6 if kernel.fused else 0.8}" stroke-dasharray="6 4"/>'
        )
        parts.append(text(x0 + 8, y0 + 14, what, cls="kernel-caption", size=10, colour="#8a5a00"))
    for index in inputs:
        x, y = position["input", index]
        parts.append(_pill(x, y, f"graph input {index}", "graph-input", COLOURS["input"]))
    for index in outputs:
        x, y = position["output", index]
        parts.append(_pill(x, y, f"graph output {index}", "graph-output", COLOURS["output"]))
    obstacles = Boxes(
        [(i, x, y, nodes[i].width, nodes[i].height) for (kind, i), (x, y) in position.items() if kind == "node"]
    )
    path_run = run - 6  # a path ends at its arrowhead, 6 px before the node
    lanes = Lanes(obstacles.lane_ends(path_run), outlines)
    labels = []
    for edge in edges:
        start_key = ("input", edge.source) if edge.kind == "input" else ("node", edge.source)
        end_key = ("output", edge.target) if edge.kind == "output" else ("node", edge.target)
        if start_key not in position or end_key not in position:
            continue  # an index out of range: the message says so, and there is nothing to draw it to
        (sx, sy), (ex, ey) = position[start_key], position[end_key]
        source_width = PILL_WIDTH if edge.kind == "input" else nodes[edge.source].width
        source_height = 52 if edge.kind == "input" else nodes[edge.source].height
        x1, y1 = sx + source_width, sy + source_height / 2
        x2, y2 = ex, ey + (26 if edge.kind == "output" else 16 + PORT_PITCH * edge.port)
        colour = COLOURS["problem"] if edge.flagged else COLOURS[edge.kind]
        ends_at = obstacles.without(end_key[1] if end_key[0] == "node" else None)
        path = route(x1, y1, x2 - 6, y2, ends_at, lanes, path_run)
        parts.append(
            f'<path class="edge {edge.kind}{" flagged" if edge.flagged else ""}" d="{path}" fill="none" '
            f'stroke="{colour}" stroke-width="{2.4 if edge.flagged else 1.4}"/>'
            f'<polygon points="{x2:g},{y2:g} {x2 - 7:g},{y2 - 4:g} {x2 - 7:g},{y2 + 4:g}" fill="{colour}"/>'
        )
        # Over the edge's level run, clear of the edge arriving a port above (PORT_PITCH up).
        labels.append(
            f'<text class="edge-label" x="{x2 - LABEL_END:g}" y="{y2 - 4:g}" text-anchor="end" '
            f'font-size="{LABEL_SIZE}" fill="{colour}">{escape(edge.label)}</text>'
        )
    parts += [_node(*position["node", index], node) for index, node in enumerate(nodes)]
    parts += labels
    y = max([bottom, *(lane + 14 for lane in lanes.placed)]) + 24
    if len(inputs) < input_count or len(outputs) < output_count:
        parts.append(
            text(
                10,
                y,
                f"drawn: {len(inputs)} of {input_count} graph inputs and {len(outputs)} of {output_count} graph "
                "outputs (those edges name first)",
                cls="elided",
            )
        )
        y += 18
    columns = max(60, int(width / 6.2))
    if problem:
        parts += wrapped(10, y, problem, cls="problem", colour=COLOURS["problem"], columns=columns)
        y += wrapped_height(problem, columns) + 4
    parts += legend(
        10,
        y,
        [
            (COLOURS["input"], "graph input edge"),
            (COLOURS["intermediate"], "intermediate edge"),
            (COLOURS["output"], "graph output edge"),
            ("#fff6e0", "fused kernel"),
        ],
        pitch=150,
    )
    height = y + 26
    width = max(width, 640)
    return Picture(document(width, height, parts), width, height)


def _node(x: float, y: float, node: DrawnNode) -> str:
    stroke = COLOURS["problem"] if node.flagged else "#555"
    fields = "".join(
        text(x + 4, y + 19 + PORT_PITCH * k, name.removesuffix("Tensor"), size=8, colour="#555")
        for k, name in enumerate(node.inputs)
    )
    centre = x + (node.width + (PORT_ZONE if node.inputs else 0)) / 2
    return (
        f'<g class="node{" constant" if node.constant else ""}{" flagged" if node.flagged else ""}">'
        f'<rect x="{x:g}" y="{y:g}" width="{node.width}" height="{node.height}" rx="6" '
        f'fill="{"#f3f3f3" if node.constant else "#ffffff"}" stroke="{stroke}" '
        f'stroke-width="{2.4 if node.flagged else 1.2}"/>'
        + fields
        + text(centre, y + node.height / 2 - 3, node.title, bold=True, anchor="middle", size=10)
        + text(centre, y + node.height / 2 + 12, node.subtitle, anchor="middle", size=10)
        + "</g>"
    )


def _pill(x: float, y: float, words: str, cls: str, colour: str) -> str:
    return (
        f'<g class="{cls}"><rect x="{x:g}" y="{y + 8:g}" width="{PILL_WIDTH}" height="36" rx="16" '
        f'fill="#ffffff" stroke="{colour}" stroke-width="1.4"/>'
        + text(x + PILL_WIDTH / 2, y + 30, words, anchor="middle", size=10)
        + "</g>"
    )
