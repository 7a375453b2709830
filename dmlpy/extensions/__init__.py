"""dmlpy extensions: rounding behaviour other systems define and DirectML does not. **Not DirectML.**

Everything here is named so it cannot be mistaken for DirectML:

- enums are ``Ext*`` classes whose C spellings start with ``DMLPY_EXT_`` and whose values start at
  0x80000000, so no number DirectML uses ever parses as an extension value, or the reverse;
- the operators have ``ExtOperatorType`` types (``DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND``, ...), which no
  DirectML feature level accepts: ``dml.validate`` always refuses them;
- a device runs extensions only when created with ``create_device(..., extensions=True)``.

The nine rounding modes are nGraph's (Quantize's ``round_mode``). Mind the name clash: DirectML's
``DML_ROUNDING_MODE_TOWARD_INFINITY`` rounds to nearest with halves away from zero, while nGraph's
``ROUND_TOWARD_INFINITY`` (here ``ExtRoundingMode.TOWARD_INFINITY``) is the directed rounding away from zero
(0.1 -> 1). Names are parsed with nGraph's ``ROUND_`` prefix or the ``DMLPY_EXT_ROUNDING_MODE_`` one.

This package is the extensions' public face; they are implemented where their DirectML kin are: the enums in
``dmlpy.enums``, the operators in ``dmlpy.ops`` (one module each), and registered in the same operator table.
"""

from dmlpy.enums import EXTENSION_BASE, ExtOperatorType, ExtRoundingMode, ExtTensorDataType
from dmlpy.ops.ext_element_wise_quantize_linear import ExtElementWiseQuantizeLinearOperatorDesc
from dmlpy.ops.ext_element_wise_round import SUPPORTED_TYPES, ExtElementWiseRoundOperatorDesc

__all__ = [
    "EXTENSION_BASE",
    "SUPPORTED_TYPES",
    "ExtElementWiseQuantizeLinearOperatorDesc",
    "ExtElementWiseRoundOperatorDesc",
    "ExtOperatorType",
    "ExtRoundingMode",
    "ExtTensorDataType",
]
