// softmax.cl: DirectML's axis-reducing activations, ACTIVATION_SOFTMAX(1), ACTIVATION_LOG_SOFTMAX(1) and
// ACTIVATION_HARDMAX(1) (dmlpy/ops/activation_softmax.py; lowered by dmlpy/kernels/reduction.py).
//
// The tensor is a set of groups: the elements that share their coordinates along the kept dimensions (those not
// in Axes) form one group, reduced along the Axes (reduction_walk.h: the layout, one work-item per group). One
// work-item computes one group, in three passes over it: the maximum (and the first index holding it), the sum of
// exp(x - maximum), the outputs; the program is the same under both launch profiles.
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

#ifndef OPERATION
#error "define OPERATION: SOFTMAX, LOG_SOFTMAX or HARDMAX"
#endif
#define SOFTMAX 0
#define LOG_SOFTMAX 1
#define HARDMAX 2


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
