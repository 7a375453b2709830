"""Descriptors of the operators that are not element-wise, built from what ``check_support.py`` varies: a data
type per tensor (C names; None leaves a nullable one out) and one DimensionCount for every tensor. Each builder
gives the tensors Sizes that agree with the operator's shape rules at that DimensionCount, so that only the
support table can refuse the case; None where no such descriptor exists (a matrix of fewer than 2 dimensions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase

T = dml.TensorDataType
Types = dict[str, T | None]
Builder = Callable[[Types, int], OperatorDescBase | None]
M, K, N = 2, 3, 4


def tensor(data_type: T, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def _matrix_roles(dims: int) -> dict[str, tuple[int, ...]]:
    """Sizes by role for a matrix product of ``dims`` dimensions: A {.., M, K}, B {.., K, N}, the output (and C,
    the bias) {.., M, N}, a scale or zero point with one value (every size 1)."""
    batch = (2, 1, 3, 1, 2, 1, 1)[: dims - 2]
    return {"a": (*batch, M, K), "b": (*batch, K, N), "out": (*batch, M, N), "one": (1,) * dims}


def _role(c_name: str) -> str:
    if c_name in ("ATensor", "BTensor"):
        return c_name[0].lower()
    if c_name in ("CTensor", "BiasTensor", "OutputTensor"):
        return "out"
    return "one"


def matrix_product(desc_class: type[OperatorDescBase], **fields: Any) -> Builder:
    """The builder of a matrix product of ``desc_class`` (its other ``fields`` as given)."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        if dims < 2:
            return None
        roles = _matrix_roles(dims)
        tensors = {name: None if t is None else tensor(t, roles[_role(name)]) for name, t in types.items()}
        return desc_class.model_validate({**tensors, **fields})

    return build


SAMPLES: dict[str, Builder] = {
    "GEMM": matrix_product(dml.GemmOperatorDesc, TransA="NONE", TransB="NONE", Alpha=1.0, Beta=1.0),
    "MATRIX_MULTIPLY_INTEGER": matrix_product(dml.MatrixMultiplyIntegerOperatorDesc),
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": matrix_product(dml.QuantizedLinearMatrixMultiplyOperatorDesc),
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT": matrix_product(dml.MatrixMultiplyIntegerToFloatOperatorDesc),
}
"""A builder per operator of ``tests/data/directml-operators`` that dmlpy implements (by support.json's name), but
QUANTIZE and DEQUANTIZE (``NOT_COMPARED``)."""

NOT_COMPARED = {
    "QUANTIZE": "check_support.py gives QuantizationTensors one type for the scale and the zero point alike, and "
    "the scale has the float side's type, the zero point the integer side's (docs/quantization.md); "
    "tests/unit/descriptors/test_quantize_6_3.py compares its table, written out by hand",
    "DEQUANTIZE": "as QUANTIZE",
}
"""Operators of the table that dmlpy implements and check_support.py cannot describe, with why and where they are
compared instead."""
