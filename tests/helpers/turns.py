"""Device tests of shapes and layouts rather than of values, taking turns: each parameter set runs, by default, on
one (device, launch profile) pair, its turn's in tests/helpers/devices.py's ``run_turns`` (the ``one_run`` mark),
so that a list of sets covers the pairs while each set is compiled once; --run-slow takes every pair. The values
themselves are the operator table's and each operator's own value tests, on every device."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import Any

import pytest

from tests.helpers.pairwise import Axis


def one_run_each(params: Iterable[Any]) -> list[Any]:
    """``params`` (pytest.param objects), the k-th on turn k."""
    return [
        pytest.param(*param.values, id=param.id, marks=[*param.marks, pytest.mark.one_run(k)])
        for k, param in enumerate(params)
    ]


def one_run_product(*axes: Axis) -> list[Any]:
    """The product of ``axes`` (values and ids each, as ``pairwise_params`` takes them; ids joined by "-", the
    first axis varying slowest), each combination on the turn that is the sum of its values' places: a diagonal,
    so that with any one value fixed the other axes' places still sum to consecutive turns (every pair of CI's two
    devices and two profiles where they sum to four or more, both devices and both profiles at three)."""
    places = product(*(range(len(values)) for values, _ in axes))
    return [
        pytest.param(
            *(values[i] for (values, _), i in zip(axes, at, strict=True)),
            id="-".join(ids[i] for (_, ids), i in zip(axes, at, strict=True)),
            marks=pytest.mark.one_run(sum(at)),
        )
        for at in places
    ]


def pairs_by_value(params: Iterable[Any], place: int, turns: int = 4) -> dict[str, set[int]]:
    """For each value at ``place`` in ``params``' values (by its repr), the turns, modulo ``turns`` (CI's two
    devices under two profiles: four pairs), its ``one_run`` items take: what a coverage check reads."""
    found: dict[str, set[int]] = {}
    for param in params:
        (mark,) = [mark for mark in param.marks if mark.name == "one_run"]
        found.setdefault(repr(param.values[place]), set()).add(mark.args[0] % turns)
    return found
