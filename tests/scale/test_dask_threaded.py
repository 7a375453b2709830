"""The one-liners on Dask arrays under the threaded scheduler: lazy results of the same chunks, equal to the
NumPy one-liners (themselves tested against independent references) and to NumPy's own rounding, per-axis values
cut to each chunk, nothing computed at the call, and refusals that say what to do."""

from __future__ import annotations

import sys
from typing import Any

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is a test dependency (pip install -e .[dev])")

import dmlpy as dml  # noqa: E402

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


def test_nothing_is_computed_at_the_call() -> None:
    def explode(block: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        raise AssertionError("computed at the call")

    lazy = da.zeros((8, 8), chunks=4, dtype=np.float32).map_blocks(explode, dtype=np.float32)
    results = [dml.round(lazy), dml.quantize_linear(lazy, 0.5, np.uint8(1))]
    assert all(isinstance(r, da.Array) for r in results)


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
    from dmlpy.runtime.dask_arrays import worker_device

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
