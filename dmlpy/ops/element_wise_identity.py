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

from collections.abc import Sequence

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels import InputView
from dmlpy.kernels.elementwise import bits_type
from dmlpy.ops._unary import ScaleBias, ScaledUnaryDesc, float_literal
from dmlpy.support import SupportRow, SupportTable

T = TensorDataType

_FLOATS_1_0 = frozenset({T.FLOAT32, T.FLOAT16})
_TYPES_2_1 = frozenset({T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8})
_TYPES_4_1 = _TYPES_2_1 | {T.FLOAT64, T.INT64, T.UINT64}

__all__ = ["ElementWiseIdentityOperatorDesc", "ScaleBias"]


def _both(types: frozenset[TensorDataType]) -> dict[str, frozenset[TensorDataType]]:
    return {"InputTensor": types, "OutputTensor": types}


class ElementWiseIdentityOperatorDesc(ScaledUnaryDesc):
    """DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC: OutputTensor = InputTensor, through ScaleBias when given."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_IDENTITY
    BUILDER_NAME = "identity"
    ONNX_OPS = ("Identity", "Transpose", "Expand", "Reshape", "Flatten", "Squeeze", "Unsqueeze")
    SUPPORT = SupportTable(
        OperatorType.ELEMENT_WISE_IDENTITY,
        rows=(
            SupportRow(FeatureLevel.FL_1_0, (4, 5), _both(_FLOATS_1_0)),
            SupportRow(FeatureLevel.FL_2_1, (4, 5), _both(_TYPES_2_1)),
            SupportRow(FeatureLevel.FL_3_0, (1, 8), _both(_TYPES_2_1)),
            SupportRow(FeatureLevel.FL_4_1, (1, 8), _both(_TYPES_4_1)),
        ),
    )

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        return inputs[0] if self.scale_bias is None else None

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        data_type = self.input_tensor.desc.data_type
        if data_type == T.FLOAT64:
            return None  # no register type in a fused kernel (double needs cl_khr_fp64)
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        if self.scale_bias is None:
            # A half copy goes through float in a fused kernel, which would quieten a signalling NaN that the
            # copy alone moves bit for bit.
            return None if data_type == T.FLOAT16 else value
        return self.stored(self.scaled(value))

    def input_view(self) -> InputView | None:
        """Without ScaleBias the copy is InputTensor read through its own Strides at the output's coordinates (a
        transpose or a broadcast written as InputTensor's Strides, as onnxruntime lowers Transpose and Expand)."""
        if self.scale_bias is not None or DATA_TYPES[self.input_tensor.desc.data_type].bits < 8:
            return None
        return InputView(self.input_tensor.desc.effective_strides)

    def explain_lines(self) -> list[str]:
        data_type = self.input_tensor.desc.data_type
        if self.scale_bias is None:
            width = DATA_TYPES[data_type].bits
            bits = bits_type(data_type).storage
            return [f"no ScaleBias -> relayout copy of each element's {width} bits ({data_type} as {bits})"]
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
