// reduce_serial.h: reduce.cl's functions one element at a time (SCALAR_WALK's groups, and the elements the vector
// walks take one by one): the extremes' rule, a sum's terms and result, and reduce_group, a whole group through
// reduction_walk.h's cursor. Included by reduce.cl after its Tensors, element_at and FUNCTION's constants.
#ifndef REDUCE_SERIAL_H
#define REDUCE_SERIAL_H

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

// The function's result from the total of a group of `length` terms.
static inline float sum_finish(float total, ulong length)
{
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

static inline float sum_result(BlockedSum sum, ulong length)
{
    return sum_finish(blocked_total(sum), length);
}
#endif

#if FUNCTION != LOG_SUM_EXP
// The group's result, from a cursor on its first element; `index` is the extreme's (ARGMIN, ARGMAX). LOG_SUM_EXP's
// is reduce_log_sum_exp.h's.
static inline value_t reduce_group(const Tensors *t, Cursor cursor, const Groups *g, ulong *index)
{
    *index = 0;
    const value_t first = element_at(t, cursor.at, 0);
#if EXTREME
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
#endif

#endif
