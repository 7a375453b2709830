"""IDMLCommandRecorder: turns a dispatchable and its binding table into an enqueued OpenCL kernel."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyopencl as cl

from dmlpy.errors import InvalidArgumentError
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.dispatchables import CompiledOperator, Dispatchable

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device


class CommandRecorder:
    """Records dispatches onto an OpenCL command queue (DirectML records onto a D3D12 command list)."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def record_dispatch(self, queue: cl.CommandQueue, dispatchable: Dispatchable, table: BindingTable) -> cl.Event:
        """IDMLCommandRecorder::RecordDispatch. Every rule is checked first; on any error nothing is enqueued.

        Returns the OpenCL event of the dispatch; wait on it (or on ``queue.finish()``) before reading.
        """
        if table.dispatchable is not dispatchable:
            raise InvalidArgumentError(
                f"the binding table was made for {table.dispatchable!r}, not {dispatchable!r}; "
                "create_binding_table(dispatchable) or table.reset(dispatchable) first"
            )
        if dispatchable.device is not self.device:
            raise InvalidArgumentError(f"{dispatchable!r} belongs to another device than this command recorder")
        if queue.context != self.device.context:
            raise InvalidArgumentError("the queue belongs to another OpenCL context than this device's")
        if not isinstance(dispatchable, CompiledOperator):
            dispatchable.initialize()
            return cl.enqueue_marker(queue)
        if not dispatchable.initialized:
            raise InvalidArgumentError(
                f"{dispatchable.name} has not been initialized. DirectML requires every compiled operator to "
                "be initialized once before its first dispatch: record a dispatch of "
                "device.create_operator_initializer([compiled]) first"
            )
        bound = table.complete_bindings(dispatchable)
        # An absent optional tensor stays in its argument slot as a NULL buffer, so every kernel of an operator
        # keeps one positional signature.
        offsets = dispatchable.element_offsets([entry.binding.offset if entry else 0 for entry in bound])
        memories = [entry.binding.buffer.memory if entry else None for entry in bound]  # type: ignore[attr-defined]
        return dispatchable.launchable.launch(queue, list(zip(memories, offsets, strict=True)))
