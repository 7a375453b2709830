// generators.cl: DirectML's generators, operators with no input to read but DIAGONAL_MATRIX1's optional one:
//   FILL_VALUE_CONSTANT   every element `value`
//   FILL_VALUE_SEQUENCE   element i (the output's row-major coordinate order) = start + i * delta
//   DIAGONAL_MATRIX(1)    per matrix (the last two dimensions: y the row, x the column) `value` where x - y lies in
//                         the band, elsewhere InputTensor's element (DIAGONAL_MATRIX1 with one) or 0
// dmlpy/kernels/generators.py lowers them; docs/operators/gather_scatter.md states the choices the pages leave open.
//
// Elements are stored as the unsigned integer of their width (ELEMENT_T: uchar, ushort, uint or ulong): `value`
// arrives as the bits of the output's type (dmlpy converts the fields on the host), so -0, NaN payloads, FLOAT64
// and the 64-bit integers arrive exact and no kernel needs cl_khr_fp64. Only FILL_VALUE_SEQUENCE computes:
//   SEQUENCE_INTEGER  start + i * delta in 64-bit unsigned arithmetic, truncated to the width: the sum modulo
//                     2^width, which depends only on start's and delta's low `width` bits (the page's UINT8
//                     example adds -2 as 254), for signed and unsigned types alike
//   SEQUENCE_FLOAT    fma((float)i, delta, start): the exact start + i * delta rounded once (i is exact below
//                     2^24, rounded to the nearest float above), so no error accumulates along the sequence
//   SEQUENCE_HALF     the same in float from the halves' values, then rounded to the nearest half (ties to even)
// Element 0 is start's bits unchanged (no arithmetic: a -0 start stays -0, and a NaN or infinite delta does not
// reach it), as the page's "ValueStart, ValueStart + ValueDelta, ..." begins.
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): DIAGONAL_MATRIX1 binds InputTensor first
// (TENSOR_COUNT 2; a null buffer where it is absent, HAS_INPUT 0), then the output; then `value`, `delta` and the
// band [begin, end) as 64-bit two's complement. The band rule is DIAGONAL_MATRIX1's page's:
//   (end >= begin) ^ (x - y >= begin) ^ (x - y < end)
// which for begin <= end is begin <= x - y < end and for begin > end its complement; DIAGONAL_MATRIX's
// x == y + Offset is the band [Offset, Offset + 1), computed in 64 bits so Offset = INT_MAX does not wrap.
// The walk (elementwise_walk.h) keeps every dimension of DIAGONAL's output (dmlpy does not coalesce it): x and y
// are its last two coordinates.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#define GENERATE_FILL 0
#define GENERATE_SEQUENCE 1
#define GENERATE_DIAGONAL 2
#ifndef GENERATOR
#define GENERATOR GENERATE_FILL
#endif
#define SEQUENCE_INTEGER 0
#define SEQUENCE_FLOAT 1
#define SEQUENCE_HALF 2
#ifndef SEQUENCE
#define SEQUENCE SEQUENCE_INTEGER
#endif
#ifndef TENSOR_COUNT
#define TENSOR_COUNT 1
#endif
#ifndef HAS_INPUT
#define HAS_INPUT 0
#endif
#define OUT (TENSOR_COUNT - 1)

#include "elementwise_walk.h"
#include "half_bits.h"

// Element i of FILL_VALUE_SEQUENCE from start's and delta's bits.
static inline ELEMENT_T sequence_element(ulong i, ulong start, ulong delta)
{
#if SEQUENCE == SEQUENCE_INTEGER
    return (ELEMENT_T)(start + i * delta);
#elif SEQUENCE == SEQUENCE_FLOAT
    const float sum = fma((float)i, as_float((uint)delta), as_float((uint)start));
    return i == 0 ? (ELEMENT_T)start : (ELEMENT_T)as_uint(sum);
#else
    const float sum = fma((float)i, half_bits_to_float((ushort)delta), half_bits_to_float((ushort)start));
    return i == 0 ? (ELEMENT_T)start : (ELEMENT_T)half_value_bits(half_value(sum));
#endif
}

// Whether column x of row y lies in the band [begin, end) (inverted where begin > end): the page's XOR rule.
static inline bool in_band(ulong x, ulong y, long begin, long end)
{
    const long top = (long)x - (long)y;
    return (end >= begin) ^ (top >= begin) ^ (top < end);
}

__kernel void generate(
#if TENSOR_COUNT == 2
    __global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,
#endif
    __global ELEMENT_T *restrict output, const ulong output_offset, const ulong element_count, const uint8 sizes,
#if TENSOR_COUNT == 2
    const uint8 strides0,
#endif
    const uint8 output_strides, const ulong value, const ulong delta, const ulong begin, const ulong end)
{
#if PACKED && GENERATOR != GENERATE_DIAGONAL
    // One contiguous run: a plain loop, which compilers vectorise.
    FOR_EACH_PACKED(i, element_count)
#if GENERATOR == GENERATE_FILL
        output[output_offset + i] = (ELEMENT_T)value;
#else
        output[output_offset + i] = sequence_element(i, value, delta);
#endif
#else
#if TENSOR_COUNT == 2
    const uint8 strides[TENSOR_COUNT] = {strides0, output_strides};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, output_offset};
#else
    const uint8 strides[TENSOR_COUNT] = {output_strides};
    const ulong offsets[TENSOR_COUNT] = {output_offset};
#endif
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
#if GENERATOR == GENERATE_FILL
        output[w.at[OUT]] = (ELEMENT_T)value;
#elif GENERATOR == GENERATE_SEQUENCE
        output[w.at[OUT]] = sequence_element(w.element, value, delta);
#else
        const bool on = in_band(w.coord[RANK - 1], w.coord[RANK - 2], (long)begin, (long)end);
#if HAS_INPUT
        output[w.at[OUT]] = on ? (ELEMENT_T)value : tensor0[w.at[0]];
#else
        output[w.at[OUT]] = on ? (ELEMENT_T)value : (ELEMENT_T)0;
#endif
#endif
    } while (walk_advance(&w));
#endif
}
