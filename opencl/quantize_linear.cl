// ELEMENT_WISE_QUANTIZE_LINEAR and ELEMENT_WISE_DEQUANTIZE_LINEAR
// (DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC, DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC).
//
// Specialised with -D options (defaults below let the file compile on its own):
//   DEQUANTIZE=0         quantize:   output = saturate(rint(input / scale) + zero_point)
//                        rint rounds halves to even, as ONNX and WebNN specify. The division is a true
//                        division: dmlpy builds with -cl-fp32-correctly-rounded-divide-sqrt. For FLOAT16
//                        tensors the float quotient is rounded to half first, which gives the correctly rounded
//                        half quotient (24 >= 2 * 11 + 2 bits, so the double rounding is innocuous).
//                        Saturation is convert_<type>_sat's: +inf -> max, -inf -> min, NaN -> 0, written as
//                        a clamp (see SATURATE) that compilers vectorise.
//   DEQUANTIZE=1         dequantize: output = (input - zero_point) * scale, in float, then stored.
//   INPUT_T SCALE_T ZERO_POINT_T OUTPUT_T   storage types; half tensors are read and written through
//                        vload_half/vstore_half (no cl_khr_fp16 needed), flagged by *_IS_HALF=1.
//   DML_HALF_BITS=1      half tensors converted through integer bits (half_bits.h; dmlpy sets it on PoCL).
//   HAS_ZERO_POINT=0     the ZeroPointTensor is null: the zero point is 0 and its buffer is never read.
//   ROUND_MODE=0..8      dmlpy extension, NOT DirectML: quantize with one of nGraph's rounding modes
//                        (round_modes.h) instead of rint.
//   PACKED=1             input and output are one contiguous run, scale and zero point one value each (per-tensor
//                        quantization): a plain loop with the scale and zero point read once, which compilers
//                        vectorise (PoCL, 16M float32 elements: QuantizeLinear 0.99x the copy kernel of its
//                        bytes, against 0.02x through the walk).
//   RANK, GRID_STRIDE, ELEMENTS_PER_ITEM   otherwise the strided walk; the launch profile (elementwise_walk.h).
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
#ifndef DML_HALF_BITS
#define DML_HALF_BITS 0
#endif

#define TENSOR_COUNT 4
#include "elementwise_walk.h"

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

#if DML_HALF_BITS
#include "half_bits.h"
#define HALF_AT(p, i) half_bits_to_float(((__global const ushort *)(p))[i])
#else
#define HALF_AT(p, i) vload_half((i), (p))
#endif
#if INPUT_IS_HALF
#define LOAD_INPUT(i) HALF_AT(input, i)
#else
#define LOAD_INPUT(i) ((float)input[i])
#endif
#if SCALE_IS_HALF
#define LOAD_SCALE(i) HALF_AT(scale, i)
#else
#define LOAD_SCALE(i) ((float)scale[i])
#endif
#if HAS_ZERO_POINT
#define LOAD_ZERO_POINT(i) ((float)zero_point[i])
#else
#define LOAD_ZERO_POINT(i) 0.0f
#endif
#if OUTPUT_IS_HALF && DML_HALF_BITS
#define STORE_OUTPUT(value, i) (((__global ushort *)output)[i] = float_to_half_bits(value))
#elif OUTPUT_IS_HALF
#include "half_store.h"
#define STORE_OUTPUT(value, i) store_half((value), (i), output)
#elif DEQUANTIZE
#define STORE_OUTPUT(value, i) (output[i] = (value))
#else
// convert_uchar_sat and convert_char_sat, exactly: the value is a whole number (or infinite, or NaN), NaN goes
// to 0, and the clamp keeps the rest in range before the conversion. PoCL's convert_*_sat are library calls
// that stop the vectoriser (packed float32 -> uint8: 0.68x the copy kernel, 0.99x with the clamp).
#define SATURATE_uchar(v) fmin(fmax((v), 0.0f), 255.0f)
#define SATURATE_char(v) fmin(fmax((v), -128.0f), 127.0f)
#define STORE_OUTPUT(value, i) (output[i] = (OUTPUT_T)CONCAT(SATURATE_, OUTPUT_T)(isnan(value) ? 0.0f : (value)))
#endif

#ifdef ROUND_MODE
#include "round_modes.h"
#define QUANTIZE_ROUND(q) round_in_mode(q)
#elif defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_roundeven)
// rint, as clang's exact element-wise built-in (element_wise_round.cl says why).
#define QUANTIZE_ROUND(q) __builtin_elementwise_roundeven(q)
#endif
#endif
#ifndef QUANTIZE_ROUND
#define QUANTIZE_ROUND(q) rint(q)
#endif

// A float rounded to the nearest half and back. Without cl_khr_fp16 no half variable may be declared, so the
// half's 16 bits live in a ushort.
inline float round_to_half(float value)
{
#if DML_HALF_BITS
    return half_value(value);
#else
    ushort stored;
    vstore_half(value, 0, (half *)&stored);
    return vload_half(0, (const half *)&stored);
#endif
}

// One element: input[from] with its scale and zero point into output[to].
inline void quantize_element(__global const INPUT_T *input, ulong from, float scale, float zero_point,
                             __global OUTPUT_T *output, ulong to)
{
#if DEQUANTIZE
    STORE_OUTPUT((LOAD_INPUT(from) - zero_point) * scale, to);
#else
    float quotient = LOAD_INPUT(from) / scale;
#if INPUT_IS_HALF
    quotient = round_to_half(quotient);
#endif
    STORE_OUTPUT(QUANTIZE_ROUND(quotient) + zero_point, to);
#endif
}

__kernel void quantize_linear(__global const INPUT_T *input, ulong input_offset,
                              __global const SCALE_T *scale, ulong scale_offset,
                              __global const ZERO_POINT_T *zero_point, ulong zero_point_offset,
                              __global OUTPUT_T *output, ulong output_offset,
                              ulong element_count, uint8 sizes, uint8 input_strides,
                              uint8 scale_strides, uint8 zero_point_strides, uint8 output_strides)
{
#if PACKED
    // DirectML refuses an output overlapping the scale or zero point, so reading them once is exact.
    const float one_scale = LOAD_SCALE(scale_offset), one_zero_point = LOAD_ZERO_POINT(zero_point_offset);
    FOR_EACH_PACKED(i, element_count)
        quantize_element(input, input_offset + i, one_scale, one_zero_point, output, output_offset + i);
#else
    const uint8 strides[TENSOR_COUNT] = {input_strides, scale_strides, zero_point_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, scale_offset, zero_point_offset, output_offset};
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
        quantize_element(input, w.at[0], LOAD_SCALE(w.at[1]), LOAD_ZERO_POINT(w.at[2]), output, w.at[3]);
    } while (walk_advance(&w));
#endif
}
