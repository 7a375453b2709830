"""The one-liners (dmlpy's, not DirectML's): ``dml.round``, ``dml.quantize_linear`` and ``dml.dequantize_linear``
over NumPy, pyopencl and Dask arrays, on the DirectML object model of ``dmlpy.runtime``. ``import dmlpy`` loads
this package on first use of one of its names, as it loads the runtime."""

from typing import TYPE_CHECKING

from dmlpy.about import ARRAY_NAMES
from dmlpy.arrays.one_liners import dequantize_linear as dequantize_linear
from dmlpy.arrays.one_liners import quantize_linear as quantize_linear
from dmlpy.arrays.one_liners import round as round

if not TYPE_CHECKING:  # type checkers read the `import X as X` re-exports above instead
    __all__ = list(ARRAY_NAMES)  # the one list, shared with dmlpy/__init__.py (which must not import this package)
