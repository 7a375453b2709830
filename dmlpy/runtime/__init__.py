"""The OpenCL half of dmlpy: devices, buffers, compiled operators, binding tables, dispatch, ``dml.round``.
This package is the only one that imports pyopencl."""

from typing import TYPE_CHECKING

from dmlpy.about import RUNTIME_NAMES
from dmlpy.binding import BindingProperties as BindingProperties
from dmlpy.binding import BufferBinding as BufferBinding
from dmlpy.runtime.binding_table import BindingTable as BindingTable
from dmlpy.runtime.buffer import Buffer as Buffer
from dmlpy.runtime.device import Device as Device
from dmlpy.runtime.device import create_device as create_device
from dmlpy.runtime.device import default_device as default_device
from dmlpy.runtime.device import devices as devices
from dmlpy.runtime.device import sub_devices as sub_devices
from dmlpy.runtime.dispatchables import CompiledGraph as CompiledGraph
from dmlpy.runtime.dispatchables import CompiledOperator as CompiledOperator
from dmlpy.runtime.dispatchables import Operator as Operator
from dmlpy.runtime.dispatchables import OperatorInitializer as OperatorInitializer
from dmlpy.runtime.numpy_quantize import dequantize_linear as dequantize_linear
from dmlpy.runtime.numpy_quantize import quantize_linear as quantize_linear
from dmlpy.runtime.numpy_round import round as round
from dmlpy.runtime.recorder import CommandRecorder as CommandRecorder

if not TYPE_CHECKING:  # type checkers read the `import X as X` re-exports above instead
    __all__ = list(RUNTIME_NAMES)  # the one list, shared with dmlpy/__init__.py (which must not import this package)
