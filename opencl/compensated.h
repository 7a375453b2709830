// compensated.h: the float arithmetic of the reductions (softmax.cl, reduce.cl) whose error must not grow with a
// group's length.
#ifndef COMPENSATED_H
#define COMPENSATED_H

#include "float_math.h"

// A running sum with Neumaier's compensation (Kahan-Babuska): each addition's rounding error, recovered exactly
// by the TwoSum of the larger and the smaller operand, is accumulated apart and added once at the end. The
// result's error is at most 2u|S| + O(n u^2) sum|x| (Higham, Accuracy and Stability of Numerical Algorithms,
// section 4.3): it does not grow with the length n as a serial sum's (n - 1) u sum|x| does.
typedef struct {
    float sum, compensation;
} CompensatedSum;

static inline void compensated_add(CompensatedSum *s, float term)
{
    const float total = s->sum + term;
    s->compensation += magnitude(s->sum) >= magnitude(term) ? (s->sum - total) + term : (term - total) + s->sum;
    s->sum = total;
}

// The sum; where it is infinite or NaN (an infinite or NaN term, or an overflow), the plain sum, which IEEE
// arithmetic carries as a float64 sum would, since the compensation is then NaN.
static inline float compensated_total(CompensatedSum s)
{
    return magnitude(s.sum) < INFINITY ? s.sum + s.compensation : s.sum;
}

// A long sum compensated in blocks: each block of COMPENSATED_BLOCK terms is a compensated sum of its own, folded
// into the total's compensated sum when full. Neumaier's bound needs n u < 1: past 2^24 terms (u = 2^-24) a term
// below half the running sum's last place is lost whole into the compensation, which then grows as large as the
// sum and rounds as a serial sum would (16M positive terms measured 2e-6 off, 32M 2.6e-4; blocked: within 2u|S|).
// A block keeps n u at 2^-12, and a group of 2^32 elements makes 2^20 folds.
#define COMPENSATED_BLOCK 4096u

typedef struct {
    CompensatedSum total, block;
    uint in_block;
} BlockedSum;

static inline BlockedSum blocked_sum(void)
{
    const BlockedSum s = {{0.0f, 0.0f}, {0.0f, 0.0f}, 0u};
    return s;
}

static inline void blocked_fold(BlockedSum *s)
{
    compensated_add(&s->total, s->block.sum);
    s->total.compensation += s->block.compensation;
    s->block.sum = s->block.compensation = 0.0f;
    s->in_block = 0u;
}

static inline void blocked_add(BlockedSum *s, float term)
{
    compensated_add(&s->block, term);
    if (++s->in_block == COMPENSATED_BLOCK) {
        blocked_fold(s);
    }
}

// The sum; a group shorter than a block gives exactly its one compensated sum.
static inline float blocked_total(BlockedSum s)
{
    blocked_fold(&s);
    return compensated_total(s.total);
}

// The same sums eight at a time, one per lane of a float8 (reduce.cl's vector walks: eight independent chains
// of additions, where one chain of dependent ones bounds a serial sum's speed). Each lane is a BlockedSum of its
// own; blocked_take_lane folds a lane into a scalar BlockedSum as blocked_fold folds a block, every rounding error
// kept, so a sum combined from lanes keeps the one sum's bound.
typedef struct {
    float8 sum, compensation;
} CompensatedLanes;

typedef struct {
    CompensatedLanes total, block;
    uint in_block;
} BlockedLanes;

// |x| as its bits with the sign cleared, and Neumaier's choice as a vector ?: , not fabs and select: PoCL ran those
// built-ins one lane at a time (reduce.cl's vector walks say what it cost).
static inline void compensated_lanes_add(CompensatedLanes *s, float8 term)
{
    const float8 total = s->sum + term;
    const uint8 magnitude = (uint8)0x7fffffffu;
    const int8 larger = as_float8(as_uint8(s->sum) & magnitude) >= as_float8(as_uint8(term) & magnitude);
    s->compensation += larger ? (s->sum - total) + term : (term - total) + s->sum;
    s->sum = total;
}

static inline void blocked_lanes(BlockedLanes *s)
{
    s->total.sum = s->total.compensation = s->block.sum = s->block.compensation = (float8)(0.0f);
    s->in_block = 0u;
}

// The open block folded into the totals (a full one, or the last, partial one).
static inline void blocked_lanes_fold(BlockedLanes *s)
{
    compensated_lanes_add(&s->total, s->block.sum);
    s->total.compensation += s->block.compensation;
    s->block.sum = s->block.compensation = (float8)(0.0f);
    s->in_block = 0u;
}

// Knuth's TwoSum lane by lane: a + b as hi + lo exactly (lo the rounding error of hi, NaN where hi is not finite),
// in 6 vector operations whichever operand is larger. The one copy: the lanes' compensated sums below and
// softmax_lanes.h's differences from a row's maximum.
typedef struct {
    float8 hi, lo;
} DifferenceLanes;

static inline DifferenceLanes two_sum_lanes(float8 a, float8 b)
{
    const float8 hi = a + b;
    const float8 b_part = hi - a;
    const float8 a_part = hi - b_part;
    const DifferenceLanes sum = {hi, (a - a_part) + (b - b_part)};
    return sum;
}

// Knuth's TwoSum in place of Neumaier's choice, for the terms of the hot loops (softmax.cl's rows, LOG_SUM_EXP's
// lanes): the same error term, recovered exactly without knowing which operand is larger, in 6 vector operations
// against 9 (no magnitudes, comparison or select; PoCL's loop also keeps two constants fewer). The same bits as
// compensated_lanes_add: both error terms are exact, so they are equal wherever the sum is finite, but for a zero's
// sign, which cannot show (a compensation starts at +0, and x + -0 = x, -x + x = +0 under round to nearest); where the
// sum is not finite both compensations are NaN or infinite and compensated_total takes the plain sum, which is the same.
static inline void two_sum_lanes_add(CompensatedLanes *s, float8 term)
{
    const DifferenceLanes sum = two_sum_lanes(s->sum, term);
    s->compensation += sum.lo;
    s->sum = sum.hi;
}

static inline void blocked_lanes_add(BlockedLanes *s, float8 term)
{
    two_sum_lanes_add(&s->block, term);
    if (++s->in_block == COMPENSATED_BLOCK) {
        blocked_lanes_fold(s);
    }
}

// Lane `lane`'s sum and compensation, in total and in its open block, folded into s.
static inline void blocked_take_lane(BlockedSum *s, const BlockedLanes *lanes, int lane)
{
    float parts[4][8];
    vstore8(lanes->total.sum, 0, parts[0]);
    vstore8(lanes->total.compensation, 0, parts[1]);
    vstore8(lanes->block.sum, 0, parts[2]);
    vstore8(lanes->block.compensation, 0, parts[3]);
    blocked_fold(s);
    compensated_add(&s->total, parts[0][lane]);
    compensated_add(&s->total, parts[2][lane]);
    s->total.compensation += parts[1][lane] + parts[3][lane];
}

// x - maximum as hi + lo exactly (Knuth's TwoSum, which needs no ordering of the operands). Where hi is not
// finite (x is -inf, or the difference overflows), exp(hi) is 0 and lo is 0. Finiteness by magnitude and fma as
// float_math.h's FMA: isfinite and fma are library calls on PoCL that keep a loop scalar (a row's scalar walk
// 400 -> 98 ms).
static inline float2 exact_difference(float x, float maximum)
{
    const float negated = -maximum;
    const float hi = x + negated;
    const float x_part = hi - negated;
    const float negated_part = hi - x_part;
    const float lo = (x - x_part) + (negated - negated_part);
    return (float2)(hi, magnitude(hi) < INFINITY ? lo : 0.0f);
}

// exp(hi + lo) = exp(hi) * exp(lo), and exp(lo) = 1 + lo within lo^2 / 2 (|lo| <= 2^-18 wherever exp(hi) is not 0);
// exp is float_math.h's, the same bits on every device.
static inline float exp_of(float2 difference)
{
    const float e = exp_float(difference.x);
    return FMA(e, difference.y, e);
}

#endif
