"""IDMLDevice on OpenCL: one context and in-order queue on one device, at a declared feature level."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Literal, overload

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.enums import ExecutionFlags, Feature, FeatureLevel, TensorDataType, TensorFlags
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.ops import OperatorDesc, as_operator_desc_base
from dmlpy.ops._base import DeviceCapabilities, OperatorDescBase
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer, allocate
from dmlpy.runtime.dispatchables import CompiledOperator, Dispatchable, Operator, OperatorInitializer
from dmlpy.runtime.platforms import preferred_device
from dmlpy.runtime.programs import Launchable, ProgramCache
from dmlpy.runtime.recorder import CommandRecorder

HIGHEST_FEATURE_LEVEL = max(FeatureLevel)
"""dmlpy validates every level up to directml.h's newest; operators it does not implement are refused."""


class Device:
    """IDMLDevice. Create with :func:`create_device`."""

    def __init__(self, cl_device: cl.Device, feature_level: FeatureLevel, *, extensions: bool = False) -> None:
        self.cl_device = cl_device
        self.feature_level = feature_level
        self.extensions = extensions
        """Whether this device runs dmlpy's extension operators (not DirectML) besides DirectML's."""
        self.context = cl.Context([cl_device])
        self.queue = cl.CommandQueue(self.context)
        self.programs = ProgramCache(self.context)
        self.is_cpu = bool(cl_device.type & cl.device_type.CPU)
        self.capabilities = DeviceCapabilities(fp64="cl_khr_fp64" in cl_device.extensions)

    @property
    def name(self) -> str:
        return f"{self.cl_device.name.strip()} ({self.cl_device.platform.name})"

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
        feature = Feature.parse(feature)
        if feature == Feature.FEATURE_LEVELS:
            if not isinstance(query, Sequence) or isinstance(query, str) or not query:
                raise InvalidArgumentError("FEATURE_LEVELS needs a non-empty list of requested feature levels")
            supported = [level for level in map(FeatureLevel.parse, query) if level <= self.feature_level]
            if not supported:
                raise UnsupportedError(
                    f"none of the requested levels is supported; this device is at {self.feature_level.c_name}"
                )
            return max(supported)
        data_type = TensorDataType.parse(query)  # type: ignore[arg-type]  # the overloads type the query
        if data_type == TensorDataType.UNKNOWN:
            return False
        if data_type == TensorDataType.FLOAT64:
            return self.capabilities.fp64
        return True

    def create_operator(self, desc: OperatorDesc | OperatorDescBase) -> Operator:
        """IDMLDevice::CreateOperator: validate ``desc`` against this device's feature level.

        Extension operators (not DirectML) are validated by their own rules, on devices created with
        ``extensions=True`` only."""
        base = as_operator_desc_base(desc)
        base.validate_on(self.feature_level, extensions=self.extensions, capabilities=self.capabilities)
        return Operator(self, base)

    def compile_operator(
        self, operator: Operator, flags: ExecutionFlags | int = ExecutionFlags.NONE
    ) -> CompiledOperator:
        """IDMLDevice::CompileOperator: build the operator's kernel, or reuse the cached program."""
        if not isinstance(operator, Operator) or operator.device is not self:
            raise InvalidArgumentError(f"compile_operator takes an Operator of this device, not {operator!r}")
        desc = operator.desc
        for field in desc.INPUTS:
            tensor = getattr(desc, field)
            if tensor is not None and TensorFlags.OWNED_BY_DML in tensor.desc.flags:
                raise UnsupportedError(
                    f"{desc.operator_name()}.{desc.c_field(field)} has DML_TENSOR_FLAG_OWNED_BY_DML; dmlpy "
                    "does not implement persistent (initializer-bound) tensors yet, so bind it at execution "
                    "without the flag"
                )
        lowered = desc.lower()
        launchable = Launchable.create(self.programs, lowered)
        return CompiledOperator(operator, ExecutionFlags(flags), lowered, launchable, self.programs.device_options)

    def create_operator_initializer(self, operators: Sequence[CompiledOperator]) -> OperatorInitializer:
        """IDMLDevice::CreateOperatorInitializer."""
        return OperatorInitializer(self, list(operators))

    def create_binding_table(self, dispatchable: Dispatchable) -> BindingTable:
        """IDMLDevice::CreateBindingTable."""
        return BindingTable(self, dispatchable)

    def create_command_recorder(self) -> CommandRecorder:
        """IDMLDevice::CreateCommandRecorder."""
        return CommandRecorder(self)

    def create_buffer(self, size_in_bytes: int) -> Buffer:
        """A zero-filled device buffer (ID3D12Device::CreateCommittedResource in DirectML's world)."""
        return allocate(self, size_in_bytes)

    def upload(self, array: npt.ArrayLike) -> Buffer:
        """A new buffer holding ``array``'s bytes, its size rounded up to whole DWORDs as DirectML binds."""
        data = np.ascontiguousarray(array)
        buffer = allocate(self, max(4, (data.nbytes + 3) & ~3))
        buffer.write(data)
        return buffer


def create_device(
    minimum_feature_level: FeatureLevel | int | str = FeatureLevel.FL_1_0,
    max_feature_level: FeatureLevel | int | str | None = None,
    cl_device: cl.Device | None = None,
    *,
    extensions: bool = False,
) -> Device:
    """DMLCreateDevice1 on OpenCL.

    ``cl_device`` picks any pyopencl device; by default the first GPU, else PoCL's CPU device.
    ``max_feature_level`` caps the device, to behave like an older DirectML. UnsupportedError when the
    minimum cannot be met. ``extensions=True`` also runs dmlpy's extension operators (``dmlpy.extensions``,
    not DirectML); DirectML descriptors are validated exactly as without it.
    """
    minimum = FeatureLevel.parse(minimum_feature_level)
    level = HIGHEST_FEATURE_LEVEL if max_feature_level is None else FeatureLevel.parse(max_feature_level)
    if level < minimum:
        raise UnsupportedError(
            f"minimum_feature_level {minimum.c_name} was requested but this device offers up to "
            f"{level.c_name}" + (" (capped by max_feature_level)" if max_feature_level is not None else "")
        )
    if cl_device is not None and not isinstance(cl_device, cl.Device):
        raise InvalidArgumentError(f"cl_device must be a pyopencl.Device, not {type(cl_device).__name__}")
    return Device(cl_device if cl_device is not None else preferred_device().cl_device, level, extensions=extensions)


_defaults: dict[bool, Device] = {}
_defaults_lock = threading.Lock()


def default_device(*, extensions: bool = False) -> Device:
    """The device the one-liners use when none is given: created once, at the highest feature level.

    ``extensions=True`` gives a second device on the same OpenCL device that also runs dmlpy's extension
    operators; the one-liners use it only for what DirectML cannot do (nGraph's modes, bfloat16, ...)."""
    with _defaults_lock:
        if extensions not in _defaults:
            _defaults[extensions] = create_device(extensions=extensions)
        return _defaults[extensions]
