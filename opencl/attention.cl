// attention.cl: the softmax of MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 over the keys (dmlpy/ops/
// multihead_attention.py; planned by dmlpy/kernels/attention.py, between gemm.cl's two products).
//
// Each row of the scores (one batch, query head and query position; the scores already Scale * Q x K^T plus
// RelativePositionBias) is one group (reduction_walk.h: REDUCTION_TENSORS 4, the scores, the mask's two views and
// the probabilities, which are the scores' own region: each element is read before it is written, by the same
// work-item). Key j's score is x_j = score_j + MaskFilterValue where MaskTensor masks key j, else score_j (the
// page's MaskFilterValue text: the value is "added"), and the probabilities are softmax.cl's: the maximum subtracted
// exactly (compensated.h's exact_difference), exp(x_j - maximum) summed with Neumaier's compensation beside the
// maximum's own exact 1, one correctly rounded division. A row whose every x_j is -inf (every key masked with a
// MaskFilterValue of -inf, as ONNX's Attention masks) gives probabilities 0, onnx.reference's convention (the
// pages are silent); a row holding a NaN or +inf gives NaN throughout, as the formula does in float64.
//
// MASK_TYPE (DML_MULTIHEAD_ATTENTION_MASK_TYPE) and what masks key j (j counts the past keys first):
//   0 NONE: nothing.
//   1 KEY_SEQUENCE_LENGTH, [1, batchSize]: j >= the batch's length (mask_a: the length, by batch).
//   2 KEY_SEQUENCE_END_START, [2, batchSize]: j >= the batch's end or j < its start (mask_a: the first row, the
//     ends, exclusive; mask_b: the second, the starts, inclusive).
//   3 KEY_QUERY_SEQUENCE_LENGTH_START_END, [batchSize * 3 + 2]: the first batchSize entries are the key lengths,
//     read as KEY_SEQUENCE_LENGTH; the query and key starts that follow place sequences in a packed token list,
//     which these padded tensors do not have (docs/operators/multihead_attention.md).
//   4 BOOLEAN, the scores' Sizes: a 0 masks (mask_a: the mask over the scores).
// A FLOAT16 score is read into float and the probability rounded once to half (float_tensors.h).

#include "compensated.h"
#include "float_tensors.h"
#include "reduction_walk.h"

#define KEY_SEQUENCE_LENGTH 1
#define KEY_SEQUENCE_END_START 2
#define KEY_QUERY_SEQUENCE_LENGTH_START_END 3
#define BOOLEAN 4

// Whether key j of the row at cursor is masked; lengths compared as signed 64-bit, so a negative one masks all.
static inline bool masked(__global const int *mask_a, __global const int *mask_b, const Cursor *cursor, ulong j)
{
#if MASK_TYPE == BOOLEAN
    return mask_a[cursor->at[1]] == 0;
#elif MASK_TYPE == KEY_SEQUENCE_LENGTH || MASK_TYPE == KEY_QUERY_SEQUENCE_LENGTH_START_END
    return (long)j >= (long)mask_a[cursor->at[1]];
#elif MASK_TYPE == KEY_SEQUENCE_END_START
    return (long)j >= (long)mask_a[cursor->at[1]] || (long)j < (long)mask_b[cursor->at[2]];
#else
    return false;
#endif
}

// x_j: the score, MaskFilterValue added where key j is masked.
#define SCORE(cursor, j)                                                                                           \
    (masked(mask_a, mask_b, &(cursor), (j)) ? LOAD(scores, (cursor).at[0]) + filter : LOAD(scores, (cursor).at[0]))

__kernel void masked_softmax(__global const storage_t *scores, ulong scores_offset, __global const int *mask_a,
                             ulong mask_a_offset, __global const int *mask_b, ulong mask_b_offset,
                             __global storage_t *probabilities, ulong probabilities_offset, ulong element_count,
                             uint8 sizes, uint8 scores_strides, uint8 mask_a_strides, uint8 mask_b_strides,
                             uint8 probabilities_strides, uint8 parameters)
{
    const float filter = as_float(parameters.s0); // MaskFilterValue's bits
    const uint8 strides[4] = {scores_strides, mask_a_strides, mask_b_strides, probabilities_strides};
    const ulong offsets[4] = {scores_offset, mask_a_offset, mask_b_offset, probabilities_offset};
    Groups g;
    groups_of(&g, element_count, sizes, strides, offsets);
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);

        // Pass 1: the maximum and the first index holding it (a NaN is the maximum, the first one wins).
        Cursor cursor = start;
        float maximum = SCORE(cursor, 0);
        ulong first = 0;
        for (ulong j = 1; j < g.length; ++j) {
            cursor_next(&cursor, &g);
            const float x = SCORE(cursor, j);
            if (!isnan(maximum) && (x > maximum || isnan(x))) {
                maximum = x;
                first = j;
            }
        }
        if (!isfinite(maximum)) {
            // Every key masked away (each x_j -inf): no key to attend, probabilities 0 (onnx.reference's Attention
            // convention, so such a row's output is 0); a NaN or +inf score: NaN, as the formula gives.
            const float p = maximum == -INFINITY ? 0.0f : NAN;
            cursor = start;
            for (ulong j = 0; j < g.length; ++j) {
                STORE(p, probabilities, cursor.at[3]);
                cursor_next(&cursor, &g);
            }
            continue;
        }

        // Pass 2: the sum of exp(x - maximum) but the first maximum's (1), compensated (every term >= 0).
        BlockedSum rest = blocked_sum();
        cursor = start;
        for (ulong j = 0; j < g.length; ++j) {
            if (j != first) {
                blocked_add(&rest, exp_of(exact_difference(SCORE(cursor, j), maximum)));
            }
            cursor_next(&cursor, &g);
        }

        // Pass 3: the probabilities, each over the row's own score.
        const float sum = 1.0f + blocked_total(rest);
        cursor = start;
        for (ulong j = 0; j < g.length; ++j) {
            const float x = SCORE(cursor, j);
            STORE(exp_of(exact_difference(x, maximum)) / sum, probabilities, cursor.at[3]);
            cursor_next(&cursor, &g);
        }
    }
}
