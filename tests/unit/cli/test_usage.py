"""How `dmlpy` answers a user who has not found the right words yet (issue 30): a bare `dmlpy` prints the help,
a usage error names the command it belongs to, a misspelt --mode gets the closest name, and ceil or floor the
operator that does it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import Run, assert_one_line_error


def test_bare_dmlpy_prints_the_help_and_exits_0_as_pip_does(run: Run) -> None:
    result = run()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("usage: dmlpy [-h] [--version] COMMAND ...")
    assert result.stdout == run("--help").stdout  # the whole help, not a usage line
    for command in ("demo", "devices", "validate", "explain", "round", "quantize", "dequantize", "schema"):
        assert f"    {command} " in result.stdout


@pytest.mark.parametrize(
    ("arguments", "prefix", "words"),
    [
        (
            ["round", "a.npy", "b.npy", "c.npy"],
            "dmlpy round: ",
            "unrecognized arguments: c.npy (see `dmlpy round --help`)",
        ),
        (["validate", "--feature-level"], "dmlpy validate: ", "argument --feature-level: expected one argument"),
        (["quantize", "a.npy", "b.npy"], "dmlpy quantize: ", "the following arguments are required: --scale"),
        (["explain", "a.json", "b.json"], "dmlpy explain: ", "unrecognized arguments: b.json"),
        (["--colour"], "dmlpy: ", "unrecognized arguments: --colour (see `dmlpy --help`)"),
    ],
)
def test_usage_errors_name_the_command(run: Run, arguments: list[str], prefix: str, words: str) -> None:
    result = run(*arguments)
    assert_one_line_error(result, 2, words)
    assert result.stderr.startswith(prefix)


@pytest.mark.parametrize(
    ("mode", "suggestion"),
    [
        ("half_to_evn", "(did you mean half_to_even?)"),
        ("HALF_TO_EVN", "(did you mean half_to_even?)"),  # modes are read in any case, so are typos
        ("towards_zero", "(did you mean toward_zero?)"),
        ("ROUND_UPWARD", "(did you mean ROUND_UP?)"),
        ("ROUND_NEAREST_TOWARDS_EVEN", "(did you mean ROUND_NEAREST_TOWARD_EVEN?)"),
    ],
)
@pytest.mark.parametrize("command", ["round", "quantize"])
def test_a_misspelt_mode_gets_the_closest_name(
    run: Run, tmp_path: Path, command: str, mode: str, suggestion: str
) -> None:
    scale = ["--scale", "1"] if command == "quantize" else []
    result = run(command, str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), *scale, "--mode", mode)
    assert_one_line_error(result, 2, f"dmlpy {command}: --mode: mode {mode!r} is not a rounding mode; use one of")
    assert result.stderr.rstrip("\n").endswith(suggestion)


def test_a_mode_like_no_name_gets_no_suggestion(run: Run, tmp_path: Path) -> None:
    result = run("round", str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), "--mode", "xyz")
    assert_one_line_error(result, 2, "--mode: mode 'xyz' is not a rounding mode; use one of")
    assert "did you mean" not in result.stderr


@pytest.mark.parametrize(
    ("mode", "operator", "extension"),
    [
        ("ceil", "DirectML's ceil is the operator ELEMENT_WISE_CEIL, dml.graph.ceil", "--mode ROUND_UP does it here"),
        ("CEIL", "DirectML's ceil is the operator ELEMENT_WISE_CEIL, dml.graph.ceil", "--mode ROUND_UP does it here"),
        ("floor", "DirectML's floor is the operator ELEMENT_WISE_FLOOR, dml.graph.floor", "--mode ROUND_DOWN does it"),
    ],
)
def test_ceil_and_floor_point_to_the_operator_that_does_it(
    run: Run, tmp_path: Path, mode: str, operator: str, extension: str
) -> None:
    result = run("round", str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), "--mode", mode)
    assert_one_line_error(result, 2, f"mode {mode!r} is not a rounding mode", operator, extension)
    assert "did you mean" not in result.stderr
