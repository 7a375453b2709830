"""IDMLOperator, IDMLCompiledOperator and IDMLOperatorInitializer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from dmlpy.binding import BindingProperties
from dmlpy.codegen import LoweredOperator
from dmlpy.dtypes import element_size
from dmlpy.enums import ExecutionFlags
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.ops._base import OperatorDescBase
from dmlpy.runtime.programs import Launchable
from dmlpy.tensor import BufferTensorDesc

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device


class Operator:
    """IDMLOperator: a descriptor validated against the device's feature level; compile it to run it."""

    def __init__(self, device: Device, desc: OperatorDescBase) -> None:
        self.device = device
        self.desc = desc

    def describe(self) -> str:
        """For messages: ``operator ELEMENT_WISE_ROUND (FLOAT16, TOWARD_INFINITY)``."""
        return f"operator {self.desc.describe()}"

    def __repr__(self) -> str:
        return f"<dmlpy.Operator {self.desc.describe()}>"


class CompiledOperator:
    """IDMLCompiledOperator: the operator's OpenCL kernel, built (or reused from the cache) and ready to bind.

    ``source`` and ``build_options`` show exactly what runs, for people learning what the operator does.
    """

    def __init__(
        self,
        operator: Operator,
        flags: ExecutionFlags,
        lowered: LoweredOperator,
        launchable: Launchable,
        device_options: tuple[str, ...],
    ) -> None:
        self.device = operator.device
        self.operator = operator
        self.flags = flags
        self.lowered = lowered
        self.launchable = launchable
        self.device_options = device_options
        """Build options the device adds to the operator's own."""
        self.initialized = False
        # What binding and dispatch ask on every call, worked out once (descriptors are frozen).
        desc = operator.desc
        self.input_names = [f"{desc.operator_name()}.{desc.c_field(field)}" for field in desc.INPUTS]
        self.output_names = [f"{desc.operator_name()}.{desc.c_field(field)}" for field in desc.OUTPUTS]
        self._input_descs = [t.desc if t is not None else None for t in desc.input_tensors()]
        self._output_descs = [t.desc if t is not None else None for t in desc.output_tensors()]
        self._element_sizes = [element_size(d.data_type) if d else 1 for d in (*self._input_descs, *self._output_descs)]

    @property
    def desc(self) -> OperatorDescBase:
        return self.operator.desc

    @property
    def name(self) -> str:
        return self.desc.operator_name()

    @property
    def source(self) -> str:
        """The OpenCL C source with this operator's -D specialisation written out as #define lines."""
        return self.lowered.kernel.specialised_source(self.device_options)

    @property
    def build_options(self) -> tuple[str, ...]:
        """Every option the program was built with: the operator's, then the device's."""
        return (*self.lowered.kernel.build_options, *self.device_options)

    def input_descs(self) -> list[BufferTensorDesc | None]:
        return self._input_descs

    def output_descs(self) -> list[BufferTensorDesc | None]:
        return self._output_descs

    def get_binding_properties(self) -> BindingProperties:
        """DML_BINDING_PROPERTIES: one descriptor per tensor; Round needs no temporary or persistent memory."""
        return BindingProperties(
            required_descriptor_count=len(self.desc.INPUTS) + len(self.desc.OUTPUTS),
            temporary_resource_size=0,
            persistent_resource_size=0,
        )

    def element_offsets(self, byte_offsets: Sequence[int]) -> list[int]:
        """Binding byte offsets as element offsets, per tensor in binding order."""
        return [offset // size for offset, size in zip(byte_offsets, self._element_sizes, strict=True)]

    def describe(self) -> str:
        """For messages: ``compiled operator ELEMENT_WISE_ROUND (FLOAT16, TOWARD_INFINITY)``."""
        return f"compiled operator {self.desc.describe()}"

    def __repr__(self) -> str:
        state = "initialized" if self.initialized else "not initialized"
        return f"<dmlpy.CompiledOperator {self.desc.describe()} {state}>"


class OperatorInitializer:
    """IDMLOperatorInitializer: dispatching it initializes its compiled operators, once each."""

    def __init__(self, device: Device, operators: Sequence[CompiledOperator]) -> None:
        self.device = device
        self.operators: list[CompiledOperator] = []
        self.reset(operators)

    def reset(self, operators: Sequence[CompiledOperator]) -> None:
        """IDMLOperatorInitializer::Reset: retarget the initializer."""
        if not isinstance(operators, Iterable) or isinstance(operators, str | bytes):
            raise argument_error("OperatorInitializer", "operators", operators, "a list of CompiledOperator")
        operators = list(operators)
        for index, compiled in enumerate(operators):
            if not isinstance(compiled, CompiledOperator):
                raise argument_error(
                    "OperatorInitializer", f"operators[{index}]", compiled, "a CompiledOperator of this device"
                )
            if compiled.device is not self.device:
                raise InvalidArgumentError(f"{compiled.name} was compiled on another device")
        self.operators = operators

    def get_binding_properties(self) -> BindingProperties:
        return BindingProperties(required_descriptor_count=0, temporary_resource_size=0, persistent_resource_size=0)

    def initialize(self) -> None:
        """What dispatching the initializer does: mark each target initialized, refusing a second time."""
        for compiled in self.operators:
            if compiled.initialized:
                raise InvalidArgumentError(
                    f"{compiled.name} is already initialized; DirectML initializes a compiled operator exactly once"
                )
        for compiled in self.operators:
            compiled.initialized = True

    def describe(self) -> str:
        """For messages: ``operator initializer of ELEMENT_WISE_ROUND (FLOAT16, TOWARD_INFINITY)``."""
        targets = ", ".join(compiled.desc.describe() for compiled in self.operators) or "no operators"
        return f"operator initializer of {targets}"

    def __repr__(self) -> str:
        return f"<dmlpy.OperatorInitializer of {len(self.operators)} operators>"


Dispatchable = CompiledOperator | OperatorInitializer
"""What a binding table is made for and a command recorder dispatches."""
