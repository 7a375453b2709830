"""The operator test table (tests/helpers/operators.py) against the library and against Microsoft's tables.

- Every operator of ``dmlpy.ops.OPERATORS`` has exactly one row, so a new operator cannot skip the table-driven
  tests.
- Each DirectML operator's SUPPORT (through ``dml.validate``) gives the documented answer for every feature level,
  dimension count (1 to 9) and data-type combination that ``check_support.py`` enumerates from ``support.json``
  (``tests/data/directml-elementwise``, a copy of the transcription with its sources; ``DMLPY_DIRECTML_TABLES``
  names another folder). The default run enumerates each tensor's documented types plus one undocumented type (the
  script's ``--cap`` restriction, the product above 100 combinations); ``--run-slow`` takes every
  combination of the 11 types.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops import OPERATORS
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._elementwise import ElementwiseDesc
from tests.helpers.directml_tables import load_checker
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.operators import ROWS, OperatorRow, descriptor

REPO = Path(__file__).resolve().parents[2]
TABLES = Path(os.environ.get("DMLPY_DIRECTML_TABLES") or REPO / "tests" / "data" / "directml-elementwise")
"""Microsoft's support tables, transcribed with their sources (tests/data/directml-elementwise/README.md): a copy
in the repository, so that every checkout and CI compares against them."""
QUICK_CAP, FULL_CAP = 100, 20000
DIRECTML_ROWS = [row for row in ROWS if row.directml_name is not None]


NOT_ELEMENT_WISE = {dml.QuantizeOperatorDesc, dml.DequantizeOperatorDesc} | {
    desc for desc in OPERATORS.values() if not issubclass(desc, ElementwiseDesc)
}
"""The operators whose tensors differ in Sizes, which the table's one-Sizes rows do not fit: FL 6_3's QUANTIZE and
DEQUANTIZE (a list of quantization tensors of their own Sizes, blocked; tests/device/quantize/test_quantize_6_3.py
and tests/unit/descriptors/test_quantize_6_3.py test them), and every operator that is not element-wise (GEMM,
CONVOLUTION, ...: tests/unit/descriptors/test_<family>.py, their support tables in
tests/unit/test_structured_support.py)."""


def test_every_operator_has_one_row() -> None:
    described = [row.desc for row in ROWS]
    expected = [d for d in OPERATORS.values() if d not in NOT_ELEMENT_WISE]
    assert sorted(d.__name__ for d in described) == sorted(d.__name__ for d in expected)
    assert len(set(described)) == len(described)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_every_case_builds_a_valid_descriptor(row: OperatorRow) -> None:
    """The factory builds each value-test case, and the case is one the operator accepts on a device."""
    assert row.cases
    sizes = (2, 3, 4) if row.reduction is None else row.reduction.sizes  # the older softmax forms: rank 2 at most
    for case in row.cases:
        desc = descriptor(row, sizes, case.dtypes, **case.options)
        if not row.desc.is_extension():
            dml.validate(desc, dml.FeatureLevel.FL_6_2)
        assert set(case.dtypes) <= set(row.tensors())
        assert set(row.parameters) <= set(row.desc.INPUTS[1:])


def options_for(row: OperatorRow, output: dml.TensorDataType | None) -> dict[str, Any]:
    """The fields beyond the tensors a descriptor of ``row`` needs (CLIP's Min and Max; CLIP1's, of the output's
    type): those of the row's case of ``output``'s type, else of its first case."""
    cases = [c for c in row.cases if output is not None and DATA_TYPE[c.dtypes[row.output]] == output]
    return dict((cases or row.cases)[0].options)


def validator(row: OperatorRow) -> Any:
    """check_support.py's ``validate(op, level, tensor_types, dims)`` for ``row``: dml.validate's verdict on the
    row's descriptor with those types, every tensor of ``dims`` dimensions. The script asks for each types and
    dims at every feature level, so each descriptor is built once (None where building it fails: at any level)
    and validated at each level."""
    fields = {row.alias(name): name for name in row.tensors()}
    built: dict[tuple[tuple[str, str | None], ...], OperatorDescBase | None] = {}

    def build(tensor_types: dict[str, str | None], dims: int) -> OperatorDescBase | None:
        sizes = (2, 1, 3, 1, 2, 1, 2, 1, 1)[:dims]
        if row.reduction is not None:  # leading 1s: the older softmax forms take an effective rank of 2 at most
            sizes = ((1,) * 8 + (2, 3))[-dims:]
        types = {fields[c]: None if t is None else dml.TensorDataType[t] for c, t in tensor_types.items()}
        try:
            return descriptor(row, sizes, types, **options_for(row, types.get(row.output)))
        except dml.DmlError:
            return None

    def validate(op: str, level: str, tensor_types: dict[str, str | None], dims: int) -> bool:
        assert op == row.directml_name
        key = (*sorted(tensor_types.items()), ("dims", str(dims)))
        if key not in built:
            built[key] = build(tensor_types, dims)
        desc = built[key]
        if desc is None:
            return False
        try:
            dml.validate(desc, dml.FeatureLevel.parse(f"DML_FEATURE_LEVEL_{level}"))
        except dml.DmlError:
            return False
        return True

    return validate


@pytest.mark.parametrize(
    "cap", [QUICK_CAP, pytest.param(FULL_CAP, marks=pytest.mark.slow)], ids=["documented-types", "every-type"]
)
@pytest.mark.parametrize("row", DIRECTML_ROWS, ids=lambda row: row.name)
def test_support_matches_directml_tables(row: OperatorRow, cap: int, tally: Any) -> None:
    checker, spec = load_checker(TABLES)
    assert row.directml_name in spec.ops, f"{row.directml_name} is not in support.json"
    report = io.StringIO()
    total, bad = checker.run(spec, validator(row), cap=cap, ops={row.directml_name}, out=report)
    tally["support-table cases compared"] += total
    assert total > 0 and bad == 0, report.getvalue()


def test_the_support_check_catches_a_wrong_table() -> None:
    """A validator that also accepts INT8 Round at 6_2 disagrees: the comparison above can fail."""
    checker, spec = load_checker(TABLES)
    (row,) = [row for row in DIRECTML_ROWS if row.desc is dml.ElementWiseRoundOperatorDesc]
    right = validator(row)

    def wrong(op: str, level: str, tensor_types: dict[str, str | None], dims: int) -> bool:
        if level == "6_2" and set(tensor_types.values()) == {"INT8"} and dims == 4:
            return True
        return bool(right(op, level, tensor_types, dims))

    report = io.StringIO()
    _, bad = checker.run(spec, wrong, cap=QUICK_CAP, ops={row.directml_name}, out=report)
    assert bad == 1, report.getvalue()
    assert report.getvalue().count("DISAGREE ELEMENT_WISE_ROUND level=6_2 dims=4") == 1


@pytest.mark.parametrize("row", [row for row in ROWS if not row.desc.is_extension()], ids=lambda row: row.name)
def test_every_case_round_trips_through_json_as_dmlpy_validate_reads_it(row: OperatorRow) -> None:
    """Each DirectML case, dumped in C field names inside its DML_OPERATOR_DESC, is read back by the JSON reader
    of `dmlpy validate` (descriptors_json.parse_descriptor) as an equal descriptor of the same class."""
    for case in row.cases:
        desc = descriptor(row, (2, 3, 4), case.dtypes, **case.options)
        dumped = dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump(mode="json", by_alias=True)
        read = parse_descriptor(json.loads(json.dumps(dumped)))
        back = read.desc if isinstance(read, dml.OperatorDesc) else read
        assert type(back) is row.desc and back == desc
