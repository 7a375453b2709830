// float_trig.h: the trigonometric functions and their inverses of the element-wise operators (SIN, COS, TAN, ASIN,
// ACOS, ATAN, ATAN_YX), written once as float arithmetic like float_math.h's, whose rules they follow (the same bits
// on every device: FP_CONTRACT OFF, fma and a correctly rounded sqrt, no library call) and whose helpers they use.
#ifndef FLOAT_TRIG_H
#define FLOAT_TRIG_H

#pragma OPENCL FP_CONTRACT OFF

#include "float_math.h"

// ------------------------------------------------------------------------------------------- sin, cos, tan
// The argument reduction is exact for every float: |x| = m 2^(e - 23) (m the 24-bit significand) times 2 / pi, modulo
// 4, is m W 2^-94 modulo 4, W the 96 bits of 2 / pi from bit e - 24 on (the bits before give multiples of 4 m, the
// bits after less than 2^-70), so the low 96 bits of the integer product m W hold the quadrant (the top two) and
// the fraction (Payne and Hanek's reduction, in 32- and 64-bit integer arithmetic). No Cody-Waite fast path: its
// error grows with |x|, and one path for every x keeps one set of bits. The fraction f, 64 bits rounded to
// [-1/2, 1/2) (the quadrant stepped where f >= 1/2), becomes three exact floats and r + dr = f pi/2 in float-float:
// its relative error is near 2^-44, below the 2^-24 the functions need even for the x nearest a multiple of
// pi/2 (f above 2^-30 for every float). TWO_OVER_PI_<i> is 32-bit word i of 2 / pi (word 0 the bits before the
// binary point, all zero; words from 8 on are never reached).
#define TWO_OVER_PI_1 0xa2f9836eu
#define TWO_OVER_PI_2 0x4e441529u
#define TWO_OVER_PI_3 0xfc2757d1u
#define TWO_OVER_PI_4 0xf534ddc0u
#define TWO_OVER_PI_5 0xdb629599u
#define TWO_OVER_PI_6 0x3c439041u
#define TWO_OVER_PI_7 0xfe5163abu
// Words k to k + 3 (k = 0..4) picked by k's bits, a shift by 4, 2 and 1 words as selects: the same words as
// indexing, without an index. Written as `k == 1 ? word 1 : k == 2 ? ...`, clang turned the chain into a table
// lookup per lane, and PoCL's loop stayed scalar (16M float32 SIN 673 ms; the reduction alone 347 ms, against 15 ms
// for its 64-bit products).
typedef struct {
    uint w[4];
} two_over_pi_words;
static inline two_over_pi_words two_over_pi_from(int k)
{
    const bool by4 = (k & 4) != 0, by2 = (k & 2) != 0, by1 = (k & 1) != 0;
    const uint c0 = by4 ? TWO_OVER_PI_4 : 0u, c1 = by4 ? TWO_OVER_PI_5 : TWO_OVER_PI_1,
               c2 = by4 ? TWO_OVER_PI_6 : TWO_OVER_PI_2, c3 = by4 ? TWO_OVER_PI_7 : TWO_OVER_PI_3,
               c4 = by4 ? 0u : TWO_OVER_PI_4, c5 = by4 ? 0u : TWO_OVER_PI_5, c6 = by4 ? 0u : TWO_OVER_PI_6;
    const uint d0 = by2 ? c2 : c0, d1 = by2 ? c3 : c1, d2 = by2 ? c4 : c2, d3 = by2 ? c5 : c3, d4 = by2 ? c6 : c4;
    const two_over_pi_words words = {{by1 ? d1 : d0, by1 ? d2 : d1, by1 ? d3 : d2, by1 ? d4 : d3}};
    return words;
}
// Bits s on of the 64 bits hi:lo, 32 of them.
static inline uint two_over_pi_window(uint hi, uint lo, uint s)
{
    return (uint)(((((ulong)hi) << 32 | lo) << s) >> 32);
}
typedef struct {
    float r, dr; // |x| - quadrant pi/2 = r + dr, |r| <= pi/4 (a hair more)
    uint quadrant;
} trig_reduced;
static inline trig_reduced trig_reduce(float a) // a = |x|, finite
{
    const uint bits = as_uint(a);
    const int e = (int)(bits >> 23) - 127;
    const uint q0 = (uint)(e > -7 ? e + 7 : 0); // bit e - 24 of 2 / pi, counted from word 0's top
    const int k = (int)(q0 >> 5);
    const uint s = q0 & 31u;
    const ulong m = (ulong)((bits & 0x007fffffu) | 0x00800000u);
    const two_over_pi_words words = two_over_pi_from(k);
    const ulong p0 = m * two_over_pi_window(words.w[0], words.w[1], s),
                p1 = m * two_over_pi_window(words.w[1], words.w[2], s),
                p2 = m * two_over_pi_window(words.w[2], words.w[3], s);
    const ulong t1 = (p2 >> 32) + (p1 & 0xffffffffUL);
    const uint r2 = (uint)p0 + (uint)(p1 >> 32) + (uint)(t1 >> 32), r1 = (uint)t1, r0 = (uint)p2;
    const long z = (long)(((ulong)r2 << 34) | ((ulong)r1 << 2) | (ulong)(r0 >> 30)); // the fraction, 2^-64 units
    const float top = (float)(int)(z >> 40) * 0x1p-24f, mid = (float)(int)((z >> 16) & 0xffffffL) * 0x1p-48f,
                low = (float)(int)(z & 0xffffL) * 0x1p-64f;
    const float f = top + mid, f_lo = ((top - f) + mid) + low; // |top| >= |mid| or top = 0: exact (Fast2Sum)
    const float pi_2 = 0x1.921fb6p+0f, pi_2_lo = -0x1.777a5cp-25f;
    const float r_hi = f * pi_2;
    const float r_lo = FMA(f, pi_2, -r_hi) + FMA(f, pi_2_lo, f_lo * pi_2);
    const float r = r_hi + r_lo;
    // Below 2^-7 (and for subnormals, whose bits the integer path would misread), x is its own r.
    const bool tiny = e < -7;
    trig_reduced reduced = {tiny ? a : r, tiny ? 0.0f : r_lo - (r - r_hi), tiny ? 0u : (r2 >> 30) + (z < 0L ? 1u : 0u)};
    return reduced;
}
// sin(r + dr) = sin(r) + dr and cos(r + dr) = cos(r) - r dr to first order (dr below 2^-24 |r|);
// sin(r) = r + r^3 S(r^2) and cos(r) = 1 + r^2 C(r^2), degree-3 fits on |r| <= pi/4 (absolute errors 2.8e-11 and
// 3.1e-10).
static inline float sin_of_reduced(float r, float dr)
{
    const float s = r * r;
    float p = 0x1.6dbe14p-19f;
    p = FMA(p, s, -0x1.a013a8p-13f);
    p = FMA(p, s, 0x1.11110ep-7f);
    p = FMA(p, s, -0x1.555556p-3f);
    return r + FMA(s * r, p, dr);
}
static inline float cos_of_reduced(float r, float dr)
{
    const float s = r * r;
    float p = 0x1.9a6f4ep-16f;
    p = FMA(p, s, -0x1.6c0e0ap-10f);
    p = FMA(p, s, 0x1.55554cp-5f);
    p = FMA(p, s, -0.5f);
    return 1.0f + FMA(s, p, -r * dr);
}
// sin, cos and tan of |x| by quadrant; x's sign put back for the odd ones (sin(-0) = -0). An infinity or a NaN
// gives a NaN (x - x), C99's sin(+-inf) and IEEE 754's invalid operation. The quadrant picks by its bits (sin or cos,
// then a sign flip), not by `q == 0 ? .. : q == 1 ? ..`, a chain clang made a switch of, which kept PoCL's loop scalar.
static inline float sin_float(float x)
{
    const float a = magnitude(x);
    const trig_reduced t = trig_reduce(a < INFINITY ? a : 0.0f);
    const float s = sin_of_reduced(t.r, t.dr), c = cos_of_reduced(t.r, t.dr);
    const float y = (t.quadrant & 1u) != 0u ? c : s; // quadrants 0 to 3: s, c, -s, -c
    const uint sign = ((t.quadrant & 2u) != 0u ? SIGN_BIT : 0u) ^ (as_uint(x) & SIGN_BIT);
    return a < INFINITY ? as_float(as_uint(y) ^ sign) : x - x;
}
static inline float cos_float(float x)
{
    const float a = magnitude(x);
    const trig_reduced t = trig_reduce(a < INFINITY ? a : 0.0f);
    const float s = sin_of_reduced(t.r, t.dr), c = cos_of_reduced(t.r, t.dr);
    const float y = (t.quadrant & 1u) != 0u ? s : c; // quadrants 0 to 3: c, -s, -c, s
    return a < INFINITY ? as_float(as_uint(y) ^ (((t.quadrant + 1u) & 2u) != 0u ? SIGN_BIT : 0u)) : x - x;
}
// tan = sin / cos in even quadrants, -cos / sin in odd ones: two results within an ulp or so and a correctly
// rounded division.
static inline float tan_float(float x)
{
    const float a = magnitude(x);
    const trig_reduced t = trig_reduce(a < INFINITY ? a : 0.0f);
    const float s = sin_of_reduced(t.r, t.dr), c = cos_of_reduced(t.r, t.dr);
    const float y = (t.quadrant & 1u) == 0u ? s / c : -c / s;
    return a < INFINITY ? as_float(as_uint(y) ^ (as_uint(x) & SIGN_BIT)) : x - x;
}

// ------------------------------------------------------------------------------------------ asin, acos, atan
// asin(a) = a + a r(a^2) below 1/2, r(z) = z P(z), P a degree-5 fit of (asin(x) - x) / x^3 in z = x^2 on [0, 1/4]
// (absolute error 3.7e-9); above, asin(a) = pi/2 - 2 asin(s), s = sqrt(z), z = (1 - a) / 2 (exact), with fdlibm's
// asinf and acosf arrangements: pi/2 as hi + lo, and between 1/2 and 0.975 s as a 12-bit head h (h^2 exact) plus
// c = (z - h^2) / (s + h), so that the cancellation against pi/4 keeps s's low bits.
#define PIO2_HI 0x1.921fb4p+0f // fdlibm's: pi/2 - PIO2_HI is PIO2_LO to float precision
#define PIO2_LO 0x1.4442d2p-24f
#define PIO4_HI 0x1.921fb4p-1f
static inline float asin_r(float z)
{
    float p = 0x1.15e188p-5f;
    p = FMA(p, z, 0x1.169fa4p-6f);
    p = FMA(p, z, 0x1.fe10aep-6f);
    p = FMA(p, z, 0x1.6d55e8p-5f);
    p = FMA(p, z, 0x1.333448p-4f);
    p = FMA(p, z, 0x1.555554p-3f);
    return z * p;
}
static inline float head_12_bits(float s) { return as_float(as_uint(s) & 0xfffff000u); }
static inline float asin_float(float x)
{
    const float a = magnitude(x);
    const float small = FMA(a, asin_r(a * a), a);
    const float z = (1.0f - (a < 1.0f ? a : 1.0f)) * 0.5f, s = SQRT_OF(z), r = asin_r(z);
    const float near_1 = PIO2_HI - (2.0f * FMA(s, r, s) - PIO2_LO);
    const float h = head_12_bits(s), c = (z - h * h) / (s + h);
    const float middle = PIO4_HI - ((2.0f * s * r - (PIO2_LO - 2.0f * c)) - (PIO4_HI - 2.0f * h));
    const float y = a < 0.5f ? small : a > 0.975f ? near_1 : middle;
    return a > 1.0f ? NAN : x != x ? x + x : with_sign_of(y, x);
}
// acos(x) = pi/2 - (x + x r(x^2)) below |x| = 1/2; pi - 2 asin(s) below -1/2, 2 asin(s) above 1/2, with
// s = sqrt((1 -+ x) / 2), the latter with s as head and tail as above (fdlibm's acosf); acos(1) = +0, acos(-1) = pi
// rounded.
static inline float acos_float(float x)
{
    const float a = magnitude(x);
    const float small = PIO2_HI - (x - (PIO2_LO - x * asin_r(x * x)));
    const float z = (1.0f - (a < 1.0f ? a : 1.0f)) * 0.5f, s = SQRT_OF(z), r = asin_r(z);
    const float negative = 2.0f * PIO2_HI - 2.0f * (s + (r * s - PIO2_LO));
    const float h = head_12_bits(s), c = (z - h * h) / (s + h);
    const float positive = 2.0f * (h + (r * s + c));
    const float y = a < 0.5f ? small : x < 0.0f ? negative : positive;
    return a > 1.0f ? NAN : x != x ? x + x : x == 1.0f ? 0.0f : x == -1.0f ? 0x1.921fb6p+1f : y;
}
// atan(a) = pi/2 - atan(1 / a) above 1; t in [0, 1] is reduced once more above tan(pi/8), atan(t) = pi/4 +
// atan((t - 1) / (t + 1)); atan(u) = u + u u^2 P(u^2) for |u| <= tan(pi/8), P a degree-5 fit (absolute error 5e-10).
// The result is k pi/4 +- atan(u), k = 0, 1 or 2 from the two tests (never a table), k pi/4 added as hi + lo.
// atan_of_ratio(t, inverted, behind): atan(t) (t in [0, 1]), or pi/2 - atan(t) where inverted, and pi minus that
// where behind (atan2's point left of the y axis: k becomes 4 - k, the sign of atan(u) flips).
static inline float atan_of_ratio(float t, bool inverted, bool behind)
{
    const bool reduced = t > 0x1.a827aap-2f;
    const float u = reduced ? (t - 1.0f) / (t + 1.0f) : t;
    const float s = u * u;
    float p = 0x1.9e8894p-5f;
    p = FMA(p, s, -0x1.617ac6p-4f);
    p = FMA(p, s, 0x1.c583e2p-4f);
    p = FMA(p, s, -0x1.248a58p-3f);
    p = FMA(p, s, 0x1.99997cp-3f);
    p = FMA(p, s, -0x1.555556p-2f);
    const float atan_u = FMA(u * s, p, u);
    const float k = (inverted ? 2.0f : 0.0f) + (reduced ? (inverted ? -1.0f : 1.0f) : 0.0f);
    const float term = inverted != behind ? -atan_u : atan_u;
    const float kk = behind ? 4.0f - k : k;
    return FMA(kk, 0x1.921fb6p-1f, FMA(kk, -0x1.777a5cp-26f, term));
}
static inline float atan_float(float x)
{
    const float a = magnitude(x);
    const bool inverted = a > 1.0f;
    const float y = atan_of_ratio(inverted ? 1.0f / a : a, inverted, false);
    return x != x ? x + x : with_sign_of(y, x);
}
// atan2(y, x), the angle of the point (x, y): atan of min(|x|, |y|) / max(|x|, |y|) placed by octant, y's sign put
// back. C99 Annex F's special values come from the ratio: 0 where |y| is 0 (the origin included: +-0 for x = +0,
// +-pi for x = -0, by x's sign bit), 1 where |x| = |y| (both infinite: +-pi/4, +-3pi/4), and 0 where the larger is
// infinite and the other finite (so +-pi/2, or 0 and pi). A NaN in either gives a NaN.
static inline float atan2_float(float y, float x)
{
    const float a = magnitude(y), b = magnitude(x);
    const bool inverted = a > b;
    const float t = a == 0.0f ? 0.0f : a == b ? 1.0f : inverted ? b / a : a / b;
    const float angle = atan_of_ratio(t, inverted, (as_uint(x) & SIGN_BIT) != 0u);
    return (x != x || y != y) ? x + y : with_sign_of(angle, y);
}

#endif
