"""`dmlpy round IN.npy OUT.npy --mode M [--device N] [--in-place]`: every dtype and mode `dml.round` takes,
against the independent bit oracle of tests/helpers/ext_oracle.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from dmlpy.cli import main
from dmlpy.enums import ExtRoundingMode
from tests.helpers.cli import Run, assert_one_line_error
from tests.helpers.ext_oracle import assert_rounded

SEED = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], dtype=np.float32)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("half_to_even", [-4, -2, -2, 0, 1, 2, 2, 2]),
        ("HALVES_TO_NEAREST_EVEN", [-4, -2, -2, 0, 1, 2, 2, 2]),
        ("toward_zero", [-4, -1, -1, 0, 0, 1, 2, 2]),
        ("half_away_from_zero", [-5, -2, -2, 1, 1, 2, 2, 3]),
        ("DML_ROUNDING_MODE_TOWARD_INFINITY", [-5, -2, -2, 1, 1, 2, 2, 3]),
        ("2", [-5, -2, -2, 1, 1, 2, 2, 3]),
    ],
)
def test_round_each_mode(run: Run, tmp_path: Path, mode: str, expected: list[float]) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, SEED)
    result = run("round", str(source), str(target), "--mode", mode)
    assert result.returncode == 0, result.stderr
    out = np.load(target)
    assert out.dtype == np.float32
    assert out.tolist() == expected
    assert np.load(source).tolist() == SEED.tolist()  # input untouched
    assert "Traceback" not in result.stderr


def test_round_keeps_shape_order_and_dtype_across_chunks(run: Run, tmp_path: Path) -> None:
    data = np.asfortranarray((np.arange(60, dtype=np.float16).reshape(3, 4, 5) - 30) / 4)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    from dmlpy.runtime.platforms import preferred_device

    usable = str(preferred_device().index)  # device 0 may be one whose compiler fails (the bundled PoCL on Zen 5)
    result = run("round", str(source), str(target), "--chunk-bytes", "14", "--progress", "--device", usable)
    assert result.returncode == 0, result.stderr
    out = np.load(target)
    assert out.dtype == np.float16 and out.shape == data.shape and out.flags.f_contiguous
    np.testing.assert_array_equal(out, np.rint(data))
    assert "100.0%" in result.stderr  # the progress bar (redrawn with \r; text mode reads it as a newline)


def test_round_scalar_empty_and_big_endian(run: Run, tmp_path: Path) -> None:
    for name, data in (
        ("scalar", np.float32(2.5)),
        ("empty", np.zeros((0, 3), np.float32)),
        ("big", np.array([1.5, 2.5, -0.5], ">f4")),
    ):
        source, target = tmp_path / f"{name}.npy", tmp_path / f"{name}-out.npy"
        np.save(source, data)
        result = run("round", str(source), str(target), "--quiet")
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        out = np.load(target)
        assert out.shape == np.shape(data) and out.dtype == np.asarray(data).dtype
        np.testing.assert_array_equal(out, np.rint(np.asarray(data)))


def test_refuses_to_overwrite_input_without_in_place(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    assert_one_line_error(run("round", str(source), str(source)), 2, "refusing to overwrite", "--in-place")
    alias = tmp_path / "." / "in.npy"
    assert_one_line_error(run("round", str(source), str(alias)), 2, "refusing to overwrite")
    assert np.load(source).tolist() == SEED.tolist()


def test_in_place_replaces_the_input(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    result = run("round", str(source), "--in-place", "--mode", "toward_zero")
    assert result.returncode == 0, result.stderr
    assert np.load(source).tolist() == [-4, -1, -1, 0, 0, 1, 2, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npy"]  # no temporary left behind


def test_missing_output_without_in_place(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    assert_one_line_error(run("round", str(source)), 2, "give OUT.npy")


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (np.zeros(4, np.complex64), "holds complex64 data; round takes float32, float16, float64, bfloat16"),
        (np.zeros(4, bool), "holds bool data"),
        (np.zeros(4, ml_dtypes.float8_e4m3fn), "holds |V1 (raw bytes) data"),
        (np.zeros(4, [("a", "<f4"), ("b", "<i2")]), "data; round takes"),
        (np.zeros(4, "datetime64[s]"), "holds datetime64[s] data"),
    ],
    ids=["complex64", "bool", "float8", "structured", "datetime64"],
)
def test_bad_dtype_is_refused_and_nothing_written(run: Run, tmp_path: Path, data: np.ndarray, fragment: str) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    assert_one_line_error(run("round", str(source), str(target)), 2, fragment, "int8", "uint64")
    assert not target.exists()


def test_bad_files(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "out.npy"
    assert_one_line_error(run("round", str(tmp_path / "nope.npy"), str(target)), 2, "no such file")
    text = tmp_path / "text.npy"
    text.write_text("not numpy", encoding="utf-8")
    assert_one_line_error(run("round", str(text), str(target)), 2, "not a .npy file")
    truncated = tmp_path / "truncated.npy"
    np.save(truncated, SEED)
    truncated.write_bytes(truncated.read_bytes()[:-8])
    assert_one_line_error(run("round", str(truncated), str(target)), 2, "truncated.npy")
    archive = tmp_path / "several.npz"
    np.savez(archive, a=SEED)
    assert_one_line_error(run("round", str(archive), str(target)), 2, ".npz")
    pickled = tmp_path / "objects.npy"
    np.save(pickled, np.array([1, "a"], dtype=object), allow_pickle=True)
    assert_one_line_error(run("round", str(pickled), str(target)), 2, "objects.npy")
    assert_one_line_error(run("round", str(tmp_path), str(target)), 2, "is a directory")
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    assert_one_line_error(run("round", str(source), str(tmp_path / "no-dir" / "out.npy")), 2, "no such directory")
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_bad_mode_and_device(run: Run, tmp_path: Path) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, SEED)
    assert_one_line_error(run("round", str(source), str(target), "--mode", "ceil"), 2, "'ceil' is not a rounding mode")
    from dmlpy.runtime.platforms import list_devices

    count = len(list_devices())
    listed = f"`dmlpy devices` lists {count} device{'' if count == 1 else 's'}: [0] "
    assert_one_line_error(run("round", str(source), str(target), "--device", "99"), 2, "no device 99; ", listed)
    assert_one_line_error(run("round", str(source), str(target), "--device", "-1"), 2, "--device -1: no device -1")
    assert "there are" not in run("round", str(source), str(target), "--device", "5").stderr
    assert_one_line_error(run("round", str(source), str(target), "--device", "gpu"), 2, "--device takes a number")
    assert not target.exists()


def test_output_that_is_a_directory_is_refused_before_writing(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    before = sorted(tmp_path.parent.iterdir())
    assert_one_line_error(run("round", str(source), str(tmp_path)), 2, "is a directory")
    assert sorted(tmp_path.parent.iterdir()) == before  # no temporary file left beside it


# ----------------------------------------------------------------------------------- every dtype, every mode
# In-process (dmlpy.cli.main), so the matrix costs no interpreter start per case; the subprocess tests above
# cover the command as a user runs it.

FLOAT_DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64), np.dtype(ml_dtypes.bfloat16)]
INTEGER_DTYPES = [np.dtype(name) for name in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")]
DIRECTML_MODES = {
    "half_to_even": "NEAREST_TOWARD_EVEN",
    "toward_zero": "TOWARD_ZERO",
    "half_away_from_zero": "NEAREST_TOWARD_INFINITY",
}
NGRAPH_MODES = {mode.ngraph_name: mode.name for mode in ExtRoundingMode}


def _floats(dtype: np.dtype, count: int = 96) -> np.ndarray:
    """Halves, near-halves, signed zeros, large values, infinities and NaN, in ``dtype``."""
    rng = np.random.default_rng(count)
    special = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, -0.51, 0.0, -0.0, 7.0, -3.75, 1e4, -1e4, np.inf, -np.inf, np.nan]
    values = np.concatenate([special, rng.uniform(-40, 40, count - len(special)).round(1)])
    return values.astype(dtype)


def _integers(dtype: np.dtype, count: int = 96) -> np.ndarray:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(count)
    extremes = np.array([info.min, info.max, 0, 1, info.min + 1, info.max - 1], dtype=dtype)
    return np.concatenate([extremes, rng.integers(info.min, info.max, count - extremes.size, dtype=dtype)])


def _round_in_process(capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    """The command's stderr; --force, as a test writes one OUT.npy again and again."""
    status = main(["round", *arguments, "--force"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.err


FLOAT_CASES = [(dtype, "=") for dtype in FLOAT_DTYPES] + [(dtype, ">") for dtype in FLOAT_DTYPES if dtype.kind == "f"]


@pytest.mark.parametrize(
    ("dtype", "byte_order"),
    FLOAT_CASES,  # bfloat16 has no byte order in a .npy file (|V2)
    ids=[f"{dtype.name}{'' if order == '=' else '_big_endian'}" for dtype, order in FLOAT_CASES],
)
def test_every_float_dtype(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dtype: np.dtype, byte_order: str
) -> None:
    data = _floats(dtype).reshape(8, 12)
    if byte_order == ">":
        data = data.astype(dtype.newbyteorder(">"))
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    for mode, oracle_mode in DIRECTML_MODES.items():
        err = _round_in_process(capsys, str(source), str(target), "--mode", mode, "--chunk-bytes", "22")
        out = np.load(target)
        if dtype == ml_dtypes.bfloat16:
            assert out.dtype == np.dtype("V2")  # as np.save writes bfloat16 and np.load gives it back
            assert "bfloat16 (.npy |V2)" in err
            out = out.view(ml_dtypes.bfloat16)
        assert out.dtype == data.dtype and out.shape == data.shape
        assert_rounded(out.astype(dtype), data.astype(dtype), oracle_mode, nan="sign")


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=lambda d: d.name)
def test_every_integer_dtype_is_returned_unchanged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dtype: np.dtype
) -> None:
    data = np.asfortranarray(_integers(dtype).reshape(4, 6, 4))
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    for mode in ("half_to_even", "ROUND_UP"):
        _round_in_process(capsys, str(source), str(target), "--mode", mode, "--chunk-bytes", "40", "--quiet")
        out = np.load(target)
        assert out.dtype == dtype and out.flags.f_contiguous
        np.testing.assert_array_equal(out, data)
    big = data.astype(dtype.newbyteorder(">"))
    np.save(source, big)
    _round_in_process(capsys, str(source), str(target), "--quiet")
    assert np.load(target).dtype == big.dtype and np.array_equal(np.load(target), data)


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16)], ids=lambda d: d.name)
@pytest.mark.parametrize("mode", list(NGRAPH_MODES), ids=str.lower)
def test_ngraph_modes(capsys: pytest.CaptureFixture[str], tmp_path: Path, dtype: np.dtype, mode: str) -> None:
    data = _floats(dtype)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    err = _round_in_process(capsys, str(source), str(target), "--mode", mode, "--chunk-bytes", "64")
    assert f"DMLPY_EXT_ROUNDING_MODE_{NGRAPH_MODES[mode]}" in err
    assert_rounded(np.load(target).view(dtype), data, NGRAPH_MODES[mode], nan="sign")


def test_bfloat16_file_as_np_save_writes_it(run: Run, tmp_path: Path) -> None:
    data = np.array([0.5, 1.5, 2.5, -2.5, 3.0], ml_dtypes.bfloat16)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    assert np.load(source).dtype == np.dtype("V2")  # what a user's file holds: raw 2-byte items
    result = run("round", str(source), str(target))
    assert result.returncode == 0, result.stderr
    assert "|V2 data" not in result.stderr
    assert np.load(target).view(ml_dtypes.bfloat16).tolist() == [0.0, 2.0, 2.0, -2.0, 3.0]


# ------------------------------------------------------------------------ files.read_json: binary files


def test_binary_file_given_to_validate_is_not_a_text_json_file(run: Run, tmp_path: Path) -> None:
    npy = tmp_path / "data.npy"
    np.save(npy, SEED)
    assert_one_line_error(run("validate", str(npy)), 2, "data.npy: not a text JSON file (it is a .npy file)")
    binary = tmp_path / "bad.json"
    binary.write_bytes(b'{"a": \xff\xfe}')
    result = run("explain", str(binary))
    assert_one_line_error(result, 2, "bad.json: not a text JSON file (byte 0xff at offset 6 is not UTF-8)")
    assert "codec" not in result.stderr and "UnicodeDecodeError" not in result.stderr
    stdin = run_dmlpy_bytes("validate", "-", stdin=b"\x93NUMPY\x01\x00")
    assert_one_line_error(stdin, 2, "-: not a text JSON file (it is a .npy file)")


def run_dmlpy_bytes(*args: str, stdin: bytes) -> subprocess.CompletedProcess[str]:
    """``python -m dmlpy ARGS`` with binary stdin."""
    result = subprocess.run(
        [sys.executable, "-m", "dmlpy", *args], input=stdin, capture_output=True, timeout=120, check=False
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )
