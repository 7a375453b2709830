"""The element-wise family's base: operators whose output element i is a function of their inputs' elements i
(through each tensor's strides, 0 where it broadcasts), all tensors of one Sizes. Such an operator gives its
arithmetic as one OpenCL C expression (``expression``, or ``bits_expression`` on encodings) and lowers to the one
element-wise template (``opencl/elementwise.cl``); a graph fuses a chain of them into one kernel with the same
expressions (dmlpy/graph/fusion.py), and with them any operator that is ``Pointwise`` (BATCH_NORMALIZATION, whose
statistics broadcast)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from dmlpy.kernels import CPU_PROFILE, ElementwiseLayout, LaunchProfile, LoweredOperator, coalesce
from dmlpy.kernels.elementwise import (
    ABSENT,
    Statement,
    ValueType,
    bits_type,
    elementwise_kernel,
    load_name,
    value_type,
)
from dmlpy.ops._base import OperatorDescBase


@runtime_checkable
class Pointwise(Protocol):
    """An operator whose output element is ``expression`` of its inputs' elements at the same coordinates (an input
    of Sizes 1 along a dimension read there with stride 0): the element-wise family, and BATCH_NORMALIZATION. A
    graph fuses a chain of them into one kernel (dmlpy/graph/steps.py's ``fuses``)."""

    def expression(self, inputs: Sequence[str | None]) -> str | None: ...


class ElementwiseDesc(OperatorDescBase):
    """Base of the element-wise operators: one index space (the first input's Sizes) that every tensor walks by
    its own strides."""

    def check_one_type_and_shape(self) -> None:
        """Every present tensor has the first input's DataType, DimensionCount and Sizes (the binary operators,
        IF's values, PARAMETERIZED_RELU, the gradients): InvalidArgumentError naming the first that differs."""
        first, *others = self.tensor_fields()
        names = ", ".join(self.c_field(field) for field in (first, *others))
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            first,
            others,
            f"; {names} have one DataType, DimensionCount and Sizes (a tensor is broadcast by 0-strides along the "
            "dimensions it repeats, never by smaller Sizes)",
        )

    def element_layout(self) -> ElementwiseLayout:
        """Sizes and every tensor's strides coalesced (binding order); an absent tensor gets 0-strides, since it
        is never read and must not keep dimensions apart."""
        sizes = self.input_tensors()[0].desc.sizes  # type: ignore[union-attr]  # the first input is required
        strides = [
            tensor.desc.effective_strides if tensor is not None else (0,) * len(sizes)
            for tensor in (*self.input_tensors(), *self.output_tensors())
        ]
        return coalesce(sizes, strides)

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        """This operator's output as an expression of its tensors' encodings, for an operator that acts on them
        (Identity's copy, the bit operators): every tensor is then bound as the unsigned integer of its width, so
        NaN payloads, signalling NaNs and 64-bit types (FLOAT64 too) are exact. None (the default): the operator
        computes on values (``expression``)."""
        return None

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """The OpenCL kernel and launch arguments that compute this operator on devices of ``profile``'s kind
        (pure; no OpenCL needed): by default the element-wise template with the operator's ``expression``, or its
        ``bits_expression`` where it has one (dmlpy/kernels/elementwise.py). Every tensor slot is bound in binding
        order, an absent one too."""
        inputs, outputs = self.input_tensors(), self.output_tensors()
        names = [None if tensor is None else load_name(k) for k, tensor in enumerate(inputs)]
        on_bits = self.bits_expression(names)
        types: list[ValueType] = []
        for tensor in (*inputs, *outputs):
            held = None if tensor is None else value_type(tensor.desc.data_type)
            if tensor is not None and on_bits is not None:
                held = bits_type(tensor.desc.data_type)
            if tensor is not None and held is None:
                raise NotImplementedError(f"{self.describe()} has no OpenCL lowering")
            types.append(held or ABSENT)
        expression = on_bits if on_bits is not None else self.expression(names)
        if expression is None or len(outputs) != 1:
            raise NotImplementedError(f"{self.describe()} has no OpenCL lowering")
        output = len(inputs)
        return elementwise_kernel(
            types,
            [k for k, name in enumerate(names) if name is not None],
            [Statement(expression, types[output], self.operator_name())],
            [(output, 0)],
            self.element_layout(),
            profile,
            fused=False,
            may_alias=self.SUPPORTS_IN_PLACE,
        )

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        """This operator's output as one OpenCL C expression of its input values, built from the helpers of
        ``opencl/elementwise_ops.h`` (the one place each operator's arithmetic is written), or None where it has
        none. ``inputs`` names each input's value in binding order (None for an absent tensor): a float for
        FLOAT32 and FLOAT16 (a half's value), the storage type for integers. The element-wise template rounds
        the result to a FLOAT16 output's precision; the same expression serves the operator alone and fused in
        a graph."""
        return None
