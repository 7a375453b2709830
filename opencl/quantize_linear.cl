// ELEMENT_WISE_QUANTIZE_LINEAR and ELEMENT_WISE_DEQUANTIZE_LINEAR
// (DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC).
//
// Specialised with -D options (defaults below let the file compile on its own):
//   DEQUANTIZE=0         quantize:   output = saturate(rint(input / scale) + zero_point)
//                        rint rounds halves to even, as ONNX and WebNN specify. The division is a true
//                        division: dmlpy builds with -cl-fp32-correctly-rounded-divide-sqrt. For FLOAT16
//                        tensors the float quotient is rounded to half first, which gives the correctly rounded
//                        half quotient (24 >= 2 * 11 + 2 bits, so the double rounding is innocuous).
//                        Saturation uses convert_<type>_sat: +inf -> max, -inf -> min, NaN -> 0.
//   DEQUANTIZE=1         dequantize: output = (input - zero_point) * scale, in float, then stored.
//   INPUT_T SCALE_T ZERO_POINT_T OUTPUT_T   storage types; half tensors are read and written through
//                        vload_half/vstore_half (no cl_khr_fp16 needed), flagged by *_IS_HALF=1.
//   HAS_ZERO_POINT=0     the ZeroPointTensor is null: the zero point is 0 and its buffer is never read.
//   ROUND_MODE=0..8      dmlpy extension, NOT DirectML: quantize with one of nGraph's rounding modes
//                        (round_modes.h) instead of rint.
//   RANK, GRID_STRIDE, ELEMENTS_PER_ITEM   the strided walk and the launch profile (elementwise_walk.h).
//
// Arguments follow dmlpy's element-wise convention: per tensor (Input, Scale, ZeroPoint, Output) its buffer
// and element offset, then the element count, the coalesced sizes and per-tensor strides.

#ifndef DEQUANTIZE
#define DEQUANTIZE 0
#endif
#ifndef INPUT_T
#define INPUT_T float
#endif
#ifndef SCALE_T
#define SCALE_T float
#endif
#ifndef ZERO_POINT_T
#define ZERO_POINT_T uchar
#endif
#ifndef OUTPUT_T
#define OUTPUT_T uchar
#endif
#ifndef INPUT_IS_HALF
#define INPUT_IS_HALF 0
#endif
#ifndef SCALE_IS_HALF
#define SCALE_IS_HALF 0
#endif
#ifndef OUTPUT_IS_HALF
#define OUTPUT_IS_HALF 0
#endif
#ifndef HAS_ZERO_POINT
#define HAS_ZERO_POINT 1
#endif

#define TENSOR_COUNT 4
#include "elementwise_walk.h"

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

#if INPUT_IS_HALF
#define LOAD_INPUT(i) vload_half((i), input)
#else
#define LOAD_INPUT(i) ((float)input[i])
#endif
#if SCALE_IS_HALF
#define LOAD_SCALE(i) vload_half((i), scale)
#else
#define LOAD_SCALE(i) ((float)scale[i])
#endif
#if HAS_ZERO_POINT
#define LOAD_ZERO_POINT(i) ((float)zero_point[i])
#else
#define LOAD_ZERO_POINT(i) 0.0f
#endif
#if OUTPUT_IS_HALF
#include "half_store.h"
#define STORE_OUTPUT(value, i) store_half((value), (i), output)
#elif DEQUANTIZE
#define STORE_OUTPUT(value, i) (output[i] = (value))
#else
#define STORE_OUTPUT(value, i) (output[i] = CONCAT(CONCAT(convert_, OUTPUT_T), _sat)(value))
#endif

#ifdef ROUND_MODE
#include "round_modes.h"
#define QUANTIZE_ROUND(q) round_in_mode(q)
#else
#define QUANTIZE_ROUND(q) rint(q)
#endif

// A float rounded to the nearest half and back. Without cl_khr_fp16 no half variable may be declared, so the
// half's 16 bits live in a ushort.
inline float round_to_half(float value)
{
    ushort stored;
    vstore_half(value, 0, (half *)&stored);
    return vload_half(0, (const half *)&stored);
}

__kernel void quantize_linear(__global const INPUT_T *input, ulong input_offset,
                              __global const SCALE_T *scale, ulong scale_offset,
                              __global const ZERO_POINT_T *zero_point, ulong zero_point_offset,
                              __global OUTPUT_T *output, ulong output_offset,
                              ulong element_count, uint8 sizes, uint8 input_strides,
                              uint8 scale_strides, uint8 zero_point_strides, uint8 output_strides)
{
    const uint8 strides[TENSOR_COUNT] = {input_strides, scale_strides, zero_point_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, scale_offset, zero_point_offset, output_offset};
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
#if DEQUANTIZE
        const float value = (LOAD_INPUT(w.at[0]) - LOAD_ZERO_POINT(w.at[2])) * LOAD_SCALE(w.at[1]);
        STORE_OUTPUT(value, w.at[3]);
#else
        float quotient = LOAD_INPUT(w.at[0]) / LOAD_SCALE(w.at[1]);
#if INPUT_IS_HALF
        quotient = round_to_half(quotient);
#endif
        STORE_OUTPUT(QUANTIZE_ROUND(quotient) + LOAD_ZERO_POINT(w.at[2]), w.at[3]);
#endif
    } while (walk_advance(&w));
}
