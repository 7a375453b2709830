"""A fused activation: the ``const DML_OPERATOR_DESC* FusedActivation`` of ELEMENT_WISE_ADD1 (and, in DirectML, of
CONVOLUTION, GEMM, the normalizations), an activation the operator applies to its result before storing it.

Microsoft's "Using fused operators to improve performance" (MicrosoftDocs/windows-ai-docs,
docs/directml/dml-fused-activations.md) fixes what may be fused, ``FUSIBLE_ACTIVATIONS``, and how: a
DML_OPERATOR_DESC of that activation whose InputTensor and OutputTensor are NULL. ``FusedActivation`` is that struct
as JSON reads it, ``{"Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Desc": {"InputTensor": null, "OutputTensor":
null, "Alpha": 0.01}}``. Which activations dmlpy can fuse is read from the operator table (``ops/table.py`` binds
``ACTIVATIONS``): every fusible type it implements, so an activation added to the table fuses with no code here.
The fusing operator asks the activation's own class for its arithmetic (``bound_to``): nothing is written twice.
"""

from __future__ import annotations

import builtins
from typing import Any, ClassVar, Self

from pydantic import Field, model_validator

from dmlpy.enums import OperatorType, TensorDataType
from dmlpy.errors import DescriptorProblems, InvalidArgumentError, UnsupportedError
from dmlpy.model import DmlModel
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.tensor import TensorDesc

FUSIBLE_ACTIVATIONS = frozenset(
    {
        "ACTIVATION_ELU",
        "ACTIVATION_HARD_SIGMOID",
        "ACTIVATION_IDENTITY",
        "ACTIVATION_LEAKY_RELU",
        "ACTIVATION_LINEAR",
        "ACTIVATION_PARAMETRIC_SOFTPLUS",
        "ACTIVATION_RELU",
        "ACTIVATION_SCALED_ELU",
        "ACTIVATION_SCALED_TANH",
        "ACTIVATION_SIGMOID",
        "ACTIVATION_SOFTPLUS",
        "ACTIVATION_SOFTSIGN",
        "ACTIVATION_TANH",
        "ACTIVATION_THRESHOLDED_RELU",
        "ACTIVATION_SHRINK",
        "ACTIVATION_CELU",
    }
)
"""The page's "Activations that are supported for fusion" (``OperatorType`` names): "Any operators not in this list
are not supported for fused activation"."""
_TENSORS = ("InputTensor", "OutputTensor", "input_tensor", "output_tensor")


class FusedActivation(DmlModel):
    """DML_OPERATOR_DESC of a fused activation: Type, an activation DirectML fuses, and Desc, that activation's
    DML_*_OPERATOR_DESC with InputTensor and OutputTensor null and its other fields (C or snake_case names)."""

    C_STRUCT = "DML_OPERATOR_DESC"
    ACTIVATIONS: ClassVar[dict[OperatorType, builtins.type[ElementwiseDesc]]] = {}  # `type` is a field here
    """The fusible activations dmlpy implements, by type: bound by ops/table.py from the operator table."""

    type: OperatorType = Field(alias="Type")
    """Type: one of FUSIBLE_ACTIVATIONS."""
    desc: dict[str, Any] = Field(default_factory=dict, alias="Desc")
    """Desc: the activation's fields; InputTensor and OutputTensor null (the fusing operator supplies the values)."""

    @model_validator(mode="after")
    def _fusible_with_null_tensors(self) -> Self:
        if self.type.name not in FUSIBLE_ACTIVATIONS:
            fusible = ", ".join(sorted(FUSIBLE_ACTIVATIONS))
            raise ValueError(
                f"Type {self.type.c_name} cannot be a fused activation; DirectML fuses only {fusible} (Microsoft's "
                "'Using fused operators'): run it as a node of its own after the operator"
            )
        for name in _TENSORS:
            if self.desc.get(name) is not None:
                raise ValueError(
                    f"Desc.{name} is given; a fused activation's InputTensor and OutputTensor must be null: it "
                    "reads the operator's result and writes the operator's OutputTensor"
                )
        return self

    def __str__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.desc.items() if k not in _TENSORS)
        return f"{self.type.name}({fields})"

    def __hash__(self) -> int:  # Desc is a dict; descriptors are hashed as cache keys
        return hash((self.type, self.model_dump_json()))

    def bound_to(self, tensor: TensorDesc, where: str) -> ElementwiseDesc:
        """The activation as a descriptor of its own class on ``tensor`` (input and output), its fields Desc's:
        its rules, support table and ``expression`` are the activation's. ``where`` names the field in messages."""
        activation = self.ACTIVATIONS.get(self.type)
        if activation is None:
            implemented = ", ".join(t.c_name for t in self.ACTIVATIONS) or "none"
            raise UnsupportedError(
                f"{where}.Type is {self.type.c_name}, which DirectML fuses but dmlpy does not implement; the fusible "
                f"activations dmlpy implements: {implemented}"
            )
        fields = {k: v for k, v in self.desc.items() if k not in _TENSORS}
        try:
            return activation.model_validate({**fields, "InputTensor": tensor, "OutputTensor": tensor})
        except DescriptorProblems as problems:
            raise InvalidArgumentError(f"{where}.Desc: {problems}") from None

    def applied(self, value: str, tensor: TensorDesc, where: str) -> str:
        """The activation's own expression on ``value``, an OpenCL expression of the fusing operator's result stored
        in ``tensor``: at FLOAT16 the result is rounded to half first, as the operator's output would store it for
        the activation node alone. An activation that acts on encodings alone at this type (IDENTITY at FLOAT16,
        which moves a signalling NaN bit for bit) copies: on a value arithmetic made, that copy is the value."""
        activation = self.bound_to(tensor, where)
        if tensor.desc.data_type == TensorDataType.FLOAT16:
            value = f"half_value({value})"
        return activation.expression([value]) or activation.bits_expression([value]) or value
