"""DYNAMIC_QUANTIZE_LINEAR's plan: four launches, each a kernel written once elsewhere but the third.

1. reduce.cl's MIN over every axis of the input into a temporary region (one element, the input's type);
2. reduce.cl's MAX likewise into a second region;
3. dynamic_quantize.cl: the scale and the zero point from the two, into OutputScaleTensor and
   OutputZeroPointTensor;
4. the element-wise template's QuantizeLinear (elementwise_ops.h's quantize and saturate) of the input with that
   scale and zero point, read back from the two outputs through strides of 0, into OutputTensor.

The minimum and the maximum are exact (a FLOAT16 one stays a half in its region), so every result is the float32
reference's, bit for bit."""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import ReduceFunction, TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS, Statement, ValueType, elementwise_kernel, value_type
from dmlpy.kernels.launch import LaunchProfile, LoweredOperator
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.reduction import reduce_kernel
from dmlpy.kernels.source import KernelSpec
from dmlpy.tensor import BufferTensorDesc

_RANGES = {TensorDataType.UINT8: (0, 255), TensorDataType.INT8: (-128, 127)}
"""Each output type's range, ONNX's qmin and qmax."""
_INPUT, _OUTPUT, _SCALE, _ZERO_POINT = (
    PlanRef("input", 0),
    PlanRef("output", 0),
    PlanRef("output", 1),
    PlanRef("output", 2),
)
_MINIMUM, _MAXIMUM = PlanRef("temporary", 0), PlanRef("temporary", 1)


def _parameters_kernel(
    input_type: AnyDataType, output_type: TensorDataType, saturate: str, profile: LaunchProfile
) -> LoweredOperator:
    """dynamic_quantize.cl over its one element: every tensor's stride 0, so only the offsets place the values."""
    low, high = _RANGES[output_type]
    spec = KernelSpec(
        "dynamic_quantize.cl",
        "quantization_parameters",
        (
            ("DML_FLOAT16", "1" if input_type == TensorDataType.FLOAT16 else "0"),
            ("QMIN", str(low)),
            ("QMAX", str(high)),
            ("ZERO_POINT_T", DATA_TYPES[output_type].opencl_storage),
            ("TO_ZERO_POINT", saturate),
        ),
        TEMPLATE_OPTIONS,  # the divisions must be correctly rounded
    )
    return LoweredOperator(spec, ElementwiseLayout(1, (1,), ((0,),) * 4), 1, profile)


def _held(data_type: AnyDataType) -> ValueType:
    held = value_type(data_type)
    assert held is not None, "DYNAMIC_QUANTIZE_LINEAR's types (FLOAT32, FLOAT16, INT8, UINT8) are the template's"
    return held


def _quantize_kernel(
    expression: str,
    input_type: AnyDataType,
    output_type: TensorDataType,
    sizes: Sequence[int],
    strides: tuple[Sequence[int], Sequence[int]],
    profile: LaunchProfile,
) -> LoweredOperator:
    """The element-wise template computing ``expression`` of the input, the scale and the zero point (tensors 0 to
    2, the last two broadcast by strides of 0) into the output (tensor 3); ``strides`` the input's and the
    output's."""
    tensors = [_held(t) for t in (input_type, TensorDataType.FLOAT32, output_type, output_type)]
    zeros = (0,) * len(sizes)
    return elementwise_kernel(
        tensors,
        [0, 1, 2],
        [Statement(expression, tensors[3], "DYNAMIC_QUANTIZE_LINEAR")],
        [(3, 0)],
        coalesce(sizes, [strides[0], zeros, zeros, strides[1]]),
        profile,
        fused=False,
        may_alias=False,
    )


def dynamic_quantize_plan(
    source: BufferTensorDesc, target: BufferTensorDesc, quantized: str, saturate: str, profile: LaunchProfile
) -> OperatorPlan:
    """The four launches computing DYNAMIC_QUANTIZE_LINEAR of ``source`` into ``target`` (OutputTensor), its scale
    and its zero point, and the two one-element temporary regions the extremes pass through. ``quantized`` is the
    template's expression of QuantizeLinear over the values in0 (input), in1 (scale) and in2 (zero point);
    ``saturate`` the elementwise_ops.h clamp into the output type, which the zero point takes too."""
    output_type = TensorDataType(target.data_type)
    sizes, axes = source.sizes, tuple(range(len(source.sizes)))
    extreme = BufferTensorDesc(data_type=source.data_type, sizes=(1,) * len(sizes))
    reduced = (source.effective_strides, (0,) * len(sizes))
    steps = [
        PlannedStep(
            reduce_kernel(function.value, False, source.data_type, source.data_type, sizes, reduced, axes, profile),
            (_INPUT, region),
        )
        for function, region in ((ReduceFunction.MIN, _MINIMUM), (ReduceFunction.MAX, _MAXIMUM))
    ]
    parameters = _parameters_kernel(source.data_type, output_type, saturate, profile)
    steps.append(PlannedStep(parameters, (_MINIMUM, _MAXIMUM, _SCALE, _ZERO_POINT)))
    strides = (source.effective_strides, target.effective_strides)
    quantize = _quantize_kernel(quantized, source.data_type, output_type, sizes, strides, profile)
    steps.append(PlannedStep(quantize, (_INPUT, _SCALE, _ZERO_POINT, _OUTPUT)))
    return OperatorPlan(tuple(steps), (extreme, extreme))
