// resample.cl: DirectML's resampling operators, one output element at a time:
//   RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3   every dimension scaled by its Scale, with its pixel offsets
//   UPSAMPLE_2D                                 the last two scaled by whole factors, pixel centres (RESAMPLE's)
// dmlpy/kernels/resample.py lowers them; docs/operators/resample.md states the choices the pages leave open.
//
// The pages relate the coordinates as OutputX = (InputX + InputPixelOffset) * Scale + OutputPixelOffset, so per
// dimension d an output coordinate o reads from the input coordinate
//     x = (o - OutputPixelOffset) / Scale - InputPixelOffset
// computed in float as written (the program builds with correctly rounded division, so x is the float the host
// computes: the tests reproduce it bit for bit). Coordinates outside the input are clamped to its edges (the
// pages: an under-sized scaled input has its output edges clamped).
//
// NEAREST (INTERPOLATION 0) reads the one element at x rounded per ROUNDING:
//   ROUND_HALF_UP     floor(x + 0.5): RESAMPLE, RESAMPLE1 and UPSAMPLE_2D (ties up, as onnxruntime's DirectML
//                     provider says DirectML rounds: its floor nearest_mode adds 0.5 to InputPixelOffsets)
//   ROUND_DOWN        floor(x): RESAMPLE2 and RESAMPLE3 with RoundingDirection DECREASING
//   ROUND_UP          ceil(x): INCREASING
// and moves it as the unsigned integer of its width (ELEMENT_T), so every encoding arrives unchanged.
//
// LINEAR (INTERPOLATION 1) is separable: per dimension a triangle filter of half-width 1 / s around x, with
// s = 1, or min(Scale, 1) where ANTIALIASED (RESAMPLE3's Antialiased: the filter stretched by max(1, 1 / Scale)),
// tap i weighing max(0, 1 - |x - i| * s); antialiased taps are normalised per dimension to sum to 1 (ONNX
// Resize's antialias). Without antialiasing the taps are floor(x) and floor(x) + 1 with weights 1 - f and f.
// Each tap's index is clamped to the input (an edge element repeated), and a tap of weight 0 is not read: an
// integral coordinate reads its element alone, so a dimension of Scale 1 and cancelling offsets copies, and an
// infinity beside it stays out. The sum is accumulated in float over the taps in row-major order, each term the
// product of the dimensions' weights (dimension 0 first) times the element; FLOAT16 is read and written through
// half_bits.h (float_tensors.h's LOAD and STORE), an integer type rounds the sum to the nearest integer, halves
// to even, and saturates (VALUE_INTEGER).
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): tensor 0 the input, tensor 1 the
// output; `sizes` are the output's, and the walk (elementwise_walk.h) steps through the output with the input's
// walk strides 0 (its offset is the map's). Then per dimension, as uint8: the input's sizes and strides, and the
// float bits of Scales, InputPixelOffsets and OutputPixelOffsets.

#ifndef RANK
#define RANK 1
#endif
#define INTERPOLATION_NEAREST 0
#define INTERPOLATION_LINEAR 1
#ifndef INTERPOLATION
#define INTERPOLATION INTERPOLATION_NEAREST
#endif
#define ROUND_HALF_UP 0
#define ROUND_DOWN 1
#define ROUND_UP 2
#ifndef ROUNDING
#define ROUNDING ROUND_HALF_UP
#endif
#ifndef ANTIALIASED
#define ANTIALIASED 0
#endif
#ifndef VALUE_INTEGER
#define VALUE_INTEGER 0
#endif

#define TENSOR_COUNT 2
#include "elementwise_walk.h"

#if INTERPOLATION == INTERPOLATION_NEAREST
#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
typedef ELEMENT_T storage_t;
#elif VALUE_INTEGER
// INT8 or UINT8: STORAGE_T is char or uchar, VALUE_MIN and VALUE_MAX its range.
typedef STORAGE_T storage_t;
#define LOAD(buffer, at) ((float)(buffer)[at])
#define STORE(value, buffer, at) ((buffer)[at] = (storage_t)clamp(rint(value), (float)VALUE_MIN, (float)VALUE_MAX))
#else
#include "float_tensors.h"
#endif

// The map, unpacked from its kernel arguments.
typedef struct {
    uint extent[8], stride[8];
    float scale[8], input_offset[8], output_offset[8];
} resample_t;

// The input coordinate of output coordinate `o` along dimension d: the pages' relation solved for the input.
static inline float input_coordinate(const resample_t *m, int d, ulong o)
{
    return ((float)o - m->output_offset[d]) / m->scale[d] - m->input_offset[d];
}

// `i` (an integral float) clamped to [0, n): fmin and fmax, so a NaN coordinate (a Scale of 0) reads the last
// element rather than an undefined conversion, and a coordinate beyond a long's range stays in range.
static inline ulong clamped(float i, uint n)
{
    return (ulong)fmax(fmin(i, (float)(n - 1)), 0.0f);
}

#if INTERPOLATION == INTERPOLATION_NEAREST
static inline float rounded(float x)
{
#if ROUNDING == ROUND_DOWN
    return floor(x);
#elif ROUNDING == ROUND_UP
    return ceil(x);
#else
    return floor(x + 0.5f);
#endif
}
#else
// One dimension's filter around x: taps [first, last] (integral floats), each weighing max(0, 1 - |x - i| * s)
// divided by `norm`.
typedef struct {
    float x, s, norm, first, last;
} filter_t;

// x is first clamped to [-1 - reach, n + reach] (reach: the half-width): beyond, every tap lands on the edge
// element, so the result is that element either way; a NaN coordinate (a Scale of 0) becomes n + reach, the last
// element, as NEAREST's does, and the tap loop runs over a finite range.
static inline void filter_of(filter_t *f, float x, float scale, uint n)
{
    f->s = 1.0f;
    f->norm = 1.0f;
#if ANTIALIASED
    if (scale < 1.0f)
        f->s = scale;
#endif
    const float reach = 1.0f / f->s;
    x = fmax(fmin(x, (float)n + reach), -1.0f - reach);
    f->x = x;
    f->first = floor(x);
    f->last = f->first == x ? x : f->first + 1.0f;
#if ANTIALIASED
    if (f->s < 1.0f) {
        // Every i with |x - i| < reach weighs more than 0.
        f->first = floor(x - reach) + 1.0f;
        f->last = ceil(x + reach) - 1.0f;
        float sum = 0.0f;
        for (float i = f->first; i <= f->last; i += 1.0f)
            sum += fmax(0.0f, 1.0f - fabs(x - i) * f->s);
        f->norm = sum;
    }
#endif
}

static inline float tap_weight(const filter_t *f, float i)
{
    return fmax(0.0f, 1.0f - fabs(f->x - i) * f->s) / f->norm;
}
#endif

__kernel void resample(__global const storage_t *restrict input, const ulong input_offset,
                       __global storage_t *restrict output, const ulong output_offset, const ulong element_count,
                       const uint8 sizes, const uint8 input_strides, const uint8 output_strides,
                       const uint8 extent, const uint8 stride, const uint8 scale_bits,
                       const uint8 input_offset_bits, const uint8 output_offset_bits)
{
    resample_t m;
    vstore8(extent, 0, m.extent);
    vstore8(stride, 0, m.stride);
    vstore8(as_float8(scale_bits), 0, m.scale);
    vstore8(as_float8(input_offset_bits), 0, m.input_offset);
    vstore8(as_float8(output_offset_bits), 0, m.output_offset);
    const uint8 strides[TENSOR_COUNT] = {input_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, output_offset};
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
#if INTERPOLATION == INTERPOLATION_NEAREST
        ulong at = w.at[0];
        for (int d = 0; d < RANK; ++d)
            at += clamped(rounded(input_coordinate(&m, d, w.coord[d])), m.extent[d]) * m.stride[d];
        output[w.at[1]] = input[at];
#else
        filter_t f[RANK];
        float tap[RANK];
        for (int d = 0; d < RANK; ++d) {
            filter_of(&f[d], input_coordinate(&m, d, w.coord[d]), m.scale[d], m.extent[d]);
            tap[d] = f[d].first;
        }
        float sum = 0.0f;
        for (;;) {
            float weight = 1.0f;
            ulong at = w.at[0];
            for (int d = 0; d < RANK; ++d) {
                weight *= tap_weight(&f[d], tap[d]);
                at += clamped(tap[d], m.extent[d]) * m.stride[d];
            }
            if (weight != 0.0f)
                sum += weight * LOAD(input, at);
            // The next tap, like an odometer over the dimensions' ranges (the last fastest).
            int d = RANK - 1;
            while (d >= 0 && tap[d] == f[d].last) {
                tap[d] = f[d].first;
                --d;
            }
            if (d < 0)
                break;
            tap[d] += 1.0f;
        }
        STORE(sum, output, w.at[1]);
#endif
    } while (walk_advance(&w));
}
