"""The operators that are not element-wise against Microsoft's support tables (``tests/data/directml-operators``,
a copy of the transcription with its sources; ``check_support.py`` compares): for every feature level, dimension
count (1 to 9) and data-type combination the script enumerates, ``dml.validate`` of a descriptor whose Sizes obey
the operator's shape rules (``tests/helpers/structured.py``) gives the documented answer. The default run
enumerates each tensor's documented types plus one undocumented type (the script's ``--cap`` restriction);
``--run-slow`` every combination the script's full cap allows."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.ops import OPERATORS
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.directml_tables import load_checker
from tests.helpers.structured import NOT_COMPARED, SAMPLES, Builder

TABLES = Path(__file__).resolve().parents[2] / "tests" / "data" / "directml-operators"
QUICK_CAP, FULL_CAP = 100, 20000


def validator(build: Builder) -> Any:
    """check_support.py's ``validate(op, level, tensor_types, dims)``: each descriptor built once, validated at
    every level the script asks for."""
    built: dict[tuple[Any, ...], OperatorDescBase | None] = {}

    def validate(op: str, level: str, tensor_types: dict[str, str | None], dims: int) -> bool:
        key = (*sorted(tensor_types.items()), dims)
        if key not in built:
            types = {name: None if t is None else dml.TensorDataType[t] for name, t in tensor_types.items()}
            built[key] = build(types, dims)
        desc = built[key]
        if desc is None:
            return False
        try:
            dml.validate(desc, dml.FeatureLevel.parse(level))
        except dml.DmlError:
            return False
        return True

    return validate


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
    total, bad = checker.run(spec, validator(SAMPLES[operator]), cap=cap, ops={operator}, out=report)
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
