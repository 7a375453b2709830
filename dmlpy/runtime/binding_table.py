"""IDMLBindingTable: which buffer range each tensor of a dispatchable reads or writes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dmlpy.binding import BoundTensor, BufferBinding, check_aliasing, check_tensor_binding
from dmlpy.errors import InvalidArgumentError
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.dispatchables import CompiledOperator, Dispatchable, OperatorInitializer
from dmlpy.tensor import BufferTensorDesc

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device


class BindingTable:
    """Bindings for one dispatchable. Every binding is checked when it is bound; the pairs (aliasing) are
    checked again when a dispatch is recorded, so a failing call leaves every buffer untouched."""

    def __init__(self, device: Device, dispatchable: Dispatchable) -> None:
        self.device = device
        self.dispatchable = self._own(dispatchable)
        self.inputs: list[BoundTensor | None] = []
        self.outputs: list[BoundTensor | None] = []

    def _own(self, dispatchable: Dispatchable) -> Dispatchable:
        if not isinstance(dispatchable, CompiledOperator | OperatorInitializer):
            raise InvalidArgumentError(
                f"a binding table is made for a compiled operator or an initializer, not {dispatchable!r}"
            )
        if dispatchable.device is not self.device:
            raise InvalidArgumentError(f"{dispatchable!r} belongs to another device than this binding table")
        return dispatchable

    def reset(self, dispatchable: Dispatchable) -> None:
        """IDMLBindingTable::Reset: retarget the table and drop every binding."""
        self.dispatchable = self._own(dispatchable)
        self.inputs, self.outputs = [], []

    def _bind(
        self,
        what: str,
        names: list[str],
        descs: Sequence[BufferTensorDesc | None],
        bindings: Sequence[BufferBinding | None],
    ) -> list[BoundTensor | None]:
        if not isinstance(bindings, Sequence) or isinstance(bindings, str | bytes):
            raise InvalidArgumentError(f"{what} takes a list of dml.BufferBinding (or None), not {bindings!r}")
        for binding in bindings:
            if binding is not None and not isinstance(binding, BufferBinding):
                raise InvalidArgumentError(f"{what} takes dml.BufferBinding entries (or None), not {binding!r}")
        if len(bindings) != len(descs):
            raise InvalidArgumentError(
                f"{what} got {len(bindings)} bindings; {self.dispatchable!r} takes exactly {len(descs)} "
                f"({', '.join(names) or 'none'}). DirectML removes the device for a wrong count; dmlpy refuses."
            )
        bound: list[BoundTensor | None] = []
        for name, desc, binding in zip(names, descs, bindings, strict=True):
            if binding is None or desc is None:
                if binding is not None:
                    raise InvalidArgumentError(f"{name} is an absent optional tensor; bind None there")
                bound.append(None)
                continue
            if not isinstance(binding.buffer, Buffer) or binding.buffer.device is not self.device:
                raise InvalidArgumentError(f"{name} is bound to {binding.buffer!r}, not a buffer of this device")
            entry = BoundTensor(name, desc, binding)
            check_tensor_binding(entry)
            bound.append(entry)
        return bound

    def bind_inputs(self, bindings: Sequence[BufferBinding | None]) -> None:
        """IDMLBindingTable::BindInputs: exactly one binding per input, in order (None for an absent one)."""
        compiled = self._compiled()
        if compiled is None:
            self.inputs = self._bind("bind_inputs", [], [], bindings)
            return
        names = compiled.input_names
        self.inputs = self._bind("bind_inputs", names, compiled.input_descs(), bindings)

    def bind_outputs(self, bindings: Sequence[BufferBinding | None]) -> None:
        """IDMLBindingTable::BindOutputs: exactly one binding per output, in order."""
        compiled = self._compiled()
        if compiled is None:
            self.outputs = self._bind("bind_outputs", [], [], bindings)
            return
        names = compiled.output_names
        outputs = self._bind("bind_outputs", names, compiled.output_descs(), bindings)
        self._check_aliasing(compiled, self.inputs, outputs)  # before keeping them: a refused call changes nothing
        self.outputs = outputs

    def bind_temporary_resource(self, binding: BufferBinding | None) -> None:
        """IDMLBindingTable::BindTemporaryResource: dmlpy's operators need none, so only None is accepted."""
        self._refuse_resource("temporary", binding)

    def bind_persistent_resource(self, binding: BufferBinding | None) -> None:
        """IDMLBindingTable::BindPersistentResource: dmlpy's operators need none, so only None is accepted."""
        self._refuse_resource("persistent", binding)

    def _refuse_resource(self, kind: str, binding: BufferBinding | None) -> None:
        if binding is not None:
            raise InvalidArgumentError(
                f"{self.dispatchable!r} reports a {kind} resource size of 0 (get_binding_properties); bind None"
            )

    def _compiled(self) -> CompiledOperator | None:
        return self.dispatchable if isinstance(self.dispatchable, CompiledOperator) else None

    @staticmethod
    def _check_aliasing(
        compiled: CompiledOperator, inputs: list[BoundTensor | None], outputs: list[BoundTensor | None]
    ) -> None:
        check_aliasing(
            [b for b in inputs if b is not None],
            [b for b in outputs if b is not None],
            supports_in_place=compiled.desc.SUPPORTS_IN_PLACE,
        )

    def complete_bindings(self, compiled: CompiledOperator) -> list[BoundTensor | None]:
        """Every tensor's binding in binding order (None for an absent optional tensor), once all are bound and
        the pairs are valid; else raise."""
        names = [*compiled.input_names, *compiled.output_names]
        descs = [*compiled.input_descs(), *compiled.output_descs()]
        if len(self.inputs) != len(compiled.desc.INPUTS) or len(self.outputs) != len(compiled.desc.OUTPUTS):
            raise InvalidArgumentError(
                f"{compiled.name} is dispatched before all its tensors are bound; call bind_inputs and "
                f"bind_outputs on the binding table first ({', '.join(names)})"
            )
        bound = [*self.inputs, *self.outputs]
        for name, desc, entry in zip(names, descs, bound, strict=True):
            if desc is not None and entry is None:
                raise InvalidArgumentError(f"{name} is required but bound to nothing")
        self._check_aliasing(compiled, self.inputs, self.outputs)
        return bound
