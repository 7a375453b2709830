"""The picture of a matrix product (GEMM, the integer matrix products): op(A), M rows by K columns, times op(B), K by
N, plus the addend (GEMM's CTensor, a BiasTensor) where given, makes OutputTensor, M by N, once per batch index.
Each matrix is a grid of up to 8 x 8 elements (a longer side is drawn 8 long; its label gives the size), its sides
labelled M, K, N with the numbers; the row of op(A) and the column of op(B) that make OutputTensor's first element
are shaded, and so is that element. A transposed operand says so under its grid, with the Sizes it is stored as;
the batch dimensions are stated above and drawn as a stack behind each matrix.

Classes: ``matrix`` (one per operand: ``matrix a``, ``matrix b``, ``matrix addend``, ``matrix output``),
``dimension`` (the M, K and N labels; ``dimension problem`` where B's K is not A's), ``grid``, ``reads``,
``batch``, ``operand`` (the names and Sizes under each grid), ``rule``, ``elided``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dmlpy.drawing.shapes import ACCENT, TALL, captions, line, listed
from dmlpy.drawing.svg import COLOURS, Picture, box, document, text

PITCH = 14
CAP = 8
"""Elements drawn along a side: a longer side is drawn this long."""
SLOT = 210
"""Pixels per matrix, its labels and the sign after it."""


@dataclass(frozen=True)
class MatrixProduct:
    """A matrix product's numbers: M, K (as A gives it, and as B does), N, the batch Sizes, each operand's Sizes as
    stored and whether it is transposed (None where the operator has no transform), the addend's field (None
    without one), the output's Sizes and the rule that makes them."""

    batch: tuple[int, ...]
    m: int
    k: int
    k_of_b: int
    n: int
    a_sizes: tuple[int, ...]
    b_sizes: tuple[int, ...]
    a_transposed: bool | None
    b_transposed: bool | None
    addend: str | None
    output_sizes: tuple[int, ...]
    rule: str

    def picture(self) -> Picture:
        return matrix_product_picture(self)


def _extent(size: int) -> float:
    return PITCH * max(1, min(size, CAP))


def _grid(x: float, y: float, rows: int, columns: int, cls: str, stacked: bool) -> list[str]:
    """A matrix of ``rows`` x ``columns`` elements (capped), a stack behind it for a batch."""
    width, height = _extent(columns), _extent(rows)
    parts = [box(x + 4 * k, y - 4 * k, width, height, fill="#f4f4f4", cls="batch") for k in (2, 1)] if stacked else []
    parts.append(box(x, y, width, height, fill=COLOURS["element"], cls=f"matrix {cls}"))
    parts += [
        line(x, y + r * PITCH, x + width, y + r * PITCH, cls="grid", colour="#9bb4d6") for r in range(1, min(rows, CAP))
    ]
    parts += [
        line(x + c * PITCH, y, x + c * PITCH, y + height, cls="grid", colour="#9bb4d6")
        for c in range(1, min(columns, CAP))
    ]
    return parts


def _reads(x: float, y: float, width: float, height: float) -> str:
    return box(x, y, width, height, fill=ACCENT, cls="reads", stroke=ACCENT, opacity=0.45)


def _labels(x: float, y: float, rows: tuple[str, int], columns: tuple[str, int], problem: bool = False) -> list[str]:
    """The rows' label left of the grid at (x, y), red where ``problem`` (B's K that is not A's), the columns'
    above it."""
    return [
        text(
            x - 6,
            y + _extent(rows[1]) / 2 + 4,
            f"{rows[0]} = {rows[1]}",
            cls="dimension problem" if problem else "dimension",
            anchor="end",
            colour=COLOURS["problem"] if problem else None,
        ),
        text(x + _extent(columns[1]) / 2, y - 14, f"{columns[0]} = {columns[1]}", cls="dimension", anchor="middle"),
    ]


def _operand(name: str, transposed: bool | None, field: str) -> str:
    """How op(X) reads the stored tensor."""
    return f"{name} = {field}ᵀ" if transposed else f"{name} = {field}"


def matrix_product_picture(product: MatrixProduct) -> Picture:
    """The picture of ``product``."""
    count = math.prod(product.batch)
    stacked = count > 1
    batch = (
        f"batch Sizes {listed(product.batch)} before the matrices' two (B's equal to A's): {count} product(s), one "
        "per batch index"
        if product.batch
        else "no batch dimensions: one product"
    )
    addend = f" + {product.addend} (M x N)" if product.addend else ""
    header = [
        ("rule", f"op(A) (M x K) x op(B) (K x N){addend} = OutputTensor (M x N)"),
        ("rule", batch),
        ("rule", f"OutputTensor.Sizes {listed(product.output_sizes)}: {product.rule}"),
    ]
    top = 8 + TALL * len(header) + 36
    k_differs = product.k_of_b != product.k
    operands = [
        ("a", product.m, product.k, _operand("op(A)", product.a_transposed, "ATensor"), product.a_sizes, "TransA"),
        ("b", product.k_of_b, product.n, _operand("op(B)", product.b_transposed, "BTensor"), product.b_sizes, "TransB"),
    ]
    if product.addend:
        operands.append(("addend", product.m, product.n, product.addend, product.output_sizes, ""))
    operands.append(("output", product.m, product.n, "OutputTensor", product.output_sizes, ""))
    signs = ["x", "+" if product.addend else "=", "="]
    parts = captions(10, 12, header)
    for index, (cls, rows, columns, name, sizes, transform) in enumerate(operands):
        x = 70 + SLOT * index
        parts += _grid(x, top, rows, columns, cls, stacked)
        if cls == "a":
            parts.append(_reads(x, top, _extent(columns), PITCH))
        elif cls == "b":
            parts.append(_reads(x, top, PITCH, _extent(rows)))
        else:
            parts.append(_reads(x, top, PITCH, PITCH))
        row_name, column_name = {"a": ("M", "K"), "b": ("K", "N")}.get(cls, ("M", "N"))
        parts += _labels(x, top, (row_name, rows), (column_name, columns), problem=cls == "b" and k_differs)
        under = top + _extent(rows) + 18
        flag = getattr(product, f"{cls}_transposed", None)
        stored = f"Sizes {listed(sizes)}" + (
            f"; {transform} {'TRANSPOSE' if flag else 'NONE'}" if flag is not None else ""
        )
        parts += captions(x, under, [("operand", name), ("operand", stored)])
        if index < len(signs) and index + 1 < len(operands):
            sign_x = x + _extent(columns) + (8 if stacked else 0) + 24
            parts.append(text(sign_x, top + 4 + PITCH, signs[index], bold=True, size=16, anchor="middle"))
    bottom = top + _extent(max(product.m, product.k_of_b)) + 18 + 2 * TALL
    notes = [
        (
            "rule",
            f"shaded: row 0 of op(A) and column 0 of op(B), whose K = {product.k} products summed make "
            "OutputTensor's first element" + (f" (with {product.addend}'s)" if product.addend else ""),
        )
    ]
    if k_differs:
        notes.append(("problem", f"K differs: op(A) has {product.k} columns, op(B) {product.k_of_b} rows"))
    if max(product.m, product.k, product.k_of_b, product.n) > CAP:
        notes.append(("elided", f"a side longer than {CAP} is drawn {CAP} long; its label gives its size"))
    parts += captions(10, bottom + 8, notes)
    width = max(70 + SLOT * len(operands), 700)
    height = bottom + 8 + TALL * len(notes) + 4
    return Picture(document(width, height, parts), width, height)
