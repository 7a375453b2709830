"""IDMLDevice on OpenCL: one context and in-order queue on one device, at a declared feature level, and
DMLCreateDevice1 (``create_device``). The devices dmlpy opens for callers (the default, one per queue, the list,
sub-devices) are in ``device_choice``; the fork guard is in ``fork``."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar, overload

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.enums import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DmlEnum,
    DmlFlag,
    ExecutionFlags,
    Feature,
    FeatureLevel,
    TensorDataType,
    TensorFlags,
)
from dmlpy.errors import InvalidArgumentError, UnsupportedError, argument_error
from dmlpy.graph.desc import ConstantDataGraphNodeDesc, GraphDesc, OperatorGraphNodeDesc
from dmlpy.graph.fusion import plan_graph
from dmlpy.ops import OperatorDesc, as_operator_desc_base
from dmlpy.ops._base import DeviceCapabilities, OperatorDescBase
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer, allocate, device_bytes, host_array, wrappable_memory
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import (
    Compiled,
    CompiledGraph,
    CompiledOperator,
    Dispatchable,
    Operator,
    OperatorInitializer,
)
from dmlpy.runtime.fork import check_process, note_opencl_use
from dmlpy.runtime.graph_calls import GraphCalls
from dmlpy.runtime.platforms import preferred_device
from dmlpy.runtime.programs import LAUNCH_PROFILE_CHOICES, Launchable, ProgramCache
from dmlpy.runtime.programs import launch_profile as launch_profile_for
from dmlpy.runtime.recorder import CommandRecorder
from dmlpy.tensor import whole_dwords

if TYPE_CHECKING:
    from pyopencl import array as cl_array

HIGHEST_FEATURE_LEVEL = max(FeatureLevel)
"""dmlpy validates every level up to directml.h's newest; operators it does not implement are refused."""

_Parsed = TypeVar("_Parsed", bound=DmlEnum | DmlFlag)


def _parse(cls: type[_Parsed], where: str, name: str, value: object) -> _Parsed:
    """``cls.parse(value)`` with the argument's name in the error; bool is refused (it is an int, never a
    level, flag, feature or data type)."""
    if isinstance(value, bool):
        raise argument_error(where, name, value, f"a {cls.__name__} (a member, its C spelling or its value)")
    try:
        parsed: _Parsed = cls.parse(value)  # type: ignore[arg-type, assignment]  # parse refuses junk
        return parsed
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{where}: {name} {error}") from None


class Device(DeviceBase):
    """IDMLDevice. Create with :func:`create_device`."""

    def __init__(
        self,
        cl_device: cl.Device,
        feature_level: FeatureLevel,
        *,
        extensions: bool = False,
        launch_profile: str = "auto",
        cl_queue: cl.CommandQueue | None = None,
    ) -> None:
        check_process()
        note_opencl_use()
        super().__init__(cl_device, cl_queue)
        self.feature_level = feature_level
        self.extensions = extensions
        """Whether this device runs dmlpy's extension operators (not DirectML) besides DirectML's."""
        self.launch_profile = launch_profile_for(cl_device, launch_profile)
        """How this device's kernels spread elements over work-items (dmlpy.kernels.LaunchProfile)."""
        self.programs = ProgramCache(self.context, cl_device)
        self.capabilities = DeviceCapabilities(fp64="cl_khr_fp64" in cl_device.extensions)
        self._buffers: weakref.WeakValueDictionary[int, Buffer] = weakref.WeakValueDictionary()
        """The live Buffers of this device by their memory's address: one dmlpy Buffer per OpenCL buffer, so
        the binding rules (which compare buffers by identity) see memory shared with pyopencl as one buffer."""
        self._buffers_lock = threading.Lock()

    def __repr__(self) -> str:
        extensions = " with dmlpy extensions" if self.extensions else ""
        return f"<dmlpy.Device {self.name} at {self.feature_level.c_name}{extensions}>"

    @overload
    def check_feature_support(
        self, feature: Literal[Feature.FEATURE_LEVELS], query: Sequence[FeatureLevel | int | str]
    ) -> FeatureLevel: ...
    @overload
    def check_feature_support(
        self, feature: Literal[Feature.TENSOR_DATA_TYPE_SUPPORT], query: TensorDataType | int | str
    ) -> bool: ...
    def check_feature_support(self, feature: Feature, query: object) -> FeatureLevel | bool:
        """IDMLDevice::CheckFeatureSupport.

        FEATURE_LEVELS takes the levels the caller asks about and answers the highest of them this device
        supports (which can be below ``device.feature_level``). TENSOR_DATA_TYPE_SUPPORT answers whether
        buffers of that type work here: FLOAT64 needs cl_khr_fp64, UNKNOWN never.
        """
        where = "check_feature_support"
        feature = _parse(Feature, where, "feature", feature)
        if feature == Feature.FEATURE_LEVELS:
            if not isinstance(query, Sequence) or isinstance(query, str | bytes) or not query:
                raise argument_error(
                    where, "query", query, "a non-empty list of requested feature levels for FEATURE_LEVELS"
                )
            levels = [_parse(FeatureLevel, where, f"query[{i}]", level) for i, level in enumerate(query)]
            supported = [level for level in levels if level <= self.feature_level]
            if not supported:
                raise UnsupportedError(
                    f"none of the requested levels is supported; this device is at {self.feature_level.c_name}"
                )
            return max(supported)
        data_type = _parse(TensorDataType, where, "query", query)
        if data_type == TensorDataType.UNKNOWN:
            return False
        if data_type == TensorDataType.FLOAT64:
            return self.capabilities.fp64
        return True

    def create_operator(self, desc: OperatorDesc | OperatorDescBase) -> Operator:
        """IDMLDevice::CreateOperator: validate ``desc`` against this device's feature level.

        Extension operators (not DirectML) are validated by their own rules, on devices created with
        ``extensions=True`` only."""
        if not isinstance(desc, OperatorDesc | OperatorDescBase):
            raise argument_error(
                "create_operator", "desc", desc, "an OperatorDesc or a DML_*_OPERATOR_DESC model of dmlpy"
            )
        base = as_operator_desc_base(desc)
        base.validate_on(self.feature_level, extensions=self.extensions, capabilities=self.capabilities)
        return Operator(self, base)

    def compile_operator(
        self, operator: Operator, flags: ExecutionFlags | int = ExecutionFlags.NONE
    ) -> CompiledOperator:
        """IDMLDevice::CompileOperator: build the operator's kernel, or reuse the cached program."""
        check_process()
        if not isinstance(operator, Operator):
            raise argument_error(
                "compile_operator", "operator", operator, "an Operator of this device (device.create_operator)"
            )
        if operator.device is not self:
            raise InvalidArgumentError(f"compile_operator: operator {operator.describe()} belongs to another device")
        execution_flags = _parse(ExecutionFlags, "compile_operator", "flags", flags)
        desc = operator.desc
        self._refuse_owned_by_dml(desc)
        plan = desc.plan(self.launch_profile)
        launchables = [Launchable.create(self.programs, step.lowered) for step in plan.steps]
        return CompiledOperator(operator, execution_flags, plan, launchables, self.programs.device_options)

    @staticmethod
    def _refuse_owned_by_dml(desc: OperatorDescBase, where: str = "") -> None:
        for field in desc.input_fields():
            tensor = getattr(desc, field)
            if tensor is not None and TensorFlags.OWNED_BY_DML in tensor.desc.flags:
                raise UnsupportedError(
                    f"{where}{desc.operator_name()}.{desc.c_field(field)} has DML_TENSOR_FLAG_OWNED_BY_DML; dmlpy "
                    "does not implement persistent (initializer-bound) tensors yet, so bind it at execution "
                    "without the flag"
                )

    def compile_graph(
        self, graph_desc: GraphDesc, flags: ExecutionFlags | int = ExecutionFlags.NONE, *, fuse: bool = True
    ) -> CompiledGraph:
        """IDMLDevice1::CompileGraph: validate ``graph_desc`` against this device's feature level (every rule in
        docs/graphs.md), plan its kernels (chains and trees of element-wise nodes fused into one kernel each),
        build them, and return a compiled operator bound and dispatched like ``compile_operator``'s: inputs in
        graph input order, outputs in graph output order, and a temporary resource where
        ``get_binding_properties()`` reports one. ``fuse=False`` (dmlpy's, not DirectML's) runs every node as its
        own kernel, the values between them in the temporary resource: the graph one node at a time."""
        check_process()
        if not isinstance(graph_desc, GraphDesc):
            raise argument_error(
                "compile_graph", "graph_desc", graph_desc, "a dml.GraphDesc (DML_GRAPH_DESC), or dml.Graph's .desc"
            )
        if not isinstance(fuse, bool):
            raise argument_error("compile_graph", "fuse", fuse, "True or False")
        execution_flags = _parse(ExecutionFlags, "compile_graph", "flags", flags)
        analysis = graph_desc.validate_on(
            self.feature_level, extensions=self.extensions, capabilities=self.capabilities
        )
        for node in analysis.order:
            node_desc = graph_desc.nodes[node].desc
            assert isinstance(node_desc, OperatorGraphNodeDesc)
            self._refuse_owned_by_dml(node_desc.op, f"{graph_desc.node_label(node)}.")
        plan = plan_graph(graph_desc, analysis, self.launch_profile, fuse=fuse)
        launchables = [Launchable.create(self.programs, step.lowered) for step in plan.steps]
        return CompiledGraph(
            self,
            graph_desc,
            analysis,
            execution_flags,
            plan,
            launchables,
            self._constant_data(graph_desc),
            self.programs.device_options,
            GraphCalls(),
        )

    def _constant_data(self, graph_desc: GraphDesc) -> tuple[cl.Buffer | None, dict[int, int]]:
        """The graph's constant nodes' data in one buffer, each at a multiple of 16 bytes: (memory, offset by
        node)."""
        offsets: dict[int, int] = {}
        chunks: list[bytes] = []
        end = 0
        for index, node in enumerate(graph_desc.nodes):
            if isinstance(node.desc, ConstantDataGraphNodeDesc):
                start = -(-end // DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) * DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
                chunks.append(bytes(start - end) + node.desc.data)
                offsets[index] = start
                end = start + len(node.desc.data)
        if not offsets:
            return None, offsets
        buffer = self.upload(np.frombuffer(b"".join(chunks), dtype=np.uint8))
        return buffer.memory, offsets

    def create_operator_initializer(self, operators: Sequence[Compiled]) -> OperatorInitializer:
        """IDMLDevice::CreateOperatorInitializer."""
        if not isinstance(operators, Iterable) or isinstance(operators, str | bytes):
            raise argument_error(
                "create_operator_initializer", "operators", operators, "a list of CompiledOperator of this device"
            )
        return OperatorInitializer(self, list(operators))

    def create_binding_table(self, dispatchable: Dispatchable) -> BindingTable:
        """IDMLDevice::CreateBindingTable."""
        return BindingTable(self, dispatchable)

    def create_command_recorder(self) -> CommandRecorder:
        """IDMLDevice::CreateCommandRecorder."""
        return CommandRecorder(self)

    def create_buffer(self, size_in_bytes: int) -> Buffer:
        """A zero-filled device buffer (ID3D12Device::CreateCommittedResource in DirectML's world)."""
        return self._remember(allocate(self, size_in_bytes))

    def wrap_buffer(self, memory: cl.Buffer | cl_array.Array) -> Buffer:
        """A dmlpy Buffer over memory the caller made with pyopencl, not copied: dmlpy's dispatches and the
        caller's own pyopencl kernels then work on the same bytes (order them through ``device.queue``, which
        is in order, or wait for the events).

        ``memory`` is a ``pyopencl.Buffer`` of ``device.context``, or a ``pyopencl.array.Array`` whose data
        starts at its buffer's start (``array.offset == 0``): its whole ``base_data`` is wrapped, so the
        Buffer's ``size`` is that buffer's size, which can be more than the array's ``nbytes``. An array view at
        a non-zero offset is refused: wrap its ``base_data`` and bind the view with
        ``dml.BufferBinding(buffer, offset=array.offset)``. Also refused, with InvalidArgumentError: anything
        else, a buffer of another OpenCL context, a sub-buffer (wrap its parent), and a dmlpy Buffer.

        Wrapping memory that already has a live dmlpy Buffer (wrapped before, or a ``create_buffer``'s
        ``.memory``) returns that Buffer, so the aliasing rules see one buffer. ``release()`` drops only
        dmlpy's reference: the caller's ``cl.Buffer`` stays valid. What dmlpy cannot see is the caller's to
        avoid: wrapping a ``cl.Buffer`` released through pyopencl (``memory.release()``), and binding two
        buffers over overlapping host memory (``USE_HOST_PTR``) as an input and an output."""
        check_process()
        wrapped = wrappable_memory(memory, self.context)
        return self._remember(Buffer(self, wrapped, wrapped.size))

    def _remember(self, buffer: Buffer) -> Buffer:
        """``buffer``, or the live Buffer that already holds its memory (``buffer`` is then dropped)."""
        with self._buffers_lock:
            existing = self._buffers.get(buffer.memory.int_ptr)
            if existing is not None and not existing.released:
                return existing  # another thread wrapped the same memory meanwhile
            self._buffers[buffer.memory.int_ptr] = buffer
        return buffer

    def upload(self, array: npt.ArrayLike) -> Buffer:
        """A new buffer holding ``array``'s bytes, its size rounded up to whole DWORDs as DirectML binds; a 4-bit
        array (ml_dtypes' int4, uint4) two elements a byte, as DirectML lays it out."""
        check_process()
        data = device_bytes(host_array("upload", "array", array))  # checked before anything is allocated
        buffer = self._remember(allocate(self, max(4, whole_dwords(data.nbytes))))
        buffer.write(data)
        return buffer


def create_device(
    minimum_feature_level: FeatureLevel | int | str = FeatureLevel.FL_1_0,
    max_feature_level: FeatureLevel | int | str | None = None,
    cl_device: cl.Device | None = None,
    *,
    extensions: bool = False,
    launch_profile: str = "auto",
    cl_queue: cl.CommandQueue | None = None,
) -> Device:
    """DMLCreateDevice1 on OpenCL.

    ``cl_device`` picks any pyopencl device; by default, among the devices whose compiler builds a kernel, the
    first GPU, else a PoCL CPU device, else any other (``DMLPY_DEVICE`` overrides it: see ``dmlpy devices``).
    ``cl_queue`` instead runs on a queue the caller made with pyopencl (its context and device): dmlpy's
    dispatches and the caller's own kernels then share one context and order on one queue, and the caller's
    pyopencl arrays and buffers are this device's memory. ``max_feature_level`` caps the device, to behave like
    an older DirectML. UnsupportedError when the minimum cannot be met. ``extensions=True`` also runs dmlpy's
    extension operators (``dmlpy.extensions``, not DirectML); DirectML descriptors are validated exactly as
    without it. ``launch_profile`` shapes every kernel: "auto" (the default) picks "cpu" on CPU devices and
    "gpu" elsewhere; "cpu" gives each work-item a long run of consecutive elements; "gpu" a coalesced
    grid-stride loop sized from the device (see ``dmlpy.kernels.LaunchProfile``). Results are bit-identical
    under both; only speed differs.
    """
    check_process()
    where = "create_device"
    minimum = _parse(FeatureLevel, where, "minimum_feature_level", minimum_feature_level)
    level = (
        HIGHEST_FEATURE_LEVEL
        if max_feature_level is None
        else _parse(FeatureLevel, where, "max_feature_level", max_feature_level)
    )
    if not isinstance(extensions, bool):
        raise argument_error(where, "extensions", extensions, "True or False")
    if level < minimum:
        raise UnsupportedError(
            f"minimum_feature_level {minimum.c_name} was requested but this device offers up to "
            f"{level.c_name}" + (" (capped by max_feature_level)" if max_feature_level is not None else "")
        )
    if cl_device is not None and not isinstance(cl_device, cl.Device):
        raise argument_error(where, "cl_device", cl_device, "a pyopencl.Device, or None for the default")
    if launch_profile not in LAUNCH_PROFILE_CHOICES:
        raise argument_error(where, "launch_profile", launch_profile, '"auto", "cpu" or "gpu"')
    if cl_queue is not None:
        if not isinstance(cl_queue, cl.CommandQueue):
            raise argument_error(where, "cl_queue", cl_queue, "a pyopencl.CommandQueue, or None")
        if cl_device is not None and cl_device != cl_queue.device:
            raise InvalidArgumentError(
                f"{where}: cl_device {cl_device.name.strip()!r} is not the device of cl_queue "
                f"({cl_queue.device.name.strip()!r}); pass one of them"
            )
        cl_device = cl_queue.device
    note_opencl_use()  # before the first OpenCL call: finding the device initialises the runtime
    return Device(
        cl_device if cl_device is not None else preferred_device().cl_device,
        level,
        extensions=extensions,
        launch_profile=launch_profile,
        cl_queue=cl_queue,
    )
