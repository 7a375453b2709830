"""A binding table shared by two threads never makes a dispatch write outside a checked binding (issue 12,
defect 3).

DirectML calls binding tables not thread-safe; dmlpy promises only that nothing is written outside the bindings
it checked. One thread retargets the table between a 32-element and a 4-element operator, binding each to ranges
of its size; the other records dispatches of whichever operator it last saw in the table. Before the fix, a
dispatch checked the table's operator, then read bindings another thread had just replaced, and launched the
32-element kernel over a 16-byte binding. Each output range is followed by a sentinel; after a bounded number
of iterations the sentinels must be intact and every refused dispatch must have raised a dmlpy error."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

import dmlpy as dml

BUFFER_BYTES = 256
SENTINEL = 0xA5
ITERATIONS = 10_000
"""Dispatches the recording thread attempts."""
MAX_REBINDS = 100 * ITERATIONS
"""Table states the binding thread sets at most; it stops as soon as the recording thread is done."""


def _compiled(device: dml.Device, elements: int) -> dml.CompiledOperator:
    tensor = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(1, 1, 1, elements))
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
    compiled = device.compile_operator(device.create_operator(desc))
    device.create_operator_initializer([compiled]).initialize()
    return compiled


@pytest.fixture
def frequent_thread_switches() -> Iterator[None]:
    """Threads switch every 10 microseconds instead of 5 ms, so the two threads interleave often."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


@pytest.mark.usefixtures("frequent_thread_switches")
def test_shared_table_never_writes_past_a_binding(device: dml.Device, tally: Counter[str]) -> None:
    big, small = _compiled(device, 32), _compiled(device, 4)
    sizes = {big: 32 * 4, small: 4 * 4}
    sentinel = np.full(BUFFER_BYTES, SENTINEL, np.uint8)
    # Inputs hold 1.5 everywhere (rounded: 2.0, bytes unlike the sentinel); outputs the sentinel everywhere.
    inputs = {op: device.upload(np.full(BUFFER_BYTES // 4, 1.5, np.float32)) for op in (big, small)}
    outputs = {op: device.upload(sentinel) for op in (big, small)}
    table = device.create_binding_table(big)
    recorder = device.create_command_recorder()
    stop = threading.Event()
    binder_errors: list[BaseException] = []

    def bind_forever() -> None:
        try:
            for step in range(MAX_REBINDS):
                if stop.is_set():
                    return
                op = big if step % 2 else small
                table.reset(op)
                table.bind_inputs([dml.BufferBinding(inputs[op], 0, sizes[op])])
                table.bind_outputs([dml.BufferBinding(outputs[op], 0, sizes[op])])
                time.sleep(0)  # yield, so the recording thread often finds a fully bound table
        except BaseException as error:  # reported below: the binder's calls are all valid
            binder_errors.append(error)

    binder = threading.Thread(target=bind_forever)
    refused: Counter[str] = Counter()
    launched = 0
    binder.start()
    try:
        for _ in range(ITERATIONS):
            op = table.dispatchable  # what the table holds now; by the time it is dispatched, maybe not
            try:
                recorder.record_dispatch(device.queue, op, table)
                launched += 1
            except dml.DmlError as error:
                refused[type(error).__name__] += 1
    finally:
        stop.set()
        binder.join()
    device.queue.finish()
    assert not binder_errors, binder_errors
    for op, buffer in outputs.items():
        got = buffer.read(np.uint8, BUFFER_BYTES)
        assert (got[sizes[op] :] == SENTINEL).all(), (
            f"a dispatch wrote past the {sizes[op]}-byte binding: bytes "
            f"{(sizes[op] + np.flatnonzero(got[sizes[op] :] != SENTINEL)).tolist()} of the output buffer changed"
        )
        written = got[: sizes[op]].view(np.float32)
        assert ((written == 2.0) | (got[: sizes[op]].reshape(-1, 4) == SENTINEL).all(axis=1)).all(), written
    assert launched + sum(refused.values()) == ITERATIONS
    assert set(refused) <= {"InvalidArgumentError"}, refused
    tally["threads x calls (shared binding table)"] += 2 * ITERATIONS


def test_snapshot_is_checked_against_the_launched_operator(device: dml.Device) -> None:
    """A table whose bindings were made for the 4-element operator (here by hand, as the race did) is refused
    when the 32-element operator is dispatched: each binding is checked against the operator that runs."""
    big, small = _compiled(device, 32), _compiled(device, 4)
    inputs, outputs = device.upload(np.ones(64, np.float32)), device.upload(np.full(256, SENTINEL, np.uint8))
    small_table = device.create_binding_table(small)
    small_table.bind_inputs([dml.BufferBinding(inputs, 0, 16)])
    small_table.bind_outputs([dml.BufferBinding(outputs, 0, 16)])
    table = device.create_binding_table(big)
    table.inputs, table.outputs = list(small_table.inputs), list(small_table.outputs)
    with pytest.raises(dml.InvalidArgumentError, match=r"SizeInBytes is 16; it must be at least .*\(128\)"):
        device.create_command_recorder().record_dispatch(device.queue, big, table)
    device.queue.finish()
    assert (outputs.read(np.uint8, 256) == SENTINEL).all()


def test_snapshot_holds_one_state(device: dml.Device) -> None:
    big, small = _compiled(device, 32), _compiled(device, 4)
    table = device.create_binding_table(big)
    buffer = device.create_buffer(256)
    table.bind_inputs([dml.BufferBinding(buffer, 0, 128)])
    before = table.snapshot()
    table.reset(small)
    assert before.dispatchable is big and len(before.inputs) == 1 and before.outputs == ()
    after = table.snapshot()
    assert after.dispatchable is small and after.inputs == () and after.outputs == ()
