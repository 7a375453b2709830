"""Several OpenCL devices in one process: PoCL's CPU device split into sub-devices (clCreateSubDevices), real and
separate OpenCL devices, and the one-liners' ``devices=`` splitting one host array across them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.arrays import runner


@pytest.fixture(scope="module")
def halves() -> list[Any]:
    splittable = [
        e for e in dml.devices() if e.max_sub_devices >= 2 and e.compute_units >= 2 and e.compiler_error is None
    ]
    if not splittable:
        pytest.skip("no OpenCL device here splits into two sub-devices")
    return dml.sub_devices(2, splittable[0].index, extensions=True)  # nGraph modes run the extension


def test_devices_lists_compute_units_and_sub_devices() -> None:
    entries = dml.devices()
    assert entries and [e.index for e in entries] == list(range(len(entries)))
    assert all(e.compute_units >= 1 and e.max_sub_devices >= 1 for e in entries)


def test_sub_devices_are_separate_devices_with_their_share(halves: list[Any]) -> None:
    assert len(halves) == 2 and halves[0].cl_device != halves[1].cl_device
    assert all(d.cl_device.max_compute_units >= 1 for d in halves)
    assert all(d.cl_device.parent_device is not None for d in halves)


@pytest.mark.parametrize("shape", [(7,), (7, 5), (1, 9, 4), (3_000_001,)], ids=str)
@pytest.mark.parametrize("mode", ["half_to_even", "toward_zero", "half_away_from_zero", "ROUND_DOWN"])
def test_round_split_across_sub_devices_equals_one_device(halves: list[Any], shape: tuple[int, ...], mode: str) -> None:
    x = (np.random.default_rng(2).normal(size=shape) * 100).astype(np.float32)
    x.flat[:3] = [0.5, -2.5, 1.5]
    assert dml.round(x, mode=mode, devices=halves).tobytes() == dml.round(x, mode=mode).tobytes()
    out = np.empty_like(x)
    assert dml.round(x, mode=mode, out=out, devices=halves) is out
    assert out.tobytes() == dml.round(x, mode=mode).tobytes()


@pytest.mark.parametrize("axis", [0, 1, None])
def test_quantize_split_cuts_per_axis_values_with_the_array(halves: list[Any], axis: int | None) -> None:
    x = (np.random.default_rng(4).normal(size=(9, 6)) * 50).astype(np.float32)
    length = 1 if axis is None else x.shape[axis]
    scale = np.linspace(0.3, 2.0, length).astype(np.float32)
    zero = (np.arange(length) % 5).astype(np.int8)
    args: tuple[Any, ...] = (scale[0], zero[0]) if axis is None else (scale, zero)
    q = dml.quantize_linear(x, *args, axis=axis, devices=halves)
    assert q.tobytes() == dml.quantize_linear(x, *args, axis=axis).tobytes()
    dq = dml.dequantize_linear(q, *args, axis=axis, devices=halves)
    assert dq.tobytes() == dml.dequantize_linear(q, *args, axis=axis).tobytes()


def test_a_failing_device_leaves_out_untouched_and_is_named(halves: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    real = runner.run

    def second_fails(call: Any, device: Any) -> None:
        if device is halves[1]:
            raise dml.DeviceRemovedError("the device was lost (simulated)")
        real(call, device)

    monkeypatch.setattr(runner, "run", second_fails)
    x = np.linspace(-10, 10, 1000, dtype=np.float32).reshape(100, 10)
    out = np.full_like(x, 123.0)
    with pytest.raises(dml.DeviceRemovedError, match=r"failed on its piece \(axis 0, 50:100\).*nothing was written"):
        dml.round(x, out=out, devices=halves)
    assert (out == 123.0).all(), "the first device's half must not reach out"


def test_a_failing_device_in_the_partial_block_leaves_out_untouched(
    halves: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # ONNX's partial last block is a second run: its failure must not leave the first run's blocks in out.
    real = runner.run
    calls: list[Any] = []

    def second_run_fails(call: Any, device: Any) -> None:
        calls.append(device)
        if len(calls) > 2:  # the whole blocks' two pieces ran; the partial block's first piece fails
            raise dml.DeviceRemovedError("the device was lost (simulated)")
        real(call, device)

    monkeypatch.setattr(runner, "run", second_run_fails)
    x = np.linspace(-10, 10, 90, dtype=np.float32).reshape(9, 10)
    out = np.full((9, 10), 123, np.uint8)
    with pytest.raises(dml.DeviceRemovedError, match="nothing was written"):
        dml.quantize_linear(x, np.ones((9, 3), np.float32), axis=1, block_size=4, out=out, devices=halves)
    assert (out == 123).all(), "the whole blocks' run must not reach out"


def test_devices_refusals(halves: list[Any]) -> None:
    x = np.zeros(4, np.float32)
    with pytest.raises(dml.InvalidArgumentError, match="device= or devices=, not both"):
        dml.round(x, device=halves[0], devices=halves)
    with pytest.raises(dml.InvalidArgumentError, match="lists one device twice"):
        dml.round(x, devices=[halves[0], halves[0]])
    with pytest.raises(dml.InvalidArgumentError, match=r"devices\[1\] must be a dml.Device"):
        dml.round(x, devices=[halves[0], 1])
    with pytest.raises(dml.UnsupportedError, match="splits into at most"):
        dml.sub_devices(64)


def test_dmlpy_device_picks_the_default_device_by_index() -> None:
    """How a Dask worker (or any process not given device=) is pinned to one device of its node."""
    import os
    import subprocess
    import sys

    entries = dml.devices()
    last = len(entries) - 1
    probe = (
        "import os, dmlpy as dml; chosen = dml.devices()[int(os.environ['DMLPY_DEVICE'])]; "
        "print(dml.default_device().cl_device.int_ptr == chosen.cl_device.int_ptr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env={**os.environ, "DMLPY_DEVICE": str(last)}, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr[-2000:]
    wrong = subprocess.run(
        [sys.executable, "-c", "import dmlpy as dml; dml.default_device()"],
        env={**os.environ, "DMLPY_DEVICE": str(last + 5)},
        capture_output=True,
        text=True,
    )
    assert wrong.returncode != 0 and f"DMLPY_DEVICE is '{last + 5}'" in wrong.stderr


@pytest.mark.parametrize("block_size", [3, 4], ids=["partial-last-block", "whole-blocks"])
def test_blocked_quantize_split_cuts_the_split_views(halves: list[Any], block_size: int) -> None:
    # The pieces cut the split views (input, scale, zero point and output alike), so each keeps its blocks' scales.
    x = (np.random.default_rng(5).normal(size=(9, 8)) * 50).astype(np.float32)
    blocks = -(-8 // block_size)
    scale = np.linspace(0.3, 2.0, 9 * blocks).astype(np.float32).reshape(9, blocks)
    zero = (np.arange(9 * blocks) % 5).astype(np.int8).reshape(9, blocks)
    q = dml.quantize_linear(x, scale, zero, axis=1, block_size=block_size, devices=halves)
    assert q.tobytes() == dml.quantize_linear(x, scale, zero, axis=1, block_size=block_size).tobytes()
    out = np.empty((9, 8), np.float32)
    dml.dequantize_linear(q, scale, zero, axis=1, block_size=block_size, out=out, devices=halves)
    assert out.tobytes() == dml.dequantize_linear(q, scale, zero, axis=1, block_size=block_size).tobytes()
