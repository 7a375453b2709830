"""Device tests of shapes and layouts rather than of values, taking turns: each parameter set runs, by default, on
one (device, launch profile) pair, the k-th set on the k-th pair of tests/conftest.py's ``run_turns`` (the
``one_run`` mark), so that a list of sets covers every pair while each set is compiled once; --run-slow takes every
pair. The values themselves are the operator table's and each operator's own value tests, on every device."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import Any

import pytest

from tests.helpers.pairwise import Axis


def one_run_each(params: Iterable[Any]) -> list[Any]:
    """``params`` (pytest.param objects) each marked to run on the next (device, profile) pair in turn."""
    return [
        pytest.param(*param.values, id=param.id, marks=[*param.marks, pytest.mark.one_run(k)])
        for k, param in enumerate(params)
    ]


def one_run_product(*axes: Axis) -> list[Any]:
    """The product of ``axes`` (values and ids each, as ``pairwise_params`` takes them), each combination on the
    next pair in turn; ids joined by "-", the first axis varying slowest."""
    combinations = product(*(list(zip(values, ids, strict=True)) for values, ids in axes))
    return one_run_each(
        pytest.param(*(value for value, _ in combination), id="-".join(name for _, name in combination))
        for combination in combinations
    )
