// reduce_records.h: how reduce.cl's vector walks store a group's state (store_state): its result, or under PARTIAL 1
// (the first launch of a split reduction, dmlpy/kernels/reduce_split.py) a chunk's record; and how reduce_combine
// (COMBINE 1) folds the records (combine_take). Included by reduce.cl after reduce_lanes.h.
#ifndef REDUCE_RECORDS_H
#define REDUCE_RECORDS_H

#if PARTIAL
// A split reduction's first launch (dmlpy/kernels/reduce_split.py): a chunk's state as a record of two words in
// the temporary (OUTPUT_T uint), the sum and compensation unrounded, the extreme with its index within the chunk,
// or the product, so that the combine keeps the one walk's bound and first index.
#if WALK != LANES_WALK && WALK != ROWS_WALK
#error "PARTIAL: a chunk is walked by LANES_WALK or ROWS_WALK only"
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
