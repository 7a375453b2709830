"""`dmlpy round IN.npy OUT.npy --mode M [--device N] [--in-place]`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cli.conftest import Run, assert_one_line_error

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
    result = run("round", str(source), str(target), "--chunk-bytes", "14", "--progress", "--device", "0")
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
        (np.arange(4, dtype=np.int64), "holds int64 data; Round takes float32 or float16"),
        (np.arange(4, dtype=np.float64), "holds float64 data"),
    ],
)
def test_bad_dtype_is_refused_and_nothing_written(run: Run, tmp_path: Path, data: np.ndarray, fragment: str) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    assert_one_line_error(run("round", str(source), str(target)), 2, fragment)
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
    assert_one_line_error(run("round", str(source), str(target), "--device", "99"), 2, "no OpenCL device 99")
    assert_one_line_error(run("round", str(source), str(target), "--device", "-1"), 2, "no OpenCL device -1")
    assert_one_line_error(run("round", str(source), str(target), "--device", "gpu"), 2, "--device takes a number")
    assert not target.exists()


def test_output_that_is_a_directory_is_refused_before_writing(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    before = sorted(tmp_path.parent.iterdir())
    assert_one_line_error(run("round", str(source), str(tmp_path)), 2, "is a directory")
    assert sorted(tmp_path.parent.iterdir()) == before  # no temporary file left beside it
