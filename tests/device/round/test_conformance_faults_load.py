"""Faults (kernel build failure, out of device memory, a device capped below DML_FEATURE_LEVEL_2_1) and load
(8 threads sharing one device, 1,000 mixed calls each, no leaked buffers)."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections import Counter
from typing import Any

import numpy as np
import pyopencl as cl
import pytest

import dmlpy as dml
from dmlpy.kernels import KernelSpec
from tests.helpers.modes import DML_ROUNDING_MODES as MODES
from tests.helpers.operators import unary_descriptor
from tests.helpers.references import assert_rounded, round_reference


def _round_desc(dtype: type = np.float32, sizes: tuple[int, ...] = (1, 1, 2, 4)) -> Any:
    return unary_descriptor(dml.ElementWiseRoundOperatorDesc, sizes, dtype)


def _works(device: Any) -> None:
    x = np.array([-2.5, -1.5, 0.5, 2.5, 3.7], np.float32)
    assert dml.round(x, device=device).tolist() == [-2.0, -2.0, 0.0, 2.0, 4.0]


# --- faults ------------------------------------------------------------------------------------------------


def test_kernel_build_failure_is_a_dml_error_with_the_build_log(device: Any) -> None:
    spec = KernelSpec(
        "element_wise_round.cl",
        "element_wise_round",
        (("DML_FLOAT16", "0"), ("ELEMENTS_PER_ITEM", "does_not_exist"), ("RANK", "0"), ("VECTOR_WIDTH", "8")),
    )
    with pytest.raises(dml.KernelBuildError) as caught:
        device.programs.get(spec)
    error = caught.value
    assert isinstance(error, dml.DmlError)
    assert error.build_log.strip(), "the build log is empty"
    assert "does_not_exist" in error.build_log, error.build_log
    assert "does_not_exist" in str(error) and "element_wise_round.cl" in str(error)
    # The failure is not cached as a program, and the device keeps working.
    with pytest.raises(dml.KernelBuildError):
        device.programs.get(spec)
    _works(device)


def test_kernel_build_failure_does_not_poison_other_kernels(device: Any) -> None:
    spec = KernelSpec(
        "element_wise_round.cl", "element_wise_round", (("RANK", "0"), ("VECTOR_WIDTH", "5"))
    )  # no vload5
    with pytest.raises(dml.KernelBuildError):
        device.programs.get(spec)
    compiled = device.compile_operator(device.create_operator(_round_desc(np.float16, (2, 1, 3, 5))))
    assert compiled.launchable is not None
    _works(device)


@pytest.mark.parametrize("size", ["over_max_alloc", "2**62"])
def test_out_of_device_memory_is_clear_and_the_device_survives(device: Any, size: str) -> None:
    limit = device.cl_device.max_mem_alloc_size
    nbytes = limit + 1 if size == "over_max_alloc" else 2**62
    started = time.perf_counter()
    with pytest.raises(dml.OutOfMemoryError) as caught:
        device.create_buffer(nbytes)
    assert time.perf_counter() - started < 5, "refusing a huge allocation took too long"
    assert isinstance(caught.value, dml.DmlError) and isinstance(caught.value, MemoryError)
    assert str(nbytes) in str(caught.value) and "bytes" in str(caught.value)
    _works(device)
    buffer = device.upload(np.arange(8, dtype=np.float32))
    assert buffer.read(np.float32, 8).tolist() == list(range(8))


@pytest.mark.parametrize("cap", ["FL_1_0", "FL_2_0", dml.FeatureLevel.FL_2_0, 0x2000])
def test_device_capped_below_2_1_refuses_round(cap: Any) -> None:
    capped = dml.create_device(max_feature_level=cap)
    assert capped.feature_level < dml.FeatureLevel.FL_2_1
    with pytest.raises(dml.UnsupportedError) as caught:
        capped.create_operator(_round_desc())
    assert "ELEMENT_WISE_ROUND" in str(caught.value) and "2_1" in str(caught.value)
    assert caught.value.hresult == 0x887A0004
    with pytest.raises(dml.UnsupportedError):
        dml.validate(_round_desc(), capped.feature_level)
    # At 2_1 the same descriptor works; 4-D only until 3_0.
    at_2_1 = dml.create_device(max_feature_level="FL_2_1")
    at_2_1.compile_operator(at_2_1.create_operator(_round_desc()))
    with pytest.raises(dml.InvalidArgumentError):
        at_2_1.create_operator(_round_desc(sizes=(8,)))


def test_minimum_level_above_cap_is_unsupported() -> None:
    with pytest.raises(dml.UnsupportedError):
        dml.create_device(minimum_feature_level="FL_2_1", max_feature_level="FL_2_0")


# --- load --------------------------------------------------------------------------------------------------

THREADS = 8
CALLS = 1000
SHAPES = [(7,), (64,), (3, 5), (2, 3, 4), (1, 9, 1), (4, 4, 4, 3), (2, 1, 3, 1, 5), (33,), (2, 2, 2, 2, 2, 2, 2, 2)]


class LiveBuffers:
    """Counts pyopencl buffers that are alive. pyopencl's Buffer takes no weak references, so ``cl.Buffer`` is
    swapped for a subclass that does, for every buffer dmlpy creates (``dml.round``'s host-pointer buffers and
    ``device.create_buffer``'s device allocations). PoCL has no "device memory in use" query (OpenCL defines
    none); the bytes held by live buffers stand in for it, and RSS is checked as a second, coarser signal."""

    def __init__(self) -> None:
        self.refs: list[weakref.ref[Any]] = []
        self.lock = threading.Lock()
        tracker = self

        class TrackedBuffer(cl.Buffer):  # type: ignore[misc]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                with tracker.lock:
                    tracker.refs.append(weakref.ref(self))

        self.cls = TrackedBuffer

    def live(self) -> tuple[int, int]:
        gc.collect()
        alive = [ref() for ref in self.refs]
        alive = [buffer for buffer in alive if buffer is not None]
        return len(alive), sum(buffer.size for buffer in alive)


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def _call(device: Any, rng: np.random.Generator, tally: Counter[str]) -> None:
    shape = SHAPES[rng.integers(len(SHAPES))]
    dtype = np.float32 if rng.integers(2) else np.float16
    mode = MODES[rng.integers(3)]
    x = (rng.integers(-64, 64, shape) / 4.0 + rng.uniform(-0.01, 0.01, shape) * rng.integers(0, 2, shape)).astype(dtype)
    kind = rng.integers(4)
    if kind == 0:  # in place
        work = x.copy()
        dml.round(work, mode=mode, out=work, device=device)
        got = work
    elif kind == 1 and x.ndim >= 2:  # a transposed view into a fresh out
        x = x.T
        got = dml.round(x, mode=mode, device=device)
    elif kind == 2:  # the object model, with a binding offset
        got = _object_model_call(device, x, mode)
    else:
        got = dml.round(x, mode=mode, device=device)
    assert_rounded(x, got, mode)
    tally["calls"] += 1


_COMPILED: dict[Any, Any] = {}
_COMPILED_LOCK = threading.Lock()


def _object_model_call(device: Any, x: np.ndarray, mode: dml.RoundingMode) -> np.ndarray:
    data_type = dml.TensorDataType.FLOAT32 if x.dtype == np.float32 else dml.TensorDataType.FLOAT16
    td = dml.BufferTensorDesc(data_type=data_type, sizes=x.shape)
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode=mode)
    recorder = device.create_command_recorder()
    key = (id(device), desc)
    with _COMPILED_LOCK:  # compiled operators are shared between threads; each is initialized once
        compiled = _COMPILED.get(key)
        if compiled is None:
            compiled = device.compile_operator(device.create_operator(desc))
            initializer = device.create_operator_initializer([compiled])
            recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
            _COMPILED[key] = compiled
    size = td.total_tensor_size_in_bytes
    buffer = device.create_buffer(32 + 2 * size)
    buffer.write(x, offset=16)
    out_offset = (16 + size + 15) & ~15
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer, 16, size)])
    table.bind_outputs([dml.BufferBinding(buffer, out_offset, size)])
    recorder.record_dispatch(device.queue, compiled, table).wait()
    return buffer.read(x.dtype, x.shape, out_offset)


def test_eight_threads_share_one_device(monkeypatch: pytest.MonkeyPatch, tally: Counter[str]) -> None:
    device = dml.default_device()
    tracker = LiveBuffers()
    monkeypatch.setattr(cl, "Buffer", tracker.cls)
    counts: Counter[str] = Counter()
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def worker(index: int, calls: int, tally_into: Counter[str]) -> None:
        rng = np.random.default_rng(1000 + index)
        local: Counter[str] = Counter()
        try:
            barrier.wait()
            for _ in range(calls):
                _call(device, rng, local)
        except BaseException as error:  # reported below, with the thread's traceback
            errors.append(error)
        with tracker.lock:
            tally_into.update(local)

    def run_threads(calls: int, tally_into: Counter[str]) -> None:
        threads = [threading.Thread(target=worker, args=(i, calls, tally_into)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]

    # Warm up with the same eight threads: every kernel kind gets built and the caches fill, and the C allocator
    # grows its per-thread arenas to their working size. Those high-water marks are not leaks; a leak grows
    # with every call of the measured round below.
    run_threads(CALLS // 4, Counter())
    gc.collect()
    live_before = tracker.live()
    rss_before = _rss_bytes()

    run_threads(CALLS, counts)
    assert counts["calls"] == THREADS * CALLS

    live_after = tracker.live()
    created = len(tracker.refs)
    assert created > THREADS * CALLS, "the tracker saw too few buffers; is cl.Buffer still how dmlpy allocates?"
    assert live_after == live_before, f"live OpenCL buffers (count, bytes) {live_before} -> {live_after}"
    growth = _rss_bytes() - rss_before
    assert growth < 64 << 20, f"RSS grew by {growth >> 20} MiB over {THREADS * CALLS} calls"
    tally["threads x calls"] += THREADS * CALLS
    tally["load: OpenCL buffers created and freed"] += created


def test_reference_sanity_for_load_values() -> None:
    x = np.array([-0.25, 0.25, 15.75, -15.5], np.float16)
    assert round_reference(x, "TOWARD_INFINITY").tolist() == [-0.0, 0.0, 16.0, -16.0]
