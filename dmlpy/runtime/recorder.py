"""IDMLCommandRecorder: turns a dispatchable and its binding table into an enqueued OpenCL kernel."""

from __future__ import annotations

from collections.abc import Sequence

import pyopencl as cl

from dmlpy.binding import BoundTensor, BufferBinding
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import CompiledGraph, CompiledOperator, Dispatchable, OperatorInitializer
from dmlpy.runtime.fork import check_process

CheckedDispatch = tuple[list[tuple[BoundTensor | None, cl.Buffer | None]], tuple[BufferBinding, cl.Buffer] | None]
"""What a checked dispatch launches: each tensor's binding and OpenCL memory in binding order, and the temporary
resource's (``BindingTable.check_snapshot`` and ``check_temporary``)."""


class CommandRecorder:
    """IDMLCommandRecorder: records dispatches onto an OpenCL command queue (DirectML records onto a D3D12
    command list)."""

    def __init__(self, device: DeviceBase) -> None:
        self.device = device

    def record_dispatch(
        self,
        queue: cl.CommandQueue,
        dispatchable: Dispatchable,
        table: BindingTable,
        *,
        wait_for: Sequence[cl.Event] | None = None,
    ) -> cl.Event:
        """IDMLCommandRecorder::RecordDispatch. Every rule is checked first; on any error nothing is enqueued.

        The table is read once, as one consistent snapshot (``table.snapshot()``), which is checked completely
        against ``dispatchable`` and is exactly what is launched, whatever another thread binds meanwhile.
        Returns the OpenCL event of the dispatch without waiting for it; wait on it (or on ``queue.finish()``)
        before reading. ``wait_for``: OpenCL events the dispatch must follow (its event wait list), for work on
        other queues or out-of-order ones; an in-order queue already orders what was enqueued on it.
        """
        checked = self.checked_dispatch(queue, dispatchable, table)
        if checked is None:
            return cl.enqueue_marker(queue, wait_for=wait_for)
        assert not isinstance(dispatchable, OperatorInitializer), "an initializer has no bindings to launch"
        # An absent optional tensor stays in its argument slot as a NULL buffer, so every kernel of an operator
        # keeps one positional signature. ``checked`` holds the memory objects until the launch has enqueued.
        return dispatchable.launch(queue, *checked, wait_for)

    def checked_dispatch(
        self, queue: cl.CommandQueue, dispatchable: Dispatchable, table: BindingTable
    ) -> CheckedDispatch | None:
        """``record_dispatch``'s checks, and what it launches: each tensor's binding and memory and the temporary
        resource's, checked (``BindingTable.check_snapshot``); None for an initializer, which it initializes.
        A caller that launches the same bindings again (a graph call's own buffers) launches these directly."""
        check_process()
        where = "record_dispatch"
        if not isinstance(queue, cl.CommandQueue):
            raise argument_error(where, "queue", queue, "a pyopencl.CommandQueue of this device's context")
        if not isinstance(dispatchable, CompiledOperator | CompiledGraph | OperatorInitializer):
            raise argument_error(
                where, "dispatchable", dispatchable, "a CompiledOperator or an OperatorInitializer of this device"
            )
        if not isinstance(table, BindingTable):
            raise argument_error(where, "table", table, "a BindingTable (device.create_binding_table)")
        if dispatchable.device is not self.device:
            raise InvalidArgumentError(f"{dispatchable.describe()} belongs to another device than this recorder")
        if table.device is not self.device:
            raise InvalidArgumentError("record_dispatch: the binding table belongs to another device")
        if queue.context != self.device.context:
            raise InvalidArgumentError(
                "record_dispatch: the queue belongs to another OpenCL context than this device's"
            )
        snapshot = table.snapshot()
        snapshot.check_made_for(dispatchable)  # before an initializer's dispatch too
        if isinstance(dispatchable, OperatorInitializer):
            dispatchable.initialize()
            return None
        if not dispatchable.initialized:
            raise InvalidArgumentError(
                f"{dispatchable.name} has not been initialized. DirectML requires every compiled operator to "
                "be initialized once before its first dispatch: record a dispatch of "
                "device.create_operator_initializer([compiled]) first"
            )
        return table.check_snapshot(snapshot, dispatchable), table.check_temporary(snapshot, dispatchable)
