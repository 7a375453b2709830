"""`dmlpy validate DESC.json [--feature-level L]`: 0 valid, 1 invalid, 2 unreadable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import EXAMPLES, Run, assert_one_line_error, round_desc

WriteJson = Callable[..., Path]


def test_valid_operator_desc_prints_normalised_descriptor_layout_and_sizes(run: Run) -> None:
    result = run("validate", str(EXAMPLES / "round.json"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("valid at DML_FEATURE_LEVEL_6_4")  # the default: the highest level
    assert '"Type": "DML_OPERATOR_ELEMENT_WISE_ROUND"' in out
    assert '"RoundingMode": "DML_ROUNDING_MODE_TOWARD_INFINITY"' in out
    assert '"TotalTensorSizeInBytes": 32' in out
    assert '"DimensionCount": 4' in out
    assert "layout: packed" in out
    assert "DMLCalcBufferTensorSize = 32" in out
    assert "RequiredDescriptorCount 2, TemporaryResourceSize 0, PersistentResourceSize 0" in out
    assert "in place: allowed" in out
    assert "valid from DML_FEATURE_LEVEL_2_1" in out


def test_bare_snake_case_descriptor_is_accepted(run: Run, write_json: WriteJson) -> None:
    desc = {
        "input_tensor": {"data_type": "DML_TENSOR_DATA_TYPE_FLOAT16", "sizes": [2, 3]},
        "output_tensor": {"data_type": 2, "sizes": [2, 3]},
        "rounding_mode": 1,
    }
    result = run("validate", str(write_json(desc)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"DataType": "DML_TENSOR_DATA_TYPE_FLOAT16"' in result.stdout
    assert '"RoundingMode": "DML_ROUNDING_MODE_TOWARD_ZERO"' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_3_0" in result.stdout  # 2-D needs 3_0


def test_padded_strides_are_described(run: Run) -> None:
    result = run("validate", str(EXAMPLES / "round_padded.json"))
    assert result.returncode == 0, result.stderr
    assert "padded: spans 7 element slots for 6 elements (1 of padding)" in result.stdout
    assert "[0,0,1,:] -> 4 5 6" in result.stdout
    assert "in place: no" in result.stdout


def test_broadcast_tensor_is_described(run: Run, write_json: WriteJson) -> None:
    tensor = {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 3], "Strides": [0, 0, 0, 1]}
    result = run("validate", str(write_json(tensor)))
    assert result.returncode == 0, result.stderr
    assert "broadcast: dimension(s) [2]" in result.stdout
    assert "TotalTensorSizeInBytes 12" in result.stdout


@pytest.mark.parametrize("level", ["2_1", "2.1", "DML_FEATURE_LEVEL_2_1", "FL_2_1", "0x2100"])
def test_feature_level_spellings(run: Run, level: str) -> None:
    result = run("validate", str(EXAMPLES / "round_5d.json"), "--feature-level", level)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("invalid at DML_FEATURE_LEVEL_2_1")
    assert "ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 5; DML_FEATURE_LEVEL_2_1 allows exactly 4" in result.stdout
    assert "0x80070057" in result.stdout
    assert "it is valid from DML_FEATURE_LEVEL_3_0" in result.stdout


def test_operator_below_its_feature_level_is_unsupported(run: Run, write_json: WriteJson) -> None:
    result = run("validate", str(write_json(round_desc([1, 1, 2, 4]))), "--feature-level", "2_0")
    assert result.returncode == 1
    assert "UnsupportedError (HRESULT 0x887a0004)" in result.stdout
    assert "ELEMENT_WISE_ROUND needs DML_FEATURE_LEVEL_2_1" in result.stdout


@pytest.mark.parametrize(
    ("desc", "expected"),
    [
        (round_desc([1, 1, 2, 4], "INT32"), "ELEMENT_WISE_ROUND.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32"),
        (
            {
                "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 4]},
                "OutputTensor": {"DataType": "FLOAT16", "Sizes": [1, 1, 2, 4]},
            },
            "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor.DataType",
        ),
        (
            {
                "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 4], "TotalTensorSizeInBytes": 16},
                "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 4]},
            },
            "TotalTensorSizeInBytes is 16; it must be at least DMLCalcBufferTensorSize = 32",
        ),
        (
            {
                "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 4]},
                "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 4], "Strides": [0, 0, 0, 1]},
            },
            "make two output elements share memory",
        ),
    ],
)
def test_rule_violations_are_taught(run: Run, write_json: WriteJson, desc: dict[str, Any], expected: str) -> None:
    result = run("validate", str(write_json(desc)))
    assert result.returncode == 1, result.stdout + result.stderr
    assert expected in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_structural_problems_are_listed_one_per_line(run: Run) -> None:
    result = run("validate", str(EXAMPLES / "round_broken.json"))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "invalid: 3 problems in the JSON"
    assert lines[1] == "  ELEMENT_WISE_ROUND.InputTensor.Sizes[3] is -4; it must be a whole number, at least 1"
    assert "ELEMENT_WISE_ROUND.OutputTensor: Strides (8, 4, 1) has 3 entries" in lines[2]
    assert 'ELEMENT_WISE_ROUND.RoundingMode is "half_away_from_zero"' in lines[3]
    assert "DirectML calls it TOWARD_INFINITY" in lines[3]


@pytest.mark.parametrize(
    ("desc", "expected"),
    [
        ({"Type": "DML_OPERATOR_NOPE", "Desc": {}}, 'DML_OPERATOR_DESC.Type is "DML_OPERATOR_NOPE"; it must be one of'),
        ({"Type": "ELEMENT_WISE_ROUND"}, "is null; it must be a JSON object"),
        (round_desc([1, 1, 2, 4], "FLOAT33"), 'InputTensor.DataType is "FLOAT33"; it must be one of FLOAT32 (1)'),
        (round_desc([1, 1, 2, 4], RoundingMode="CEIL"), "DirectML has no ceil mode"),
        (round_desc([1, 1, 2, 4], Colour="red"), "ELEMENT_WISE_ROUND.Colour is not a field here"),
        ([1, 2, 3], "the JSON holds list; a descriptor is a JSON object"),
        (
            {"InputTensor": {"DataType": "FLOAT32"}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}},
            "Sizes is missing",
        ),
    ],
)
def test_malformed_descriptors_exit_1_with_readable_messages(
    run: Run, write_json: WriteJson, desc: Any, expected: str
) -> None:
    result = run("validate", str(write_json(desc)))
    assert result.returncode == 1, result.stdout + result.stderr
    assert expected in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    assert "pydantic" not in result.stdout  # no library internals, no links


def test_descriptor_from_stdin(run: Run) -> None:
    result = run("validate", "-", stdin=json.dumps(round_desc([8])))
    assert result.returncode == 0
    assert "valid at DML_FEATURE_LEVEL_6_4" in result.stdout


def test_missing_file_exits_2(run: Run, tmp_path: Path) -> None:
    assert_one_line_error(run("validate", str(tmp_path / "nope.json")), 2, "nope.json: no such file")


def test_directory_exits_2(run: Run, tmp_path: Path) -> None:
    assert_one_line_error(run("validate", str(tmp_path)), 2, "is a directory")


def test_bad_json_syntax_exits_2(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"InputTensor": ', encoding="utf-8")
    assert_one_line_error(run("validate", str(path)), 2, "not valid JSON", "line 1 column")


def test_binary_file_exits_2(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert_one_line_error(run("validate", str(path)), 2, "bad.json")


def test_unknown_feature_level_exits_2(run: Run) -> None:
    result = run("validate", str(EXAMPLES / "round.json"), "--feature-level", "9_9")
    assert_one_line_error(result, 2, "--feature-level '9_9' is not a DML_FEATURE_LEVEL")


def test_blocked_int4_quantize_example_is_valid_from_6_3_and_lays_out_nibbles(run: Run) -> None:
    """examples/descriptors/quantize_int4_blocked.json: a [4, 8] weight quantized to INT4 in blocks of 4 along its
    rows (scale and zero point [4, 2]); its 4-bit tensors are described two elements a byte."""
    example = str(EXAMPLES / "quantize_int4_blocked.json")
    result = run("validate", example, "--feature-level", "6_3")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert out.startswith("valid at DML_FEATURE_LEVEL_6_3")
    assert "Feature levels: valid from DML_FEATURE_LEVEL_6_3 to DML_FEATURE_LEVEL_6_4" in out
    output = out[out.index("OutputTensor: DML_TENSOR_DATA_TYPE_INT4") :].splitlines()
    assert output[0].startswith("OutputTensor: DML_TENSOR_DATA_TYPE_INT4, 4 bits per element, two a byte, Flags")
    assert output[2] == "  Strides null (packed); in elements [8, 1], in bytes [4, 0.5]"
    assert "is at nibble n = 8*i0 + 1*i1: byte n // 2, its low half when n is even" in output[4]
    # 32 elements of 4 bits: 16 bytes, already whole DWORDs.
    assert output[5].startswith("  spans 32 elements = 16 bytes; DMLCalcBufferTensorSize = 16")
    refused = run("validate", example, "--feature-level", "6_2")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert refused.stdout.startswith("invalid at DML_FEATURE_LEVEL_6_2")
    assert "QUANTIZE needs DML_FEATURE_LEVEL_6_3 or higher" in refused.stdout
    assert "valid from DML_FEATURE_LEVEL_6_3: create the device with minimum_feature_level=FL_6_3" in refused.stdout


def test_an_odd_four_bit_stride_is_half_a_byte_more(run: Run, write_json: WriteJson) -> None:
    tensor = {"DataType": "UINT4", "Sizes": [2, 3], "Strides": [5, 1]}
    result = run("validate", str(write_json(tensor)))
    assert result.returncode == 0, result.stderr
    assert "in elements [5, 1], in bytes [2.5, 0.5]" in result.stdout
    assert "padded: spans 8 element slots for 6 elements (2 of padding)" in result.stdout
    assert "spans 8 elements = 4 bytes" in result.stdout
    assert "[1,:] -> 5 6 7" in result.stdout


# ------------------------------------------------------------------------------ several files, linter style

ALL_EXAMPLES = sorted(str(path) for path in EXAMPLES.glob("*.json"))
REFUSED = {"round_broken.json", "round_refused.json"}


def test_several_files_get_one_verdict_line_each_and_the_worst_status(run: Run) -> None:
    # Issue 30: `dmlpy validate examples/descriptors/*.json` failed with "unrecognized arguments".
    result = run("validate", *ALL_EXAMPLES)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    verdicts = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert [line.partition(": ")[0] for line in verdicts] == ALL_EXAMPLES  # in the order given, one each
    for path, line in zip(ALL_EXAMPLES, verdicts, strict=True):
        if Path(path).name in REFUSED:
            assert line.partition(": ")[2].startswith("invalid"), line
        else:
            assert line == f"{path}: valid at DML_FEATURE_LEVEL_6_4"
    broken = str(EXAMPLES / "round_broken.json")
    assert (
        f"{broken}: invalid: 3 problems in the JSON\n  ELEMENT_WISE_ROUND.InputTensor.Sizes[3] is -4" in result.stdout
    )
    refused = str(EXAMPLES / "round_refused.json")
    assert (
        f"{refused}: invalid at DML_FEATURE_LEVEL_6_4\n  InvalidArgumentError (HRESULT 0x80070057): "
        "ELEMENT_WISE_ROUND.InputTensor.TotalTensorSizeInBytes is 20" in result.stdout
    )


def test_quiet_prints_only_the_refused_and_a_level_applies_to_each(run: Run) -> None:
    result = run("validate", "--quiet", "--feature-level", "2_1", *ALL_EXAMPLES)
    assert result.returncode == 1, result.stderr
    verdicts = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    # At 2_1 the 5-D Round and the 4-bit QUANTIZE are refused too; the 4-D Rounds and the graph pass.
    refused = {"round_broken.json", "round_refused.json", "round_5d.json", "quantize_int4_blocked.json"}
    assert [line.partition(": ")[0] for line in verdicts] == [p for p in ALL_EXAMPLES if Path(p).name in refused]
    assert "valid at" not in result.stdout.replace("invalid at", "")
    five_d = str(EXAMPLES / "round_5d.json")
    assert f"{five_d}: invalid at DML_FEATURE_LEVEL_2_1\n" in result.stdout
    assert "  it is valid from DML_FEATURE_LEVEL_3_0: create the device with minimum_feature_level=FL_3_0" in (
        result.stdout
    )


def test_quiet_prints_nothing_when_every_file_is_valid(run: Run) -> None:
    result = run("validate", "-q", str(EXAMPLES / "round.json"), str(EXAMPLES / "round_padded.json"))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_an_unreadable_file_among_several_is_reported_and_the_rest_checked(run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = run("validate", str(missing), str(EXAMPLES / "round_refused.json"), str(EXAMPLES / "round.json"))
    assert result.returncode == 2  # the worst: unreadable (2) over refused (1)
    assert result.stderr == f"dmlpy validate: {missing}: no such file\n"
    assert result.stdout.splitlines()[0].endswith("round_refused.json: invalid at DML_FEATURE_LEVEL_6_4")
    assert result.stdout.splitlines()[-1] == f"{EXAMPLES / 'round.json'}: valid at DML_FEATURE_LEVEL_6_4"


def test_svg_takes_one_file_only(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "out.svg"
    for extra in (["-q"], [str(EXAMPLES / "round_padded.json")]):
        result = run("validate", str(EXAMPLES / "round.json"), *extra, "--svg", str(target))
        assert_one_line_error(result, 2, "dmlpy validate: --svg draws one descriptor beside its report")
        assert not target.exists()
