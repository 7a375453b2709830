"""The one-liners on Dask arrays under the threaded scheduler: lazy results of the same chunks, equal to the
NumPy one-liners (themselves tested against independent references) and to NumPy's own rounding, per-axis values
cut to each chunk, nothing computed at the call, and refusals that say what to do."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from tests.helpers import quantize_oracle as oracle

da = pytest.importorskip("dask.array", reason="dask is a test dependency (pip install -e .[dev])")

import dmlpy as dml  # noqa: E402
from dmlpy.arrays import one_liners  # noqa: E402
from dmlpy.arrays.quantize import dequantize_array, quantize_array  # noqa: E402
from dmlpy.arrays.round import round_array  # noqa: E402

MODES = ["half_to_even", "toward_zero", "half_away_from_zero", "ROUND_UP", "ROUND_NEAREST_DOWNWARD"]


def values(dtype: Any, shape: tuple[int, ...] = (37, 53)) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(11)
    x = (rng.integers(-4000, 4000, int(np.prod(shape))) / 8).astype(np.float64)
    x[:6] = [0.5, -0.5, 2.5, -2.5, np.inf, np.nan]
    return x.astype(dtype).reshape(shape)


def numpy_round(x: np.ndarray[Any, Any], mode: str) -> np.ndarray[Any, Any]:
    """Independent references for the modes used here."""
    wide = x.astype(np.float64)
    if mode == "half_to_even":
        r = np.rint(wide)
    elif mode == "toward_zero":
        r = np.trunc(wide)
    elif mode == "half_away_from_zero":
        with np.errstate(invalid="ignore"):  # inf - inf: infinities keep trunc's value below
            r = np.where(np.abs(wide - np.trunc(wide)) >= 0.5, np.trunc(wide) + np.sign(wide), np.trunc(wide))
    elif mode == "ROUND_UP":
        r = np.ceil(wide)
    else:  # ROUND_NEAREST_DOWNWARD: nearest, halves toward -inf
        r = np.ceil(wide - 0.5)
    return r.astype(x.dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, ml_dtypes.bfloat16], ids=str)
def test_round_is_lazy_keeps_chunks_and_matches(dtype: Any, mode: str) -> None:
    x = values(dtype)
    lazy = da.from_array(x, chunks=(10, 17))
    result = dml.round(lazy, mode=mode)
    assert isinstance(result, da.Array) and result.chunks == lazy.chunks and result.dtype == x.dtype
    got = result.compute(scheduler="threads")
    assert got.dtype == x.dtype
    expected = numpy_round(x, mode)
    finite = np.isfinite(x.astype(np.float64))
    assert got[finite].tobytes() == expected[finite].tobytes()
    assert np.isnan(got.astype(np.float64)[np.isnan(x.astype(np.float64))]).all()


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_quantize_and_dequantize_per_axis_follow_the_chunks(axis: int | None, dtype: Any) -> None:
    x = values(np.float32) * 3
    lazy = da.from_array(x, chunks=(8, 11))  # several chunks along both axes
    length = 1 if axis is None else x.shape[axis]
    scale = np.linspace(0.25, 3.0, length).astype(np.float32)
    zero = (np.arange(length) % 7).astype(dtype)
    scale_, zero_ = (scale[0], zero[0]) if axis is None else (scale, zero)
    q = dml.quantize_linear(lazy, scale_, zero_, axis=axis)
    assert q.chunks == lazy.chunks and q.dtype == np.dtype(dtype)
    expected_q = dml.quantize_linear(x, scale_, zero_, axis=axis)
    assert q.compute(scheduler="threads").tobytes() == expected_q.tobytes()
    dq = dml.dequantize_linear(q, scale_, zero_, axis=axis)
    assert dq.dtype == np.float32
    expected_dq = dml.dequantize_linear(expected_q, scale_, zero_, axis=axis)
    assert dq.compute(scheduler="threads").tobytes() == expected_dq.tobytes()
    # and against NumPy's arithmetic, for the per-tensor case
    if axis is None:
        with np.errstate(invalid="ignore"):
            info = np.iinfo(dtype)
            ref = np.clip(np.rint(x / scale[0]) + zero[0], info.min, info.max)
        finite = np.isfinite(x)
        assert (expected_q[finite] == ref[finite].astype(dtype)).all()


# Which of scale and zero point are per-axis: a scalar one beside a per-axis one must still apply everywhere,
# and the per-axis one must be cut to each chunk (a scalar scale once made the tasks keep only the first zero
# point).
PER_AXIS = {
    "scalar_scale_per_axis_zero_point": (False, True),
    "per_axis_scale_scalar_zero_point": (True, False),
    "both_per_axis": (True, True),
}
CHUNKINGS = {"one_chunk": (6, 7, 5), "uneven": (4, 3, 2), "single_rows": (1, 7, 3)}


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("per_axis", list(PER_AXIS))
def test_a_scalar_beside_a_per_axis_value_follows_the_chunks(per_axis: str, axis: int, chunks: str) -> None:
    x = values(np.float32, (6, 7, 5)) * 3
    lazy = da.from_array(x, chunks=CHUNKINGS[chunks])
    length = x.shape[axis]
    per_axis_scale, per_axis_zero = PER_AXIS[per_axis]
    scale = np.linspace(0.5, 4.0, length).astype(np.float32) if per_axis_scale else np.float32(0.75)
    zero = (10 * np.arange(1, length + 1)).astype(np.uint8) if per_axis_zero else np.uint8(7)

    q = dml.quantize_linear(lazy, scale, zero, axis=axis)
    assert q.chunks == lazy.chunks
    got_q = q.compute(scheduler="threads")
    assert got_q.tobytes() == dml.quantize_linear(x, scale, zero, axis=axis).tobytes()  # the NumPy path
    np.testing.assert_array_equal(got_q, oracle.quantize(x, scale, zero, axis=axis, out_dtype=np.uint8))

    dq = dml.dequantize_linear(da.from_array(got_q, chunks=CHUNKINGS[chunks]), scale, zero, axis=axis)
    got_dq = dq.compute(scheduler="threads")
    assert got_dq.tobytes() == dml.dequantize_linear(got_q, scale, zero, axis=axis).tobytes()
    np.testing.assert_array_equal(got_dq, oracle.dequantize(got_q, scale, zero, axis=axis))


def unknown_rows(x: np.ndarray[Any, Any]) -> Any:
    """``x`` as a dask array whose chunks along axis 0 have unknown sizes (nan), as boolean indexing leaves them;
    the rows kept are those whose first value is not negative."""
    lazy = da.from_array(x, chunks=(4, 3))
    kept = lazy[lazy[:, 0] >= 0]
    assert np.isnan(kept.shape[0]) and not np.isnan(kept.shape[1])
    return kept


def test_unknown_chunk_sizes_round_and_per_tensor_or_known_axis_values() -> None:
    x = values(np.float32, (23, 7))
    kept_rows = x[x[:, 0] >= 0]
    rounded = dml.round(unknown_rows(x)).compute(scheduler="threads")
    assert rounded.tobytes() == np.rint(kept_rows).tobytes()

    scale = np.linspace(0.5, 2.0, 7).astype(np.float32)
    zero = np.arange(-3, 4, dtype=np.int8)
    for s, z, axis in [(np.float32(0.5), np.int8(3), None), (scale, zero, 1), (np.float32(0.5), zero, -1)]:
        lazy_q = dml.quantize_linear(unknown_rows(x), s, z, axis=axis)
        q = lazy_q.compute(scheduler="threads")
        np.testing.assert_array_equal(q, oracle.quantize(kept_rows, s, z, axis=axis, out_dtype=np.int8))
        dq = dml.dequantize_linear(lazy_q, s, z, axis=axis).compute(scheduler="threads")
        np.testing.assert_array_equal(dq, oracle.dequantize(q, s, z, axis=axis))


@pytest.mark.parametrize("operation", ["quantize_linear", "dequantize_linear"])
@pytest.mark.parametrize("per_axis", ["scale", "zero_point"])
def test_per_axis_values_along_an_axis_of_unknown_chunks_are_refused(operation: str, per_axis: str) -> None:
    x = values(np.float32, (23, 7))
    lazy = unknown_rows(x) if operation == "quantize_linear" else unknown_rows(x).astype(np.int8)
    parameters = {"scale": np.float32(0.5), "zero_point": np.int8(1)}
    parameters[per_axis] = np.ones(3, np.float32) if per_axis == "scale" else np.ones(3, np.int8)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        getattr(dml, operation)(lazy, parameters["scale"], parameters["zero_point"], axis=0)
    message = str(refused.value)
    assert f"{per_axis} has 3 values along axis 0" in message, message
    assert "x.compute_chunk_sizes()" in message and "unknown" in message, message


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_empty_dask_arrays_give_empty_results(shape: tuple[int, int]) -> None:
    """Their scale and zero point are checked against the one length that matters (it was an IndexError)."""
    x = np.zeros(shape, np.float32)
    scale = np.float32(0.5) if shape[1] == 0 else np.ones(3, np.float32)
    q = dml.quantize_linear(da.from_array(x, chunks=2), scale, np.uint8(3), axis=1)
    expected = dml.quantize_linear(x, scale, np.uint8(3), axis=1)
    got = q.compute(scheduler="threads")
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype) == (shape, np.uint8)


def test_nothing_is_computed_at_the_call() -> None:
    def explode(block: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        raise AssertionError("computed at the call")

    lazy = da.zeros((8, 8), chunks=4, dtype=np.float32).map_blocks(explode, dtype=np.float32)
    results = [dml.round(lazy), dml.quantize_linear(lazy, 0.5, np.uint8(1))]
    assert all(isinstance(r, da.Array) for r in results)


def test_blocks_run_the_plans_not_the_public_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every argument is checked once, when the graph is built; each block then runs the one-liner's plan through
    the runner. Here the public one-liners and their checked bodies (round_array, quantize_array,
    dequantize_array) raise wherever dmlpy holds them while the graphs compute, which a block that called one of
    them back would hit; the graphs pickle (nothing holding OpenCL state in them), and compute what the NumPy
    path computes, masked blocks included."""
    x = values(np.float32, (9, 10)) * 3
    scale = np.linspace(0.5, 2.0, 10).astype(np.float32)
    zero = np.arange(10, dtype=np.int8)
    masked_x = np.ma.masked_array(x, mask=x > 100)
    lazy = da.from_array(x, chunks=(4, 3))
    lazy_masked = da.ma.masked_array(da.from_array(x, chunks=(4, 3)), mask=x > 100)
    q = dml.quantize_linear(x, scale, zero, axis=1, mode="ROUND_UP")
    graphs = {
        "round": (dml.round(lazy, mode="toward_zero"), dml.round(x, mode="toward_zero")),
        "round extension": (dml.round(lazy.astype(np.float64)), dml.round(x.astype(np.float64))),
        "round masked": (dml.round(lazy_masked), dml.round(masked_x)),
        "quantize extension": (dml.quantize_linear(lazy, scale, zero, axis=1, mode="ROUND_UP"), q),
        "quantize masked": (dml.quantize_linear(lazy_masked, 0.5, np.uint8(3)), dml.quantize_linear(masked_x, 0.5, 3)),
        "dequantize": (
            dml.dequantize_linear(da.from_array(q, chunks=(2, 4)), scale, zero, axis=1),
            dml.dequantize_linear(q, scale, zero, axis=1),
        ),
    }
    public = [one_liners.round, one_liners.quantize_linear, one_liners.dequantize_linear]
    checked_bodies = [round_array, quantize_array, dequantize_array]
    for callee in public + checked_bodies:

        def called_back(*args: Any, name: str = callee.__name__, **kwargs: Any) -> None:
            raise AssertionError(f"a Dask block called {name} back")

        for module in [m for name, m in sys.modules.items() if name.split(".")[0] == "dmlpy"]:
            for attribute, value in list(vars(module).items()):
                if value is callee:
                    monkeypatch.setattr(module, attribute, called_back)
    assert sys.modules["dmlpy.arrays.quantize"].quantize_array is not quantize_array  # the patch took
    for name, (result, expected) in graphs.items():
        pickle.dumps(dict(result.__dask_graph__()))  # a dml.Device or pyopencl object in it would not pickle
        got = result.compute(scheduler="threads")
        assert type(got) is type(expected) and got.dtype == expected.dtype, name
        assert np.ma.getdata(got).tobytes() == np.ma.getdata(expected).tobytes(), name
        if isinstance(expected, np.ma.MaskedArray):
            np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(expected), err_msg=name)


def test_refusals_say_what_to_do() -> None:
    lazy = da.zeros((4, 4), chunks=2, dtype=np.float32)
    with pytest.raises(dml.InvalidArgumentError, match="cannot travel to Dask workers; pass device=None"):
        dml.round(lazy, device=dml.default_device())
    with pytest.raises(dml.InvalidArgumentError, match="out= is not taken with a dask array"):
        dml.round(lazy, out=np.empty((4, 4), np.float32))
    with pytest.raises(dml.InvalidArgumentError, match="x is a dask array of int64; quantize_linear takes"):
        dml.quantize_linear(da.zeros(4, dtype=np.int64), 0.5)
    with pytest.raises(dml.InvalidArgumentError, match="scale has 3 values but the input's axis 1 has 4"):
        dml.quantize_linear(lazy, np.ones(3, np.float32), axis=1)
    with pytest.raises(dml.InvalidArgumentError, match="devices= splits a host"):
        dml.round(lazy, devices=[dml.default_device()])


def test_a_device_index_is_opened_once_per_process() -> None:
    from dmlpy.arrays.dask import worker_device

    index = next(e.index for e in dml.devices() if e.cl_device == dml.default_device().cl_device)
    x = values(np.float32)
    got = dml.round(da.from_array(x, chunks=10), device=index).compute(scheduler="threads")
    assert got.tobytes() == np.rint(x).tobytes()
    assert worker_device(index) is worker_device(index)


def test_without_dask_a_dask_array_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    lazy = da.zeros(4, dtype=np.float32)
    monkeypatch.setitem(sys.modules, "dask.array", None)  # import dask.array now raises ImportError
    with pytest.raises(dml.UnsupportedError, match=r"pip install 'dmlpy\[dask\]'"):
        dml.round(lazy)
