"""The JSON Schema is pydantic's own, built from the operator table: every shipped example validates against it
(with the jsonschema library) in both spellings dmlpy accepts, and the broken one fails it, as dmlpy refuses it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import dmlpy as dml
from dmlpy.descriptors_json import descriptor_schema, parse_descriptor
from dmlpy.enums import DmlEnum, DmlFlag
from tests.helpers.schema import schema_validator

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "descriptors"
VALID_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.json") if p.name != "round_broken.json")


def _spelled(value: Any) -> Any:
    """A model dump made JSON the way a person writes it: enums by their C names."""
    if isinstance(value, DmlEnum | DmlFlag):
        return value.c_name
    if isinstance(value, dict):
        return {key: _spelled(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_spelled(item) for item in value]
    return value


@pytest.fixture(scope="module")
def schema() -> Any:
    """The validator of the schema `dmlpy schema` prints, which is the library's (checked against the
    metaschema once: tests/helpers/schema.py)."""
    printed = subprocess.run(
        [sys.executable, "-m", "dmlpy", "schema"], capture_output=True, text=True, check=True
    ).stdout
    parsed: dict[str, Any] = json.loads(printed)
    assert parsed == json.loads(json.dumps(descriptor_schema()))  # `dmlpy schema` prints the library's schema
    return schema_validator()


def test_operator_desc_schema_is_one_member_per_operator() -> None:
    members = dml.OperatorDesc.model_json_schema()["oneOf"]
    assert len(members) == len(dml.DIRECTML_OPERATORS)
    operators = dml.OperatorDesc.model_json_schema()["$defs"]
    for operator_type, desc_class in dml.DIRECTML_OPERATORS.items():
        member = operators[f"OperatorDesc_{operator_type.c_name}"]
        assert operator_type.value in member["properties"]["Type"]["enum"]
        assert member["properties"]["Desc"] == {"$ref": f"#/$defs/{desc_class.__name__}"}


@pytest.mark.parametrize("name", VALID_EXAMPLES)
@pytest.mark.parametrize("spelling", ["as_shipped", "c_names", "snake_case"])
def test_examples_validate_in_every_spelling(schema: Any, name: str, spelling: str) -> None:
    document = json.loads((EXAMPLES / name).read_text())
    if spelling != "as_shipped":
        desc = parse_descriptor(document)
        if isinstance(desc, dml.GraphDesc):
            document = _spelled(desc.model_dump(by_alias=spelling == "c_names"))
        else:
            wrapped = dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc)  # type: ignore[union-attr]
            document = _spelled(wrapped.model_dump(by_alias=spelling == "c_names"))
        assert parse_descriptor(document) == desc  # what the schema accepts, dmlpy reads back equal
    schema.validate(document)


def test_broken_example_fails_the_schema_as_dmlpy_refuses_it(schema: Any) -> None:
    document = json.loads((EXAMPLES / "round_broken.json").read_text())
    with pytest.raises(jsonschema.ValidationError):
        schema.validate(document)
    with pytest.raises(dml.InvalidArgumentError):
        parse_descriptor(document)


@pytest.mark.parametrize(
    "document",
    [
        {"Type": "ELEMENT_WISE_ROUND", "Desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}},
        {"Type": "ELEMENT_WISE_ROUND", "Desc": {"input_tensor": {}, "OutputTensor": {}, "Extra": 1}},
        {"Type": "NO_SUCH_OPERATOR", "Desc": {}},
        {"InputTensor": {"DataType": "FLOAT", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}},
    ],
    ids=["output_missing", "unknown_field", "unknown_type", "bad_data_type"],
)
def test_what_dmlpy_refuses_the_schema_refuses(schema: Any, document: dict[str, Any]) -> None:
    with pytest.raises(dml.InvalidArgumentError):
        parse_descriptor(document)
    with pytest.raises(jsonschema.ValidationError):
        schema.validate(document)
