// reduce_rows.h: ROWS_WALK, the partial launch of a split reduction over tall columns (dmlpy/kernels/reduce_split.py's
// rows plan). A work-item takes a chunk of rows and a strip of up to BAND adjacent columns (groups along the innermost
// kept dimension, contiguous in the input) and reads the strip's rows in order, each row a run of BAND elements,
// updating its columns' states in the temporary region: so memory is read in order, where BANDS_WALK steps a whole
// row (16 KiB for 4096 columns) between its 256-byte loads, and the states live in memory the first-level cache
// holds, not in registers that no band width fills well on both compilers (docs/performance.md, Reductions).
//
// The states are the chunk's records (reduce_records.h's PARTIAL): each column's first words in one plane, its
// second words in the next, `plane` words on (the row of groups' length), so a vector of eight columns is one run
// of each. Each lane is one column, its rows taken in order, a sum's rows in one block (a chunk is at most
// COMPENSATED_BLOCK rows): the record is the block's sum and compensation, as PARTIAL's store_state folds them.
// reduce_combine then folds each column's chunks in order (reduce_records.h's combine_take).
// Included by reduce.cl after reduce_lanes.h, floats but LOG_SUM_EXP.
#ifndef REDUCE_ROWS_H
#define REDUCE_ROWS_H

#if !PARTIAL
#error "ROWS_WALK is a split reduction's partial launch: define PARTIAL 1"
#endif
// Rows a vector of eight columns takes before the next vector: its state is loaded and stored once a run, and the
// run's rows are read as eight streams in order. A state stored every row measured 1.5x slower than the band it
// replaced; runs of 4 and 16 rows no better than 8.
#ifndef ROWS_RUN
#define ROWS_RUN 8u
#endif

// Eight words to `at` as eight stores (LLVM merges them into one unaligned store; vstore8 was a library call on
// PoCL, reduce_lanes.h).
#define STORE8(at, v)                                                                                                  \
    do {                                                                                                               \
        (at)[0] = (v).s0, (at)[1] = (v).s1, (at)[2] = (v).s2, (at)[3] = (v).s3;                                    \
        (at)[4] = (v).s4, (at)[5] = (v).s5, (at)[6] = (v).s6, (at)[7] = (v).s7;                                    \
    } while (0)

// Eight columns' states from their records at `record` (first words) and record + plane (second words), and back.
#if SUMMED
static inline void record_load(lanes_t *lanes, __global const uint *record, ulong plane)
{
    blocked_lanes(lanes);
    lanes->block.sum = as_float8((uint8)LOAD8(record));
    lanes->block.compensation = as_float8((uint8)LOAD8(record + plane));
}

static inline void record_store(const lanes_t *lanes, __global uint *record, ulong plane)
{
    STORE8(record, as_uint8(lanes->block.sum));
    STORE8(record + plane, as_uint8(lanes->block.compensation));
}

// A row's terms into the block, uncounted: a chunk is one block.
static inline void rows_take(lanes_t *lanes, float8 x, uint8 index, bool exact)
{
    lanes_term(lanes, x);
}
#elif EXTREME
static inline void record_load(lanes_t *lanes, __global const uint *record, ulong plane)
{
    lanes->best = as_float8((uint8)LOAD8(record));
    lanes->index = (uint8)LOAD8(record + plane);
    lanes->nan = (int8)(0);  // what the strip's earlier rows took is in reduce_rows' took_nan
}

static inline void record_store(const lanes_t *lanes, __global uint *record, ulong plane)
{
    STORE8(record, as_uint8(lanes->best));
    STORE8(record + plane, lanes->index);
}

static inline void rows_take(lanes_t *lanes, float8 x, uint8 index, bool exact)
{
    lanes_take_by(lanes, x, index, exact);
}
#else
static inline void record_load(lanes_t *lanes, __global const uint *record, ulong plane)
{
    *lanes = as_float8((uint8)LOAD8(record));
}

static inline void record_store(const lanes_t *lanes, __global uint *record, ulong plane)
{
    STORE8(record, as_uint8(*lanes));
    STORE8(record + plane, (uint8)(0u));  // a product's record has no second word: written, so none is read unset
}

static inline void rows_take(lanes_t *lanes, float8 x, uint8 index, bool exact)
{
    lanes_take_by(lanes, x, index, exact);
}
#endif

// `width` (a multiple of 8, at most BAND) adjacent columns from group `first`, every row of its chunk in order:
// each vector of eight columns takes ROWS_RUN rows before the next vector, its state loaded and stored once a run.
// False where an extreme's lanes took a NaN under the quick rule (reduce_lanes.h's lanes_take_by): the caller walks
// the strip again `exact`, every record written anew.
static inline bool reduce_rows(const Tensors *t, const Groups *g, ulong first, uint width, bool exact)
{
    bool took_nan = false;
    const ulong plane = g->size[KEPT_RANK - 1];
    Cursor cursor;
    group_start(&cursor, g, first);
    __global uint *record = t->output + cursor.at[1];
    for (uint v = 0; v < width; v += 8) {
        lanes_t lanes;
        lanes_first(&lanes, lanes_at(t, cursor.at, v), (uint8)(0u));
        took_nan |= lanes_took_nan(&lanes);
        record_store(&lanes, record + v, plane);
    }
    for (ulong i0 = 1; i0 < g->length; i0 += ROWS_RUN) {
        const ulong i1 = min(g->length, i0 + ROWS_RUN);
        for (uint v = 0; v < width; v += 8) {
            lanes_t lanes;
            record_load(&lanes, record + v, plane);
            Cursor row = cursor;
            for (ulong i = i0; i < i1; ++i) {
                cursor_next(&row, g);
                rows_take(&lanes, lanes_at(t, row.at, v), (uint8)((uint)i), exact);
            }
            took_nan |= lanes_took_nan(&lanes);
            record_store(&lanes, record + v, plane);
        }
        for (ulong i = i0; i < i1; ++i) {
            cursor_next(&cursor, g);
        }
    }
    return exact || !took_nan;
}

#endif
