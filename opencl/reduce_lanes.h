// reduce_lanes.h: the arithmetic of reduce.cl's vector walks (LANES_WALK, BANDS_WALK, and a split reduction's
// PARTIAL launch), floats but LOG_SUM_EXP: eight consecutive elements a load, and a state of eight lanes per function.
// Included by reduce.cl after its Tensors, element_at and the serial functions (reduce_serial.h).
#ifndef REDUCE_LANES_H
#define REDUCE_LANES_H

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
#if DML_FLOAT16 && SUMMED && !defined(DML_ELEMENTWISE_BUILTINS)
// A FLOAT16 sum's halves by vload_half8, exact as half_bits_to_float8 is, which Intel's runtime compiles to one
// conversion instruction where half_bits_to_float8 takes about nine vector operations (SUM over the innermost axis of
// (4096, 4096) FLOAT16, least of 15 and 21 in one process: 1.86 -> 1.55 and 1.79 -> 1.60 ms). A sum's
// every term goes through an addition, which quiets a signalling NaN whichever load kept it; the extremes return an
// element itself, so keep half_bits_to_float8's payload. PoCL runs vload_half8 one lane at a time (half_bits.h).
static inline float8 load_lanes(__global const INPUT_T *at)
{
    return vload_half8(0, (const __global half *)at);
}
#elif DML_FLOAT16
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

// x's terms (x, |x| or x^2) into the lanes' open blocks, not counted: BANDS_WALK counts the rows once for all its
// lanes (reduce.cl's reduce_band), lanes_take each lanes' own.
static inline void lanes_term(lanes_t *lanes, float8 x)
{
#if FUNCTION == L1
    compensated_lanes_add(&lanes->block, fabs(x));
#elif FUNCTION == SUM_SQUARE || FUNCTION == L2
    const float8 square = x * x;
    lanes->block.compensation += square_error(x, square);  // exact: the squares' rounding errors
    compensated_lanes_add(&lanes->block, square);
#else
    compensated_lanes_add(&lanes->block, x);
#endif
}

// lanes_term, each lane's block folded when full: blocked_lanes_add's block folding (its terms by lanes_term's
// Neumaier sums, not TwoSum).
static inline void lanes_take(lanes_t *lanes, float8 x, uint8 index)
{
    lanes_term(lanes, x);
    if (++lanes->in_block == COMPENSATED_BLOCK) {
        blocked_lanes_fold(lanes);
    }
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
// The end of state_result lane by lane, from a blocked sum's totals: blocked_total's fold of the empty block,
// compensated_total and the function's finish, each step as the scalar one, so the same bits.
static inline void lanes_finish(CompensatedLanes s, ulong length, result_t results[8])
{
    const float8 zero = (float8)(0.0f);
    compensated_lanes_add(&s, zero);
    s.compensation += zero;
    const int8 finite = as_float8(as_uint8(s.sum) & (uint8)0x7fffffffu) < (float8)(INFINITY);
    float totals[8];
    vstore8(finite ? s.sum + s.compensation : s.sum, 0, totals);
    for (int lane = 0; lane < 8; ++lane) {
        results[lane] = sum_finish(totals[lane], length);
    }
}

// Each lane's result as state_from_lane and state_result give it, the eight at once (BANDS_WALK, whose lanes are
// eight groups): blocked_take_lane into an empty sum, then lanes_finish.
static inline void lanes_results(const lanes_t *lanes, ulong length, result_t results[8])
{
    const float8 zero = (float8)(0.0f);
    CompensatedLanes s = {zero, zero};
    compensated_lanes_add(&s, zero);  // blocked_take_lane's fold of the empty sum's block
    s.compensation += zero;
    compensated_lanes_add(&s, lanes->total.sum);
    compensated_lanes_add(&s, lanes->block.sum);
    s.compensation += lanes->total.compensation + lanes->block.compensation;
    lanes_finish(s, length, results);
}
#elif EXTREME
typedef struct {
    float8 best;
    uint8 index;  // within the group: the walks run only where a group has fewer than 2^32 elements
    int8 nan;     // the lanes that have taken a NaN (lanes_take's quick rule)
} lanes_t;
typedef struct {
    float best;
    ulong index;
} state_t;

static inline void lanes_first(lanes_t *lanes, float8 x, uint8 index)
{
    lanes->best = x;
    lanes->index = index;
    lanes->nan = x != x;
}

// REPLACES, lane by lane (a comparison's true is -1 in every bit, so masks combine bitwise), by one of two rules.
// `exact`: the NaN rule itself (a NaN is the extreme, the first one), five mask operations. Otherwise the quick
// rule: x beyond the extreme (LAST_INDEX: or equal), a NaN only marked in `nan`, two operations; a lane that never
// takes a NaN gets the same extreme and index by both. Intel's runtime ran MAX over the innermost axis of (4096,
// 4096) at 0.42 of a read with the NaN rule, where a plain maximum reads at memory speed. A walk whose lanes took a
// NaN (lanes_took_nan) is walked again by the NaN rule: such a group is read twice.
static inline void lanes_take_by(lanes_t *lanes, float8 x, uint8 index, bool exact)
{
#if FUNCTION == ARGMIN || FUNCTION == MIN
    const int8 beyond = x < lanes->best;
#if LAST_INDEX
    const int8 quick = x <= lanes->best;
#endif
#else
    const int8 beyond = x > lanes->best;
#if LAST_INDEX
    const int8 quick = x >= lanes->best;
#endif
#endif
#if !LAST_INDEX
    const int8 quick = beyond;
#endif
    int8 replaces;
    if (exact) {
        const int8 nan_x = x != x, nan_best = lanes->best != lanes->best;
#if LAST_INDEX
        replaces = nan_x | (~nan_best & ((x == lanes->best) | beyond));
#else
        replaces = ~nan_best & (nan_x | beyond);
#endif
    } else {
        lanes->nan |= x != x;
        replaces = quick;
    }
    lanes->best = replaces ? x : lanes->best;
    lanes->index = replaces ? index : lanes->index;
}

static inline bool lanes_took_nan(const lanes_t *lanes)
{
    return any(lanes->nan);
}

static inline void lanes_take(lanes_t *lanes, float8 x, uint8 index)
{
    lanes_take_by(lanes, x, index, false);
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
// Each lane's extreme (MAX, MIN) or its index (ARGMAX, ARGMIN), the eight at once (BANDS_WALK).
static inline void lanes_results(const lanes_t *lanes, ulong length, result_t results[8])
{
    float best[8];
    uint index[8];
    vstore8(lanes->best, 0, best);
    vstore8(lanes->index, 0, index);
    for (int lane = 0; lane < 8; ++lane) {
#if FUNCTION == ARGMAX || FUNCTION == ARGMIN
        results[lane] = index[lane];
#else
        results[lane] = best[lane];
#endif
    }
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

static inline void lanes_results(const lanes_t *lanes, ulong length, result_t results[8])
{
    vstore8(*lanes, 0, results);
}
#endif

// Eight adjacent groups' results (along the innermost kept dimension, `v` groups after the one whose places are
// `at`) to their places (reduce_band's and the rows combine's epilogue).
static inline void store_eight(const Tensors *t, const Groups *g, const ulong *at, uint v, const result_t results[8])
{
#if !FUSED
    // An output packed along them: eight stores at constant offsets, which LLVM merges where the type allows, where a
    // stride known only at run time keeps eight scalar stores (SUM over axis 0 of (16, 1M), the bands' epilogue per
    // 16 rows of eight columns: least of 31 in one process 6.21 -> 4.95 ms on PoCL, 6.22 -> 4.91 on Intel's runtime).
    if (g->stride[1][KEPT_RANK - 1] == 1) {
        for (int lane = 0; lane < 8; ++lane) {
            const ulong place[REDUCTION_TENSORS] = {at[0], at[1] + v + lane};
            store_result(t, results[lane], place);
        }
        return;
    }
#endif
    for (int lane = 0; lane < 8; ++lane) {
        ulong place[REDUCTION_TENSORS];
        for (int k = 0; k < REDUCTION_TENSORS; ++k) {
            place[k] = at[k] + (ulong)(v + lane) * g->stride[k][KEPT_RANK - 1];
        }
        store_result(t, results[lane], place);
    }
}

#if !EXTREME
// One rule only (the extremes' lanes_take_by): never walked again.
#define lanes_take_by(lanes, x, index, exact) lanes_take(lanes, x, index)
#define lanes_took_nan(lanes) false
#endif

#endif
