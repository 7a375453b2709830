"""The operators that are not element-wise against Microsoft's support tables (``tests/data/directml-operators``,
a copy of the transcription with its sources; ``check_support.py`` compares): for every feature level, dimension
count (1 to 9) and data-type combination the script enumerates, ``dml.validate`` of a descriptor whose Sizes obey
the operator's shape rules (``tests/helpers/structured.py``) gives the documented answer. The default run
enumerates each tensor's documented types plus one undocumented type (the script's ``--cap`` restriction);
``--run-slow`` every combination the script's full cap allows."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.ops import OPERATORS
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.directml_tables import load_checker
from tests.helpers.structured import HEADER_LEVELS, NOT_COMPARED, SAMPLES, Builder

TABLES = Path(__file__).resolve().parents[2] / "tests" / "data" / "directml-operators"
QUICK_CAP, FULL_CAP = 100, 20000
_SMALL = ("GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1", "SCATTER_ELEMENTS", "SCATTER_ND", "ONE_HOT")
QUICK_CAPS = dict.fromkeys((*_SMALL, "DIAGONAL_MATRIX1"), 11)
"""Operators whose default comparison takes a smaller cap than QUICK_CAP, to keep the default run fast: the script
then enumerates the first two documented types of each same-type group and its mismatch probes (their examples
validate at their first levels in their own tests); ``--run-slow`` compares them in full."""
_NORMALIZATIONS = (
    "BATCH_NORMALIZATION",
    "BATCH_NORMALIZATION_GRAD",
    "BATCH_NORMALIZATION_TRAINING",
    "BATCH_NORMALIZATION_TRAINING_GRAD",
    "LOCAL_RESPONSE_NORMALIZATION",
    "LOCAL_RESPONSE_NORMALIZATION_GRAD",
    "LP_NORMALIZATION",
    "MEAN_VARIANCE_NORMALIZATION",
    "MEAN_VARIANCE_NORMALIZATION1",
    "MEAN_VARIANCE_NORMALIZATION2",
)
QUICK_CAPS |= dict.fromkeys(_NORMALIZATIONS, 10)  # one same-type group each: FLOAT32, FLOAT16, one undocumented
QUICK_CAPS |= dict.fromkeys(("SLICE", "SLICE1", "SLICE_GRAD", "JOIN", "SPLIT", "PADDING", "PADDING1", "TILE"), 11)
# The attention pair: FLOAT32 and FLOAT16 for the float group, INT32 and one undocumented type for MaskTensor; every
# presence pattern of their sources is compared in tests/unit/descriptors/test_multihead_attention.py.
QUICK_CAPS |= dict.fromkeys(("MULTIHEAD_ATTENTION", "MULTIHEAD_ATTENTION1"), 5)
QUICK_AT_BOUNDARIES = frozenset({"QUANTIZED_LINEAR_CONVOLUTION"})
"""Operators whose default comparison takes only the levels where the page's answer can change (``at_boundaries``):
QUANTIZED_LINEAR_CONVOLUTION's ten tensors, four of them nullable, give 16 presence patterns per type combination
even at the smallest cap; ``--run-slow`` compares every level."""
QUICK_AT_BOUNDARIES |= {"RNN", "LSTM", "GRU"}  # one table each (FL 1_0), 5 to 8 nullable tensors
QUICK_PRESENCE = {"LSTM": 5}
"""Operators whose default comparison varies the presence of only their first N nullable tensors (``fewer_nullable``;
the others always given): LSTM's 8 nullable tensors give 256 presence patterns per type combination, 32 with 5 (as
RNN's and GRU's); ``--run-slow`` compares every pattern."""


def at_boundaries(spec: Any, operator: str) -> Any:
    """``spec`` comparing ``operator`` at each of its tables' first levels, the level before each, and the newest
    level: a table holds from its level to the next table's, so these are where an answer can change."""
    keep = {spec.levels[-1]}
    for table in spec.ops[operator]["support"]:
        rank = spec.rank(table["level"])
        keep |= {table["level"], spec.levels[max(rank - 1, 0)]}
    quick = copy.copy(spec)
    quick.levels = [level for level in spec.levels if level in keep]
    return quick


def fewer_nullable(spec: Any, operator: str, keep: int) -> Any:
    """``spec`` with only ``operator``'s first ``keep`` nullable tensors left out in its cases: check_support.py then
    enumerates the presence patterns of those only, the others always given."""
    quick = copy.copy(spec)
    quick.ops = dict(spec.ops)
    entry = quick.ops[operator] = dict(spec.ops[operator])
    nullable = [field["name"] for field in entry["fields"] if field.get("nullable")]
    varied = set(nullable[:keep])
    entry["fields"] = [
        {**field, "nullable": field.get("nullable") and field["name"] in varied} for field in entry["fields"]
    ]
    return quick


def validator(build: Builder) -> Any:
    """check_support.py's ``validate(op, level, tensor_types, dims, variant=None)``: each descriptor built once,
    validated at every level the script asks for. A ``variant`` (REDUCE's ``{"Function": "ARGMAX"}``, for a page
    with a table per value of a field) goes to the builder, which takes it as a keyword."""
    built: dict[tuple[Any, ...], OperatorDescBase | None] = {}

    def validate(
        op: str, level: str, tensor_types: dict[str, str | None], dims: int, variant: dict[str, str] | None = None
    ) -> bool:
        key = (*sorted(tensor_types.items()), dims, *sorted((variant or {}).items()))
        if key not in built:
            types = {name: None if t is None else dml.TensorDataType[t] for name, t in tensor_types.items()}
            built[key] = build(types, dims) if variant is None else build(types, dims, variant=variant)
        desc = built[key]
        if desc is None:
            return False
        try:
            dml.validate(desc, dml.FeatureLevel.parse(level))
        except dml.DmlError:
            return False
        return True

    return validate


def following_the_header(spec: Any, operator: str) -> Any:
    """``spec`` with ``operator``'s first level the header's where dmlpy follows it (``HEADER_LEVELS``): the page's
    first table holds from there."""
    level = HEADER_LEVELS.get(operator)
    if level is None:
        return spec
    moved = copy.deepcopy(spec)
    entry = moved.ops[operator]
    first = min(entry["support"], key=lambda table: moved.rank(table["level"]))
    entry["introduced"] = first["level"] = level
    return moved


def test_every_implemented_operator_of_the_table_is_compared() -> None:
    _, spec = load_checker(TABLES)
    implemented = {t.name for t in OPERATORS if t.name in spec.ops}
    assert implemented == set(SAMPLES) | set(NOT_COMPARED)


@pytest.mark.parametrize(
    "cap", [QUICK_CAP, pytest.param(FULL_CAP, marks=pytest.mark.slow)], ids=["documented-types", "every-type"]
)
@pytest.mark.parametrize("operator", sorted(SAMPLES))
def test_support_matches_directml_tables(operator: str, cap: int, tally: Any) -> None:
    checker, spec = load_checker(TABLES)
    report = io.StringIO()
    compared = following_the_header(spec, operator)
    if cap == QUICK_CAP and operator in QUICK_AT_BOUNDARIES:
        compared = at_boundaries(compared, operator)
    if cap == QUICK_CAP and operator in QUICK_PRESENCE:
        compared = fewer_nullable(compared, operator, QUICK_PRESENCE[operator])
    cap = QUICK_CAPS.get(operator, cap) if cap == QUICK_CAP else cap
    total, bad = checker.run(compared, validator(SAMPLES[operator]), cap=cap, ops={operator}, out=report)
    tally["support-table cases compared (not element-wise)"] += total
    assert total > 0 and bad == 0, report.getvalue()


def test_the_comparison_catches_a_wrong_table() -> None:
    """A validator that also accepts INT32 GEMM at 4_0 disagrees: the comparison above can fail."""
    checker, spec = load_checker(TABLES)
    right = validator(SAMPLES["GEMM"])

    def wrong(op: str, level: str, tensor_types: dict[str, str | None], dims: int) -> bool:
        if level == "4_0" and set(tensor_types.values()) - {None} == {"INT32"} and dims == 3:
            return True
        return bool(right(op, level, tensor_types, dims))

    report = io.StringIO()
    _, bad = checker.run(spec, wrong, cap=QUICK_CAP, ops={"GEMM"}, out=report)
    assert bad > 0 and "DISAGREE GEMM level=4_0 dims=3" in report.getvalue()


@pytest.mark.parametrize("operator", sorted(HEADER_LEVELS))
def test_where_dmlpy_follows_the_header_it_differs_from_the_page_only_below_the_pages_level(operator: str) -> None:
    """TOP_K: against the page's own tables, the only disagreements are dmlpy accepting at the header's level,
    below the page's, what the page's first table allows; SCATTER_ELEMENTS (the header's level above the page's):
    dmlpy refusing, below the header's level, what the page's first table allows."""
    checker, spec = load_checker(TABLES)
    report = io.StringIO()
    _, bad = checker.run(
        spec, validator(SAMPLES[operator]), cap=QUICK_CAP, ops={operator}, out=report, max_report=10**6
    )
    lines = [line for line in report.getvalue().splitlines() if line.startswith("DISAGREE")]
    page = spec.ops[operator]["introduced"]
    assert bad == len(lines) > 0
    header = HEADER_LEVELS[operator]
    low, high = sorted((spec.rank(header), spec.rank(page)))
    below = [spec.levels[i] for i in range(low, high)]
    assert all(any(f" level={level} " in line for level in below) for line in lines), lines[:3]
    answer = "documented=False validator=True" if low == spec.rank(header) else "documented=True validator=False"
    assert all(line.endswith(answer) for line in lines), lines[:3]
