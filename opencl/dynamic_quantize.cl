// dynamic_quantize.cl: DYNAMIC_QUANTIZE_LINEAR's scale and zero point (dmlpy/ops/dynamic_quantize_linear.py; planned
// by dmlpy/kernels/dynamic_quantize.py), from the input's minimum and maximum that reduce.cl's MIN and MAX left in
// the plan's temporary regions. The quantization itself is the element-wise template's QuantizeLinear afterwards,
// reading the two values this kernel writes (elementwise_ops.h's quantize and saturate: the arithmetic written once).
//
// ONNX's DynamicQuantizeLinear, as onnx.reference computes it (docs/operators/dynamic_quantize_linear.md):
//   low  = min(min(x), 0), high = max(max(x), 0)              the range widened to hold 0 (a NaN stays)
//   scale = (high == low ? 1 : high - low) / (QMAX - QMIN)     a constant 0 input: 1 / (QMAX - QMIN), not 0
//   zero_point = saturate(rint(QMIN - low / scale))            halves to even
// Every step is one IEEE 754 float operation, rounded once: the subtraction, and the divisions, correctly rounded
// (the program builds with -cl-fp32-correctly-rounded-divide-sqrt), so the scale and the zero point are the float32
// reference's bits. A FLOAT16 input's extremes (DML_FLOAT16 1: bound as half bits) convert to float exactly.
//
// QMIN and QMAX are the output type's range (UINT8 0 and 255, INT8 -128 and 127), ZERO_POINT_T its storage and
// TO_ZERO_POINT its clamp (saturate_uchar, saturate_char). Arguments follow the element-wise convention
// (dmlpy/kernels/source.py) over one element: the minimum, the maximum, the scale, the zero point; the layout's
// strides are all 0, so only the offsets place each value.

#include "elementwise_ops.h"
#include "float_tensors.h"

#ifndef QMIN
#error "define QMIN and QMAX: the output type's range"
#endif

__kernel void quantization_parameters(__global const storage_t *minimum, ulong minimum_offset,
                                      __global const storage_t *maximum, ulong maximum_offset, __global float *scale,
                                      ulong scale_offset, __global ZERO_POINT_T *zero_point, ulong zero_point_offset,
                                      ulong element_count, uint8 sizes, uint8 minimum_strides, uint8 maximum_strides,
                                      uint8 scale_strides, uint8 zero_point_strides)
{
    // One value to compute: the "gpu" profile launches a whole work-group, whose other work-items have nothing to do.
    if (get_global_id(0) != 0) {
        return;
    }
    const float smallest = LOAD(minimum, minimum_offset), largest = LOAD(maximum, maximum_offset);
    // Comparisons, not fmin and fmax, which would drop a NaN: a NaN input gives a NaN scale, as onnx.reference's.
    const float low = smallest > 0.0f ? 0.0f : smallest;
    const float high = largest < 0.0f ? 0.0f : largest;
    const float step = (high == low ? 1.0f : high - low) / (float)(QMAX - QMIN);
    scale[scale_offset] = step;
    zero_point[zero_point_offset] = TO_ZERO_POINT(RINT((float)QMIN - low / step));
}
