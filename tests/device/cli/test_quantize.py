"""`dmlpy quantize` and `dmlpy dequantize`: per-tensor and per-axis, from every input dtype, chunked in every
way the file can be cut (whole blocks of the axis, slices of it, slices of one row), C and Fortran order, against
the independent Fraction oracle of tests/helpers/quantize_oracle.py; and the file handling they share with `round`.

The value matrix runs in-process (dmlpy.cli.main) to spare an interpreter start per case; the file-handling
and message tests run the command as a subprocess, as a user would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.cli import main, saturation
from dmlpy.cli.output import axis_chunks, flat_chunks
from tests.helpers import quantize_oracle as oracle
from tests.helpers.cli import Run, assert_one_line_error

QUANTIZE_INPUTS = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32)]
QUANTIZED = [np.dtype(np.uint8), np.dtype(np.int8)]
DEQUANTIZE_INPUTS = [np.dtype(name) for name in ("int8", "uint8", "int16", "uint16", "int32", "uint32")]


def _cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    """The command's stderr; --force, as a test writes one OUT.npy again and again."""
    status = main([*arguments, "--force"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.err


def _quantizable(dtype: np.dtype, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Values with ties at the scales used below, saturating values, and (floats) NaN and infinities."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape))
    if dtype == np.int32:
        values = rng.integers(-600, 600, count)
        values[:4] = [2**31 - 1, -(2**31), 0, 3]
        return values.astype(dtype).reshape(shape)
    values = rng.integers(-600, 600, count) / 4  # quarters: ties for scales 0.5 and 0.25
    values[:5] = [np.nan, np.inf, -np.inf, 1e4, -1e4]
    return values.astype(dtype).reshape(shape)


def _scale_text(values: np.ndarray) -> str:
    return ",".join(repr(float(value)) for value in values)


def _zero_point_text(values: np.ndarray) -> str:
    return "=" + ",".join(str(int(value)) for value in values)  # `--zero-point=-3,...`: negatives as one word


def _limits(dtype: np.dtype) -> tuple[int, int]:
    """The dtype's range, within +-2^23 for 32-bit types: the kernel computes x - zero_point in float32, exact
    only there (as ONNX's reference; tests/device/quantize/test_quantize_values.py covers the rest)."""
    info = np.iinfo(dtype)
    return max(int(info.min), -(2**23)), min(int(info.max), 2**23)


def _zero_points(dtype: np.dtype, count: int) -> np.ndarray:
    low, high = _limits(dtype)
    candidates = np.array([low, high, 0, 3, -3, 100, 7], dtype=np.int64)
    return np.clip(candidates, low, high)[np.arange(count) % candidates.size].astype(dtype)


def _integers(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    low, high = _limits(dtype)
    values = np.random.default_rng(seed).integers(low, high, shape, endpoint=True)
    values.flat[:2] = [low, high]
    return values.astype(dtype)


# ------------------------------------------------------------------------------------------------- per tensor


@pytest.mark.parametrize("output", QUANTIZED, ids=lambda d: d.name)
@pytest.mark.parametrize("source_dtype", QUANTIZE_INPUTS, ids=lambda d: d.name)
def test_quantize_per_tensor(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source_dtype: np.dtype, output: np.dtype
) -> None:
    data = _quantizable(source_dtype, (6, 7), seed=1)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    scale_dtype = np.float16 if source_dtype == np.float16 else np.float32
    for scale, zero_point in ((0.5, None), (0.25, 3), (4.0, -3 if output == np.int8 else 200)):
        arguments = ["quantize", str(source), str(target), "--scale", str(scale), "--dtype", output.name]
        if zero_point is not None:
            arguments.append(f"--zero-point={zero_point}")
        err = _cli(capsys, *arguments, "--chunk-bytes", "12")
        assert f"to {output.name}, per tensor" in err
        expected = oracle.quantize(data, scale_dtype(scale), zero_point, None, output)
        got = np.load(target)
        assert got.dtype == output and got.shape == data.shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("source_dtype", DEQUANTIZE_INPUTS, ids=lambda d: d.name)
def test_dequantize_per_tensor(capsys: pytest.CaptureFixture[str], tmp_path: Path, source_dtype: np.dtype) -> None:
    data = _integers(source_dtype, (40,), seed=2)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data.reshape(5, 8))
    zero_point = int(_zero_points(source_dtype, 4)[3])
    for output in (np.dtype(np.float32), np.dtype(np.float16)):
        scale = 0.125 if output == np.float32 else 2.0**-20  # float16 results stay finite for 32-bit inputs
        arguments = ["dequantize", str(source), str(target), "--scale", str(scale), "--dtype", output.name]
        _cli(capsys, *arguments, f"--zero-point={zero_point}", "--chunk-bytes", "6", "--quiet")
        expected = oracle.dequantize(data, output.type(scale), zero_point, None, output).reshape(5, 8)
        got = np.load(target)
        assert got.dtype == output
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------------------------------------------------------------- per axis

SHAPE = (3, 4, 5)
# Chunk sizes (bytes of 4-byte input) that cut (3, 4, 5) every way across the axes: several whole blocks of the
# axis per chunk, one block, slices of the axis, slices of one row (test_axis_chunks_... checks the cutting).
CHUNK_BYTES = [4096, 84, 40, 8]


@pytest.mark.parametrize("fortran", [False, True], ids=["c_order", "fortran_order"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("chunk_bytes", CHUNK_BYTES, ids=lambda c: f"chunk{c}")
def test_quantize_per_axis(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, axis: int, fortran: bool, chunk_bytes: int
) -> None:
    data = _quantizable(np.dtype(np.float32), SHAPE, seed=axis + 10)
    if fortran:
        data = np.asfortranarray(data)
    length = SHAPE[axis]
    scales = np.array([0.5, 0.25, 2.0, 1.0, 4.0][:length], np.float32)
    zero_points = _zero_points(np.dtype(np.int8), length)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    arguments = ["quantize", str(source), str(target), "--scale", _scale_text(scales), "--axis", str(axis)]
    arguments += [f"--zero-point{_zero_point_text(zero_points)}", "--dtype", "int8", "--chunk-bytes", str(chunk_bytes)]
    err = _cli(capsys, *arguments)
    assert f"per axis {axis % 3}" in err
    got = np.load(target)
    assert got.flags.f_contiguous == fortran or got.ndim < 2
    np.testing.assert_array_equal(got, oracle.quantize(data, scales, zero_points, axis, np.int8))


@pytest.mark.parametrize("source_dtype", [np.dtype(np.float16), np.dtype(np.int32)], ids=lambda d: d.name)
def test_quantize_per_axis_other_inputs_and_default_axis(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source_dtype: np.dtype
) -> None:
    data = _quantizable(source_dtype, (2, 3, 4), seed=5)
    scale_dtype = np.float16 if source_dtype == np.float16 else np.float32
    scales = np.array([0.5, 2.0, 0.25], scale_dtype)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    _cli(capsys, "quantize", str(source), str(target), "--scale", _scale_text(scales), "--chunk-bytes", "6")
    np.testing.assert_array_equal(np.load(target), oracle.quantize(data, scales, None, None, np.uint8))


def test_quantize_mode_and_per_axis_scale_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = _quantizable(np.dtype(np.float32), (4, 3), seed=6)
    scales, zero_points = np.array([0.5, 0.25, 1.0], np.float32), np.array([10, 20, 30], np.uint8)
    np.save(tmp_path / "scales.npy", scales)
    np.save(tmp_path / "zero_points.npy", zero_points)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    for mode, oracle_mode in (("ROUND_UP", "UP"), ("half_away_from_zero", "NEAREST_TOWARD_INFINITY")):
        arguments = ["quantize", str(source), str(target), "--scale", str(tmp_path / "scales.npy")]
        arguments += ["--zero-point", str(tmp_path / "zero_points.npy"), "--mode", mode, "--chunk-bytes", "8"]
        _cli(capsys, *arguments)
        expected = oracle.quantize(data, scales, zero_points, 1, np.uint8, mode=oracle_mode)
        np.testing.assert_array_equal(np.load(target), expected)


@pytest.mark.parametrize("fortran", [False, True], ids=["c_order", "fortran_order"])
@pytest.mark.parametrize("source_dtype", DEQUANTIZE_INPUTS, ids=lambda d: d.name)
def test_dequantize_per_axis(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source_dtype: np.dtype, fortran: bool
) -> None:
    data = _integers(source_dtype, SHAPE, seed=7)
    if fortran:
        data = np.asfortranarray(data)
    scales = np.array([0.5, 0.125, 3.0], np.float32)
    zero_points = _zero_points(source_dtype, 3)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    for chunk_bytes in (4096, 2 * source_dtype.itemsize):
        arguments = ["dequantize", str(source), str(target), "--scale", _scale_text(scales), "--axis", "0"]
        _cli(capsys, *arguments, f"--zero-point{_zero_point_text(zero_points)}", "--chunk-bytes", str(chunk_bytes))
        got = np.load(target)
        assert got.dtype == np.float32 and got.shape == SHAPE
        np.testing.assert_array_equal(got, oracle.dequantize(data, scales, zero_points, 0, np.float32))


# ---------------------------------------------------------------------- a 1-D file: several values, no --axis


@pytest.mark.parametrize("chunk_bytes", [4096, 12, 4], ids=lambda c: f"chunk{c}")
@pytest.mark.parametrize("count", [12, 4, 3], ids=lambda c: f"{c}_values")
def test_quantize_a_1d_file_with_several_values_and_no_axis_as_the_one_liner_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, count: int, chunk_bytes: int
) -> None:
    # Issue 42: the command refused this ("give --axis") where dml.quantize_linear(x1d, s1d) takes WebNN's reading:
    # one value per element, or per block of x.size / s.size. Chunks of 3 elements and of 1 cut the blocks.
    data = _quantizable(np.dtype(np.float32), (12,), seed=11)
    scales = np.array([0.5, 0.25, 2.0, 1.0, 4.0, 0.5] * 2, np.float32)[:count]
    zero_points = _zero_points(np.dtype(np.int8), count)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    arguments = ["quantize", str(source), str(target), "--scale", _scale_text(scales), "--dtype", "int8"]
    err = _cli(capsys, *arguments, f"--zero-point{_zero_point_text(zero_points)}", "--chunk-bytes", str(chunk_bytes))
    assert ("per element" if count == 12 else f"per block of {12 // count}") in err
    got = np.load(target)
    np.testing.assert_array_equal(got, dml.quantize_linear(data, scales, zero_points, dtype=np.int8))
    blocks = data.reshape(count, -1)
    np.testing.assert_array_equal(got, oracle.quantize(blocks, scales, zero_points, 0, np.int8).reshape(-1))
    low, high = oracle.saturated(blocks, scales, zero_points, 0, np.int8)
    assert err.rstrip("\n").endswith(_saturation(low, high, np.dtype(np.int8))), err


def test_dequantize_a_1d_file_with_several_values_and_no_axis_as_the_one_liner_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = _integers(np.dtype(np.int16), (12,), seed=12)
    scales, zero_points = np.array([0.5, 0.125, 3.0], np.float32), _zero_points(np.dtype(np.int16), 3)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    arguments = ["dequantize", str(source), str(target), "--scale", _scale_text(scales), "--chunk-bytes", "6"]
    err = _cli(capsys, *arguments, f"--zero-point{_zero_point_text(zero_points)}")
    assert "(int16 to float32, per block of 4)" in err
    got = np.load(target)
    np.testing.assert_array_equal(got, dml.dequantize_linear(data, scales, zero_points))
    expected = oracle.dequantize(data.reshape(3, 4), scales, zero_points, 0, np.float32).reshape(-1)
    np.testing.assert_array_equal(got, expected)


def test_big_endian_input_and_empty_and_scalar_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    big = np.array([[1.5, -2.5], [3.25, 100.0]], ">f4")
    np.save(source, big)
    _cli(capsys, "quantize", str(source), str(target), "--scale", "0.5,0.25", "--axis", "0", "--quiet")
    expected = oracle.quantize(big.astype(np.float32), np.float32([0.5, 0.25]), None, 0, np.uint8)
    np.testing.assert_array_equal(np.load(target), expected)
    np.save(source, np.array([300, -2], ">i2"))
    _cli(capsys, "dequantize", str(source), str(target), "--scale", "0.5", "--quiet")
    assert np.load(target).tolist() == [150.0, -1.0]
    np.save(source, np.zeros((0, 3), np.float32))
    _cli(capsys, "quantize", str(source), str(target), "--scale", "1,2,3", "--quiet")
    assert np.load(target).shape == (0, 3) and np.load(target).dtype == np.uint8
    np.save(source, np.uint8(7))
    _cli(capsys, "dequantize", str(source), str(target), "--scale", "0.5", "--zero-point", "1", "--quiet")
    assert np.load(target).shape == () and np.load(target).item() == 3.0


# ---------------------------------------------------------------------------------------- chunking, by itself


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 7, 1), (6,), (2, 1, 3, 2), (4, 0, 2)], ids=str)
@pytest.mark.parametrize("fortran", [False, True], ids=["c_order", "fortran_order"])
def test_axis_chunks_cover_the_file_in_order_with_their_slice_of_the_axis(
    shape: tuple[int, ...], fortran: bool
) -> None:
    order = "F" if fortran else "C"
    for axis in range(len(shape)):
        index_along_axis = np.indices(shape)[axis].ravel(order=order)  # file order
        for step in range(1, int(np.prod(shape)) + 3):
            position = 0
            for chunk in axis_chunks(shape, fortran, axis, step):
                assert 1 <= chunk.count <= step and int(np.prod(chunk.shape)) == chunk.count
                assert chunk.along is not None and len(chunk.shape) == 3
                indices = index_along_axis[position : position + chunk.count].reshape(chunk.shape)
                expected = np.arange(chunk.along.start, chunk.along.stop).reshape(1, -1, 1)
                assert np.array_equal(indices, np.broadcast_to(expected, chunk.shape)), (axis, step, chunk)
                position += chunk.count
            assert position == index_along_axis.size, (axis, step)


def test_flat_chunks() -> None:
    assert [chunk.count for chunk in flat_chunks(10, 4)] == [4, 4, 2]
    assert list(flat_chunks(0, 4)) == []


# --------------------------------------------------------------------------------------- file handling, messages


def test_progress_summary_and_in_place_refused(run: Run, tmp_path: Path) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, np.arange(12, dtype=np.float32))
    result = run("quantize", str(source), str(target), "--scale", "2", "--progress", "--chunk-bytes", "8")
    assert result.returncode == 0, result.stderr
    assert "quantizing [" in result.stderr and "100.0%" in result.stderr
    assert "quantized 12 elements (float32 to uint8, per tensor)" in result.stderr
    assert np.load(target).tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6]
    before = source.read_bytes()
    assert_one_line_error(
        run("quantize", str(source), "--in-place", "--scale", "2"), 2, "--in-place: quantize writes uint8 data"
    )
    assert_one_line_error(run("quantize", str(source), str(source), "--scale", "2"), 2, "refusing to overwrite")
    np.save(source, np.arange(4, dtype=np.int16))
    assert_one_line_error(
        run("dequantize", str(source), str(source), "--in-place", "--scale", "2"), 2, "dequantize writes float32"
    )
    assert source.read_bytes() != before  # the int16 file written above, untouched by the refusals
    assert np.load(source).tolist() == [0, 1, 2, 3]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.npy", "out.npy"]  # no temporaries


@pytest.mark.parametrize(
    ("command", "data", "options", "fragment"),
    [
        ("quantize", np.zeros(3, np.float64), ["--scale", "1"], "holds float64 data; quantize takes float32"),
        ("quantize", np.zeros(3, np.uint8), ["--scale", "1"], "holds uint8 data; quantize takes"),
        ("dequantize", np.zeros(3, np.float32), ["--scale", "1"], "holds float32 data; dequantize takes int8"),
        ("dequantize", np.zeros(3, np.int64), ["--scale", "1"], "holds int64 data"),
        ("quantize", np.zeros((2, 3), np.float32), ["--scale", "1,2"], "--scale has 2 values but IN's axis 1 has 3"),
        ("quantize", np.zeros((2, 3), np.float32), ["--scale", "1", "--axis", "2"], "--axis 2 is out of range"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1", "--zero-point", "1,2,3"], "give --axis"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1,2"], "scale has 2 entries along axis 0"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1", "--zero-point", "256"], "--zero-point: value is 256;"),
        (
            "quantize",
            np.zeros(3, np.float32),
            ["--scale", "1", "--dtype", "int8", "--zero-point", "200"],
            "INT8, which holds the integers -128 to 127",
        ),
        ("dequantize", np.zeros(3, np.uint8), ["--scale", "1", "--zero-point=-1"], "value is -1; the zero point is"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "fast"], "--scale 'fast' is not a number"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1,x"], "comma-separated numbers"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1", "--zero-point", "1.5"], "whole numbers"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1", "--mode", "ceil"], "'ceil' is not a rounding mode"),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1", "--device", "99"], "no device 99; `dmlpy devices`"),
    ],
    ids=[
        "quantize_float64",
        "quantize_uint8",
        "dequantize_float32",
        "dequantize_int64",
        "scale_length",
        "axis_range",
        "per_axis_zero_point_1d_needs_axis",
        "per_block_1d_not_a_divisor",
        "zero_point_range",
        "zero_point_int8_range",
        "zero_point_negative_uint8",
        "scale_word",
        "scale_list",
        "zero_point_fraction",
        "mode",
        "device",
    ],
)
def test_bad_input_is_one_line_and_nothing_written(
    run: Run, tmp_path: Path, command: str, data: np.ndarray, options: list[str], fragment: str
) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    assert_one_line_error(run(command, str(source), str(target), *options), 2, fragment)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.npy"]


@pytest.mark.parametrize(
    ("command", "data", "options", "fragment"),
    [
        (
            "quantize",
            np.zeros(3, np.float16),
            ["--scale", "1e6"],
            "--scale: value is 1000000.0; the scale is read as FLOAT16, whose largest finite value is 65504.0: give a "
            "number from -65504.0 to 65504.0",
        ),
        ("quantize", np.zeros(3, np.float32), ["--scale", "1e39"], "--scale: value is 1e+39; the scale is read as"),
        ("quantize", np.zeros(3, np.float32), ["--scale=-1e400"], "--scale: value is -10000000000"),
        ("quantize", np.zeros((2, 3), np.float32), ["--scale", "1,1e39,1"], "--scale: value[1] is 1e+39; the scale"),
        ("dequantize", np.zeros(3, np.int8), ["--scale", "1e5", "--dtype", "float16"], "read as FLOAT16"),
    ],
    ids=["float16_scale", "float32_scale", "beyond_a_double", "per_axis_index", "dequantize_float16"],
)
def test_a_finite_scale_its_type_would_make_infinite_is_refused(
    run: Run, tmp_path: Path, command: str, data: np.ndarray, options: list[str], fragment: str
) -> None:
    # Issue 42: the scale was cast as NumPy casts (1e6 as float16 is inf) and the command ran on an infinite scale,
    # warning of a scale of inf that the user never gave. It follows the one-liners' rule now (held_values).
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    assert_one_line_error(run(command, str(source), str(target), *options), 2, fragment)
    assert not target.exists()


def test_a_zero_point_file_of_fractions_is_refused_naming_the_value_and_its_index(run: Run, tmp_path: Path) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, np.zeros((2, 3), np.float32))
    np.save(tmp_path / "zero_points.npy", np.array([1.0, 2.5, 3.0]))
    result = run(
        "quantize", str(source), str(target), "--scale", "1", "--zero-point", str(tmp_path / "zero_points.npy")
    )
    assert_one_line_error(
        result, 2, "--zero-point: value[1] is 2.5; the zero point is read as UINT8, which holds the integers 0 to 255"
    )
    assert not target.exists()


def test_scale_file_that_is_not_one_dimensional(run: Run, tmp_path: Path) -> None:
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, np.zeros((2, 3), np.float32))
    np.save(tmp_path / "scales.npy", np.ones((2, 3), np.float32))
    result = run("quantize", str(source), str(target), "--scale", str(tmp_path / "scales.npy"))
    assert_one_line_error(result, 2, "scales.npy: holds float32 data of shape (2, 3)")
    assert not target.exists()


# ------------------------------------------------------------------ saturation and scales that mean nothing


def _saturation(low: int, high: int, dtype: np.dtype) -> str:
    info = np.iinfo(dtype)
    if not low + high:
        return "; no element saturated"
    ends = [f"{count} to {limit}" for count, limit in ((low, info.min), (high, info.max)) if count]
    return f"; {low + high} element{'' if low + high == 1 else 's'} saturated ({', '.join(ends)})"


@pytest.mark.parametrize(
    ("mode", "oracle_mode"),
    [("half_to_even", "NEAREST_TOWARD_EVEN"), ("ROUND_UP", "UP"), ("toward_zero", "TOWARD_ZERO")],
)
@pytest.mark.parametrize("output", QUANTIZED, ids=lambda d: d.name)
@pytest.mark.parametrize("source_dtype", QUANTIZE_INPUTS, ids=lambda d: d.name)
@pytest.mark.parametrize("split", ["chunks", "pieces"])
def test_the_summary_counts_the_saturated_elements_exactly(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    split: str,
    source_dtype: np.dtype,
    output: np.dtype,
    mode: str,
    oracle_mode: str,
) -> None:
    # Issue 30: the summary says how many elements the clamp changed. Values on both sides of each end, ties at
    # the ends (127.5, 255.5, -128.5, -0.5 at scale 1), NaN (0, never counted) and infinities; per axis, in
    # chunks of one row, or in one chunk that the count splits into pieces of one row (its bounded memory).
    info = np.iinfo(output)
    edges = [info.max + 0.5, info.max + 0.25, info.max + 1, info.max, info.min - 0.5, info.min - 0.75, info.min - 1]
    data = _quantizable(source_dtype, (4, 3, 5), seed=8)
    if source_dtype != np.int32:  # along axis 1's first entry: scale 1, zero point 0
        data[1, 0, :], data[2, 0, :2] = edges[:5], edges[5:]
    scales = np.array([1.0, 0.5, 4.0], np.float16 if source_dtype == np.float16 else np.float32)
    zero_points = np.array([0, info.min, info.max], output) if output == np.int8 else np.array([0, 3, 255], output)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    arguments = ["quantize", str(source), str(target), "--scale", _scale_text(scales), "--axis", "1"]
    arguments += [f"--zero-point{_zero_point_text(zero_points)}", "--dtype", output.name, "--mode", mode]
    if split == "pieces":
        monkeypatch.setattr(saturation, "PIECE", 15)
    err = _cli(capsys, *arguments, *(["--chunk-bytes", "24"] if split == "chunks" else []))
    np.testing.assert_array_equal(np.load(target), oracle.quantize(data, scales, zero_points, 1, output, oracle_mode))
    low, high = oracle.saturated(data, scales, zero_points, 1, output, oracle_mode)
    assert low and high  # the data reaches both ends
    assert err.rstrip("\n").endswith(f"from {source} into {target}{_saturation(low, high, output)}"), err


EFFECTS = {
    "quantize": "quantizing divides by it: x / scale is then infinite or NaN (saturated or zero results), or of the "
    "opposite sign",
    "dequantize": "dequantizing multiplies by it: the results are then 0, infinite, NaN, or of the opposite sign",
}


@pytest.mark.parametrize(
    ("command", "scale", "given"),
    [
        ("quantize", "nan", "quantize_linear: scale is nan (as float32)"),
        ("quantize", "0", "quantize_linear: scale is 0.0 (as float32)"),
        ("quantize", "-1", "quantize_linear: scale is -1.0 (as float32)"),
        ("quantize", "inf", "quantize_linear: scale is inf (as float32)"),
        (
            "quantize",
            "0.5,-2,nan",
            "quantize_linear: 2 of the scale's 3 values are zero, negative, infinite or NaN (as float32), the first "
            "-2.0 at index 1",
        ),
        ("dequantize", "0", "dequantize_linear: scale is 0.0 (as float32)"),
        ("dequantize", "-inf", "dequantize_linear: scale is -inf (as float32)"),
    ],
)
def test_a_scale_that_is_not_finite_and_positive_is_warned_of_once(
    run: Run, tmp_path: Path, command: str, scale: str, given: str
) -> None:
    # Issue 30: `--scale nan`, `0` and `-1` quantized and exited 0 with no word. They still run (ONNX and DirectML
    # accept them), with the one-liners' ScaleWarning as one line on stderr, for the whole scale however many
    # chunks the file is cut into (one element a chunk here), and --quiet keeps it.
    data = np.array([[-4.5, 0.0, 300.0], [np.nan, 2.5, -300.0]], np.float32)
    if command == "dequantize":
        data = np.array([[-128, 0, 5], [127, 1, -3]], np.int8)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, data)
    axis = ["--axis", "1"] if "," in scale else []
    result = run(command, str(source), str(target), f"--scale={scale}", *axis, "--chunk-bytes", "1", "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"dmlpy {command}: warning: {given}; neither DirectML nor ONNX checks scale values, so the call runs, but "
        f"{EFFECTS[command]}: pass a positive, finite scale\n"
    )
    assert target.exists()


def test_zero_scale_saturates_every_nonzero_number(run: Run, tmp_path: Path) -> None:
    # x / 0 is an infinity for every x but 0 and NaN (0 / 0 is NaN, which becomes 0): all the rest saturate.
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, np.array([-4.5, 0.0, 0.25, 300.0, np.nan, -1e-30, np.inf], np.float32))
    result = run("quantize", str(source), str(target), "--scale", "0", "--dtype", "int8")
    assert result.returncode == 0, result.stderr
    assert np.load(target).tolist() == [-128, 0, 127, 127, 0, -128, 127]
    warning, summary = result.stderr.splitlines()
    assert warning.startswith("dmlpy quantize: warning: quantize_linear: scale is 0.0 (as float32)")
    assert summary.endswith("; 5 elements saturated (2 to -128, 3 to 127)")
