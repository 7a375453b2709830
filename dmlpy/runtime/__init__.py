"""The OpenCL half of dmlpy: devices, buffers, compiled operators, binding tables, dispatch, ``dml.round``.
This package is the only one that imports pyopencl."""

from dmlpy.binding import BindingProperties, BufferBinding
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.device import Device, create_device, default_device
from dmlpy.runtime.dispatchables import CompiledOperator, Operator, OperatorInitializer
from dmlpy.runtime.numpy_quantize import dequantize_linear, quantize_linear
from dmlpy.runtime.numpy_round import round
from dmlpy.runtime.recorder import CommandRecorder

__all__ = [
    "BindingProperties",
    "BindingTable",
    "Buffer",
    "BufferBinding",
    "CommandRecorder",
    "CompiledOperator",
    "Device",
    "Operator",
    "OperatorInitializer",
    "create_device",
    "default_device",
    "dequantize_linear",
    "quantize_linear",
    "round",
]
