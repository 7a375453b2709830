// A graph's element-wise nodes in one kernel (DML_GRAPH_DESC through device.compile_graph): every element is
// loaded once from each graph input, carried through the nodes in registers and stored once to each graph
// output, so DequantizeLinear -> Round -> QuantizeLinear reads and writes memory once instead of three times.
//
// dmlpy/graph/fusion.py writes the specialisation as #define lines before this file (the program's source shows
// them); the defaults below make it compile on its own, as a float32 copy.
//   TENSOR_COUNT         tensors bound to the kernel (1 to 8): the group's inputs, then its outputs
//   TENSOR<k>_T          tensor k's storage type (float, half, uchar, char, short, ushort, int, uint)
//   STEP<k>              PACKED and ROWS: tensor k's step along the innermost dimension, 1 or 0 (a per-tensor
//                        or per-axis scale read once for a whole run)
//   FUSED_PROLOGUE       PACKED: loads of the tensors read once (STEP<k> 0) before the loop, with LOAD_ONE.
//   FUSED_BODY           the nodes in graph order, one statement each: `const float v3 = ...;`, from loads of
//                        the group's inputs (LOAD, LOAD_HALF) to stores of its outputs (STORE, STORE_HALF). Each
//                        node's value is rounded to its output's data type where the nodes one by one would
//                        store it (TO_HALF for FLOAT16, a saturating conversion for 8-bit integers), so the
//                        result is bit-identical to running them one by one.
//   PACKED=1             every tensor one contiguous run or one value: a plain loop the compiler vectorises.
//   ROWS=1               "cpu" profile, every tensor stepping by 1 or 0 along the innermost coalesced dimension
//                        ROW_DIM (padding, per-axis scales): rows of it as plain loops, the rows walked with
//                        elementwise_walk.h over the RANK = ROW_DIM dimensions before it.
//   RANK, GRID_STRIDE, ELEMENTS_PER_ITEM   otherwise the strided walk; the launch profile (elementwise_walk.h).
//   DML_ELEMENTWISE_BUILTINS  set by dmlpy's runtime on PoCL: rint and trunc as clang's exact element-wise built-ins.
//   DML_KEEP_NAN_BITS    1 (the default): Round passes a NaN through quieted, sign and payload kept, as
//                        element_wise_round.cl does (NVIDIA's rint returns one canonical NaN for every NaN).
//
// Arguments follow dmlpy's element-wise convention (dmlpy/kernels/spec.py): per tensor its buffer and element offset,
// then the element count, the coalesced sizes and per-tensor strides.

#pragma OPENCL FP_CONTRACT OFF

#ifndef TENSOR_COUNT
#define TENSOR_COUNT 2
#define TENSOR0_T float
#define TENSOR1_T float
#define STEP0 1
#define STEP1 1
#define PACKED 1
#define FUSED_PROLOGUE
#define FUSED_BODY                                                                                         \
    const float v0 = LOAD(0);                                                                              \
    STORE(1, v0);
#endif
#ifndef ROWS
#define ROWS 0
#endif
#ifndef DML_KEEP_NAN_BITS
#define DML_KEEP_NAN_BITS 1
#endif
#if TENSOR_COUNT > 8
#error "a fused kernel binds at most 8 tensors"
#endif

#include "elementwise_walk.h"

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

// ------------------------------------------------------------------------------------------ loads and stores
// AT(k) is the element offset of the current element in tensor k; each loop shape below defines it.
#define LOAD(k) (tensor##k[AT(k)])
#define LOAD_ONE(k) (tensor##k[tensor##k##_offset])
#define STORE(k, value) (tensor##k[AT(k)] = (value))
#include "half_bits.h"
// Half tensors are read and written through their bits on every device (half_bits.h): a value stored to a half
// tensor is a half's already (TO_HALF: the nearest half as a float, NaN payload kept), so its bits are exact. Not
// vload_half and half_store.h's store_half, as the kernels one by one use off PoCL: on an NVIDIA H100 a kernel
// that read one half NaN and stored it to two half tensors wrote both as 0x7fff (the compiler keeps such a value
// in half precision, where NaN is canonical), while the kernels one by one keep the payload (0x7fbf).
#define LOAD_HALF(k) half_bits_to_float(((__global const ushort *)tensor##k)[AT(k)])
#define LOAD_ONE_HALF(k) half_bits_to_float(((__global const ushort *)tensor##k)[tensor##k##_offset])
#define STORE_HALF(k, value) (((__global ushort *)tensor##k)[AT(k)] = half_value_bits(value))
#define TO_HALF(x) half_value(x)

// ------------------------------------------------------------------------------------------------ the nodes
// ELEMENT_WISE_ROUND: the built-ins are exact (element_wise_round.cl); clang's element-wise ones where allowed.
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_roundeven) && __has_builtin(__builtin_elementwise_trunc)
#define RINT(x) __builtin_elementwise_roundeven(x)
#define TRUNC(x) __builtin_elementwise_trunc(x)
#endif
#endif
#ifndef RINT
#define RINT(x) rint(x)
#define TRUNC(x) trunc(x)
#endif
// Halves away from zero from trunc, exactly: x - t never rounds, and t + copysign(1, x) is exact where x has a
// fraction (element_wise_round.cl says why); PoCL's round() is a library call that stops the vectoriser.
inline float round_half_away(float x)
{
    const float t = TRUNC(x);
    return fabs(x - t) >= 0.5f ? t + copysign(1.0f, x) : t;
}
#define KEEP_NAN(x, rounded) ((DML_KEEP_NAN_BITS && isnan(x)) ? as_float(as_uint(x) | 0x00400000u) : (rounded))
#define ROUND_HALVES_TO_NEAREST_EVEN(x) KEEP_NAN((x), RINT(x))
#define ROUND_TOWARD_ZERO(x) KEEP_NAN((x), TRUNC(x))
#define ROUND_TOWARD_INFINITY(x) KEEP_NAN((x), round_half_away(x))

// ELEMENT_WISE_DEQUANTIZE_LINEAR: (input - zero_point) * scale, in float (quantize_linear.cl).
inline float dequantize(float x, float scale, float zero_point)
{
    return (x - zero_point) * scale;
}

// ELEMENT_WISE_QUANTIZE_LINEAR: rint(input / scale) + zero_point before saturation (quantize_linear.cl). The
// division is a true one: the program is built with -cl-fp32-correctly-rounded-divide-sqrt. A half input's
// quotient is rounded to half first, as the half-precision division would give.
inline float quantize(float x, float scale, float zero_point, bool half_input)
{
    float quotient = x / scale;
    if (half_input)
        quotient = TO_HALF(quotient);
    return RINT(quotient) + zero_point;
}
// The OpenCL rule for NaN converted to an integer with saturation: 0. Written out before every such conversion:
// PoCL 3.0 (LLVM 14, the pyopencl wheels') returns the type's minimum from convert_<type>_sat_rtz(NaN), and an
// arbitrary value when the NaN is a compile-time constant (element_wise_identity.cl's to_integer).
inline float nan_to_zero(float v)
{
    return isnan(v) ? 0.0f : v;
}

// convert_uchar_sat and convert_char_sat of a whole number, exactly: NaN to 0, then a clamp (quantize_linear.cl).
inline uchar saturate_uchar(float v)
{
    return (uchar)fmin(fmax(nan_to_zero(v), 0.0f), 255.0f);
}
inline char saturate_char(float v)
{
    return (char)fmin(fmax(nan_to_zero(v), -128.0f), 127.0f);
}

// ELEMENT_WISE_IDENTITY with ScaleBias: the product rounded to float, then the sum; never one fma
// (element_wise_identity.cl).
inline float scale_bias(float x, float scale, float bias)
{
    const float product = x * scale;
    return product + bias;
}

// ------------------------------------------------------------------------------------------------ the kernel
// restrict: a graph's outputs never overlap its inputs or each other (the binding table refuses it), and
// without it the compiler must assume every store may change every later load.
#define TENSOR_PARAMETER(k) __global TENSOR##k##_T *restrict tensor##k, ulong tensor##k##_offset
#define STRIDES_PARAMETER(k) , uint8 strides##k

__kernel void fused_elementwise(TENSOR_PARAMETER(0)
#if TENSOR_COUNT > 1
                                , TENSOR_PARAMETER(1)
#endif
#if TENSOR_COUNT > 2
                                , TENSOR_PARAMETER(2)
#endif
#if TENSOR_COUNT > 3
                                , TENSOR_PARAMETER(3)
#endif
#if TENSOR_COUNT > 4
                                , TENSOR_PARAMETER(4)
#endif
#if TENSOR_COUNT > 5
                                , TENSOR_PARAMETER(5)
#endif
#if TENSOR_COUNT > 6
                                , TENSOR_PARAMETER(6)
#endif
#if TENSOR_COUNT > 7
                                , TENSOR_PARAMETER(7)
#endif
                                , ulong element_count, uint8 sizes STRIDES_PARAMETER(0)
#if TENSOR_COUNT > 1
                                STRIDES_PARAMETER(1)
#endif
#if TENSOR_COUNT > 2
                                STRIDES_PARAMETER(2)
#endif
#if TENSOR_COUNT > 3
                                STRIDES_PARAMETER(3)
#endif
#if TENSOR_COUNT > 4
                                STRIDES_PARAMETER(4)
#endif
#if TENSOR_COUNT > 5
                                STRIDES_PARAMETER(5)
#endif
#if TENSOR_COUNT > 6
                                STRIDES_PARAMETER(6)
#endif
#if TENSOR_COUNT > 7
                                STRIDES_PARAMETER(7)
#endif
)
{
#if PACKED
#define AT(k) (tensor##k##_offset + i * STEP##k)
    // DirectML refuses outputs overlapping inputs here (a graph runs no operator in place), so reading the
    // one-value tensors once is exact, and lets the loop vectorise.
    FUSED_PROLOGUE
    FOR_EACH_PACKED(i, element_count) {
        FUSED_BODY
    }
#else
    const uint8 strides[TENSOR_COUNT] = {strides0
#if TENSOR_COUNT > 1
                                         , strides1
#endif
#if TENSOR_COUNT > 2
                                         , strides2
#endif
#if TENSOR_COUNT > 3
                                         , strides3
#endif
#if TENSOR_COUNT > 4
                                         , strides4
#endif
#if TENSOR_COUNT > 5
                                         , strides5
#endif
#if TENSOR_COUNT > 6
                                         , strides6
#endif
#if TENSOR_COUNT > 7
                                         , strides7
#endif
    };
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset
#if TENSOR_COUNT > 1
                                         , tensor1_offset
#endif
#if TENSOR_COUNT > 2
                                         , tensor2_offset
#endif
#if TENSOR_COUNT > 3
                                         , tensor3_offset
#endif
#if TENSOR_COUNT > 4
                                         , tensor4_offset
#endif
#if TENSOR_COUNT > 5
                                         , tensor5_offset
#endif
#if TENSOR_COUNT > 6
                                         , tensor6_offset
#endif
#if TENSOR_COUNT > 7
                                         , tensor7_offset
#endif
    };
#if ROWS
    // This work-item's ELEMENTS_PER_ITEM consecutive elements, a row segment at a time: the walk holds the row's
    // start in every tensor, the plain loop steps along it by STEP<k> (1, or 0 for a per-axis scale).
#define AT(k) (w.at[k] + j * STEP##k)
    const ulong row_length = CONCAT(sizes.s, ROW_DIM);
    ulong element = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM;
    const ulong end = min(element + (ulong)ELEMENTS_PER_ITEM, element_count);
    if (element < end) {
        walk_t w;
        walk_start(&w, element / row_length, sizes, strides, offsets);
        ulong column = element % row_length;
        for (;;) {
            const ulong stop = min(row_length, column + (end - element));
            for (ulong j = column; j < stop; ++j) {
                FUSED_BODY
            }
            element += stop - column;
            if (element >= end)
                break;
            walk_next(&w);
            column = 0;
        }
    }
#else
#define AT(k) (w.at[k])
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
        FUSED_BODY
    } while (walk_advance(&w));
#endif
#endif
}
