"""Pairwise sampling of a test's parameter grid: where a test's cases are a product of independent choices (a
rounding mode x a type x per-tensor or per-axis x with or without a zero point), a default run takes a set of
combinations in which every pair of values of any two choices occurs at least once (a strength-2 covering array),
so that a fault of one choice, or of two interacting, still shows; --run-slow takes the whole grid. Each case is
a program to compile on each device, and the grid grows as the product of the choices, the cover as the product of
the two largest."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product
from typing import Any

import pytest

Axis = tuple[Sequence[Any], Sequence[str]]
"""One choice: its values and their ids."""


def _pairs(combination: tuple[int, ...]) -> set[tuple[int, int, int, int]]:
    return {(i, combination[i], j, combination[j]) for i, j in combinations(range(len(combination)), 2)}


def pairwise_cover(lengths: Sequence[int]) -> list[tuple[int, ...]]:
    """Combinations of indices (one per axis of these lengths) that hold every pair of values of any two axes:
    greedily the combination that holds the most pairs not yet held (the first in product order among equals)."""
    grid = list(product(*(range(n) for n in lengths)))
    missing = set().union(*(_pairs(c) for c in grid))
    cover: list[tuple[int, ...]] = []
    while missing:
        best = max(grid, key=lambda c: len(_pairs(c) & missing))
        cover.append(best)
        missing -= _pairs(best)
    return cover


def pairwise_params(*axes: Axis) -> list[Any]:
    """The whole grid of ``axes`` as pytest.params in product order (the first axis varying slowest), each id the
    values' ids joined by "-" (as stacked parametrize marks join them, the one nearest the function first); those
    outside ``pairwise_cover`` marked slow."""
    cover = set(pairwise_cover([len(values) for values, _ in axes]))
    return [
        pytest.param(
            *(values[i] for (values, _), i in zip(axes, combination, strict=True)),
            id="-".join(ids[i] for (_, ids), i in zip(axes, combination, strict=True)),
            marks=() if combination in cover else pytest.mark.slow,
        )
        for combination in product(*(range(len(values)) for values, _ in axes))
    ]
