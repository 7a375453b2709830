"""DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC and DML_SCALE_BIAS (learn.microsoft.com pages of the same names;
docs/operators/element_wise_identity.md holds the support table as transcribed and its sources).

``f(x) = x``: a copy, which with strides is any relayout (padding, transposition, broadcast). With ScaleBias,
``g(x) = x * Scale + Bias`` is applied to each input element first. Introduced at DML_FEATURE_LEVEL_1_0;
in-place allowed; OutputTensor has InputTensor's DataType, DimensionCount and Sizes.

Without ScaleBias the kernel moves each element's bits unchanged (an unsigned integer of the element's width),
so every type, NaN payloads and signalling NaNs included, is copied exactly, FLOAT64 needing no cl_khr_fp64.

With ScaleBias the arithmetic is float (Scale and Bias are C FLOATs): the product is rounded to float, then the
sum, never fused into one fma, so a FLOAT32 result equals NumPy's ``np.float32(x) * s + b``. FLOAT16 is read
into float and the float result rounded to the nearest half. Integer inputs are converted to float (exact up to
2^24 in magnitude) and the float result back with truncation toward zero and saturation to the type's range
(NaN to 0): DirectML documents no rule for integers, and this is Direct3D's float-to-integer conversion. DirectML
applies ScaleBias to 64-bit types not at all (microsoft/DirectML pull request #275: "DirectML doesn't support
ScaleBias for 64 bit types"), so dmlpy refuses ScaleBias on FLOAT64, INT64 and UINT64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, KernelSpec, LaunchProfile, LoweredOperator
from dmlpy.model import DmlModel
from dmlpy.ops._unary import UnaryElementWiseDesc
from dmlpy.support import SupportRow, SupportTable

T = TensorDataType

_FLOATS_1_0 = frozenset({T.FLOAT32, T.FLOAT16})
_TYPES_2_1 = frozenset({T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8})
_TYPES_4_1 = _TYPES_2_1 | {T.FLOAT64, T.INT64, T.UINT64}

_NO_SCALE_BIAS = frozenset({T.FLOAT64, T.INT64, T.UINT64})
"""Types DirectML applies no ScaleBias to (64-bit; microsoft/DirectML pull request #275)."""

_COPY_TYPES = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}
"""The OpenCL type a copy moves an element of each width as: its bits, unchanged."""

ELEMENTS_PER_ITEM = 1024
"""Consecutive elements each work-item copies or scales: long loops suit CPU devices (PoCL)."""


def _both(types: frozenset[TensorDataType]) -> dict[str, frozenset[TensorDataType]]:
    return {"InputTensor": types, "OutputTensor": types}


def float_literal(value: float) -> str:
    """``value`` rounded to float32 as an exact OpenCL C expression: a hex literal (``0x1.8p+0f``) when finite,
    the float's bits through as_float otherwise (infinities, NaN with its payload)."""
    with np.errstate(over="ignore"):  # beyond float32's range: an infinity, as C's conversion to FLOAT gives
        single = np.float32(value)
    if not math.isfinite(single):
        return f"as_float(0x{int(single.view(np.uint32)):08x}u)"
    mantissa, exponent = float(single).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"  # 0x1.8000000000000p+0 -> 0x1.8p+0f


class ScaleBias(DmlModel):
    """DML_SCALE_BIAS: ``g(x) = x * Scale + Bias``. Both members are C FLOATs: Python floats here, rounded to
    float32 (to nearest) where the kernel uses them, which computes in float."""

    scale: float = Field(alias="Scale")
    """Scale (FLOAT)."""
    bias: float = Field(alias="Bias")
    """Bias (FLOAT)."""


class ElementWiseIdentityOperatorDesc(UnaryElementWiseDesc):
    """DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC: OutputTensor = InputTensor, through ScaleBias when given."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_IDENTITY
    BUILDER_NAME = "identity"
    ONNX_OPS = ("Identity",)
    SUPPORT = SupportTable(
        OperatorType.ELEMENT_WISE_IDENTITY,
        rows=(
            SupportRow(FeatureLevel.FL_1_0, (4, 5), _both(_FLOATS_1_0)),
            SupportRow(FeatureLevel.FL_2_1, (4, 5), _both(_TYPES_2_1)),
            SupportRow(FeatureLevel.FL_3_0, (1, 8), _both(_TYPES_2_1)),
            SupportRow(FeatureLevel.FL_4_1, (1, 8), _both(_TYPES_4_1)),
        ),
    )

    scale_bias: ScaleBias | None = Field(default=None, alias="ScaleBias")
    """ScaleBias (DML_SCALE_BIAS, may be null): applies ``x * Scale + Bias`` to each input element first."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        data_type = self.input_tensor.desc.data_type
        if self.scale_bias is not None and data_type in _NO_SCALE_BIAS:
            raise InvalidArgumentError(
                f"{self.operator_name()}.ScaleBias is given with an InputTensor of {data_type}; DirectML applies "
                "ScaleBias to FLOAT32, FLOAT16 and the 8- to 32-bit integers only, never to FLOAT64, INT64 or "
                "UINT64. Set ScaleBias to null for a copy"
            )

    def describe(self) -> str:
        data_type = self.input_tensor.desc.data_type.name
        if self.scale_bias is None:
            return f"{self.operator_name()} ({data_type})"
        return f"{self.operator_name()} ({data_type}, Scale {self.scale_bias.scale!r}, Bias {self.scale_bias.bias!r})"

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        layout = self.element_layout()
        data_type = self.input_tensor.desc.data_type
        info = DATA_TYPES[data_type]
        if self.scale_bias is None:
            # The element's bits as an unsigned integer: NaN payloads, -0 and every integer move unchanged.
            defines: tuple[tuple[str, str], ...] = (("ELEMENT_T", _COPY_TYPES[info.bits]), ("SCALE_BIAS", "0"))
        else:
            # Scale and Bias are compiled in (exact literals): each ScaleBias value is its own program, as the
            # element-wise argument convention (dmlpy/kernels/spec.py) has no place for scalars.
            kind = "2" if data_type == T.FLOAT16 else "1" if data_type == T.FLOAT32 else "3"
            defines = (
                ("ELEMENT_T", info.opencl_storage or ""),
                ("SCALE_BIAS", kind),
                ("SCALE", float_literal(self.scale_bias.scale)),
                ("BIAS", float_literal(self.scale_bias.bias)),
            )
        defines += (
            ("PACKED", "1" if layout.packed else "0"),
            ("RANK", str(layout.rank)),
        )
        kernel = KernelSpec("element_wise_identity.cl", "element_wise_identity", defines)
        return profile.lowered(kernel, layout, ELEMENTS_PER_ITEM)

    def fused_expression(self, inputs: Sequence[str | None]) -> str | None:
        data_type = self.input_tensor.desc.data_type
        if data_type in _NO_SCALE_BIAS:
            return None  # 64-bit values have no register type in a fused kernel
        value = inputs[0]
        if self.scale_bias is None:
            # A half copy goes through float in a fused kernel, which would quieten a signalling NaN that the
            # copy kernel moves bit for bit.
            return None if data_type == T.FLOAT16 else value
        scale, bias = float_literal(self.scale_bias.scale), float_literal(self.scale_bias.bias)
        if data_type in (T.FLOAT32, T.FLOAT16):
            return f"scale_bias({value}, {scale}, {bias})"
        storage = DATA_TYPES[data_type].opencl_storage
        return f"convert_{storage}_sat_rtz(nan_to_zero(scale_bias((float){value}, {scale}, {bias})))"

    def explain_lines(self) -> list[str]:
        data_type = self.input_tensor.desc.data_type
        if self.scale_bias is None:
            width = DATA_TYPES[data_type].bits
            return [
                f"no ScaleBias -> relayout copy of each element's {width} bits ({data_type} as {_COPY_TYPES[width]})"
            ]
        scale, bias = float_literal(self.scale_bias.scale), float_literal(self.scale_bias.bias)
        if data_type == T.FLOAT16:
            how = "read as float, result rounded to half"
        elif data_type == T.FLOAT32:
            how = "each step rounded to float, no fma"
        else:
            how = "converted to float, result back with truncation toward zero and saturation"
        sb = self.scale_bias
        return [
            f"ScaleBias -> x * Scale + Bias in float, Scale {sb.scale!r} = {scale}, Bias {sb.bias!r} = {bias} ({how})",
            "Scale and Bias are compiled into the program: each ScaleBias value builds its own",
        ]
