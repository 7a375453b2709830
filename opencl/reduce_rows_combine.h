// reduce_rows_combine.h: reduce_combine over ROWS_WALK's records (dmlpy/kernels/reduce_split.py's rows plan), eight
// adjacent columns a work-item. A chunk's records of eight adjacent columns are one run in each plane (the first
// words, then `second` words on the second words), so each is one load, and each lane takes its column's chunks in
// order by the operations reduce_records.h's combine_take and store_state apply to one column, in the same order: the
// same bits as a work-item per column, which took 0.43 ms of SUM's 3.7 over axis 0 of (4096, 4096) FLOAT32 on PoCL
// (scalar compensated additions through the cursor, a work-item per column; docs/performance.md, Reductions).
// Included by reduce.cl under COMBINE 1 and WALK ROWS_WALK, after reduce_lanes.h.
#ifndef REDUCE_ROWS_COMBINE_H
#define REDUCE_ROWS_COMBINE_H

#if SUMMED
// combine_take's state of eight columns: blocked_sum's total, each chunk's sum and compensation folded into it.
typedef CompensatedLanes combined_t;

static inline void combined_take(combined_t *s, uint8 first, uint8 second, ulong c, ulong chunk_length)
{
    if (c == 0) {
        s->sum = s->compensation = (float8)(0.0f);
    }
    compensated_lanes_add(s, as_float8(first));
    s->compensation += as_float8(second);
}

// state_result's steps lane by lane (reduce_lanes.h's lanes_finish).
static inline void combined_results(combined_t s, ulong length, result_t results[8]) { lanes_finish(s, length, results); }
#else
// The extremes' and the product's lanes: combine_take's first record, then state_take's rule per chunk (the NaN
// rule, lanes_take_by exact), chunk c's indices from c times chunk_length.
typedef lanes_t combined_t;

static inline void combined_take(combined_t *s, uint8 first, uint8 second, ulong c, ulong chunk_length)
{
#if EXTREME
    if (c == 0) {
        s->best = as_float8(first);
        s->index = second;
        s->nan = (int8)(0);
    } else {
        lanes_take_by(s, as_float8(first), (uint8)((uint)(c * chunk_length)) + second, true);
    }
#else
    *s = c == 0 ? as_float8(first) : *s * as_float8(first);
#endif
}

static inline void combined_results(combined_t s, ulong length, result_t results[8])
{
    lanes_results(&s, length, results);
}
#endif

// Columns first .. first + 7 (one row of groups holds them: its length is a multiple of 8), every chunk's records
// in order, their results stored.
static inline void combine_columns(const Tensors *t, const Groups *g, ulong first, ulong chunk_length, ulong second)
{
    Cursor cursor;
    group_start(&cursor, g, first);
    const Cursor start = cursor;
    combined_t s;
    for (ulong c = 0; c < g->length; ++c) {
        const __global uint *record = t->input + cursor.at[0];
        combined_take(&s, (uint8)LOAD8(record), (uint8)LOAD8(record + second), c, chunk_length);
        cursor_next(&cursor, g);
    }
    result_t results[8];
    combined_results(s, g->length * chunk_length, results);
    store_eight(t, g, start.at, 0u, results);
}

#endif
