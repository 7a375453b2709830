// softmax.cl: DirectML's axis-reducing activations, ACTIVATION_SOFTMAX(1), ACTIVATION_LOG_SOFTMAX(1) and
// ACTIVATION_HARDMAX(1) (dmlpy/ops/activation_softmax.py; lowered by dmlpy/kernels/reduction.py).
//
// The tensor is a set of groups: the elements that share their coordinates along the kept dimensions (those not
// in Axes) form one group, reduced along the Axes (reduction_walk.h: the layout, one work-item per group). One
// work-item computes one group, in three passes over it: the maximum (and the first index holding it), the sum of
// exp(x - maximum), the outputs; the program is the same under both launch profiles. ROWS 1 (below) walks a group of
// consecutive elements eight lanes at a time; ROWS 0 walks any group through its strides, element by element.
//
// Accuracy (float32; a FLOAT16 tensor is loaded to float, computed the same way and rounded once at the store):
//   - x - maximum is carried as hi + lo exactly (TwoSum), and exp(x - maximum) = exp(hi) * (1 + lo) up to lo^2/2:
//     rounding x - maximum first would cost |x - maximum| / 2 ULPs through exp's condition number (40 ULPs at a
//     difference of -80).
//   - the maximum's own term is exp(0) = 1 exactly, so the sum is 1 + rest, rest summed with Neumaier's
//     compensation over the other elements (compensated.h: its error then does not grow with the group's length), and
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

#include "compensated.h"
#include "float_tensors.h"
#include "reduction_walk.h"
#include "softmax_lanes.h"

#ifndef OPERATION
#error "define OPERATION: SOFTMAX, LOG_SOFTMAX or HARDMAX"
#endif
#define SOFTMAX 0
#define LOG_SOFTMAX 1
#define HARDMAX 2
#ifndef ROWS
#define ROWS 0
#endif


#if ROWS
// ROWS 1: every group is one run of consecutive elements in both tensors (the reduced dimensions coalesce into one of
// stride 1 in each: a softmax along the innermost axes of a packed or row-padded tensor), shorter than 2^32. The
// same three passes, computed in LANES interleaved lanes: lane j takes elements j, j + 8, j + 16, ... of the row, so
// each step reads eight consecutive elements (one vector load on a CPU, where a work-item per group with a scalar
// loop had each SIMD lane of the work-group vectoriser gather from another row) and computes their terms with
// softmax_lanes.h's float8 twins of exp_of and exact_difference; the lanes are combined in one fixed order (0 to 7,
// then the tail after the last whole eight, in order), so the arithmetic, and the bits, are the same on every device
// and under both launch profiles, as the program is.
#define LANES 8

// Eight consecutive elements from `at` as floats, the list of a vector literal: LLVM merges the eight loads into
// one (reduce.cl's LOAD8 says why not vload8).
#define LIST8(at) ((at)[0], (at)[1], (at)[2], (at)[3], (at)[4], (at)[5], (at)[6], (at)[7])
#if DML_FLOAT16
#define LOAD8(at) half_bits_to_float8((ushort8)LIST8(at))
#else
#define LOAD8(at) ((float8)LIST8(at))
#endif

// Eight results to eight consecutive elements from `at` (a FLOAT16 tensor's through half_lanes), one store each:
// LLVM merges them into one.
static inline void store_lanes(float8 y, __global storage_t *at)
{
#if DML_FLOAT16
    const ushort8 v = half_lanes(y);
#else
    const float8 v = y;
#endif
    at[0] = v.s0;
    at[1] = v.s1;
    at[2] = v.s2;
    at[3] = v.s3;
    at[4] = v.s4;
    at[5] = v.s5;
    at[6] = v.s6;
    at[7] = v.s7;
}

// The row's maximum and the first index holding it (a NaN is the maximum, the first one wins): eight lanes, each
// keeping its own first maximum, then the lanes by value, a tie (or two NaNs) to the lower index, then the tail.
// Vector operators, not isnan and select, as reduce.cl's lanes (PoCL ran those built-ins one lane at a time).
static inline void row_maximum(__global const storage_t *row, uint length, float *maximum, uint *first)
{
    const uint whole = length / LANES * LANES;
    float best = LOAD(row, 0);
    uint index = 0;
    if (whole) {
        const uint8 lane = (uint8)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
        float8 lanes_best = LOAD8(row);
        uint8 lanes_index = lane;
        for (uint i = LANES; i < whole; i += LANES) {
            const float8 x = LOAD8(row + i);
            const int8 replaces = (lanes_best == lanes_best) & ((x != x) | (x > lanes_best));
            lanes_best = replaces ? x : lanes_best;
            lanes_index = replaces ? (uint8)i + lane : lanes_index;
        }
        float values[LANES];
        uint indices[LANES];
        vstore8(lanes_best, 0, values);
        vstore8(lanes_index, 0, indices);
        best = values[0];
        index = indices[0];
        for (int j = 1; j < LANES; ++j) {
            const float x = values[j];
            const bool tie = x == best || (isnan(x) && isnan(best));
            if (tie ? indices[j] < index : !isnan(best) && (isnan(x) || x > best)) {
                best = x;
                index = indices[j];
            }
        }
    }
    for (uint i = whole; i < length; ++i) {
        const float x = LOAD(row, i);
        if (!isnan(best) && (x > best || isnan(x))) {
            best = x;
            index = i;
        }
    }
    *maximum = best;
    *first = index;
}

// SOFTMAX at FLOAT32 keeps each term in its output element when it computes the sum (the first maximum's as its
// term, 1), and the output pass divides them there: one exp per element instead of two, the same bits (a float32
// element holds the term exactly; the row stays in the cache between the passes). LOG_SOFTMAX needs no term again,
// and a FLOAT16 element cannot hold one.
#define KEEP_TERMS (OPERATION == SOFTMAX && !DML_FLOAT16)

// The terms of the steps of eight from `from` to `to` (KEEP_TERMS: also to `terms`), each into the lanes' sums.
// Always inlined: at its two call sites PoCL otherwise kept it, and terms_lanes, out of line (a call per step).
__attribute__((always_inline)) static inline void rest_steps(__global const storage_t *row,
                                                             __global storage_t *terms, uint from, uint to,
                                                             float maximum, BlockedLanes *lanes)
{
    for (uint i = from; i < to; i += LANES) {
        const float8 term = terms_lanes(LOAD8(row + i), maximum);
#if KEEP_TERMS
        store_lanes(term, terms + i);
#endif
        blocked_lanes_add(lanes, term);
    }
}

// rest = the sum of exp(x - maximum) over the row but the first maximum's, compensated: lane j's BlockedLanes sum
// takes the terms of elements j, j + 8, ... (the first maximum's as 0, which a compensated sum adds exactly), the
// lanes are folded in order (blocked_take_lane keeps every rounding error, so the bound is the one sum's), then the
// tail's terms one by one. KEEP_TERMS: each term also to `terms`, the row's output. The one step of eight that holds
// the first maximum compares the lanes' indices with it; the steps before and after it do not (rest_steps: the same
// additions in the same order, three vector operations and a register fewer per step than an index in every step).
static inline float row_rest(__global const storage_t *row, __global storage_t *terms, uint length, float maximum,
                             uint first)
{
    const uint whole = length / LANES * LANES;
    const uint first_step = first / LANES * LANES; // whole where the first maximum is in the tail
    BlockedLanes lanes;
    blocked_lanes(&lanes);
    rest_steps(row, terms, 0u, first_step < whole ? first_step : whole, maximum, &lanes);
    if (first_step < whole) {
        const float8 term = terms_lanes(LOAD8(row + first_step), maximum);
#if KEEP_TERMS
        store_lanes(term, terms + first_step);
#endif
        const uint8 index = (uint8)(first_step) + (uint8)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
        blocked_lanes_add(&lanes, index == (uint8)first ? 0.0f : term);
        rest_steps(row, terms, first_step + LANES, whole, maximum, &lanes);
    }
    BlockedSum rest = blocked_sum();
    for (int j = 0; j < LANES; ++j) {
        blocked_take_lane(&rest, &lanes, j);
    }
    for (uint i = whole; i < length; ++i) {
        const float term = exp_of(exact_difference(LOAD(row, i), maximum));
#if KEEP_TERMS
        terms[i] = term;
#endif
        if (i != first) {
            blocked_add(&rest, term);
        }
    }
    return blocked_total(rest);
}

__kernel void softmax(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                      ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                      uint8 output_strides)
{
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
    const uint length = (uint)g.length, whole = length / LANES * LANES;
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);
        __global const storage_t *in = input + start.at[0];
        __global storage_t *out = output + start.at[1];
        float maximum;
        uint first;
        row_maximum(in, length, &maximum, &first);
#if OPERATION == HARDMAX
        for (uint i = 0; i < length; ++i) {
            STORE(i == first ? 1.0f : 0.0f, out, i);
        }
#else
        if (!isfinite(maximum)) {
            for (uint i = 0; i < length; ++i) {
                STORE(NAN, out, i);
            }
            continue;
        }
        const float rest = row_rest(in, out, length, maximum, first);
#if KEEP_TERMS
        const float sum = 1.0f + rest;
        for (uint i = 0; i < whole; i += LANES) {
            store_lanes(LOAD8(out + i) / sum, out + i);
        }
        for (uint i = whole; i < length; ++i) {
            out[i] /= sum;
        }
#elif OPERATION == SOFTMAX
        const float sum = 1.0f + rest;
        for (uint i = 0; i < whole; i += LANES) {
            store_lanes(terms_lanes(LOAD8(in + i), maximum) / sum, out + i);
        }
        for (uint i = whole; i < length; ++i) {
            STORE(exp_of(exact_difference(LOAD(in, i), maximum)) / sum, out, i);
        }
#else
        const float log_sum = log1p_float(rest);
        for (uint i = 0; i < whole; i += LANES) {
            const DifferenceLanes difference = difference_lanes(LOAD8(in + i), maximum);
            store_lanes((difference.hi - log_sum) + difference.lo, out + i);
        }
        for (uint i = whole; i < length; ++i) {
            const float2 difference = exact_difference(LOAD(in, i), maximum);
            STORE((difference.x - log_sum) + difference.y, out, i);
        }
#endif
#endif
    }
}

#else
__kernel void softmax(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                      ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                      uint8 output_strides)
{
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);

        // Pass 1: the maximum and the first index holding it (a NaN is the maximum, the first one wins).
        Cursor cursor = start;
        float maximum = LOAD(input, cursor.at[0]);
        ulong first = 0;
        for (ulong i = 1; i < g.length; ++i) {
            cursor_next(&cursor, &g);
            const float x = LOAD(input, cursor.at[0]);
            if (!isnan(maximum) && (x > maximum || isnan(x))) {
                maximum = x;
                first = i;
            }
        }

#if OPERATION == HARDMAX
        cursor = start;
        for (ulong i = 0; i < g.length; ++i) {
            STORE(i == first ? 1.0f : 0.0f, output, cursor.at[1]);
            cursor_next(&cursor, &g);
        }
#else
        if (!isfinite(maximum)) {
            cursor = start;
            for (ulong i = 0; i < g.length; ++i) {
                STORE(NAN, output, cursor.at[1]);
                cursor_next(&cursor, &g);
            }
            continue;
        }

        // Pass 2: rest = the sum of exp(x - maximum) but the first maximum's (1), compensated (every term >= 0).
        BlockedSum rest = blocked_sum();
        cursor = start;
        for (ulong i = 0; i < g.length; ++i) {
            if (i != first) {
                blocked_add(&rest, exp_of(exact_difference(LOAD(input, cursor.at[0]), maximum)));
            }
            cursor_next(&cursor, &g);
        }

        // Pass 3: the outputs.
#if OPERATION == SOFTMAX
        const float sum = 1.0f + blocked_total(rest);
#else
        const float log_sum = log1p_float(blocked_total(rest));
#endif
        cursor = start;
        for (ulong i = 0; i < g.length; ++i) {
            const float2 difference = exact_difference(LOAD(input, cursor.at[0]), maximum);
#if OPERATION == SOFTMAX
            STORE(exp_of(difference) / sum, output, cursor.at[1]);
#else
            STORE((difference.x - log_sum) + difference.y, output, cursor.at[1]);
#endif
            cursor_next(&cursor, &g);
        }
#endif
    }
}
#endif
