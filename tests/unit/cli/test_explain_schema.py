"""`dmlpy explain DESC.json` and `dmlpy schema`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.helpers.cli import EXAMPLES, Run, assert_one_line_error, round_desc


def test_explain_is_brief_the_source_behind_a_flag(run: Run) -> None:
    # Issue 42: 1,573 lines for one Round, of which the first few were what a person wanted.
    result = run("explain", str(EXAMPLES / "round.json"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "// DML_OPERATOR_ELEMENT_WISE_ROUND, validated at DML_FEATURE_LEVEL_6_4"
    assert lines[2:4] == [
        f"// {tensor}: FLOAT32, Sizes [1, 1, 2, 4], Strides null; layout: packed: one contiguous run in row-major order"
        for tensor in ("InputTensor", "OutputTensor")
    ]
    assert lines[4] == "// kernel: element_wise_round in opencl/element_wise_round.cl"
    assert lines[-1].startswith("// left out: the source of opencl/element_wise_round.cl, its headers inlined: ")
    assert lines[-1].endswith(" lines (--source prints them)")
    assert len(lines) == 9 and "__kernel" not in result.stdout and "#define" not in result.stdout
    full = run("explain", str(EXAMPLES / "round.json"), "--source")
    assert full.returncode == 0, full.stderr
    assert full.stdout.startswith("\n".join(lines[:-1]) + "\n\n// element_wise_round.cl, specialised by -D options:")
    assert len(full.stdout.splitlines()) > 1000 and "left out" not in full.stdout


def test_explain_shows_each_tensor_layout_and_what_the_generator_writes(run: Run) -> None:
    padded = run("explain", str(EXAMPLES / "round_padded.json")).stdout
    assert (
        "// InputTensor: FLOAT16, Sizes [1, 1, 2, 3], Strides [8, 8, 4, 1]; layout: padded: spans 7 element slots for "
        "6 elements (1 of padding)\n"
    ) in padded
    quantize = run("explain", str(EXAMPLES / "quantize_int4_blocked.json")).stdout
    assert "// QuantizationTensors[1]: INT4, Sizes [4, 2], Strides null; layout: packed" in quantize
    assert "#define FUSED_BODY \\\n" in quantize and "__kernel" not in quantize  # the prelude, not the template
    assert quantize.endswith(" lines (--source prints them)\n") and len(quantize.splitlines()) < 40


def test_explain_prints_build_options_and_specialised_source(run: Run) -> None:
    result = run("explain", str(EXAMPLES / "round.json"), "--source")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "RoundingMode DML_ROUNDING_MODE_TOWARD_INFINITY -> OpenCL built-in round()" in out
    options = next(line for line in out.splitlines() if line.startswith("// build options:"))
    assert "-DROUNDING_MODE=2" in options and "-DRANK=0" in options and "-DDML_FLOAT16=0" in options
    assert "fast-relaxed-math" not in options
    assert "#define ROUNDING_MODE 2" in out
    assert "__kernel" in out or "kernel void" in out
    assert "layout: packed" in out


def test_explain_strided_float16(run: Run) -> None:
    result = run("explain", str(EXAMPLES / "round_padded.json"))
    assert result.returncode == 0, result.stderr
    assert "-DDML_FLOAT16=1" in result.stdout
    assert "-DROUNDING_MODE=1" in result.stdout
    assert "strided, rank 2" in result.stdout
    assert "strides per tensor [[4, 1], [3, 1]]" in result.stdout


def test_explain_blocked_int4_quantize(run: Run) -> None:
    """The blocked axis (8 = 2 blocks of 4) splits in two, so the scale and zero point step by 0 inside a block; the
    INT4 zero point is read and the INT4 output stored a nibble at a time, two to a work-item."""
    result = run("explain", str(EXAMPLES / "quantize_int4_blocked.json"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "coalesced sizes [8, 4]; strides per tensor [[4, 1], [1, 0], [1, 0], [4, 1]]" in out
    assert "-DNIBBLE_PAIRS=1" in out
    assert "const char in2 = LOAD_INT4(2);" in out and "STORE_INT4(3, v0);" in out


def test_explain_refuses_an_invalid_descriptor(run: Run) -> None:
    result = run("explain", str(EXAMPLES / "round_5d.json"), "--feature-level", "2_1")
    assert_one_line_error(result, 1, "invalid at DML_FEATURE_LEVEL_2_1", "DimensionCount is 5")


def test_explain_bad_inputs(run: Run, tmp_path: Path, write_json: Callable[..., Path]) -> None:
    assert_one_line_error(run("explain", str(tmp_path / "missing.json")), 2, "no such file")
    bad = tmp_path / "bad.json"
    bad.write_text("{]", encoding="utf-8")
    assert_one_line_error(run("explain", str(bad)), 2, "not valid JSON")
    tensor = write_json({"DataType": "FLOAT32", "Sizes": [4]})
    assert_one_line_error(run("explain", str(tensor)), 1, "explain takes an operator or graph descriptor")
    broken = write_json(round_desc([4], RoundingMode="UP"), "broken.json")
    result = run("explain", str(broken))
    assert result.returncode == 1
    assert "RoundingMode" in result.stderr and "Traceback" not in result.stderr


def test_schema_is_json_and_describes_the_descriptors(run: Run) -> None:
    result = run("schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    defs = schema["$defs"]
    round_props = defs["ElementWiseRoundOperatorDesc"]["properties"]
    assert set(round_props) == {"InputTensor", "OutputTensor", "RoundingMode"}
    assert set(defs["BufferTensorDesc"]["properties"]) >= {"DataType", "Sizes", "Strides", "TotalTensorSizeInBytes"}
    rounding = defs["RoundingMode"]["anyOf"]
    assert {0, 1, 2} <= set(rounding[0]["enum"])
    assert "DML_ROUNDING_MODE_TOWARD_INFINITY" in rounding[1]["enum"]
    variants = defs["OperatorDesc"]["oneOf"]
    round_variant = next(v for v in variants if 99 in v["properties"]["Type"]["enum"])
    assert round_variant["properties"]["Desc"] == {"$ref": "#/$defs/ElementWiseRoundOperatorDesc"}


def test_schema_validates_the_examples_when_jsonschema_is_installed(run: Run) -> None:
    try:
        import jsonschema  # type: ignore[import-untyped]
    except ImportError:
        return
    schema = json.loads(run("schema").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)  # checked once, not on every validate call
    for name in ("round.json", "round_padded.json", "quantize_int4_blocked.json"):
        validator.validate(json.loads((EXAMPLES / name).read_text()))


def test_schema_rejects_arguments(run: Run) -> None:
    result = run("schema", "extra")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
