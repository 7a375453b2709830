// reduce_log_sum_exp.h: reduce.cl's LOG_SUM_EXP, m + log(S), m the group's maximum and S the compensated sum of the
// terms exp(x - m), in two passes over the group: the maximum, then the terms (x - m carried exactly,
// compensated.h's exact_difference and exp_of). Every term is at most 1 and the maximum's is exactly 1, so S is at
// least 1 and nothing overflows or rescales. NaN, +inf, or a group of -inf only give m itself.
//
// The terms are summed in one order whatever the walk: those of the first whole eights of the group element i in
// lane i % 8 (compensated.h's BlockedLanes), the lanes then folded in order (blocked_take_lane: every rounding error
// kept), then the tail's terms one by one. So SCALAR_WALK (a cursor over any layout, and a graph's group anchored on
// the reduction, which walks it so) and LANES_WALK (a contiguous group) give the same bits: alone and fused alike.
// Included by reduce.cl after its Tensors, element_at and reduce_serial.h's REPLACES.
#ifndef REDUCE_LOG_SUM_EXP_H
#define REDUCE_LOG_SUM_EXP_H

// The terms eight lanes at a time (terms_lanes: float8 twins of exact_difference, exp_of and exp_float, lane by lane
// the scalar helpers' bits): Intel's runtime vectorises across work-items, never a work-item's inner loop, so a scalar
// exp ran one element at a time there.
#include "softmax_lanes.h"

static inline float log_sum_exp_term(float x, float maximum)
{
    return exp_of(exact_difference(x, maximum));
}

// The eight lanes folded in order into one sum, which the tail's terms then join (filled through a pointer, as
// reduction_walk.h's groups_of is, for Oclgrind).
static inline void lanes_folded(BlockedSum *sum, const BlockedLanes *lanes)
{
    *sum = blocked_sum();
    for (int lane = 0; lane < 8; ++lane) {
        blocked_take_lane(sum, lanes, lane);
    }
}

// Any group, through the cursor: each element read twice, as it is read once by the first pass.
static inline float log_sum_exp_group(const Tensors *t, Cursor cursor, const Groups *g)
{
    const Cursor start = cursor;
    float maximum = element_at(t, cursor.at, 0);
    for (ulong i = 1; i < g->length; ++i) {
        cursor_next(&cursor, g);
        const float x = element_at(t, cursor.at, 0);
        if (REPLACES(x, maximum)) {
            maximum = x;
        }
    }
    if (!isfinite(maximum)) {
        return maximum;
    }
    cursor = start;
    const ulong whole = g->length / 8 * 8;
    BlockedLanes lanes;
    blocked_lanes(&lanes);
    for (ulong i = 0; i < whole; i += 8) {
        float x[8];
        for (uint j = 0; j < 8; ++j) {
            if (i + j != 0) {
                cursor_next(&cursor, g);
            }
            x[j] = element_at(t, cursor.at, 0);
        }
        blocked_lanes_add(&lanes, terms_lanes(vload8(0, x), maximum));
    }
    BlockedSum sum;
    lanes_folded(&sum, &lanes);
    for (ulong i = whole; i < g->length; ++i) {
        if (i != 0) {
            cursor_next(&cursor, g);
        }
        blocked_add(&sum, log_sum_exp_term(element_at(t, cursor.at, 0), maximum));
    }
    return maximum + log_float(blocked_total(sum));
}

#if WALK == LANES_WALK
// A group of `length` >= 8 consecutive elements from `at`: the maximum eight lanes a load (MAX's lanes_take, by
// value: which of equal lanes wins cannot change m), then the terms.
static inline float log_sum_exp_lanes(const Tensors *t, const ulong *at, ulong length)
{
    const ulong whole = length / 8 * 8;
    float8 best = lanes_at(t, at, 0);
    for (ulong i = 8; i < whole; i += 8) {
        const float8 x = lanes_at(t, at, i);
        best = (best == best) & ((x != x) | (x > best)) ? x : best;  // REPLACES, lane by lane
    }
    float values[8];
    vstore8(best, 0, values);
    float maximum = values[0];
    for (int lane = 1; lane < 8; ++lane) {
        maximum = REPLACES(values[lane], maximum) ? values[lane] : maximum;
    }
    for (ulong i = whole; i < length; ++i) {
        const float x = element_at(t, at, i);
        maximum = REPLACES(x, maximum) ? x : maximum;
    }
    if (!isfinite(maximum)) {
        return maximum;
    }
    BlockedLanes lanes;
    blocked_lanes(&lanes);
    for (ulong i = 0; i < whole; i += 8) {
        blocked_lanes_add(&lanes, terms_lanes(lanes_at(t, at, i), maximum));
    }
    BlockedSum sum;
    lanes_folded(&sum, &lanes);
    for (ulong i = whole; i < length; ++i) {
        blocked_add(&sum, log_sum_exp_term(element_at(t, at, i), maximum));
    }
    return maximum + log_float(blocked_total(sum));
}
#endif

#endif
