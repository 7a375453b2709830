// reduce.cl: DirectML's REDUCE (its twelve functions), ARGMIN and ARGMAX (dmlpy/ops/reduction.py; laid out by
// dmlpy/kernels/reduction.py): each group of input elements that share their coordinates outside Axes gives one
// output element, one work-item per group (reduction_walk.h).
//
// FUNCTION is DML_REDUCE_FUNCTION's value (ARGMIN and ARGMAX operators: 1 and 0, with LAST_INDEX for
// AxisDirection DECREASING). INPUT_T and OUTPUT_T are the tensors' storage types (a FLOAT16 tensor as its bits,
// DML_FLOAT16 1); FLOAT_VALUES 1 computes on floats, else on the integer VALUE_T with UVALUE_T, the unsigned type
// of its width, for the arithmetic that wraps.
//
// What each computes (the pages give the functions' names only; dmlpy follows NumPy's and onnx.reference's
// ReduceX, as documented in docs/operators/reduction.md):
//   SUM, AVERAGE, L1, SUM_SQUARE, L2, LOG_SUM   floats: a blocked compensated sum (compensated.h) of x, |x| or x^2 (x^2's
//                    rounding error, fma(x, x, -x^2), joins the compensation), then / N, sqrt or log. Integers
//                    (SUM, L1, SUM_SQUARE): modulo 2^width, as ELEMENT_WISE_ADD wraps.
//   LOG_SUM_EXP      maximum + log of the compensated sum of exp(x - maximum), in one pass (log_sum_exp: the terms
//                    against a reference moved up by at least RESCALE_GAP at a time).
//   MULTIPLY         a serial product (floats: relative error at most (N - 1) u; integers: modulo 2^width).
//   MIN, MAX         exact; a NaN in the group gives NaN (np.min, np.max).
//   ARGMIN, ARGMAX   the index within the group, in row-major order of the reduced axes, of the first extreme
//                    (LAST_INDEX: the last); a NaN counts as the extreme (np.argmax, np.argmin: the first NaN).
//
// WALK (dmlpy/kernels/reduction.py picks it from the layout) says how a work-item reads its elements:
//   SCALAR_WALK  one group, one element a step, through reduction_walk.h's cursor (any layout, every function).
//   LANES_WALK   one group whose one reduced dimension is contiguous in the input, at least 8 long: eight
//                consecutive elements a load, element i in lane i % 8 (eight independent chains, which a CPU runs
//                side by side where one chain of dependent additions bounds a serial walk), the lanes combined and
//                the tail after the last whole eight taken serially.
//   BANDS_WALK   BAND (16) adjacent groups along the innermost kept dimension, contiguous in the input: two vectors of
//                eight a step read one element of each, walking down the reduced dimensions, so memory is read in
//                rows where a work-item per group would stride through it; a band cut short by the row's end is
//                walked one group at a time (SCALAR_WALK).
// Both vector walks serve the float functions but LOG_SUM_EXP; they change the order of a sum or a product, never
// its bound (compensated.h's lanes keep every rounding error), nor which index ARGMIN and ARGMAX return (lanes are
// combined by value, then by index).
//
// Every element is read through element_at (lanes_at: eight of them) and every result stored through
// store_result: the input and the output, or under FUSED 1 a graph's group anchored by the reduction (anchored.h),
// whose prologue computes each element from its own tensors and whose epilogue takes each result to its stores.

#include "compensated.h"
#include "elementwise_ops.h"
#include "float_tensors.h"
#include "reduction_walk.h"
#include "anchored.h"

#define ABS_OF_TYPE(T, x) abs_##T(x)
#define ABS_OF(T, x) ABS_OF_TYPE(T, x)

#define ARGMAX 0
#define ARGMIN 1
#define AVERAGE 2
#define L1 3
#define L2 4
#define LOG_SUM 5
#define LOG_SUM_EXP 6
#define MAX 7
#define MIN 8
#define MULTIPLY 9
#define SUM 10
#define SUM_SQUARE 11
#ifndef FUNCTION
#error "define FUNCTION: a DML_REDUCE_FUNCTION value"
#endif
#ifndef LAST_INDEX
#define LAST_INDEX 0
#endif
#ifndef PARTIAL
#define PARTIAL 0  // 1: the first launch of a split reduction, storing each chunk's state (store_state)
#endif
#ifndef COMBINE
#define COMBINE 0  // 1: its second launch, reduce_combine
#endif
#ifndef BAND
#define BAND 16u  // BANDS_WALK's groups a work-item, a multiple of 8 (dmlpy/kernels/reduction.py's BAND)
#endif
#define SCALAR_WALK 0
#define LANES_WALK 1
#define BANDS_WALK 2
#ifndef WALK
#define WALK SCALAR_WALK
#endif
#define EXTREME (FUNCTION == ARGMAX || FUNCTION == ARGMIN || FUNCTION == MAX || FUNCTION == MIN)
#define SUMMED (FUNCTION == SUM || FUNCTION == AVERAGE || FUNCTION == L1 || FUNCTION == SUM_SQUARE || \
                FUNCTION == L2 || FUNCTION == LOG_SUM)


#if EXTREME || FUNCTION == LOG_SUM_EXP
// Whether x replaces the extreme so far (best): a NaN is the extreme, the first one (or, LAST_INDEX, the last).
// MAX, MIN and LOG_SUM_EXP's maximum take the first (LAST_INDEX 0).
#if FUNCTION == ARGMIN || FUNCTION == MIN
#define BEYOND(x, best) ((x) < (best))
#else
#define BEYOND(x, best) ((x) > (best))
#endif
#if FLOAT_VALUES
#if LAST_INDEX
#define REPLACES(x, best) (isnan(x) || (!isnan(best) && ((x) == (best) || BEYOND(x, best))))
#else
#define REPLACES(x, best) (!isnan(best) && (isnan(x) || BEYOND(x, best)))
#endif
#else
#if LAST_INDEX
#define REPLACES(x, best) ((x) == (best) || BEYOND(x, best))
#else
#define REPLACES(x, best) BEYOND(x, best)
#endif
#endif
#endif

#if FLOAT_VALUES
typedef float value_t;
#else
typedef VALUE_T value_t;
#endif

// What store_result takes: ARGMIN's and ARGMAX's index, else the function's value.
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
typedef ulong result_t;
#else
typedef value_t result_t;
#endif

#if FUSED
static inline value_t element_at(const Tensors *t, const ulong *at, ulong i)
{
    FUSED_ELEMENT(t, at, i)
}

static inline void store_result(const Tensors *t, result_t result, const ulong *at)
{
    FUSED_STORE(t, result, at)
}
#else
typedef struct {
    __global const INPUT_T *input;
    __global OUTPUT_T *output;
} Tensors;

// The input element at at[0] + i.
static inline value_t element_at(const Tensors *t, const ulong *at, ulong i)
{
    return LOAD(t->input, at[0] + i);
}

static inline void store_result(const Tensors *t, result_t result, const ulong *at)
{
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
    t->output[at[1]] = (OUTPUT_T)result;
#else
    STORE(result, t->output, at[1]);
#endif
}
#endif

#if FLOAT_VALUES && SUMMED
// Takes x's term (x, |x| or x^2) into the sum.
static inline void sum_take(BlockedSum *sum, float x)
{
#if FUNCTION == L1
    blocked_add(sum, fabs(x));
#elif FUNCTION == SUM_SQUARE || FUNCTION == L2
    const float square = x * x;
    sum->block.compensation += fma(x, x, -square);  // exact: the square's rounding error
    blocked_add(sum, square);
#else
    blocked_add(sum, x);
#endif
}

// The function's result from the sum of a group of `length` terms.
static inline float sum_result(BlockedSum sum, ulong length)
{
    const float total = blocked_total(sum);
#if FUNCTION == AVERAGE
    return total / (float)length;
#elif FUNCTION == L2
    return sqrt(total);
#elif FUNCTION == LOG_SUM
    return log_float(total);
#else
    return total;
#endif
}
#endif

#if FUNCTION == LOG_SUM_EXP
// LOG_SUM_EXP in one pass: the terms exp(x - reference) summed compensated (compensated.h), the reference the
// group's first element, moved up to x only where x passes it by more than RESCALE_GAP, the sum then scaled by
// exp(reference - x). Terms stay below e^RESCALE_GAP (no overflow below 2^70 elements); each move multiplies the
// earlier sum by less than e^-RESCALE_GAP, so the rounding of the moves (a few u each) adds up to a few u of the
// sum, not one per new maximum as a running maximum's rescaling would. x - reference is carried exactly
// (exact_difference); exp_of is compensated.h's, float_math.h's exp.
#define RESCALE_GAP 32.0f

static inline void scale_sum(BlockedSum *sum, float factor)
{
    sum->total.sum *= factor;
    sum->total.compensation *= factor;
    sum->block.sum *= factor;
    sum->block.compensation *= factor;
}

// maximum + log(sum of exp(x - maximum)), the sum the reference's times exp(reference - maximum), which lies in
// [e^-RESCALE_GAP, 1]: NaN, +inf, or every element -inf give the maximum itself.
static inline float log_sum_exp(const Tensors *t, Cursor cursor, const Groups *g)
{
    float reference = element_at(t, cursor.at, 0), maximum = reference;
    BlockedSum sum = blocked_sum();
    blocked_add(&sum, reference > -INFINITY ? 1.0f : 0.0f);  // the first element's own term, exp(0)
    for (ulong i = 1; i < g->length; ++i) {
        cursor_next(&cursor, g);
        const float x = element_at(t, cursor.at, 0);
        if (REPLACES(x, maximum)) {
            maximum = x;
        }
        if (x - reference > RESCALE_GAP) {  // false for NaN; from a -inf reference, any finite x
            scale_sum(&sum, exp_of(exact_difference(reference, x)));
            reference = x;
        }
        if (x > -INFINITY) {  // a -inf term is 0, also against a -inf reference (where x - reference is NaN)
            blocked_add(&sum, exp_of(exact_difference(x, reference)));
        }
    }
    if (!isfinite(maximum)) {
        return maximum;
    }
    return maximum + log_float(blocked_total(sum) * exp_of(exact_difference(reference, maximum)));
}
#endif

// The group's result, from a cursor on its first element; `index` is the extreme's (ARGMIN, ARGMAX).
static inline value_t reduce_group(const Tensors *t, Cursor cursor, const Groups *g, ulong *index)
{
    *index = 0;
#if FUNCTION == LOG_SUM_EXP
    return log_sum_exp(t, cursor, g);
#else
    const value_t first = element_at(t, cursor.at, 0);
#endif
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN || FUNCTION == MAX || FUNCTION == MIN
    value_t best = first;
    for (ulong i = 1; i < g->length; ++i) {
        cursor_next(&cursor, g);
        const value_t x = element_at(t, cursor.at, 0);
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN || FLOAT_VALUES
        // MAX and MIN too: a NaN stays.
        if (REPLACES(x, best)) {
            best = x;
            *index = i;
        }
#else
        best = FUNCTION == MIN ? min(best, x) : max(best, x);
#endif
    }
    return best;
#elif FUNCTION == LOG_SUM_EXP
#elif FLOAT_VALUES && FUNCTION == MULTIPLY
    float product = first;
    for (ulong i = 1; i < g->length; ++i) {
        cursor_next(&cursor, g);
        product *= element_at(t, cursor.at, 0);
    }
    return product;
#elif FLOAT_VALUES
    BlockedSum sum = blocked_sum();
    for (ulong i = 0; i < g->length; ++i) {
        sum_take(&sum, i == 0 ? first : (cursor_next(&cursor, g), element_at(t, cursor.at, 0)));
    }
    return sum_result(sum, g->length);
#else
    // Integers: SUM, L1, SUM_SQUARE, MULTIPLY modulo 2^width, in the unsigned type of the width.
    UVALUE_T total = (UVALUE_T)0;
    for (ulong i = 0; i < g->length; ++i) {
        const value_t x = i == 0 ? first : (cursor_next(&cursor, g), element_at(t, cursor.at, 0));
        const UVALUE_T bits = (UVALUE_T)x;
#if FUNCTION == MULTIPLY
        total = i == 0 ? bits : (UVALUE_T)(total * bits);
#elif FUNCTION == SUM_SQUARE
        total += (UVALUE_T)(bits * bits);
#elif FUNCTION == L1 && VALUE_SIGNED
        // elementwise_ops.h's integer ABS (|MIN| is MIN's bits, 2^(width-1): the right sum modulo 2^width), not the
        // select x < 0 ? -x : x, which clang makes llvm.abs, an intrinsic Oclgrind cannot run.
        total += (UVALUE_T)ABS_OF(VALUE_T, x);
#else
        total += bits;
#endif
    }
    return (value_t)total;
#endif
}

#if WALK != SCALAR_WALK
// Eight consecutive elements from `at`, the list of a vector literal ((float8)LOAD8(at)): LLVM merges the eight
// loads into one unaligned load.
#define LOAD8(at) ((at)[0], (at)[1], (at)[2], (at)[3], (at)[4], (at)[5], (at)[6], (at)[7])

// The vector walks' arithmetic: a state of eight lanes (lanes_*: lanes_first starts it with eight elements, their
// indices within their groups, lanes_take takes eight more) and the scalar state of one group's result (state_*:
// from one lane, taking another lane's, taking one more element, the result). Floats but LOG_SUM_EXP only.
//
// Written with vector operators, not the built-ins that mean the same (vload8, fabs, isnan, isless, select): PoCL
// (5.0, its kernel library) ran those one lane at a time, LLVM the operators as AVX2 instructions. A SUM over the
// innermost axis of (4096, 4096) FLOAT32 took 25.7 ms with the built-ins, 15.4 with fabs and the select written as
// operators (compensated.h), 3.5 with the eight loads too (a read of the input: 3.0-3.3 ms); Intel's runtime ran
// both alike (3.0 ms).
#if DML_FLOAT16
static inline float8 load_lanes(__global const INPUT_T *at)
{
    return half_bits_to_float8((ushort8)LOAD8(at));
}
#else
static inline float8 load_lanes(__global const INPUT_T *at)
{
    return (float8)LOAD8(at);
}
#endif

// The eight elements from at[k] + i of each tensor read.
static inline float8 lanes_at(const Tensors *t, const ulong *at, ulong i)
{
#if FUSED
    FUSED_LANES(t, at, i)
#else
    return load_lanes(t->input + at[0] + i);
#endif
}

#if SUMMED
// x^2 - square, square = x * x rounded, exactly. On PoCL (DML_ELEMENTWISE_BUILTINS, as float_math.h's FMA) fma on a
// float8 is a library call run one lane at a time, so there Dekker's exact product: x split (Veltkamp, by 2^12 + 1)
// into halves of 12 bits whose products round nowhere; exact wherever x^2 is a normal float (where it underflows
// both lose below 2^-149 a term; past |x| = 2^115, x^2 is infinite already, the error NaN, and compensated_total
// returns the plain, infinite, sum). Elsewhere fma, one vfmadd. L2 of 16M in one group: PoCL 9.6-9.8 ms with fma,
// 5.1-5.8 with Dekker; Intel's runtime 4.1-4.6 with fma, 5.1-5.2 with Dekker.
static inline float8 square_error(float8 x, float8 square)
{
#ifdef DML_ELEMENTWISE_BUILTINS
    const float8 scaled = x * 4097.0f;
    const float8 high = scaled - (scaled - x);
    const float8 low = x - high;
    return ((high * high - square) + 2.0f * high * low) + low * low;
#else
    return fma(x, x, -square);
#endif
}

typedef BlockedLanes lanes_t;
typedef BlockedSum state_t;

static inline void lanes_take(lanes_t *lanes, float8 x, uint8 index)
{
#if FUNCTION == L1
    blocked_lanes_add(lanes, fabs(x));
#elif FUNCTION == SUM_SQUARE || FUNCTION == L2
    const float8 square = x * x;
    lanes->block.compensation += square_error(x, square);  // exact: the squares' rounding errors
    blocked_lanes_add(lanes, square);
#else
    blocked_lanes_add(lanes, x);
#endif
}

static inline void lanes_first(lanes_t *lanes, float8 x, uint8 index)
{
    blocked_lanes(lanes);
    lanes_take(lanes, x, index);
}

static inline void state_take_lane(state_t *s, const lanes_t *lanes, int lane)
{
    blocked_take_lane(s, lanes, lane);
}

static inline void state_from_lane(state_t *s, const lanes_t *lanes, int lane)
{
    *s = blocked_sum();
    blocked_take_lane(s, lanes, lane);
}

static inline void state_take(state_t *s, float x, ulong index)
{
    sum_take(s, x);
}

static inline float state_result(state_t s, ulong length)
{
    return sum_result(s, length);
}
#elif EXTREME
typedef struct {
    float8 best;
    uint8 index;  // within the group: the walks run only where a group has fewer than 2^32 elements
} lanes_t;
typedef struct {
    float best;
    ulong index;
} state_t;

static inline void lanes_first(lanes_t *lanes, float8 x, uint8 index)
{
    lanes->best = x;
    lanes->index = index;
}

// REPLACES, lane by lane (a comparison's true is -1 in every bit, so masks combine bitwise).
static inline void lanes_take(lanes_t *lanes, float8 x, uint8 index)
{
    const int8 nan_x = x != x, nan_best = lanes->best != lanes->best;
#if FUNCTION == ARGMIN || FUNCTION == MIN
    const int8 beyond = x < lanes->best;
#else
    const int8 beyond = x > lanes->best;
#endif
#if LAST_INDEX
    const int8 replaces = nan_x | (~nan_best & ((x == lanes->best) | beyond));
#else
    const int8 replaces = ~nan_best & (nan_x | beyond);
#endif
    lanes->best = replaces ? x : lanes->best;
    lanes->index = replaces ? index : lanes->index;
}

static inline void state_from_lane(state_t *s, const lanes_t *lanes, int lane)
{
    float best[8];
    uint index[8];
    vstore8(lanes->best, 0, best);
    vstore8(lanes->index, 0, index);
    s->best = best[lane];
    s->index = index[lane];
}

// Lanes hold elements out of their order in the group: another lane's extreme wins by value, and where the values
// tie (or both are NaN) by index, the smaller (LAST_INDEX: the larger).
static inline void state_take_lane(state_t *s, const lanes_t *lanes, int lane)
{
    state_t other;
    state_from_lane(&other, lanes, lane);
    const bool tie = other.best == s->best || (isnan(other.best) && isnan(s->best));
    const bool later = other.index > s->index;
    if (tie ? later == (bool)LAST_INDEX : (isnan(other.best) || (!isnan(s->best) && BEYOND(other.best, s->best)))) {
        *s = other;
    }
}

// An element after every one the state has seen.
static inline void state_take(state_t *s, float x, ulong index)
{
    if (REPLACES(x, s->best)) {
        s->best = x;
        s->index = index;
    }
}

static inline float state_result(state_t s, ulong length)
{
    return s.best;
}
#elif FUNCTION == MULTIPLY
typedef float8 lanes_t;
typedef float state_t;

static inline void lanes_first(lanes_t *lanes, float8 x, uint8 index)
{
    *lanes = x;
}

static inline void lanes_take(lanes_t *lanes, float8 x, uint8 index)
{
    *lanes *= x;
}

static inline void state_from_lane(state_t *s, const lanes_t *lanes, int lane)
{
    float product[8];
    vstore8(*lanes, 0, product);
    *s = product[lane];
}

static inline void state_take_lane(state_t *s, const lanes_t *lanes, int lane)
{
    state_t other;
    state_from_lane(&other, lanes, lane);
    *s *= other;
}

static inline void state_take(state_t *s, float x, ulong index)
{
    *s *= x;
}

static inline float state_result(state_t s, ulong length)
{
    return s;
}
#endif

#if PARTIAL
// A split reduction's first launch (dmlpy/kernels/reduce_split.py): a chunk's state as a record of two words in
// the temporary (OUTPUT_T uint), the sum and compensation unrounded, the extreme with its index within the chunk,
// or the product, so that the combine keeps the one walk's bound and first index.
#if WALK != LANES_WALK
#error "PARTIAL: a chunk is walked by LANES_WALK only"
#endif
static inline void store_state(const Tensors *t, const state_t *s, const ulong *at, ulong length)
{
#if SUMMED
    BlockedSum folded = *s;
    blocked_fold(&folded);
    t->output[at[1]] = as_uint(folded.total.sum);
    t->output[at[1] + 1] = as_uint(folded.total.compensation);
#elif EXTREME
    t->output[at[1]] = as_uint(s->best);
    t->output[at[1] + 1] = (uint)s->index;
#else
    t->output[at[1]] = as_uint(*s);
    t->output[at[1] + 1] = 0u;
#endif
}
#else
static inline void store_state(const Tensors *t, const state_t *s, const ulong *at, ulong length)
{
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
    store_result(t, s->index, at);
#else
    store_result(t, state_result(*s, length), at);
#endif
}
#endif

#if COMBINE
// A split reduction's second launch: chunk c's record (PARTIAL's) into the state of chunks 0 .. c - 1. Sums fold as
// blocked_take_lane folds a lane (every rounding error kept); extremes take chunks in order as state_take takes
// elements, so ties and NaN keep the first index (LAST_INDEX: the last), chunk c's indices starting at c times
// chunk_length.
static inline void combine_take(state_t *s, uint first, uint second, ulong c, ulong chunk_length)
{
#if SUMMED
    if (c == 0) {
        *s = blocked_sum();
    }
    compensated_add(&s->total, as_float(first));
    s->total.compensation += as_float(second);
#elif EXTREME
    if (c == 0) {
        s->best = as_float(first);
        s->index = second;
    } else {
        state_take(s, as_float(first), c * chunk_length + second);
    }
#else
    *s = c == 0 ? as_float(first) : *s * as_float(first);
#endif
}
#endif
#endif

#if WALK == LANES_WALK
// A group of `length` >= 8 consecutive elements from `at`: element i in lane i % 8, then the tail serially.
static inline void lanes_group(state_t *s, const Tensors *t, const ulong *at, ulong length)
{
    const uint8 lane = (uint8)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
    const ulong whole = length / 8 * 8;
    lanes_t lanes;
    lanes_first(&lanes, lanes_at(t, at, 0), lane);
    for (ulong i = 8; i < whole; i += 8) {
        lanes_take(&lanes, lanes_at(t, at, i), (uint8)((uint)i) + lane);
    }
    state_from_lane(s, &lanes, 0);
    for (int j = 1; j < 8; ++j) {
        state_take_lane(s, &lanes, j);
    }
    for (ulong i = whole; i < length; ++i) {
        state_take(s, element_at(t, at, i), i);
    }
}
#endif

// One group on its own (SCALAR_WALK, and BANDS_WALK's groups of a short band), stored.
static inline void reduce_one(const Tensors *t, const Groups *g, ulong group)
{
    Cursor start;
    group_start(&start, g, group);
#if WALK == LANES_WALK
    state_t s;
    lanes_group(&s, t, start.at, g->length);
    store_state(t, &s, start.at, g->length);
#else
    ulong index;
    const value_t result = reduce_group(t, start, g, &index);
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
    store_result(t, index, start.at);
#else
    store_result(t, result, start.at);
#endif
#endif
}

#if COMBINE
// Each group's records, one per chunk (the reduced dimension: g.length chunks of chunk_length elements), folded into
// its result (INPUT_T uint: the records' words).
__kernel void reduce_combine(__global const INPUT_T *input, ulong input_offset, __global OUTPUT_T *output,
                             ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                             uint8 output_strides, ulong chunk_length)
{
    const Tensors tensors = {input, output};
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
    FOR_EACH_GROUP(group, g)
    {
        Cursor cursor;
        group_start(&cursor, &g, group);
        const Cursor start = cursor;
        state_t s;
        for (ulong c = 0; c < g.length; ++c) {
            combine_take(&s, input[cursor.at[0]], input[cursor.at[0] + 1], c, chunk_length);
            cursor_next(&cursor, &g);
        }
        store_state(&tensors, &s, start.at, g.length * chunk_length);
    }
}
#else
#if FUSED
__kernel void reduce(FUSED_PARAMETERS, ulong element_count, uint8 sizes FUSED_STRIDES)
{
    ANCHORED_BEGIN(tensors, g, element_count, sizes);
#else
__kernel void reduce(__global const INPUT_T *input, ulong input_offset, __global OUTPUT_T *output,
                     ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                     uint8 output_strides)
{
    const Tensors tensors = {input, output};
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
#endif
#if WALK == BANDS_WALK
    // Bands of BAND groups along the innermost kept dimension (stride 1 in the input), ceil(row / BAND) a row of it.
    const uint row = g.size[KEPT_RANK - 1];
    const ulong bands_per_row = (row + (BAND - 1u)) / BAND;
    const ulong bands = g.groups / row * bands_per_row;
    for (ulong band = get_global_id(0); band < bands; band += get_global_size(0)) {
        const uint along = (uint)(band % bands_per_row) * BAND;
        const ulong first = band / bands_per_row * row + along;
        if (row - along < BAND) {
            for (ulong group = first; group < first + (row - along); ++group) {
                reduce_one(&tensors, &g, group);
            }
            continue;
        }
        Cursor cursor;
        group_start(&cursor, &g, first);
        const Cursor start = cursor;
        lanes_t lanes[BAND / 8];  // lanes[v] holds groups first + 8v .. first + 8v + 7
        for (uint v = 0; v < BAND / 8; ++v) {
            lanes_first(&lanes[v], lanes_at(&tensors, cursor.at, 8 * v), (uint8)(0u));
        }
        for (ulong i = 1; i < g.length; ++i) {
            cursor_next(&cursor, &g);
            for (uint v = 0; v < BAND / 8; ++v) {
                lanes_take(&lanes[v], lanes_at(&tensors, cursor.at, 8 * v), (uint8)((uint)i));
            }
        }
        for (uint j = 0; j < BAND; ++j) {
            state_t s;
            state_from_lane(&s, &lanes[j / 8], j % 8);
            ulong at[REDUCTION_TENSORS];  // group first + j: its results' places
            for (int k = 0; k < REDUCTION_TENSORS; ++k) {
                at[k] = start.at[k] + (ulong)j * g.stride[k][KEPT_RANK - 1];
            }
            store_state(&tensors, &s, at, g.length);
        }
    }
#else
    FOR_EACH_GROUP(group, g)
    {
        reduce_one(&tensors, &g, group);
    }
#endif
}
#endif
