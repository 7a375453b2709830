"""ELEMENT_WISE_IDENTITY descriptors in JSON, with and without ScaleBias: C names and snake_case both ways, the
DML_OPERATOR_DESC wrapper, structural problems told in C field paths, the JSON Schema, and ``dmlpy validate`` /
``dmlpy explain`` on descriptor files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import dmlpy as dml
from dmlpy.descriptors_json import DescriptorProblems, parse_descriptor
from tests.helpers.schema import schema_validator

T = dml.TensorDataType
TENSOR = {"DataType": "FLOAT16", "Sizes": [2, 3, 4, 5]}
STRIDED = {"DataType": "FLOAT16", "Sizes": [2, 3, 4, 5], "Strides": [60, 1, 15, 3]}


def identity(scale_bias: dict[str, float] | None = None) -> dml.ElementWiseIdentityOperatorDesc:
    return dml.ElementWiseIdentityOperatorDesc(
        input_tensor=dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=(2, 3, 4, 5), strides=(60, 1, 15, 3)),
        output_tensor=dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=(2, 3, 4, 5)),
        scale_bias=scale_bias,
    )


CASES = {"copy": None, "scale_bias": {"Scale": 0.1, "Bias": -2.5}}


@pytest.mark.parametrize("scale_bias", list(CASES.values()), ids=list(CASES))
@pytest.mark.parametrize("by_alias", [True, False], ids=["c_names", "snake_case"])
def test_round_trip(scale_bias: dict[str, float] | None, by_alias: bool) -> None:
    desc = identity(scale_bias)
    text = desc.model_dump_json(by_alias=by_alias)
    data = json.loads(text)
    names = (
        ("InputTensor", "OutputTensor", "ScaleBias") if by_alias else ("input_tensor", "output_tensor", "scale_bias")
    )
    assert list(data) == list(names)
    if scale_bias is None:
        assert data[names[2]] is None
    else:
        assert data[names[2]] == ({"Scale": 0.1, "Bias": -2.5} if by_alias else {"scale": 0.1, "bias": -2.5})
    again = dml.ElementWiseIdentityOperatorDesc.model_validate_json(text)
    assert again == desc and hash(again) == hash(desc)
    wrapped = dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_IDENTITY, desc=desc)
    back = dml.OperatorDesc.model_validate_json(wrapped.model_dump_json(by_alias=by_alias))
    assert back.desc == desc and back.type is dml.OperatorType.ELEMENT_WISE_IDENTITY


@pytest.mark.parametrize("spelling", [1, "1", "ELEMENT_WISE_IDENTITY", "DML_OPERATOR_ELEMENT_WISE_IDENTITY"], ids=str)
def test_type_spellings_pick_identity(spelling: object) -> None:
    op = dml.OperatorDesc.model_validate(
        {
            "Type": spelling,
            "Desc": {"InputTensor": STRIDED, "OutputTensor": TENSOR, "ScaleBias": {"Scale": 2, "Bias": 1}},
        }
    )
    assert type(op.desc) is dml.ElementWiseIdentityOperatorDesc
    assert op.desc == identity({"Scale": 2.0, "Bias": 1.0})


def test_mixed_spellings_and_defaults() -> None:
    desc = dml.ElementWiseIdentityOperatorDesc.model_validate(
        {"input_tensor": STRIDED, "OutputTensor": TENSOR, "scale_bias": {"scale": 0.1, "Bias": -2.5}}
    )
    assert desc == identity({"Scale": 0.1, "Bias": -2.5})
    assert (
        dml.ElementWiseIdentityOperatorDesc.model_validate({"InputTensor": STRIDED, "OutputTensor": TENSOR})
        == identity()
    )
    assert desc.scale_bias is not None and desc.scale_bias.scale == 0.1  # kept as given, a Python float


def test_parse_descriptor_reads_wrapped_and_bare_forms() -> None:
    wrapped = {"Type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "Desc": {"InputTensor": STRIDED, "OutputTensor": TENSOR}}
    assert parse_descriptor(wrapped) == identity()
    # Bare, ScaleBias makes the operator unambiguous.
    bare = {"InputTensor": STRIDED, "OutputTensor": TENSOR, "ScaleBias": {"Scale": 1, "Bias": 0}}
    assert parse_descriptor(bare) == identity({"Scale": 1.0, "Bias": 0.0})


@pytest.mark.parametrize(
    ("scale_bias", "problem"),
    [
        ({"Scale": 1.0}, "ELEMENT_WISE_IDENTITY.ScaleBias.Bias is missing"),
        ({"Scale": "x", "Bias": 1}, 'ELEMENT_WISE_IDENTITY.ScaleBias.Scale is "x"'),
        ({"Scale": 1, "Bias": 2, "Extra": 3}, "ELEMENT_WISE_IDENTITY.ScaleBias.Extra is not a field here"),
        ([1, 2], "ELEMENT_WISE_IDENTITY.ScaleBias is [1, 2]"),
    ],
    ids=["missing_bias", "not_a_number", "unknown_field", "not_an_object"],
)
def test_structural_problems_name_c_fields(scale_bias: object, problem: str) -> None:
    document = {"Type": 1, "Desc": {"InputTensor": TENSOR, "OutputTensor": TENSOR, "ScaleBias": scale_bias}}
    with pytest.raises(DescriptorProblems) as error:
        parse_descriptor(document)
    assert any(line.startswith(problem) for line in error.value.problems), error.value.problems
    with pytest.raises(dml.InvalidArgumentError):
        dml.OperatorDesc.model_validate(document)


def test_schema_accepts_what_dmlpy_reads() -> None:
    schema = schema_validator()
    for scale_bias in CASES.values():
        for by_alias in (True, False):
            wrapped = dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_IDENTITY, desc=identity(scale_bias))
            schema.validate(json.loads(wrapped.model_dump_json(by_alias=by_alias)))
    broken = {"Type": 1, "Desc": {"InputTensor": TENSOR, "OutputTensor": TENSOR, "ScaleBias": {"Scale": 1}}}
    with pytest.raises(jsonschema.ValidationError):
        schema.validate(broken)


# ---------------------------------------------------------------------------------------------------------- CLI


def _dmlpy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dmlpy", *args], capture_output=True, text=True, timeout=120)


def _write(tmp_path: Path, name: str, document: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def test_cli_validate(tmp_path: Path) -> None:
    desc = {"InputTensor": STRIDED, "OutputTensor": TENSOR, "ScaleBias": {"Scale": 1.5, "Bias": -2}}
    path = _write(tmp_path, "identity.json", {"Type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY", "Desc": desc})
    result = _dmlpy("validate", path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid at DML_FEATURE_LEVEL_6_4" in result.stdout
    assert '"Type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY"' in result.stdout and '"Scale": 1.5' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_1_0 to DML_FEATURE_LEVEL_6_4" in result.stdout

    int8 = {"DataType": "INT8", "Sizes": [2, 3, 4, 5]}
    path = _write(tmp_path, "int8.json", {"Type": 1, "Desc": {"InputTensor": int8, "OutputTensor": int8}})
    result = _dmlpy("validate", path, "--feature-level", "2_0")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "ELEMENT_WISE_IDENTITY.InputTensor.DataType" in result.stdout
    assert "it is valid from DML_FEATURE_LEVEL_2_1" in result.stdout

    int64 = {"DataType": "INT64", "Sizes": [8]}
    document = {"Type": 1, "Desc": {"InputTensor": int64, "OutputTensor": int64, "ScaleBias": {"Scale": 2, "Bias": 0}}}
    result = _dmlpy("validate", _write(tmp_path, "int64.json", document))
    assert result.returncode == 1 and "ELEMENT_WISE_IDENTITY.ScaleBias" in result.stdout, result.stdout


def test_cli_explain(tmp_path: Path) -> None:
    copy = {"Type": "ELEMENT_WISE_IDENTITY", "Desc": {"InputTensor": STRIDED, "OutputTensor": TENSOR}}
    result = _dmlpy("explain", "--source", _write(tmp_path, "copy.json", copy))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "relayout copy" in result.stdout
    assert "#define TENSOR0_T ushort\n" in result.stdout and "#define TENSOR1_T ushort\n" in result.stdout
    assert "kernel: elementwise in opencl/elementwise.cl" in result.stdout
    assert "#pragma OPENCL FP_CONTRACT OFF" in result.stdout

    scaled = {"Type": 1, "Desc": {**copy["Desc"], "ScaleBias": {"Scale": 1.5, "Bias": -2}}}
    result = _dmlpy("explain", _write(tmp_path, "scaled.json", scaled))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "x * Scale + Bias in float" in result.stdout
    assert "scale_bias(in0, 0x1.8p+0f, -0x1p+1f)" in result.stdout and "#define TENSOR0_T half\n" in result.stdout
