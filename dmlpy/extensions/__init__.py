"""dmlpy extensions: rounding behaviour other systems define and DirectML does not. **Not DirectML.**

Everything here is named so it cannot be mistaken for DirectML:

- enums are ``Ext*`` classes whose C spellings start with ``DMLPY_EXT_`` and whose values start at
  0x80000000, so no number DirectML uses ever parses as an extension value, or the reverse;
- the operator is ``ExtOperatorType.ELEMENT_WISE_ROUND`` (``DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND``), a type
  no DirectML feature level accepts: ``dml.validate`` always refuses it;
- a device runs extensions only when created with ``create_device(..., extensions=True)``.

The nine rounding modes are nGraph's (Quantize's ``round_mode``). Mind the name clash: DirectML's
``DML_ROUNDING_MODE_TOWARD_INFINITY`` rounds to nearest with halves away from zero, while nGraph's
``ROUND_TOWARD_INFINITY`` (here ``ExtRoundingMode.TOWARD_INFINITY``) is the directed rounding away from zero
(0.1 -> 1). Names are parsed with nGraph's ``ROUND_`` prefix or the ``DMLPY_EXT_ROUNDING_MODE_`` one.
"""

from __future__ import annotations

from dmlpy.enums import DmlEnum

EXTENSION_BASE = 0x8000_0000
"""First value of every extension enum; DirectML's values are all far below."""


class ExtTensorDataType(DmlEnum, c_prefix="DMLPY_EXT_TENSOR_DATA_TYPE_"):
    """Data types beyond DML_TENSOR_DATA_TYPE (not DirectML)."""

    BFLOAT16 = EXTENSION_BASE + 1
    """bfloat16: float32's top 16 bits (NumPy arrays from ml_dtypes); computed in float."""


class ExtRoundingMode(DmlEnum, c_prefix="DMLPY_EXT_ROUNDING_MODE_"):
    """nGraph's nine rounding modes (not DirectML). The first five round to nearest and differ on ties."""

    NEAREST_TOWARD_INFINITY = EXTENSION_BASE + 0
    """Nearest; ties away from zero (2.5 -> 3, -3.5 -> -4). DirectML's TOWARD_INFINITY, OpenVINO's
    half_away_from_zero."""
    NEAREST_TOWARD_ZERO = EXTENSION_BASE + 1
    """Nearest; ties toward zero (2.5 -> 2, -3.5 -> -3)."""
    NEAREST_UPWARD = EXTENSION_BASE + 2
    """Nearest; ties toward +inf (2.5 -> 3, -3.5 -> -3)."""
    NEAREST_DOWNWARD = EXTENSION_BASE + 3
    """Nearest; ties toward -inf (2.5 -> 2, -3.5 -> -4)."""
    NEAREST_TOWARD_EVEN = EXTENSION_BASE + 4
    """Nearest; ties to even (2.5 -> 2, -3.5 -> -4). DirectML's HALVES_TO_NEAREST_EVEN, ONNX Round."""
    TOWARD_INFINITY = EXTENSION_BASE + 5
    """Directed away from zero (0.1 -> 1, -0.1 -> -1). Not DirectML's TOWARD_INFINITY."""
    TOWARD_ZERO = EXTENSION_BASE + 6
    """Directed toward zero, truncation. DirectML's TOWARD_ZERO."""
    UP = EXTENSION_BASE + 7
    """Directed toward +inf, ceil."""
    DOWN = EXTENSION_BASE + 8
    """Directed toward -inf, floor."""

    @classmethod
    def _short_name_alias(cls, name: str) -> str:
        return name.removeprefix("ROUND_")  # nGraph spells them ROUND_NEAREST_UPWARD, ...

    @property
    def ngraph_name(self) -> str:
        return "ROUND_" + self.name


class ExtOperatorType(DmlEnum, c_prefix="DMLPY_EXT_OPERATOR_"):
    """Operators beyond DML_OPERATOR_TYPE (not DirectML)."""

    ELEMENT_WISE_QUANTIZE_LINEAR = EXTENSION_BASE + 33
    """QuantizeLinear rounding in any of the nine modes."""
    ELEMENT_WISE_ROUND = EXTENSION_BASE + 99
    """Round in any of the nine modes, on float32, float16, float64, bfloat16 and integer tensors."""
