"""IDMLOperator, IDMLCompiledOperator and IDMLOperatorInitializer."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pyopencl as cl

from dmlpy.binding import BindingProperties, BoundTensor, BufferBinding
from dmlpy.drawing import DrawnKernel, Picture
from dmlpy.dtypes import elements_in
from dmlpy.enums import ExecutionFlags
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.graph.desc import GraphAnalysis, GraphDesc
from dmlpy.graph.fusion import GraphPlan, TensorRef
from dmlpy.kernels import LoweredOperator, OperatorPlan, PlanRef
from dmlpy.ops._base import OperatorDescBase
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.programs import Launchable
from dmlpy.tensor import BufferTensorDesc


class Operator:
    """IDMLOperator: a descriptor validated against the device's feature level; compile it to run it."""

    def __init__(self, device: DeviceBase, desc: OperatorDescBase) -> None:
        self.device = device
        self.desc = desc

    def describe(self) -> str:
        """For messages: ``operator ELEMENT_WISE_ROUND (FLOAT16, TOWARD_INFINITY)``."""
        return f"operator {self.desc.describe()}"

    def __repr__(self) -> str:
        return f"<dmlpy.Operator {self.desc.describe()}>"


class CompiledOperator:
    """IDMLCompiledOperator: the operator's OpenCL kernels (its ``plan``: one for most operators), built (or reused
    from the cache) and ready to bind; a plan of several launches binds a temporary resource for the values
    between them, as a compiled graph does.

    ``source`` and ``build_options`` show exactly what runs, for people learning what the operator does.
    """

    def __init__(
        self,
        operator: Operator,
        flags: ExecutionFlags,
        plan: OperatorPlan,
        launchables: Sequence[Launchable],
        device_options: tuple[str, ...],
    ) -> None:
        self.device = operator.device
        self.operator = operator
        self.flags = flags
        self.plan = plan
        self.launchables = list(launchables)
        self._regions = plan.temporary_regions()
        # The common case, bound with no lookup: one launch over the operator's tensors as bound, in binding order.
        self._one_plain_launch = len(plan.steps) == 1 and plan.steps[0].tensors == OperatorPlan.single_refs(
            [ref is not None for ref in plan.steps[0].tensors], len(operator.desc.input_fields())
        )
        self.device_options = device_options
        """Build options the device adds to the operator's own."""
        self.initialized = False
        # What binding and dispatch ask on every call, worked out once (descriptors are frozen).
        desc = operator.desc
        self.input_names = [f"{desc.operator_name()}.{desc.c_field(field)}" for field in desc.input_fields()]
        self.output_names = [f"{desc.operator_name()}.{desc.c_field(field)}" for field in desc.output_fields()]
        self._input_descs = [t.desc if t is not None else None for t in desc.input_tensors()]
        self._output_descs = [t.desc if t is not None else None for t in desc.output_tensors()]
        self._data_types = [d.data_type if d else None for d in (*self._input_descs, *self._output_descs)]

    @property
    def desc(self) -> OperatorDescBase:
        return self.operator.desc

    @property
    def name(self) -> str:
        return self.desc.operator_name()

    @property
    def lowered(self) -> LoweredOperator:
        """The one kernel of a one-launch operator (every operator of today's table)."""
        assert self.kernel_count == 1, f"{self.describe()} launches {self.kernel_count} kernels: read plan.steps"
        return self.plan.steps[0].lowered

    @property
    def launchable(self) -> Launchable:
        """The one launch of a one-launch operator, which the one-liners enqueue directly."""
        assert self.kernel_count == 1, f"{self.describe()} launches {self.kernel_count} kernels"
        return self.launchables[0]

    @property
    def source(self) -> str:
        """The OpenCL C source with this operator's -D specialisation written out as #define lines (every kernel's,
        in launch order, for an operator of several)."""
        sources = [step.lowered.kernel.specialised_source(self.device_options) for step in self.plan.steps]
        if len(sources) == 1:
            return sources[0]
        return "\n".join(f"// ==== kernel {k + 1} of {len(sources)}\n{source}" for k, source in enumerate(sources))

    @property
    def build_options(self) -> tuple[str, ...]:
        """Every option the (first) program was built with: the operator's, then the device's."""
        return (*self.plan.steps[0].lowered.kernel.build_options, *self.device_options)

    def input_descs(self) -> list[BufferTensorDesc | None]:
        return self._input_descs

    def output_descs(self) -> list[BufferTensorDesc | None]:
        return self._output_descs

    @property
    def supports_in_place(self) -> bool:
        """Whether an output may be bound to an input's memory (DirectML's rule: same range and layout)."""
        return self.desc.SUPPORTS_IN_PLACE

    @property
    def kernel_count(self) -> int:
        """Kernels one dispatch launches: one, or the plan's steps."""
        return len(self.plan.steps)

    def launch(
        self,
        queue: cl.CommandQueue,
        tensors: Sequence[tuple[BoundTensor | None, cl.Buffer | None]],
        temporary: tuple[BufferBinding, cl.Buffer] | None,
        wait_for: Sequence[cl.Event] | None,
    ) -> cl.Event:
        """Enqueue the plan's kernels over checked bindings (binding order; None for an absent optional tensor),
        each after the one before; the temporary regions in ``temporary``."""
        offsets = self.element_offsets([entry.binding.offset if entry else 0 for entry, _ in tensors])
        slots = list(zip([memory for _, memory in tensors], offsets, strict=True))
        if self._one_plain_launch:
            return self.launchables[0].launch(queue, slots, wait_for)
        inputs = len(self._input_descs)

        def bound(ref: PlanRef | None) -> tuple[cl.Buffer | None, int]:
            if ref is None:
                return None, 0
            if ref.kind != "temporary":
                memory, offset = slots[ref.index + (inputs if ref.kind == "output" else 0)]
                return memory, offset + ref.shift
            assert temporary is not None, "the binding table checked that the temporary resource is bound"
            binding, memory = temporary
            offset = binding.offset + self._regions.offsets[ref.index]
            return memory, elements_in(self.plan.temporaries[ref.index].data_type, offset) + ref.shift

        event: cl.Event | None = None
        for step, launchable in zip(self.plan.steps, self.launchables, strict=True):
            event = launchable.launch(
                queue, [bound(ref) for ref in step.tensors], wait_for if event is None else [event]
            )
        assert event is not None
        return event

    def get_binding_properties(self) -> BindingProperties:
        """DML_BINDING_PROPERTIES: one descriptor per tensor, and the temporary resource the plan's regions need (0
        for an operator of one launch); no persistent memory."""
        return BindingProperties(
            required_descriptor_count=len(self.desc.tensor_fields()),
            temporary_resource_size=self._regions.size,
            persistent_resource_size=0,
        )

    def element_offsets(self, byte_offsets: Sequence[int]) -> list[int]:
        """Binding byte offsets as element offsets, per tensor in binding order."""
        return [
            elements_in(data_type, offset) if data_type else offset
            for offset, data_type in zip(byte_offsets, self._data_types, strict=True)
        ]

    def describe(self) -> str:
        """For messages: ``compiled operator ELEMENT_WISE_ROUND (FLOAT16, TOWARD_INFINITY)``."""
        return f"compiled operator {self.desc.describe()}"

    def __repr__(self) -> str:
        state = "initialized" if self.initialized else "not initialized"
        return f"<dmlpy.CompiledOperator {self.desc.describe()} {state}>"


class CompiledGraph:
    """IDMLCompiledOperator from IDMLDevice1::CompileGraph: bound and dispatched exactly like a compiled operator,
    its inputs in graph input order and its outputs in graph output order.

    One dispatch launches ``kernel_count`` kernels in order (``plan.steps``): fused groups of element-wise nodes
    and single nodes. Values passed between kernels live in the temporary resource, whose size
    ``get_binding_properties`` reports and the caller binds with ``bind_temporary_resource``; constant nodes'
    data lives in a buffer of the compiled graph's own. A graph never runs in place: each kernel would have to
    read an input after an earlier one wrote an output over it. Calling it, ``compiled(x, s)``, runs it on arrays
    in one call (``calls``: the device's ``dmlpy.runtime.graph_calls.GraphCalls``, which sits above the binding
    table and the recorder it uses)."""

    def __init__(
        self,
        device: DeviceBase,
        desc: GraphDesc,
        analysis: GraphAnalysis,
        flags: ExecutionFlags,
        plan: GraphPlan,
        launchables: Sequence[Launchable],
        constants: tuple[cl.Buffer | None, dict[int, int]],
        device_options: tuple[str, ...],
        calls: Callable[[CompiledGraph, Sequence[Any]], Any],
    ) -> None:
        self.device = device
        self.graph = desc
        self.analysis = analysis
        self.flags = flags
        self.plan = plan
        self.device_options = device_options
        self.initialized = False
        self._launchables = list(launchables)
        self._constants, self._constant_offsets = constants
        self._calls = calls
        self.input_names = [f"graph input {k}" for k in range(desc.input_count)]
        self.output_names = [f"graph output {k}" for k in range(desc.output_count)]

    name = "DML_GRAPH_DESC"
    supports_in_place = False

    def __call__(self, *inputs: Any) -> Any:
        """The graph run on arrays in one call: ``compiled(x, s)`` takes the graph inputs in binding order (the
        order of ``g.input``) as NumPy arrays, pyopencl arrays or dmlpy Buffers, and returns the outputs as
        arrays (a tuple for several). The initializer, the bindings, the temporary resource and the device
        buffers, kept across calls, are handled inside (``dmlpy.runtime.graph_calls``)."""
        return self._calls(self, inputs)

    @property
    def kernel_count(self) -> int:
        """Kernels one dispatch launches (1 when the whole graph fused into one)."""
        return len(self.plan.steps)

    @property
    def source(self) -> str:
        """Every kernel's OpenCL C source, in launch order, with its specialisation written out."""
        parts = []
        for index, step in enumerate(self.plan.steps):
            nodes = ", ".join(self.graph.node_label(node) for node in step.nodes)
            kind = "fused kernel" if step.fused else "kernel"
            parts.append(f"// ==== {kind} {index + 1} of {self.kernel_count}: {nodes}\n")
            parts.append(step.lowered.kernel.specialised_source(self.device_options))
        return "\n".join(parts)

    def input_descs(self) -> list[BufferTensorDesc | None]:
        return list(self.analysis.input_descs)

    def output_descs(self) -> list[BufferTensorDesc | None]:
        return list(self.analysis.output_descs)

    def get_binding_properties(self) -> BindingProperties:
        """DML_BINDING_PROPERTIES: a descriptor per graph input and output, and the temporary resource the values
        between kernels need (0 when the graph runs as one kernel)."""
        return BindingProperties(
            required_descriptor_count=self.graph.input_count + self.graph.output_count,
            temporary_resource_size=self.plan.temporary_size,
            persistent_resource_size=0,
        )

    def launch(
        self,
        queue: cl.CommandQueue,
        tensors: Sequence[tuple[BoundTensor | None, cl.Buffer | None]],
        temporary: tuple[BufferBinding, cl.Buffer] | None,
        wait_for: Sequence[cl.Event] | None,
    ) -> cl.Event:
        """Enqueue every kernel over checked bindings, each after the one before."""
        inputs = tensors[: self.graph.input_count]
        outputs = tensors[self.graph.input_count :]

        def bound(ref: TensorRef | None) -> tuple[cl.Buffer | None, int]:
            if ref is None:
                return None, 0
            data_type = ref.desc.data_type
            if ref.kind in ("input", "output"):
                entry, memory = (inputs if ref.kind == "input" else outputs)[ref.index]
                assert entry is not None
                return memory, elements_in(data_type, entry.binding.offset) + ref.shift
            if ref.kind == "temporary":
                assert temporary is not None, "the binding table checked that the temporary resource is bound"
                binding, memory = temporary
                offset = binding.offset + self.plan.temporary_offsets[ref.index]
                return memory, elements_in(data_type, offset) + ref.shift
            return self._constants, elements_in(data_type, self._constant_offsets[ref.index]) + ref.shift

        event: cl.Event | None = None
        for step, launchable in zip(self.plan.steps, self._launchables, strict=True):
            after = wait_for if event is None else [event]
            event = launchable.launch(queue, [bound(ref) for ref in step.tensors], after)
        assert event is not None
        return event

    def picture(self) -> Picture:
        """The graph with the kernels one dispatch launches outlined, fused groups shaded (dmlpy.drawing)."""
        kernels = [DrawnKernel(step.nodes, step.fused) for step in self.plan.steps]
        return self.graph.picture(
            kernels,
            title=f"IDMLCompiledOperator from CompileGraph: {self.graph.describe()} in {self.kernel_count} kernel(s)",
        )

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def describe(self) -> str:
        """For messages: ``compiled graph of 3 operator nodes``."""
        return f"compiled {self.graph.describe()}"

    def __repr__(self) -> str:
        state = "initialized" if self.initialized else "not initialized"
        return f"<dmlpy.CompiledGraph {self.graph.describe()} in {self.kernel_count} kernels, {state}>"


Compiled = CompiledOperator | CompiledGraph
"""What compile_operator and compile_graph return: bound, initialized and dispatched alike."""


class OperatorInitializer:
    """IDMLOperatorInitializer: dispatching it initializes its compiled operators, once each."""

    def __init__(self, device: DeviceBase, operators: Sequence[Compiled]) -> None:
        self.device = device
        self.operators: list[Compiled] = []
        self.reset(operators)

    def reset(self, operators: Sequence[Compiled]) -> None:
        """IDMLOperatorInitializer::Reset: retarget the initializer."""
        if not isinstance(operators, Iterable) or isinstance(operators, str | bytes):
            raise argument_error("OperatorInitializer", "operators", operators, "a list of CompiledOperator")
        operators = list(operators)
        for index, compiled in enumerate(operators):
            if not isinstance(compiled, CompiledOperator | CompiledGraph):
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
        targets = ", ".join(_described(compiled) for compiled in self.operators) or "no operators"
        return f"operator initializer of {targets}"

    def __repr__(self) -> str:
        return f"<dmlpy.OperatorInitializer of {len(self.operators)} operators>"


def _described(compiled: Compiled) -> str:
    return compiled.desc.describe() if isinstance(compiled, CompiledOperator) else compiled.graph.describe()


Dispatchable = CompiledOperator | CompiledGraph | OperatorInitializer
"""What a binding table is made for and a command recorder dispatches."""
