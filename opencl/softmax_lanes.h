// softmax_lanes.h: softmax.cl's terms exp(x - maximum) and its FLOAT16 stores eight at a time, for its ROWS path:
// float8 twins of compensated.h's exact_difference and exp_of, of float_math.h's exp_float and of half_bits.h's
// half_value_bits(half_value(x)), lane by lane the same results (so the same bits as the scalar ones on every
// device: tests/device/activations/test_softmax_lanes.py compares them on a sweep of floats, special values included).
//
// Why a twin: a work-item per row computing one element at a time leaves SIMD to the compiler, and neither runtime
// vectorised the scalar exp inside a work-item (Intel's not at all; PoCL's loop vectoriser only once exp_of's fma and
// exact_difference's isfinite are spelled as FMA and a comparison, its library calls otherwise). Written with
// vector operators, the eight lanes are one AVX register on both: SOFTMAX over (16384, 1024) float32 4.0x faster on
// Intel's runtime than the same kernel with the scalar helpers per lane (docs/performance.md, "Softmax rows
// (issue 47)").
#ifndef SOFTMAX_LANES_H
#define SOFTMAX_LANES_H

#include "compensated.h"

// fma on float8: OpenCL's everywhere but PoCL, whose library runs a float8 fma one lane at a time through a call
// (reduce.cl's square_error says so too); there eight calls of clang's builtin (llvm.fma, the same correctly rounded
// result), which LLVM's SLP vectoriser merges into one vfmadd.
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_fmaf)
static inline float8 fma_lanes(float8 a, float8 b, float8 c)
{
    return (float8)(__builtin_fmaf(a.s0, b.s0, c.s0), __builtin_fmaf(a.s1, b.s1, c.s1),
                    __builtin_fmaf(a.s2, b.s2, c.s2), __builtin_fmaf(a.s3, b.s3, c.s3),
                    __builtin_fmaf(a.s4, b.s4, c.s4), __builtin_fmaf(a.s5, b.s5, c.s5),
                    __builtin_fmaf(a.s6, b.s6, c.s6), __builtin_fmaf(a.s7, b.s7, c.s7));
}
#define FMA_LANES(a, b, c) fma_lanes((float8)(a), (float8)(b), (float8)(c))
#endif
#endif
#ifndef FMA_LANES
#define FMA_LANES(a, b, c) fma((float8)(a), (float8)(b), (float8)(c))
#endif

// exp_float lane by lane (float_math.h's exp_reduce_within and exp_of_reduced: k by the 1.5 * 2^23 shifter, its
// bits the exponent fields, r by Cody and Waite's two fmas, the degree-5 polynomial, 2^k in two exact steps).
// Vector operators and ?:, never the built-ins that mean the same (PoCL ran those lane by lane). For x already within
// [-104, 89], not NaN.
static inline float8 exp_lanes_within(float8 x)
{
    const float8 shifted = x * 0x1.715476p+0f + EXP_SHIFTER;
    const float8 kf = shifted - EXP_SHIFTER;
    float8 r = FMA_LANES(kf, -0x1.62e43p-1f, x);
    r = FMA_LANES(kf, 0x1.05c610p-29f, r);
    float8 p = 0x1.a07482p-13f;
    p = FMA_LANES(p, r, 0x1.6d48d4p-10f);
    p = FMA_LANES(p, r, 0x1.11114ep-7f);
    p = FMA_LANES(p, r, 0x1.5554e4p-5f);
    p = FMA_LANES(p, r, 0x1.555556p-3f);
    p = FMA_LANES(p, r, 0.5f);
    const float8 expm1r = FMA_LANES(r, r * p, r);
    const uint8 k_field = as_uint8(shifted) << 23, h_field = (as_uint8(shifted) >> 1) << 23;
    return as_float8(as_uint8(1.0f + expm1r) + (k_field - h_field)) * as_float8(h_field + 0x3f800000u);
}
// exp_float: the clamp (min, then max), a NaN as x + x.
static inline float8 exp_lanes(float8 x)
{
    const float8 below = x < EXP_HIGHEST ? x : EXP_HIGHEST;
    const float8 y = exp_lanes_within(below > EXP_LOWEST ? below : EXP_LOWEST);
    return x != x ? x + x : y;
}

// x - maximum as hi + lo exactly, lane by lane: exact_difference's TwoSum (compensated.h's two_sum_lanes), lo 0
// where hi is not finite (|hi| < inf as a comparison of its bits with the sign cleared: isfinite is a library call
// on PoCL). terms_lanes takes lo as TwoSum gives it (NaN where hi is infinite), since it needs no test.
static inline DifferenceLanes difference_lanes(float8 x, float maximum)
{
    DifferenceLanes difference = two_sum_lanes(x, (float8)(-maximum));
    const int8 finite = as_float8(as_uint8(difference.hi) & 0x7fffffffu) < INFINITY;
    difference.lo = finite ? difference.lo : 0.0f;
    return difference;
}

// exp(x - maximum) lane by lane: exp_of's exp(hi) * (1 + lo) as one fma. softmax.cl and LOG_SUM_EXP call it with a
// finite maximum of the row, so hi is at most 0 (-inf at worst). Where hi > EXP_LOWEST (-104) the term is
// exp_lanes_within's, which needs no clamp there; everywhere else (hi <= -104, -inf, or a NaN x) exp_of gives +0
// (e^hi rounds to 0, or is clamped to e^-104, which does; lo is finite or taken as 0), so one comparison selects +0
// there: the same bits as exp_of's lane by lane, with no clamp and no finiteness test of hi (difference_lanes'
// select of lo): a comparison and a mask where the clamp and the test (a magnitude, a comparison, a mask) took four
// vector operations. Always inlined: softmax.cl's row_rest calls it at three sites, where PoCL left it out of line
// (a call per eight terms).
__attribute__((always_inline)) static inline float8 terms_lanes(float8 x, float maximum)
{
    const DifferenceLanes difference = two_sum_lanes(x, (float8)(-maximum));
    const float8 e = exp_lanes_within(difference.hi);
    return difference.hi > EXP_LOWEST ? FMA_LANES(e, difference.lo, e) : 0.0f;
}

// A FLOAT16 element's bits for eight floats: half_bits.h's half_value_bits(half_value(value)) lane by lane (the half
// nearest to each float, ties to even, NaN quieted with its sign and top payload bits), vector operators only, and the
// bits taken by integer arithmetic where the pair multiplies by 2^-112: below 2^-14 that product is a subnormal
// float, which x86 computes in microcode (a FLOAT16 SOFTMAX row, most of whose results are below 2^-14, ran at a
// fifth of the FLOAT32 one's speed). Below 2^-14 the sum |x| + 0.5 rounds to the half's last place (half_value's
// rounding) and its bits past 0.5's are the half's; above, the rounded magnitude's bits shifted and rebased are.
static inline ushort8 half_lanes(float8 value)
{
    const uint8 bits = as_uint8(value);
    const uint8 magnitude = bits & 0x7fffffffu;
    const uint8 small = as_uint8(as_float8(magnitude) + 0.5f) - 0x3f000000u;
    const uint8 normal = (((magnitude + 0x0fffu + ((magnitude >> 13) & 1u)) & 0xffffe000u) >> 13) - (112u << 10);
    const uint8 quiet = magnitude > 0x7f800000u ? (uint8)(0x0200u) : (uint8)(0u);
    const uint8 special = 0x7c00u | quiet | ((magnitude >> 13) & 0x03ffu);
    const uint8 result = magnitude > 0x7f800000u    ? special
                         : magnitude >= 0x477ff000u ? (uint8)(0x7c00u)
                         : magnitude < 0x38800000u  ? small
                                                    : normal;
    return convert_ushort8(((bits >> 16) & 0x8000u) | result);
}

#endif
