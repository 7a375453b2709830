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
//   LOG_SUM_EXP      maximum + log1p(sum of exp(x - maximum) but the first maximum's), as softmax.cl computes it.
//   MULTIPLY         a serial product (floats: relative error at most (N - 1) u; integers: modulo 2^width).
//   MIN, MAX         exact; a NaN in the group gives NaN (np.min, np.max).
//   ARGMIN, ARGMAX   the index within the group, in row-major order of the reduced axes, of the first extreme
//                    (LAST_INDEX: the last); a NaN counts as the extreme (np.argmax, np.argmin: the first NaN).

#include "compensated.h"
#include "elementwise_ops.h"
#include "float_tensors.h"
#include "reduction_walk.h"

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


#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
// Whether x replaces the extreme so far (best): a NaN is the extreme, the first one (or, LAST_INDEX, the last).
#if FUNCTION == ARGMAX
#define BEYOND(x, best) ((x) > (best))
#else
#define BEYOND(x, best) ((x) < (best))
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

#if FUNCTION == LOG_SUM_EXP
// The sum of exp(x - maximum) over the group but its first maximum's own term (exp(0) = 1), compensated: every
// term is at most 1, and x - maximum is carried exactly (compensated.h), as softmax.cl computes it.
static inline float exp_sum_but(__global const INPUT_T *input, Cursor cursor, float maximum, ulong first,
                                const Groups *g)
{
    BlockedSum rest = blocked_sum();
    for (ulong i = 0; i < g->length; ++i) {
        if (i != first) {
            blocked_add(&rest, exp_of(exact_difference(LOAD(input, cursor.at[0]), maximum)));
        }
        cursor_next(&cursor, g);
    }
    return blocked_total(rest);
}
#endif

// The group's result, from a cursor on its first element; `index` is the extreme's (ARGMIN, ARGMAX).
static inline value_t reduce_group(__global const INPUT_T *input, Cursor cursor, const Groups *g, ulong *index)
{
#if FUNCTION == LOG_SUM_EXP
    const Cursor start = cursor;
#endif
    const value_t first = LOAD(input, cursor.at[0]);
    *index = 0;
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN || FUNCTION == MAX || FUNCTION == MIN || FUNCTION == LOG_SUM_EXP
    value_t best = first;
    for (ulong i = 1; i < g->length; ++i) {
        cursor_next(&cursor, g);
        const value_t x = LOAD(input, cursor.at[0]);
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
        if (REPLACES(x, best)) {
            best = x;
            *index = i;
        }
#elif FLOAT_VALUES
        // MAX, MIN, and LOG_SUM_EXP's maximum (whose first index it keeps): a NaN stays.
        if (!isnan(best) && (isnan(x) || (FUNCTION == MIN ? x < best : x > best))) {
            best = x;
            *index = i;
        }
#else
        best = FUNCTION == MIN ? min(best, x) : max(best, x);
#endif
    }
#if FUNCTION != LOG_SUM_EXP
    return best;
#else
    if (!isfinite(best)) {
        return best;  // NaN, +inf, or every element -inf
    }
    return best + log1p(exp_sum_but(input, start, best, *index, g));
#endif
#elif FLOAT_VALUES && FUNCTION == MULTIPLY
    float product = first;
    for (ulong i = 1; i < g->length; ++i) {
        cursor_next(&cursor, g);
        product *= LOAD(input, cursor.at[0]);
    }
    return product;
#elif FLOAT_VALUES
    BlockedSum sum = blocked_sum();
    for (ulong i = 0; i < g->length; ++i) {
        const float x = i == 0 ? first : (cursor_next(&cursor, g), LOAD(input, cursor.at[0]));
#if FUNCTION == L1
        blocked_add(&sum, fabs(x));
#elif FUNCTION == SUM_SQUARE || FUNCTION == L2
        const float square = x * x;
        sum.block.compensation += fma(x, x, -square);  // exact: the square's rounding error
        blocked_add(&sum, square);
#else
        blocked_add(&sum, x);
#endif
    }
    const float total = blocked_total(sum);
#if FUNCTION == AVERAGE
    return total / (float)g->length;
#elif FUNCTION == L2
    return sqrt(total);
#elif FUNCTION == LOG_SUM
    return log(total);
#else
    return total;
#endif
#else
    // Integers: SUM, L1, SUM_SQUARE, MULTIPLY modulo 2^width, in the unsigned type of the width.
    UVALUE_T total = (UVALUE_T)0;
    for (ulong i = 0; i < g->length; ++i) {
        const value_t x = i == 0 ? first : (cursor_next(&cursor, g), LOAD(input, cursor.at[0]));
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

__kernel void reduce(__global const INPUT_T *input, ulong input_offset, __global OUTPUT_T *output,
                     ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                     uint8 output_strides)
{
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);
        ulong index;
        const value_t result = reduce_group(input, start, &g, &index);
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
        output[start.at[1]] = (OUTPUT_T)index;
#else
        STORE(result, output, start.at[1]);
#endif
    }
}
