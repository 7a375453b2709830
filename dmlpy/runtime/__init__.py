"""The DirectML object model on OpenCL: devices, buffers, compiled operators, binding tables, dispatch. This
package and the one-liners above it (``dmlpy.arrays``) are the only ones that import pyopencl."""

from typing import TYPE_CHECKING

from dmlpy.about import RUNTIME_NAMES
from dmlpy.binding import BindingProperties as BindingProperties
from dmlpy.binding import BufferBinding as BufferBinding
from dmlpy.runtime.binding_table import BindingTable as BindingTable
from dmlpy.runtime.buffer import Buffer as Buffer
from dmlpy.runtime.device import Device as Device
from dmlpy.runtime.device import create_device as create_device
from dmlpy.runtime.device_choice import default_device as default_device
from dmlpy.runtime.device_choice import devices as devices
from dmlpy.runtime.device_choice import sub_devices as sub_devices
from dmlpy.runtime.dispatchables import CompiledGraph as CompiledGraph
from dmlpy.runtime.dispatchables import CompiledOperator as CompiledOperator
from dmlpy.runtime.dispatchables import Operator as Operator
from dmlpy.runtime.dispatchables import OperatorInitializer as OperatorInitializer
from dmlpy.runtime.recorder import CommandRecorder as CommandRecorder

if not TYPE_CHECKING:  # type checkers read the `import X as X` re-exports above instead
    __all__ = list(RUNTIME_NAMES)  # the one list, shared with dmlpy/__init__.py (which must not import this package)
