"""The one-liners on a real ``dask.distributed.LocalCluster`` of 2 worker processes (started and closed here, on
the loopback interface): values for every dtype and a spread of modes, each worker opening its device once and
reusing its compiled kernels, a zarr store round trip, and a worker killed mid-computation (Dask retries the lost
tasks; the result is still right)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is a test dependency (pip install -e .[dev])")
distributed = pytest.importorskip("distributed", reason="dask.distributed is a test dependency")
zarr = pytest.importorskip("zarr", reason="zarr is a test dependency")

import dmlpy as dml  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
    )
    with distributed.Client(cluster) as connected:
        yield connected
    cluster.close()


def worker_state() -> tuple[int, int, int]:
    """(process id, the default device's identity, compiled operators cached) in the worker that runs it."""
    from dmlpy.arrays import dispatch
    from dmlpy.runtime.device_choice import default_device

    return os.getpid(), id(default_device(extensions=True)), len(dispatch._compiled)


def test_two_worker_processes_compute_every_dtype(client: Any) -> None:
    rng = np.random.default_rng(3)
    base = (rng.integers(-4000, 4000, (64, 96)) / 8).astype(np.float64)
    base[0, :4] = [0.5, -2.5, np.inf, np.nan]
    lazy_results, expected = [], []
    for dtype, mode, reference in (
        (np.float32, "half_to_even", np.rint),
        (np.float16, "toward_zero", np.trunc),
        (np.float64, "ROUND_UP", np.ceil),
        (ml_dtypes.bfloat16, "ROUND_DOWN", np.floor),
    ):
        x = base.astype(dtype)
        lazy_results.append(dml.round(da.from_array(x, chunks=(16, 32)), mode=mode))
        expected.append(reference(x.astype(np.float64)).astype(dtype))
    x32 = base.astype(np.float32)
    scale = np.linspace(0.5, 2, 96).astype(np.float32)
    q = dml.quantize_linear(da.from_array(x32, chunks=(16, 32)), scale, np.uint8(3) * np.ones(96, np.uint8), axis=1)
    lazy_results.append(q)
    expected.append(dml.quantize_linear(x32, scale, np.uint8(3) * np.ones(96, np.uint8), axis=1))
    got = client.compute(lazy_results, sync=True)
    for result, want in zip(got, expected, strict=True):
        finite = np.isfinite(np.asarray(want, dtype=np.float64))
        assert result.dtype == want.dtype and result.shape == want.shape
        assert result[finite].tobytes() == want[finite].tobytes()
    ran = client.run(worker_state)
    assert len({pid for pid, _, _ in ran.values()}) == 2, "two worker processes"


def test_each_worker_opens_its_device_once_and_reuses_kernels(client: Any) -> None:
    x = da.from_array(np.linspace(-50, 50, 40_000, dtype=np.float32).reshape(200, 200), chunks=(20, 200))
    dml.round(x).compute(scheduler=client)
    before = client.run(worker_state)
    dml.round(x + 0.25).compute(scheduler=client)
    after = client.run(worker_state)
    for address, (pid, device, compiled) in after.items():
        assert before[address][0] == pid
        assert before[address][1] == device, "the worker kept its default device"
        assert compiled == before[address][2], "the same shapes compiled nothing new"


def test_zarr_store_round_trip(client: Any, tmp_path: Path) -> None:
    source, target = tmp_path / "source.zarr", tmp_path / "rounded.zarr"
    values = (np.random.default_rng(5).normal(size=(300, 200)) * 10).astype(np.float32)
    store = zarr.open_array(str(source), mode="w", shape=values.shape, chunks=(100, 50), dtype=values.dtype)
    store[:] = values
    rounded = dml.round(da.from_zarr(str(source)), mode="half_away_from_zero")
    rounded.to_zarr(str(target), compute=True)
    reread = zarr.open_array(str(target), mode="r")[:]
    expected = np.where(
        np.abs(values - np.trunc(values)) >= 0.5, np.trunc(values) + np.sign(values), np.trunc(values)
    ).astype(np.float32)
    assert reread.tobytes() == expected.tobytes()


def slow_block(block: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    time.sleep(0.15)
    return block


def test_a_worker_killed_mid_computation_is_survived(client: Any) -> None:
    values = np.linspace(-1000, 1000, 64 * 4096, dtype=np.float32).reshape(64, 4096) + 0.5
    lazy = dml.round(da.from_array(values, chunks=(2, 4096)).map_blocks(slow_block, dtype=np.float32))
    pids = list(client.run(os.getpid).values())
    future = client.compute(lazy)
    killer = threading.Timer(0.6, os.kill, (pids[0], signal.SIGKILL))
    killer.start()
    try:
        got = future.result(timeout=120)
    finally:
        killer.cancel()
    assert got.tobytes() == np.rint(values).tobytes()
    assert pids[0] not in client.run(os.getpid).values(), "the killed worker was replaced"


def test_a_prepared_onnx_model_runs_its_batch_chunks_on_the_worker_processes(client: Any) -> None:
    """dmlpy.onnx.dask.run_dask: the model's bytes travel, each worker process prepares it once on its device."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    import dmlpy.onnx
    from dmlpy.onnx.dask import run_dask

    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "x"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.random.default_rng(46).standard_normal((12, 5)).astype(np.float32)
    (lazy,) = run_dask(dmlpy.onnx.prepare(model), [da.from_array(x, chunks=(5, 5))])
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(client.compute(lazy, sync=True), want)
