// reduce.cl: DirectML's REDUCE (its twelve functions), ARGMIN and ARGMAX (dmlpy/ops/reduction.py; laid out by
// dmlpy/kernels/reduction.py): each group of input elements that share their coordinates outside Axes gives one
// output element, one work-item per group (reduction_walk.h) or per band of adjacent groups.
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
//   LOG_SUM_EXP      maximum + log of the compensated sum of exp(x - maximum), in two passes (reduce_log_sum_exp.h).
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
//                the tail after the last whole eight taken serially. LOG_SUM_EXP: its terms eight lanes at a time.
//   BANDS_WALK   up to BAND adjacent groups along the innermost kept dimension, contiguous in the input: a row of
//                the band, one vector of eight per eight groups, is read a step, walking down the reduced
//                dimensions, so each step reads BAND floats in a run where a work-item per group would read one
//                (docs/performance.md, Reductions, says what the width gained); each lane is one group, its
//                elements in the group's order. The groups after the band's last whole eight are walked one at a
//                time (SCALAR_WALK).
//   ROWS_WALK    a split reduction's partial launch over tall columns (reduce_rows.h): a chunk of rows and a strip
//                of up to BAND adjacent groups a work-item, each row's strip read in order into the groups' records.
// The vector walks serve the float functions (LOG_SUM_EXP LANES_WALK only); they change the order of a sum or a
// product, never its bound (compensated.h's lanes keep every rounding error), nor which index ARGMIN and ARGMAX
// return (lanes are combined by value, then by index).
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
#define BAND 64u  // BANDS_WALK's groups a work-item, a multiple of 8 (dmlpy/kernels/reduction.py's BAND)
#endif
// BANDS_WALK's order (reduce_band): each vector down BAND_RUN rows before the next vector (band_in_runs), or a row
// at a time, every vector. The compilers want opposite orders, and on short columns each the other's: on (4096, 4096)
// PoCL ran runs 1.5x faster (its code keeps a band's eight states on the stack, a run's in registers), Intel's runtime
// 2.4x slower; on (16, 1M), least of 31 in one process, runs took PoCL 3.35 ms against 3.06 a row at a time and
// Intel's runtime 2.76 against 4.34 (docs/performance.md, Reductions). SHORT_COLUMNS (dmlpy/kernels/reduction.py's,
// set with WALK): fewer rows than the rows plan takes.
#ifndef BAND_RUN
#define BAND_RUN 8u
#endif
#ifdef DML_ELEMENTWISE_BUILTINS
#define RUNS_WHEN_TALL true
#else
#define RUNS_WHEN_TALL false
#endif
#define SCALAR_WALK 0
#define LANES_WALK 1
#define BANDS_WALK 2
#define ROWS_WALK 3
#ifndef WALK
#define WALK SCALAR_WALK
#endif
#define EXTREME (FUNCTION == ARGMAX || FUNCTION == ARGMIN || FUNCTION == MAX || FUNCTION == MIN)
#define SUMMED (FUNCTION == SUM || FUNCTION == AVERAGE || FUNCTION == L1 || FUNCTION == SUM_SQUARE || \
                FUNCTION == L2 || FUNCTION == LOG_SUM)

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

#include "reduce_serial.h"
#if WALK != SCALAR_WALK
#include "reduce_lanes.h"
#endif
#if FUNCTION == LOG_SUM_EXP
#include "reduce_log_sum_exp.h"
#elif WALK != SCALAR_WALK
#include "reduce_records.h"
#endif
#if WALK == ROWS_WALK && COMBINE
#include "reduce_rows_combine.h"
#elif WALK == ROWS_WALK
#include "reduce_rows.h"
#endif

#if WALK == LANES_WALK && FUNCTION != LOG_SUM_EXP
// A group of `length` >= 8 consecutive elements from `at`: element i in lane i % 8, then the tail serially; false
// (nothing in s) where an extreme's lanes took a NaN under the quick rule (reduce_lanes.h's lanes_take_by), which
// the caller then walks again `exact`.
static inline bool lanes_group(state_t *s, const Tensors *t, const ulong *at, ulong length, bool exact)
{
    const uint8 lane = (uint8)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
    const ulong whole = length / 8 * 8;
    lanes_t lanes;
    lanes_first(&lanes, lanes_at(t, at, 0), lane);
    for (ulong i = 8; i < whole; i += 8) {
        lanes_take_by(&lanes, lanes_at(t, at, i), (uint8)((uint)i) + lane, exact);
    }
    if (!exact && lanes_took_nan(&lanes)) {
        return false;
    }
    state_from_lane(s, &lanes, 0);
    for (int j = 1; j < 8; ++j) {
        state_take_lane(s, &lanes, j);
    }
    for (ulong i = whole; i < length; ++i) {
        state_take(s, element_at(t, at, i), i);
    }
    return true;
}
#endif

#if WALK != ROWS_WALK
// One group on its own (SCALAR_WALK and LANES_WALK, and BANDS_WALK's groups after a band's whole eights), stored.
static inline void reduce_one(const Tensors *t, const Groups *g, ulong group)
{
    Cursor start;
    group_start(&start, g, group);
#if FUNCTION == LOG_SUM_EXP && WALK == LANES_WALK
    store_result(t, log_sum_exp_lanes(t, start.at, g->length), start.at);
#elif FUNCTION == LOG_SUM_EXP
    store_result(t, log_sum_exp_group(t, start, g), start.at);
#elif WALK == LANES_WALK
    state_t s;
    if (!lanes_group(&s, t, start.at, g->length, false)) {
        lanes_group(&s, t, start.at, g->length, true);
    }
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
#endif

#if WALK == BANDS_WALK
// `width` (at most BAND) adjacent groups from group `first` along the innermost kept dimension: lanes[v] holds
// groups first + 8v .. first + 8v + 7, one vector a row down the reduced dimensions. A sum's rows are counted once
// for every lane (lanes_term, then every lane's block folded together, as lanes_take would fold each: the same
// bits); the groups after the last whole eight one at a time. False (nothing stored) where an extreme's lanes took a
// NaN under the quick rule (reduce_lanes.h's lanes_take_by): the caller walks the band again `exact`.
static inline bool reduce_band(const Tensors *t, const Groups *g, ulong first, uint width, bool exact)
{
    const uint vectors = width / 8;
    Cursor cursor;
    group_start(&cursor, g, first);
    const Cursor start = cursor;
    lanes_t lanes[BAND / 8];
    for (uint v = 0; v < vectors; ++v) {
        lanes_first(&lanes[v], lanes_at(t, cursor.at, 8 * v), (uint8)(0u));
    }
    if ((g->length >= SHORT_COLUMNS) == RUNS_WHEN_TALL) {
        // The rows BAND_RUN at a time, each vector down the run's rows before the next vector. A run ends at a
        // compensated block's end, so a sum's blocks fold where lanes_take would fold them: the same bits for any run.
        for (ulong i0 = 1; i0 < g->length;) {
            ulong i1 = min(g->length, i0 + BAND_RUN);
#if SUMMED
            i1 = min(i1, (i0 / COMPENSATED_BLOCK + 1) * COMPENSATED_BLOCK);
#endif
            for (uint v = 0; v < vectors; ++v) {
                Cursor row = cursor;
                lanes_t state = lanes[v];
                for (ulong i = i0; i < i1; ++i) {
                    cursor_next(&row, g);
#if SUMMED
                    lanes_term(&state, lanes_at(t, row.at, 8 * v));
#else
                    lanes_take_by(&state, lanes_at(t, row.at, 8 * v), (uint8)((uint)i), exact);
#endif
                }
                lanes[v] = state;
            }
            for (ulong i = i0; i < i1; ++i) {
                cursor_next(&cursor, g);
            }
#if SUMMED
            if (i1 % COMPENSATED_BLOCK == 0) {  // rows 0 .. i1 - 1 taken: a whole block since the last fold
                for (uint v = 0; v < vectors; ++v) {
                    blocked_lanes_fold(&lanes[v]);
                }
            }
#endif
            i0 = i1;
        }
    } else {
        // A row at a time, every vector of the band.
#if SUMMED
        uint in_block = 1u;  // lanes_first's row
#endif
        for (ulong i = 1; i < g->length; ++i) {
            cursor_next(&cursor, g);
            for (uint v = 0; v < vectors; ++v) {
#if SUMMED
                lanes_term(&lanes[v], lanes_at(t, cursor.at, 8 * v));
#else
                lanes_take_by(&lanes[v], lanes_at(t, cursor.at, 8 * v), (uint8)((uint)i), exact);
#endif
            }
#if SUMMED
            if (++in_block == COMPENSATED_BLOCK) {
                for (uint v = 0; v < vectors; ++v) {
                    blocked_lanes_fold(&lanes[v]);
                }
                in_block = 0u;
            }
#endif
        }
    }
    if (!exact) {
        for (uint v = 0; v < vectors; ++v) {
            if (lanes_took_nan(&lanes[v])) {
                return false;
            }
        }
    }
    for (uint v = 0; v < vectors; ++v) {
        result_t results[8];
        lanes_results(&lanes[v], g->length, results);
        store_eight(t, g, start.at, 8 * v, results);
    }
    for (ulong group = first + vectors * 8; group < first + width; ++group) {
        reduce_one(t, g, group);
    }
    return true;
}
#endif

#if COMBINE
// Each group's records, one per chunk (the reduced dimension: g.length chunks of chunk_length elements), folded into
// its result (INPUT_T uint: the records' words, a record's second word `second` words after its first: 1, or a
// plane of ROWS_WALK's; under WALK ROWS_WALK eight adjacent columns a work-item, reduce_rows_combine.h).
__kernel void reduce_combine(__global const INPUT_T *input, ulong input_offset, __global OUTPUT_T *output,
                             ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                             uint8 output_strides, ulong chunk_length, ulong second)
{
    const Tensors tensors = {input, output};
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
#if WALK == ROWS_WALK
    for (ulong first = 8 * get_global_id(0); first < g.groups; first += 8 * get_global_size(0)) {
        combine_columns(&tensors, &g, first, chunk_length, second);
    }
#else
    FOR_EACH_GROUP(group, g)
    {
        Cursor cursor;
        group_start(&cursor, &g, group);
        const Cursor start = cursor;
        state_t s;
        for (ulong c = 0; c < g.length; ++c) {
            combine_take(&s, input[cursor.at[0]], input[cursor.at[0] + second], c, chunk_length);
            cursor_next(&cursor, &g);
        }
        store_state(&tensors, &s, start.at, g.length * chunk_length);
    }
#endif
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
#if WALK == BANDS_WALK || WALK == ROWS_WALK
    // Bands of BAND groups along the innermost kept dimension (stride 1 in the input), ceil(row / BAND) a row of
    // it, the last one cut short by the row's end (ROWS_WALK: a strip of a chunk's rows, the row a multiple of 8).
    const uint row = g.size[KEPT_RANK - 1];
    const ulong bands_per_row = (row + (BAND - 1u)) / BAND;
    const ulong bands = g.groups / row * bands_per_row;
    for (ulong band = get_global_id(0); band < bands; band += get_global_size(0)) {
        const uint along = (uint)(band % bands_per_row) * BAND;
        const ulong first = band / bands_per_row * row + along;
        // A constant width where the band is whole: its loops over the lanes unroll. Walked again by the NaN rule
        // where the quick one met a NaN.
#if WALK == ROWS_WALK
        if (!reduce_rows(&tensors, &g, first, min(BAND, row - along), false)) {
            reduce_rows(&tensors, &g, first, min(BAND, row - along), true);
        }
#else
        if (row - along >= BAND) {
            if (!reduce_band(&tensors, &g, first, BAND, false)) {
                reduce_band(&tensors, &g, first, BAND, true);
            }
        } else if (!reduce_band(&tensors, &g, first, row - along, false)) {
            reduce_band(&tensors, &g, first, row - along, true);
        }
#endif
    }
#else
    FOR_EACH_GROUP(group, g)
    {
        reduce_one(&tensors, &g, group);
    }
#endif
}
#endif
