"""Input files the CLI cannot use are told in one line with a non-zero status, never "internal error" (status 3)
(issue 26, item 9): JSON that is not UTF-8, not an object, nested too deeply, with numbers too long or NaN where
a whole number belongs; a directory; standard input closed; .npy files (inputs and --scale files) truncated, of
object dtype, or pickles. What is unreadable is status 2 with one line on stderr; JSON that reads but does not make
a descriptor is status 1, the problem named."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import REPO, Run, assert_one_line_error, round_desc

SEED = np.array([-4.5, -1.5, 0.5, 2.5], dtype=np.float32)


def _write(tmp_path: Path, text: str | bytes, name: str = "desc.json") -> str:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return str(path)


def _with_sizes(sizes_json: str) -> str:
    return json.dumps(round_desc([1, 2])).replace("[1, 2]", sizes_json, 1)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


UNREADABLE_JSON: dict[str, tuple[Callable[[Path], str], str]] = {
    "not_utf8": (lambda d: _write(d, b'{"Name": "\xff"}'), "not a text JSON file (byte 0xff at offset 10"),
    "latin1_bom": (lambda d: _write(d, b"\xff\xfe{}"), "byte 0xff at offset 0 is not UTF-8"),
    "nested_past_pythons_stack": (lambda d: _write(d, _nested(100_000)), "arrays or objects nested too deeply"),
    "integer_too_long": (lambda d: _write(d, _with_sizes("[1, " + "9" * 5000 + "]")), "an integer has more than"),
    "syntax": (lambda d: _write(d, '{"Type": }'), "not valid JSON: Expecting value at line 1 column 10"),
    "empty": (lambda d: _write(d, ""), "not valid JSON: Expecting value at line 1 column 1"),
    "directory": (lambda d: str(d), "is a directory, not a JSON file"),
}


@pytest.mark.parametrize("command", ["validate", "explain"])
@pytest.mark.parametrize("case", list(UNREADABLE_JSON))
def test_unreadable_json_is_one_line_and_status_2(run: Run, tmp_path: Path, command: str, case: str) -> None:
    make, fragment = UNREADABLE_JSON[case]
    assert_one_line_error(run(command, make(tmp_path)), 2, fragment)


NOT_A_DESCRIPTOR: dict[str, tuple[str, str]] = {
    "list": ("[1, 2]", "the JSON holds list; a descriptor is a JSON object"),
    "number": ("3.5", "the JSON holds float; a descriptor is a JSON object"),
    "null": ("null", "the JSON holds null; a descriptor is a JSON object"),
    "string": ('"\\ud800\\u001b"', "the JSON holds str; a descriptor is a JSON object"),
    "nan_size": (_with_sizes("[1, NaN]"), "Sizes[1] is NaN"),
    "infinite_size": (_with_sizes("[1, -Infinity]"), "Sizes[1] is -Infinity; it must be a whole number"),
    "huge_float_size": (_with_sizes("[1, 1e999]"), "Sizes[1] is Infinity; it must be a whole number"),
    "long_integer_size": (_with_sizes("[1, " + "9" * 4000 + "]"), "a C UINT holds at most 4294967295"),
    "deep_size": (_with_sizes("[1, " + _nested(900) + "]"), "Sizes[1] is [[[[[[["),
}


@pytest.mark.parametrize("case", list(NOT_A_DESCRIPTOR))
def test_json_that_makes_no_descriptor_is_status_1_naming_the_problem(run: Run, tmp_path: Path, case: str) -> None:
    text, fragment = NOT_A_DESCRIPTOR[case]
    path = _write(tmp_path, text)
    validated = run("validate", path)
    assert validated.returncode == 1, validated.stderr
    assert validated.stdout.startswith("invalid: 1 problem in the JSON\n") and fragment in validated.stdout
    assert_one_line_error(run("explain", path), 1, fragment)


def test_nan_and_infinity_are_values_where_a_float_is_one(run: Run, tmp_path: Path) -> None:
    # DML_SCALE_BIAS holds C FLOATs, which may be NaN or infinite: the literals Python's json reads are kept.
    identity = {
        "Type": "DML_OPERATOR_ELEMENT_WISE_IDENTITY",
        "Desc": {**round_desc([2, 4]), "ScaleBias": {"Scale": "SCALE", "Bias": "BIAS"}},
    }
    text = json.dumps(identity).replace('"SCALE"', "NaN").replace('"BIAS"', "-Infinity")
    result = run("explain", _write(tmp_path, text))
    assert result.returncode == 0, result.stderr
    assert "scale_bias(in0, as_float(0x7fc00000u), as_float(0xff800000u))" in result.stdout


def test_closed_standard_input_is_one_line(tmp_path: Path) -> None:
    for command in ("validate", "explain"):
        result = subprocess.run(
            [sys.executable, "-m", "dmlpy", command, "-"],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            preexec_fn=lambda: os.close(0),  # `<&-`: the process starts without a standard input
        )
        assert_one_line_error(result, 2, "-: standard input is closed")


def test_standard_input_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dmlpy", "validate", "-"], cwd=REPO, input=b"\x93NUMPY\x01\x00", capture_output=True
    )
    assert result.returncode == 2
    assert result.stderr.decode().strip() == (
        "dmlpy validate: -: not a text JSON file (it is a .npy file); give a descriptor as UTF-8 JSON text"
    )


# ------------------------------------------------------------------------------------------------- .npy files


def _truncated_header(path: Path) -> None:
    np.save(path, SEED)
    path.write_bytes(path.read_bytes()[:30])


def _truncated_data(path: Path) -> None:
    np.save(path, SEED)
    path.write_bytes(path.read_bytes()[:-3])


def _object_dtype(path: Path) -> None:
    np.save(path, np.array([1.5, "text"], dtype=object), allow_pickle=True)


def _pickle(path: Path) -> None:
    path.write_bytes(pickle.dumps(SEED))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


NPY_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated_header": (_truncated_header, "not a readable .npy file (EOF: reading array header"),
    "truncated_data": (_truncated_data, "truncated: expected 16 bytes of data, found 13"),
    "object_dtype": (_object_dtype, "holds object data"),
    "pickle": (_pickle, "not a .npy file (it does not start with NumPy's \\x93NUMPY header)"),
    "empty": (_empty, "not a .npy file (it does not start with NumPy's \\x93NUMPY header)"),
}


@pytest.mark.parametrize("case", list(NPY_FILES))
def test_a_bad_npy_input_is_one_line_and_nothing_is_written(run: Run, tmp_path: Path, case: str) -> None:
    make, fragment = NPY_FILES[case]
    make(tmp_path / "in.npy")
    assert_one_line_error(run("round", str(tmp_path / "in.npy"), str(tmp_path / "out.npy")), 2, f"in.npy: {fragment}")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.npy"]


@pytest.mark.parametrize("option", ["--scale", "--zero-point"])
@pytest.mark.parametrize("case", list(NPY_FILES))
def test_a_bad_npy_parameter_file_is_one_line_naming_the_option(
    run: Run, tmp_path: Path, case: str, option: str
) -> None:
    # --scale files were read by np.load: a pickle's message advised allow_pickle, which the CLI has no way to take.
    make, fragment = NPY_FILES[case]
    np.save(tmp_path / "in.npy", SEED)
    make(tmp_path / "parameter.npy")
    values = {"--scale": "1", "--zero-point": "0", option: str(tmp_path / "parameter.npy")}
    options = [word for pair in values.items() for word in pair]
    result = run("quantize", str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), *options)
    assert_one_line_error(result, 2, f"{option} {tmp_path / 'parameter.npy'}: {fragment}")
    assert "allow_pickle" not in result.stderr
    assert not (tmp_path / "out.npy").exists()


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return str(path)


NOT_REGULAR: dict[str, tuple[Callable[[Path], str], str]] = {
    "device": (lambda _: "/dev/zero", "a character device"),
    "fifo": (lambda d: _fifo(d / "fifo.npy"), "a FIFO"),
    "directory": (lambda d: str(d), "a directory"),
}


@pytest.mark.parametrize("option", ["--scale", "--zero-point"])
@pytest.mark.parametrize("case", list(NOT_REGULAR))
def test_a_parameter_path_that_is_not_a_regular_file_says_what_it_is(
    run: Run, tmp_path: Path, case: str, option: str
) -> None:
    # Issue 42: such a path was "not a number, comma-separated numbers, or a .npy file", not told what it is.
    make, kind = NOT_REGULAR[case]
    np.save(tmp_path / "in.npy", SEED)
    parameter = make(tmp_path)
    values = {"--scale": "1", "--zero-point": "0", option: parameter}
    options = [word for pair in values.items() for word in pair]
    result = run("quantize", str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), *options)
    assert_one_line_error(result, 2, f"dmlpy quantize: {option} {parameter}: is {kind}, not a .npy file")
    assert not (tmp_path / "out.npy").exists()


def test_parameter_files_in_either_byte_order_still_work(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    np.save(tmp_path / "scales.npy", np.array([0.5, 2.0], ">f8"))
    np.save(tmp_path / "zero_points.npy", np.array([3, -2], ">i2"))
    result = run(
        "quantize",
        str(source),
        str(tmp_path / "out.npy"),
        "--scale",
        str(tmp_path / "scales.npy"),
        "--zero-point",
        str(tmp_path / "zero_points.npy"),
        "--dtype",
        "int8",
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    # Per axis 1: column 0 x / 0.5 + 3, column 1 x / 2 - 2, rounded half to even.
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), np.array([[5, -1], [9, 0]], np.int8), strict=True)
