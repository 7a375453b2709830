"""IDMLBindingTable: which buffer range each tensor of a dispatchable reads or writes."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import pyopencl as cl

from dmlpy.binding import (
    BoundTensor,
    BufferBinding,
    check_aliasing,
    check_temporary_binding,
    check_tensor_binding,
    draw_bindings,
)
from dmlpy.drawing import Picture
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import Compiled, CompiledGraph, CompiledOperator, Dispatchable, OperatorInitializer
from dmlpy.tensor import BufferTensorDesc


@dataclass(frozen=True)
class BindingSnapshot:
    """A binding table's dispatchable and bindings at one instant, taken under the table's lock, so another
    thread's ``reset`` or ``bind_*`` cannot mix two states. A dispatch checks and launches exactly this."""

    dispatchable: Dispatchable
    inputs: tuple[BoundTensor | None, ...]
    outputs: tuple[BoundTensor | None, ...]
    temporary: BufferBinding | None = None

    def check_made_for(self, dispatchable: Dispatchable) -> None:
        """InvalidArgumentError unless the table was made for ``dispatchable`` (the one being dispatched)."""
        if self.dispatchable is not dispatchable:
            raise InvalidArgumentError(
                f"the binding table was made for the {self.dispatchable.describe()}, not the "
                f"{dispatchable.describe()}; create_binding_table(dispatchable) or table.reset(dispatchable) first"
            )


class BindingTable:
    """Bindings for one dispatchable. Every binding is checked when it is bound, and the whole table again,
    against the operator that is launched, when a dispatch is recorded, so a failing call leaves every buffer
    untouched.

    DirectML's binding tables are not thread-safe; dmlpy's are safe in one sense: ``reset`` and ``bind_*``
    change the table under a lock, and a dispatch launches one consistent snapshot that it has checked
    completely, so nothing is ever written outside a checked binding, whatever threads share the table."""

    def __init__(self, device: DeviceBase, dispatchable: Dispatchable) -> None:
        self._lock = threading.Lock()
        self.device = device
        self.dispatchable = self._own("create_binding_table", dispatchable)
        self.inputs: list[BoundTensor | None] = []
        self.outputs: list[BoundTensor | None] = []
        self.temporary: BufferBinding | None = None

    def _own(self, where: str, dispatchable: object) -> Dispatchable:
        if not isinstance(dispatchable, CompiledOperator | CompiledGraph | OperatorInitializer):
            raise argument_error(
                where,
                "dispatchable",
                dispatchable,
                "a CompiledOperator (compile_operator or compile_graph) or an OperatorInitializer of this device",
            )
        if dispatchable.device is not self.device:
            raise InvalidArgumentError(
                f"{where}: the {dispatchable.describe()} belongs to another device than this binding table"
            )
        return dispatchable

    def reset(self, dispatchable: Dispatchable) -> None:
        """IDMLBindingTable::Reset: retarget the table and drop every binding."""
        owned = self._own("BindingTable.reset", dispatchable)
        with self._lock:
            self.dispatchable = owned
            self.inputs, self.outputs, self.temporary = [], [], None

    def snapshot(self) -> BindingSnapshot:
        """The dispatchable and its bindings as one consistent state (see BindingSnapshot)."""
        with self._lock:
            return BindingSnapshot(self.dispatchable, tuple(self.inputs), tuple(self.outputs), self.temporary)

    def _bind(
        self,
        what: str,
        names: list[str],
        descs: Sequence[BufferTensorDesc | None],
        bindings: Sequence[BufferBinding | None],
    ) -> list[BoundTensor | None]:
        if not isinstance(bindings, Sequence) or isinstance(bindings, str | bytes):
            raise argument_error(what, "bindings", bindings, "a list of dml.BufferBinding (or None)")
        for index, binding in enumerate(bindings):
            if binding is not None and not isinstance(binding, BufferBinding):
                raise argument_error(what, f"bindings[{index}]", binding, "a dml.BufferBinding (or None)")
        if len(bindings) != len(descs):
            raise InvalidArgumentError(
                f"{what} got {len(bindings)} bindings; the {self.dispatchable.describe()} takes exactly {len(descs)} "
                f"({', '.join(names) or 'none'}). DirectML removes the device for a wrong count; dmlpy refuses."
            )
        bound: list[BoundTensor | None] = []
        for name, desc, binding in zip(names, descs, bindings, strict=True):
            if binding is None or desc is None:
                if binding is not None:
                    raise InvalidArgumentError(f"{name} is an absent optional tensor; bind None there")
                bound.append(None)
                continue
            self._check_buffer(name, binding)
            entry = BoundTensor(name, desc, binding, is_output=what == "bind_outputs")
            check_tensor_binding(entry)
            bound.append(entry)
        return bound

    def _check_buffer(self, name: str, binding: BufferBinding) -> cl.Buffer:
        """The binding's OpenCL memory, once the buffer is one of this device's and not released."""
        buffer = binding.buffer
        if not isinstance(buffer, Buffer):
            raise InvalidArgumentError(
                f"{name} is bound to a {type(buffer).__name__}, not a buffer of this device (a dmlpy Buffer from "
                "device.create_buffer or device.upload)"
            )
        if buffer.device is not self.device:
            raise InvalidArgumentError(
                f"{name} is bound to a buffer of another device ({buffer.device.name}), not a buffer of this device"
            )
        if buffer.released:
            raise InvalidArgumentError(
                f"{name} is bound to a buffer that was released (buffer.release(), or the end of its with "
                "block); bind a live buffer"
            )
        return buffer.memory  # InvalidArgumentError too if another thread has released it since

    def bind_inputs(self, bindings: Sequence[BufferBinding | None]) -> None:
        """IDMLBindingTable::BindInputs: exactly one binding per input, in order (None for an absent one)."""
        with self._lock:
            compiled = self._compiled()
            if compiled is None:
                self.inputs = self._bind("bind_inputs", [], [], bindings)
                return
            names = compiled.input_names
            self.inputs = self._bind("bind_inputs", names, compiled.input_descs(), bindings)

    def bind_outputs(self, bindings: Sequence[BufferBinding | None]) -> None:
        """IDMLBindingTable::BindOutputs: exactly one binding per output, in order."""
        with self._lock:
            compiled = self._compiled()
            if compiled is None:
                self.outputs = self._bind("bind_outputs", [], [], bindings)
                return
            names = compiled.output_names
            outputs = self._bind("bind_outputs", names, compiled.output_descs(), bindings)
            # Before keeping them: a refused call changes nothing.
            _check_aliasing(compiled, self.inputs, outputs)
            self.outputs = outputs

    def bind_temporary_resource(self, binding: BufferBinding | None) -> None:
        """IDMLBindingTable::BindTemporaryResource: where ``get_binding_properties()`` reports a
        TemporaryResourceSize (a compiled graph whose values pass between kernels), a range of at least that
        many bytes starting at a multiple of DML_TEMPORARY_BUFFER_ALIGNMENT (256); elsewhere only None."""
        with self._lock:
            required = self._temporary_size()
            if required == 0:
                self._refuse_resource("temporary", binding)
                self.temporary = None
                return
            if binding is None:
                self.temporary = None
                return
            if not isinstance(binding, BufferBinding):
                raise argument_error("bind_temporary_resource", "binding", binding, "a dml.BufferBinding or None")
            self._check_buffer("the temporary resource", binding)
            tensors = [entry for entry in (*self.inputs, *self.outputs) if entry is not None]
            check_temporary_binding(binding, required, tensors, owner=self.dispatchable.describe())
            self.temporary = binding

    def _temporary_size(self) -> int:
        compiled = self._compiled()
        return compiled.get_binding_properties().temporary_resource_size if compiled is not None else 0

    def bind_persistent_resource(self, binding: BufferBinding | None) -> None:
        """IDMLBindingTable::BindPersistentResource: dmlpy's operators need none, so only None is accepted."""
        self._refuse_resource("persistent", binding)

    def _refuse_resource(self, kind: str, binding: BufferBinding | None) -> None:
        if binding is not None:
            raise InvalidArgumentError(
                f"bind_{kind}_resource: binding is {_what_binding(binding)}, but the {self.dispatchable.describe()} "
                f"reports a {kind} "
                "resource size of 0 (get_binding_properties); bind None"
            )

    def picture(self) -> Picture:
        """The buffers bound now, each tensor's range at its offset, in-place pairs marked (dmlpy.drawing)."""
        snapshot = self.snapshot()
        compiled = self._compiled()
        tensors = [entry for entry in (*snapshot.inputs, *snapshot.outputs) if entry is not None]
        return draw_bindings(
            f"IDMLBindingTable for the {snapshot.dispatchable.describe()}",
            tensors,
            temporary=snapshot.temporary,
            supports_in_place=compiled is not None and compiled.supports_in_place,
        )

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def _compiled(self) -> Compiled | None:
        return None if isinstance(self.dispatchable, OperatorInitializer) else self.dispatchable

    def check_snapshot(
        self, snapshot: BindingSnapshot, compiled: Compiled
    ) -> list[tuple[BoundTensor | None, cl.Buffer | None]]:
        """Check ``snapshot`` completely against ``compiled``, the operator about to be launched: the table is
        made for it, every tensor is bound (and only those), each binding fits that operator's tensor (offset,
        size, range; a buffer of this device, not released) and the pairs obey the aliasing rules. Returns each
        tensor's binding and OpenCL memory in binding order (None, None for an absent optional tensor); the
        memory objects stay valid while the caller holds them, whatever another thread releases."""
        snapshot.check_made_for(compiled)
        names = [*compiled.input_names, *compiled.output_names]
        descs = [*compiled.input_descs(), *compiled.output_descs()]
        if len(snapshot.inputs) != len(compiled.input_names) or len(snapshot.outputs) != len(compiled.output_names):
            raise InvalidArgumentError(
                f"{compiled.name} is dispatched before all its tensors are bound; call bind_inputs and "
                f"bind_outputs on the binding table first ({', '.join(names)})"
            )
        checked: list[tuple[BoundTensor | None, cl.Buffer | None]] = []
        for position, (name, desc, entry) in enumerate(
            zip(names, descs, (*snapshot.inputs, *snapshot.outputs), strict=True)
        ):
            if desc is None:
                if entry is not None:
                    raise InvalidArgumentError(f"{name} is an absent optional tensor; bind None there")
                checked.append((None, None))
                continue
            if entry is None:
                raise InvalidArgumentError(f"{name} is required but bound to nothing")
            if not isinstance(entry, BoundTensor) or not isinstance(entry.binding, BufferBinding):
                raise InvalidArgumentError(
                    f"{name}'s entry in the binding table is a {type(entry).__name__}; bind it with bind_*"
                )
            memory = self._check_buffer(name, entry.binding)
            # Checked again against the tensor that is launched, whatever it was bound against (a list the
            # caller changed by hand included): a pure check of about a microsecond.
            entry = BoundTensor(name, desc, entry.binding, is_output=position >= len(compiled.input_names))
            check_tensor_binding(entry)
            checked.append((entry, memory))
        inputs = [entry for entry, _ in checked[: len(compiled.input_names)]]
        outputs = [entry for entry, _ in checked[len(compiled.input_names) :]]
        _check_aliasing(compiled, inputs, outputs)
        return checked

    def check_temporary(self, snapshot: BindingSnapshot, compiled: Compiled) -> tuple[BufferBinding, cl.Buffer] | None:
        """The snapshot's temporary resource and its memory, checked against ``compiled``'s reported size and
        the snapshot's tensors; None where ``compiled`` needs none."""
        required = compiled.get_binding_properties().temporary_resource_size
        if required == 0:
            return None
        binding = snapshot.temporary
        if binding is None:
            raise InvalidArgumentError(
                f"the {compiled.describe()} reports a TemporaryResourceSize of {required} bytes "
                "(get_binding_properties), and no temporary resource is bound: call "
                "table.bind_temporary_resource(dml.BufferBinding(buffer, offset, size)) first"
            )
        memory = self._check_buffer("the temporary resource", binding)
        tensors = [entry for entry in (*snapshot.inputs, *snapshot.outputs) if entry is not None]
        check_temporary_binding(binding, required, tensors, owner=compiled.describe())
        return binding, memory


def _what_binding(binding: object) -> str:
    if isinstance(binding, BufferBinding):
        try:
            return binding.describe()
        except InvalidArgumentError:  # its buffer was released since
            return f"a binding at Offset {binding.offset} of a released buffer"
    return f"a {type(binding).__name__}"


def _check_aliasing(
    compiled: Compiled, inputs: Sequence[BoundTensor | None], outputs: Sequence[BoundTensor | None]
) -> None:
    check_aliasing(
        [b for b in inputs if b is not None],
        [b for b in outputs if b is not None],
        supports_in_place=compiled.supports_in_place,
    )
