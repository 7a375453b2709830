// softmax.cl: DirectML's axis-reducing activations, ACTIVATION_SOFTMAX(1), ACTIVATION_LOG_SOFTMAX(1) and
// ACTIVATION_HARDMAX(1) (dmlpy/ops/activation_softmax.py; lowered by dmlpy/kernels/reduction.py).
//
// The tensor is a set of groups: the elements that share their coordinates along the kept dimensions (those not
// in Axes) form one group, reduced along the Axes. Sizes and strides arrive in the element-wise argument
// convention (dmlpy/kernels/source.py): sizes[0 .. KEPT_RANK - 1] are the kept dimensions, coalesced, and
// sizes[KEPT_RANK .. KEPT_RANK + REDUCED_RANK - 1] the reduced ones, coalesced (neighbours contiguous in both
// tensors merged, so a reduction along contiguous axes walks one dimension). element_count is every element.
//
// One work-item computes one group, in three passes over it: the maximum (and the first index holding it), the
// sum of exp(x - maximum), the outputs. Group g goes to work-items g, g + G, ... of a grid of G: the "cpu"
// profile launches one work-item per group, the "gpu" one a grid of whole work-groups (capped to fill the
// device), which the loop covers; the program is the same for both.
//
// Accuracy (float32; a FLOAT16 tensor is loaded to float, computed the same way and rounded once at the store):
//   - x - maximum is carried as hi + lo exactly (TwoSum), and exp(x - maximum) = exp(hi) * (1 + lo) up to lo^2/2:
//     rounding x - maximum first would cost |x - maximum| / 2 ULPs through exp's condition number (40 ULPs at a
//     difference of -80).
//   - the maximum's own term is exp(0) = 1 exactly, so the sum is 1 + rest, rest summed with Neumaier's
//     compensation over the other elements (its error then does not grow with the group's length), and
//     log(sum) is log1p(rest): near the maximum, log(sum) is small and log(1 + rest) would lose it to the
//     rounding of 1 + rest.
//   - softmax: exp(hi) * (1 + lo) / (1 + rest), a correctly rounded division (-cl-fp32-correctly-rounded-divide-
//     sqrt); log_softmax: (hi - log1p(rest)) + lo, two terms of one sign, so no cancellation.
//   The bound this gives (exp 3 ULPs, log1p 2, the roundings) and the one measured are
//   docs/operators/activation_softmax.md's; FLOAT32_ULPS in activation_softmax.py is the bound the tests use.
//
// Special values (the pages are silent; the rule is the formula's in float64, as NumPy computes it):
//   - softmax and log_softmax: a group whose maximum is not finite gives NaN throughout: a NaN in the group, a
//     +inf (inf - inf in exp(x - maximum)), every element -inf (-inf - -inf). Otherwise a -inf element gives 0
//     (log_softmax: -inf), and large finite values never overflow (every exp argument is <= 0).
//   - hardmax: 1 at the first maximum (DirectML's HARDMAX1 page: ties go to the lowest index, in row-major order
//     of the reduced axes), 0 elsewhere; a NaN counts as the maximum, the first NaN winning, as NumPy's argmax
//     (and so onnx.reference's Hardmax) decides. Exact.

#include "half_bits.h"

#ifndef OPERATION
#error "define OPERATION: SOFTMAX, LOG_SOFTMAX or HARDMAX"
#endif
#define SOFTMAX 0
#define LOG_SOFTMAX 1
#define HARDMAX 2
#ifndef KEPT_RANK
#error "define KEPT_RANK: the kept dimensions after coalescing (0 when every axis is reduced)"
#endif
#ifndef REDUCED_RANK
#error "define REDUCED_RANK: the reduced dimensions after coalescing (at least 1)"
#endif

// A FLOAT16 tensor is bound as its bits and converted through half_bits.h, as the element-wise template does:
// vload_half and vstore_half stop PoCL's vectoriser and lose NaN payloads on NVIDIA (half_bits.h).
#if DML_FLOAT16
typedef ushort storage_t;
#define LOAD(buffer, at) half_bits_to_float((buffer)[at])
#define STORE(value, buffer, at) ((buffer)[at] = half_value_bits(half_value(value)))
#else
typedef float storage_t;
#define LOAD(buffer, at) ((buffer)[at])
#define STORE(value, buffer, at) ((buffer)[at] = (value))
#endif

// The element offsets of the group's current element in both tensors, and its coordinates along the reduced
// dimensions (the last fastest, as an odometer).
typedef struct {
    ulong input;
    ulong output;
    uint coordinate[REDUCED_RANK];
} Cursor;

static inline Cursor cursor_at(ulong input, ulong output)
{
    Cursor cursor;
    cursor.input = input;
    cursor.output = output;
    for (int d = 0; d < REDUCED_RANK; ++d) {
        cursor.coordinate[d] = 0;
    }
    return cursor;
}

// Steps to the next element of the group; size and strides are the reduced dimensions'. Each pass starts again
// from cursor_at and never reads past the group's last element, so a group along one (coalesced) dimension just
// steps by its strides, leaving the coordinates alone: 1.17x faster without the odometer's count and wrap, the
// same bits (docs/performance.md, "The softmax family's walk along one dimension").
static inline void cursor_next(Cursor *cursor, const uint *size, const uint *input_stride, const uint *output_stride)
{
#if REDUCED_RANK == 1
    cursor->input += input_stride[0];
    cursor->output += output_stride[0];
#else
    for (int d = REDUCED_RANK - 1; d >= 0; --d) {
        cursor->input += input_stride[d];
        cursor->output += output_stride[d];
        if (++cursor->coordinate[d] < size[d]) {
            return;
        }
        cursor->coordinate[d] = 0;
        cursor->input -= (ulong)input_stride[d] * size[d];
        cursor->output -= (ulong)output_stride[d] * size[d];
    }
#endif
}

// x - maximum as hi + lo exactly (Knuth's TwoSum, which needs no ordering of the operands). Where hi is not
// finite (x is -inf, or the difference overflows), exp(hi) is 0 and lo is 0.
static inline float2 exact_difference(float x, float maximum)
{
    const float negated = -maximum;
    const float hi = x + negated;
    const float x_part = hi - negated;
    const float negated_part = hi - x_part;
    const float lo = (x - x_part) + (negated - negated_part);
    return (float2)(hi, isfinite(hi) ? lo : 0.0f);
}

// exp(hi + lo) = exp(hi) * exp(lo), and exp(lo) = 1 + lo within lo^2 / 2 (|lo| <= 2^-18 wherever exp(hi) is not 0).
static inline float exp_of(float2 difference)
{
    const float e = exp(difference.x);
    return fma(e, difference.y, e);
}

__kernel void softmax(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                      ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                      uint8 output_strides)
{
    uint size[8], input_stride[8], output_stride[8];
    vstore8(sizes, 0, size);
    vstore8(input_strides, 0, input_stride);
    vstore8(output_strides, 0, output_stride);
    const uint *reduced_size = size + KEPT_RANK;
    const uint *reduced_input = input_stride + KEPT_RANK;
    const uint *reduced_output = output_stride + KEPT_RANK;
    ulong length = 1;
    for (int d = 0; d < REDUCED_RANK; ++d) {
        length *= reduced_size[d];
    }
    const ulong groups = element_count / length;

    for (ulong group = get_global_id(0); group < groups; group += get_global_size(0)) {
        // The group's first element: its coordinates along the kept dimensions, from the group's index.
        ulong input_at = input_offset, output_at = output_offset, rest_of_index = group;
        for (int d = KEPT_RANK - 1; d >= 0; --d) {
            const ulong coordinate = rest_of_index % size[d];
            rest_of_index /= size[d];
            input_at += coordinate * input_stride[d];
            output_at += coordinate * output_stride[d];
        }

        // Pass 1: the maximum and the first index holding it (a NaN is the maximum, the first one wins).
        Cursor cursor = cursor_at(input_at, output_at);
        float maximum = LOAD(input, cursor.input);
        ulong first = 0;
        for (ulong i = 1; i < length; ++i) {
            cursor_next(&cursor, reduced_size, reduced_input, reduced_output);
            const float x = LOAD(input, cursor.input);
            if (!isnan(maximum) && (x > maximum || isnan(x))) {
                maximum = x;
                first = i;
            }
        }

#if OPERATION == HARDMAX
        cursor = cursor_at(input_at, output_at);
        for (ulong i = 0; i < length; ++i) {
            STORE(i == first ? 1.0f : 0.0f, output, cursor.output);
            cursor_next(&cursor, reduced_size, reduced_input, reduced_output);
        }
#else
        if (!isfinite(maximum)) {
            cursor = cursor_at(input_at, output_at);
            for (ulong i = 0; i < length; ++i) {
                STORE(NAN, output, cursor.output);
                cursor_next(&cursor, reduced_size, reduced_input, reduced_output);
            }
            continue;
        }

        // Pass 2: rest = the sum of exp(x - maximum) but the first maximum's (1), with Neumaier's compensation
        // (every term is >= 0).
        float rest = 0.0f, compensation = 0.0f;
        cursor = cursor_at(input_at, output_at);
        for (ulong i = 0; i < length; ++i) {
            if (i != first) {
                const float term = exp_of(exact_difference(LOAD(input, cursor.input), maximum));
                const float total = rest + term;
                compensation += rest >= term ? (rest - total) + term : (term - total) + rest;
                rest = total;
            }
            cursor_next(&cursor, reduced_size, reduced_input, reduced_output);
        }
        rest += compensation;

        // Pass 3: the outputs.
#if OPERATION == SOFTMAX
        const float sum = 1.0f + rest;
#else
        const float log_sum = log1p(rest);
#endif
        cursor = cursor_at(input_at, output_at);
        for (ulong i = 0; i < length; ++i) {
            const float2 difference = exact_difference(LOAD(input, cursor.input), maximum);
#if OPERATION == SOFTMAX
            STORE(exp_of(difference) / sum, output, cursor.output);
#else
            STORE((difference.x - log_sum) + difference.y, output, cursor.output);
#endif
            cursor_next(&cursor, reduced_size, reduced_input, reduced_output);
        }
#endif
    }
}
