// float_math.h: the exponential, logarithmic, hyperbolic and error functions of the element-wise operators, written
// once as float arithmetic (float_trig.h holds the trigonometric ones): range reduction, polynomials evaluated with
// fma, integer operations on the bits, and selects. No library call: PoCL's loop vectoriser stops at a call to its math
// library (exp, log, fma itself: docs/performance.md), and every runtime's library gives other bits. Each step here is
// an IEEE 754 operation rounded once (+, -, *, / correctly rounded, the program built with
// -cl-fp32-correctly-rounded-divide-sqrt; fma rounds once by definition; FP_CONTRACT OFF, so no compiler fuses a
// product and a sum on its own), so the same inputs give the same bits on every device that keeps subnormals, alone and
// fused: tests/device/unary_math/test_bit_identity.py runs them on every device and compares the bits. Subnormal inputs
// and results are computed as the normal ones are (CPU OpenCL devices keep them; no program is built with
// -cl-denorms-are-zero); a device that flushes them gives other bits there only.
//
// Each function's error bound, measured against a float64 reference (docs/operators/element_wise_math.md), is the
// FLOAT32_ULPS of its operators (dmlpy/ops/element_wise_math.py, activation_exponential.py). The polynomial
// coefficients are minimax fits (float coefficients) on the reduced interval each function names, with the fit's own
// error given there, far below half an ULP: the roundings of the evaluation dominate.
//
// Special values come from the selects at each function's end, never from a library: C99 Annex F's (exp(-inf) = +0,
// log(+-0) = -inf, tanh(+-inf) = +-1, ...), a NaN input giving a NaN (x + x: quieted, its payload kept where the
// hardware keeps it). A select computes both of its sides: every value fed to a conversion to int is first clamped into
// range, so no lane ever converts a NaN or an infinity (undefined in C).
#ifndef FLOAT_MATH_H
#define FLOAT_MATH_H

#pragma OPENCL FP_CONTRACT OFF

// fma, correctly rounded everywhere, but on PoCL a call into its library that keeps the loop scalar: there clang's
// own builtin, which it lowers to the llvm.fma intrinsic, vectorised to vfmadd (the same correctly rounded result).
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_fmaf)
#define FMA(a, b, c) __builtin_fmaf((a), (b), (c))
#endif
#endif
#ifndef FMA
#define FMA(a, b, c) fma((a), (b), (c))
#endif
// sqrt likewise: correctly rounded everywhere (the programs build with -cl-fp32-correctly-rounded-divide-sqrt), a
// library call on PoCL, where clang's builtin becomes the llvm.sqrt intrinsic (IEEE 754's square root, vsqrtps).
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_sqrtf)
#define SQRT_OF(x) __builtin_sqrtf(x)
#endif
#endif
#ifndef SQRT_OF
#define SQRT_OF(x) sqrt(x)
#endif

#define SIGN_BIT 0x80000000u
// |x| and x with y's sign as bit operations: fabs and copysign are library calls on PoCL.
static inline float magnitude(float x) { return as_float(as_uint(x) & ~SIGN_BIT); }
static inline float with_sign_of(float x, float y)
{
    return as_float((as_uint(x) & ~SIGN_BIT) | (as_uint(y) & SIGN_BIT));
}
// y with x's sign bit or-ed in, for a y computed on |x| that is never negative (a NaN's sign bit is kept or set):
// one operation fewer than with_sign_of, and a NaN y stays a NaN.
static inline float or_sign_of(float y, float x) { return as_float(as_uint(y) | (as_uint(x) & SIGN_BIT)); }
// 2^k as a float, for -126 <= k <= 127 (the exponent field k + 127; callers keep k there).
static inline float power_of_two(int k) { return as_float((uint)(k + 127) << 23); }

// ------------------------------------------------------------------------------------------------- exp, expm1
// x = k ln2 + r, k = rint(x / ln2), |r| <= ln2 / 2 (a hair more: k comes from the rounded product x * (1 / ln2)).
// k: adding 1.5 * 2^23 rounds x / ln2 to an integer (ties to even; exact for |x / ln2| < 2^22, which the clamp to
// [-104, 89] keeps), which is then the low bits of the sum's encoding, 0x4b400000 + k (kept as `shifted`: 2^k's
// exponent field is shifted << 23, no conversion to int), and subtracting 1.5 * 2^23 again gives k as a float; not
// rint, a library call on PoCL. r = (x - k ln2_hi) - k ln2_lo with ln2_hi + ln2_lo = ln2 to 48 bits (Cody and
// Waite): each fma rounds once, the first exactly, as x - k ln2_hi is near a multiple of ln2's ulp (Sterbenz).
// expm1(r) = r + r^2 P(r), P a degree-5 minimax fit of (e^r - 1 - r) / r^2 on [-0.35, 0.35] (relative error
// 2.8e-9), r + r * (r P) so that expm1(-0) is -0.
// The clamp: e^x overflows from x = 88.7228 (e^89 > FLT_MAX), and rounds to +0 below x = -103.973 (e^-104 is below
// half the smallest subnormal, 2^-150), so each clamped x gives the result of every x beyond it; a NaN clamps to
// 89 (its comparisons fail) and is restored at the end. min then max, each one comparison and select (vminps,
// vmaxps), where the nested form took two selects.
#define EXP_LOWEST -104.0f
#define EXP_HIGHEST 89.0f
#define EXP_SHIFTER 0x1.8p23f
typedef struct {
    float r;      // x - k ln2
    float expm1r; // e^r - 1
    int k;
    uint shifted; // the encoding of k + 1.5 * 2^23: 0x4b400000 + k
} exp_reduced;
// The reduction of an x the caller has put within [-104, 89] itself.
static inline exp_reduced exp_reduce_within(float x)
{
    const float shifted = x * 0x1.715476p+0f + EXP_SHIFTER;
    const float kf = shifted - EXP_SHIFTER;
    float r = FMA(kf, -0x1.62e43p-1f, x);
    r = FMA(kf, 0x1.05c610p-29f, r); // ln2_lo = ln2 - ln2_hi is -0x1.05c61p-29
    float p = 0x1.a07482p-13f;
    p = FMA(p, r, 0x1.6d48d4p-10f);
    p = FMA(p, r, 0x1.11114ep-7f);
    p = FMA(p, r, 0x1.5554e4p-5f);
    p = FMA(p, r, 0x1.555556p-3f);
    p = FMA(p, r, 0.5f);
    exp_reduced reduced = {r, FMA(r, r * p, r), (int)as_uint(shifted) - 0x4b400000, as_uint(shifted)};
    return reduced;
}
static inline exp_reduced exp_reduce(float x)
{
    const float below = x < EXP_HIGHEST ? x : EXP_HIGHEST;
    return exp_reduce_within(below > EXP_LOWEST ? below : EXP_LOWEST);
}

// e^x = 2^k (1 + expm1(r)): 1 + expm1(r) rounds once (within 0.5 ulp plus the fit's 2.8e-9 relative); 2^k multiplies
// exactly in two steps, 2^(k - h) as an addition to the exponent field of 1 + expm1(r) (in [0.7, 1.42], so the sum
// stays a normal float for |k - h| <= 75), then 2^h, h = k >> 1, so a subnormal result is rounded once, at the
// product, and an overflowing one becomes +inf there (k reaches 128, whose 2^k is no float). The fields come from
// `shifted`'s low bits: shifted << 23 is k << 23 and (shifted >> 1) << 23 is h << 23 (0x4b400000's low 9 bits are
// 0, 0x25a00000's too), modulo 2^32, where the exponent field's carries are exact.
static inline float exp_of_reduced(exp_reduced e)
{
    const uint k_field = e.shifted << 23, h_field = (e.shifted >> 1) << 23;
    return as_float(as_uint(1.0f + e.expm1r) + (k_field - h_field)) * as_float(h_field + 0x3f800000u);
}
static inline float exp_float(float x)
{
    const float y = exp_of_reduced(exp_reduce(x));
    return x != x ? x + x : y;
}
// exp_float(x) for x <= 0 or a NaN: its upper clamp changes no such lane and is not applied; the lower clamp as a
// select that takes a NaN to EXP_LOWEST, the NaN restored after, as exp_float does. The same bits as exp_float.
static inline float exp_of_nonpositive(float x)
{
    const float y = exp_of_reduced(exp_reduce_within(x > EXP_LOWEST ? x : EXP_LOWEST));
    return x != x ? x + x : y;
}
// e^x for x in [-87, 88] (not NaN), where e^x is a normal float: 2^k as one addition to the exponent field, exact,
// no clamp and no NaN select; the same bits as exp_float (its one rounding is 1 + expm1(r)'s in both). For the
// functions below whose argument is bounded by their own clamps.
static inline float exp_normal(float x)
{
    const exp_reduced e = exp_reduce_within(x);
    return as_float(as_uint(1.0f + e.expm1r) + (e.shifted << 23));
}

// e^x - 1 = 2^k expm1(r) + (2^k - 1), one fma where 2^k - 1 is exact (|k| <= 24). Beyond, the term that would round
// moves into the other factor, exactly in exact arithmetic: for k > 24, 2^k (expm1(r) - 2^-k) + 2^k, where the
// difference rounds at a fraction of expm1(r)'s own ulp; for k < -24, 2^k (1 + expm1(r)) - 1, where the rounding of
// 1 + expm1(r) is scaled down by 2^k, far below an ulp of the result near -1. k = 0 (|x| < 0.3466) is expm1(r)
// itself, x exact as r; below |x| = 2^-25, x itself, the correctly rounded result, its zero's sign kept. From
// x = 44 (k > 63), e^x - 1 rounds to e^x's float, the exp above; below x = -44, to -1 (2^k is clamped to 2^-64).
static inline float expm1_float(float x)
{
    const exp_reduced e = exp_reduce(x);
    const int k = e.k > -64 ? (e.k < 64 ? e.k : 63) : -64;
    const float t = power_of_two(k), q = e.expm1r;
    const float y = k == 0      ? q
                    : e.k > 63  ? exp_of_reduced(e)
                    : k > 24    ? FMA(t, q - power_of_two(-k), t)
                    : k < -24   ? FMA(t, 1.0f + q, -1.0f)
                                : FMA(t, q, t - 1.0f);
    return x != x ? x + x : magnitude(x) < 0x1p-25f ? x : y;
}

// --------------------------------------------------------------------------------------------------- log, log1p
// ln(x) = k ln2 + ln(1 + f), 1 + f = x / 2^k in [sqrt(2) / 2, sqrt(2)): adding 0x3f800000 - 0x3f3504f3 to the bits
// carries into the exponent exactly where the significand is at least sqrt(2)'s, and the low bits plus 0x3f3504f3 are
// 1 + f (musl's logf). ln(1 + f) = f - f^2 / 2 + s (f^2 / 2 + R), s = f / (2 + f), R(s^2) a degree-4 minimax fit of
// (2 atanh(s) - 2s) / s^2 ... in the form of FreeBSD's e_logf.c (|s| < 0.1716, R's error below 2^-25 relative):
// f is exact and carries the result, s's rounding only the small correction. k ln2 is k ln2_hi, exact (ln2_hi has
// 16 trailing zero bits, |k| < 2^8), plus k ln2_lo added with the correction.
// log_of_reduced(f, k, c) is ln(2^k (1 + f) + c 2^k (1 + f)) to first order in c, for log1p's rounding correction.
static inline float log_of_reduced(float f, float k, float c)
{
    const float s = f / (2.0f + f);
    const float z = s * s, w = z * z;
    const float r = FMA(w, FMA(w, 0x1.f13c4cp-3f, 0x1.999c26p-2f), z * FMA(w, 0x1.23d3dcp-2f, 0x1.555554p-1f));
    const float half_f2 = 0.5f * f * f;
    return FMA(s, half_f2 + r, FMA(k, 0x1.2fefa2p-17f, c)) - half_f2 + f + k * 0x1.62e3p-1f;
}
// The bits of x as 1 + f and k (x positive, normal); subnormal x are scaled by 2^25 first.
static inline float log_float(float x)
{
    const bool subnormal = x < 0x1p-126f;
    uint bits = as_uint(subnormal ? x * 0x1p25f : x) + (0x3f800000u - 0x3f3504f3u);
    const float k = (float)((int)(bits >> 23) - 127 - (subnormal ? 25 : 0));
    const float f = as_float((bits & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
    const float y = log_of_reduced(f, k, 0.0f);
    // ln(+-0) = -inf, ln(negative) = NaN, ln(+inf) = +inf, a NaN stays a NaN.
    return x == 0.0f ? -INFINITY : x < 0.0f ? NAN : x == INFINITY || x != x ? x + x : y;
}
// ln(1 + x): where 1 + x lies in [sqrt(2) / 2, sqrt(2)), f = x, exact (k = 0); elsewhere u = 1 + x rounds, and
// c = (x - (u - 1)) / u (or (1 - (u - x)) / u from k = 2 on, where u - x is the exact one) is the rounding's
// relative size, ln(1 + x) = ln(u) + c to first order (musl's log1pf); c is 0 from k = 25 on (1 + x exact there
// or x's own rounding below half an ulp). Below |x| = 2^-24, x itself (the correctly rounded result, -0 kept).
static inline float log1p_float(float x)
{
    const float u = 1.0f + x;
    uint bits = as_uint(u) + (0x3f800000u - 0x3f3504f3u);
    const int ku = (int)(bits >> 23) - 127;
    const bool near_1 = x >= -0x1.2bec32p-2f && x < 0x1.a827ap-2f; // 1 + x in [sqrt(2) / 2, sqrt(2))
    const float c = ku >= 25 ? 0.0f : (ku >= 2 ? 1.0f - (u - x) : x - (u - 1.0f)) / u;
    const float fu = as_float((bits & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
    const float y = near_1 ? log_of_reduced(x, 0.0f, 0.0f) : log_of_reduced(fu, (float)ku, c);
    return magnitude(x) < 0x1p-24f ? x
           : x == -1.0f            ? -INFINITY
           : x < -1.0f             ? NAN
           : x == INFINITY || x != x ? x + x : y;
}

// ------------------------------------------------------------------------------------------------------ tanh
// Up to |x| = 0.875, tanh(|x|) = |x| + |x| P(x^2), P a degree-7 fit of tanh(x) / x - 1 (absolute error 6.7e-10; x^2 P
// starts at -x^2 / 3). Above, where tanh exceeds 0.7, 1 - 2 / (e + 1) with e = e^(2|x|) (2|x| exact): e is at least
// 5.75 there, so exp's relative error reaches the result scaled by 2e / (e + 1)^2 < 0.26, and expm1 (musl's tanhf)
// would buy nothing for twice exp's time. x's sign put back last, so tanh(-0) is -0. From |x| = 9.0109 (2 e^-2|x| <=
// 2^-25) the correctly rounded result is 1, which C99 gives at infinity: |x| is clamped to 9.1 (a NaN too), where
// 2 / (e + 1) < 2^-26.3 and the formula itself rounds to 1, so no select of 1 is needed. Tiny x, subnormals included,
// give x itself (x P underflows).
// The polynomial is evaluated at a = |x| (s = a * a, x * x exactly), so y is never negative, and x's sign bit is put
// in last (one or). A NaN needs no select of its own: it fails a > 0.875, so the polynomial's lanes carry it, every
// operand there |x|'s NaN or one made from it (the same payload, quieted, no sign), whichever one x86 hands on, and
// the or gives x's sign back: x + x's bits.
static inline float tanh_float(float x)
{
    const float a = magnitude(x);
    const float s = a * a;
    float p = -0x1.fd7e92p-12f;
    p = FMA(p, s, 0x1.5cae2p-9f);
    p = FMA(p, s, -0x1.11557ep-7f);
    p = FMA(p, s, 0x1.638c3cp-6f);
    p = FMA(p, s, -0x1.b9dd14p-5f);
    p = FMA(p, s, 0x1.110fbep-3f);
    p = FMA(p, s, -0x1.55555p-2f);
    const float e = exp_normal(2.0f * (a < 9.1f ? a : 9.1f)); // in [1, e^18.2], a NaN's too
    const float y = a > 0.875f ? 1.0f - 2.0f / (e + 1.0f) : FMA(a, p * s, a);
    return or_sign_of(y, x);
}

// --------------------------------------------------------------------------------------------------- erf, erfc
// Below |x| = 0.9277, erf(x) = x + x P(x^2), P a degree-6 fit of erf(x) / x - 1 (absolute error 4.4e-10), the
// split of N. Juffa's erff. erfc(t) for t >= 0.9277 is e^-t^2 F(1/t) / t, F a degree-10
// fit of t erfc(t) e^(t^2) in 1/t on [1/10.1, 1/0.9277] (relative error 6e-8). e^-t^2 is e^-z^2 e^((z - t)(z + t)), z
// t with the low 12 bits of its significand cleared, so z^2 is exact and (z - t)(z + t) small (fdlibm's erfcf):
// exp's argument carries no rounding of t^2, which it would multiply by up to 102. The normal factors are
// multiplied first, so a subnormal result (t > 9.2) is rounded once more only. From t = 10.1, erfc(t) is below half
// the smallest subnormal: +0; from |x| = 3.92 the correctly rounded erf is +-1.
static inline float erf_near_0(float x)
{
    const float s = x * x;
    float p = 0x1.5ea616p-14f;
    p = FMA(p, s, -0x1.aad22ap-11f);
    p = FMA(p, s, 0x1.54d96p-8f);
    p = FMA(p, s, -0x1.b81078p-6f);
    p = FMA(p, s, 0x1.ce2e22p-4f);
    p = FMA(p, s, -0x1.812744p-2f);
    p = FMA(p, s, 0x1.06eba8p-3f);
    return FMA(x, p, x);
}
#define ERF_SPLIT 0x1.db0000p-1f // 0.927734375
#define ERFC_ZERO_FROM 10.1f
static inline float erfc_tail(float t)
{
    const float a = t > ERF_SPLIT ? (t < ERFC_ZERO_FROM ? t : ERFC_ZERO_FROM) : ERF_SPLIT; // a NaN too
    const float u = 1.0f / a;
    float f = -0x1.7859dcp-6f;
    f = FMA(f, u, 0x1.9a2086p-4f);
    f = FMA(f, u, -0x1.711348p-4f);
    f = FMA(f, u, -0x1.3e3fap-2f);
    f = FMA(f, u, 0x1.0383cp+0f);
    f = FMA(f, u, -0x1.57e4a8p+0f);
    f = FMA(f, u, 0x1.c3fe96p-1f);
    f = FMA(f, u, -0x1.85142ap-4f);
    f = FMA(f, u, -0x1.14c806p-2f);
    f = FMA(f, u, -0x1.a60f5ep-11f);
    f = FMA(f, u, 0x1.20e078p-1f);
    const float z = as_float(as_uint(a) & 0xfffff000u);
    const float y = (exp_normal((z - a) * (z + a)) * (f * u)) * exp_float(-z * z);
    return t >= ERFC_ZERO_FROM ? 0.0f : y;
}
// erf(|x|) = 1 - e^L(|x|) above 0.9277 (Juffa's form), L a degree-9 fit of ln(erfc(t)) on [0.9277, 4] (absolute
// error 8e-9: a relative 8e-9 of e^L, which is below 0.19 there, under 2^-27 of the result): one exp, against
// erfc_tail's two, and 1.2 ULPs at most against 1.8 measured. t is clamped to 4 (a NaN too), where e^L is 1.5e-8.
// Both branches compute erf(|x|), never negative, and x's sign bit is put in last (one or): erf_near_0 is odd
// bit for bit (round to nearest is symmetric; erf(-0) = -0 so). A NaN takes erf_near_0's lanes (it fails
// a >= ERF_SPLIT), where every operand is |x|'s NaN or one made from it, the same payload, quieted, so the result
// is x + x's bits with no select of its own.
static inline float erf_float(float x)
{
    const float a = magnitude(x);
    const float t = a < 4.0f ? a : 4.0f;
    float l = -0x1.fd199ep-26f;
    l = FMA(l, t, 0x1.30e8fcp-19f);
    l = FMA(l, t, -0x1.b38b04p-15f);
    l = FMA(l, t, 0x1.48edb8p-11f);
    l = FMA(l, t, -0x1.3e67b6p-8f);
    l = FMA(l, t, 0x1.b43d9ep-6f);
    l = FMA(l, t, -0x1.c3ff68p-4f);
    l = FMA(l, t, -0x1.4361fp-1f);
    l = FMA(l, t, -0x1.215d6cp+0f);
    l = FMA(l, t, 0x1.630abp-12f);
    const float y = a >= ERF_SPLIT ? 1.0f - exp_normal(l) : erf_near_0(a); // l in [-18, 0.001]
    return or_sign_of(y, x);
}
// erfc(x) = 1 - erf(x) near 0 (from 0.81 to 1.19, no cancellation worth an ulp), erfc_tail(x) above, and
// 2 - erfc_tail(-x) below -0.9277 (from 1.81 to 2).
static inline float erfc_float(float x)
{
    const float a = magnitude(x);
    const float tail = erfc_tail(a);
    const float y = a < ERF_SPLIT ? 1.0f - erf_near_0(x) : x > 0.0f ? tail : 2.0f - tail;
    return x != x ? x + x : y;
}

// ------------------------------------------------------------------------------- hyperbolic functions, inverses
// musl's sinhf, coshf, asinhf, acoshf and atanhf on the functions above, as selects; each function's largest error
// (docs/operators/element_wise_math.md) within the OpenCL bound its operator keeps. sqrt is correctly rounded
// (-cl-fp32-correctly-rounded-divide-sqrt), so the same on every device. x's sign is put back last for the odd ones.
// e^a / 2 where e^a overflows but e^a / 2 does not (a from 88 to 89.4): e^(a/2) / 2 * e^(a/2), a/2 exact.
static inline float half_exp_large(float a)
{
    const float h = exp_float(0.5f * a);
    return (0.5f * h) * h;
}
// sinh(a) = (t + t / (t + 1)) / 2 with t = e^a - 1, as (2t - t^2 / (t + 1)) / 2 below 1, a itself below 2^-12.
static inline float sinh_float(float x)
{
    const float a = magnitude(x);
    const float t = expm1_float(a < 88.0f ? a : 88.0f);
    const float y = a < 0x1p-12f ? a
                    : a < 1.0f   ? 0.5f * (2.0f * t - t * t / (t + 1.0f))
                    : a < 88.0f  ? 0.5f * (t + t / (t + 1.0f))
                                 : half_exp_large(a);
    return x != x ? x + x : with_sign_of(y, x);
}
// cosh(a) = 1 + t^2 / (2 (1 + t)) with t = e^a - 1 below ln 2, (e^a + 1 / e^a) / 2 above.
static inline float cosh_float(float x)
{
    const float a = magnitude(x);
    const float t = expm1_float(a < 0x1.62e43p-1f ? a : 0.0f), e = exp_float(a < 88.0f ? a : 88.0f);
    const float y = a < 0x1p-12f      ? 1.0f
                    : a < 0x1.62e43p-1f ? 1.0f + t * t / (2.0f * (1.0f + t))
                    : a < 88.0f         ? 0.5f * (e + 1.0f / e)
                                        : half_exp_large(a);
    return x != x ? x + x : y;
}
// asinh and acosh are one log1p each, of an argument chosen by a select: with a log per range (log1p below 2, log of
// another form below 2^12, log above) every lane of PoCL's vectorised loop computed all three (16M float32 on PoCL,
// side by side: ASINH 226 -> 112 ms, ACOSH 169 -> 81 ms; the same largest errors). Above 2^12, ln(2a) (the next term,
// 1 / (4a^2), is below 2^-26 of it) as log1p(2a - 1), exact below 2^24; from 2^24, log1p(a) + ln 2, where
// ln(1 + a) - ln(a) < 2^-24 is far below an ulp of the result, so 2a never overflows.
// asinh(a) = log1p(a + a^2 / (sqrt(a^2 + 1) + 1)) below 2^12.
static inline float asinh_float(float x)
{
    const float a = magnitude(x);
    const float b = a < 0x1p12f ? a : 1.0f; // keeps a^2 finite in the lanes that do not use it
    const float u = a < 0x1p12f ? b + b * b / (SQRT_OF(b * b + 1.0f) + 1.0f) : a < 0x1p24f ? 2.0f * a - 1.0f : a;
    const float y = log1p_float(u) + (a < 0x1p24f ? 0.0f : 0x1.62e43p-1f);
    return a < 0x1p-12f ? x : x != x ? x + x : with_sign_of(y, x);
}
// acosh(x) = log1p(t + sqrt(t^2 + 2t)) with t = x - 1 (exact) below 2^12; NaN below 1, +0 at 1.
static inline float acosh_float(float x)
{
    const float t = (x < 0x1p12f ? x : 2.0f) - 1.0f;
    const float u = x < 0x1p12f ? t + SQRT_OF(t * t + 2.0f * t) : x < 0x1p24f ? 2.0f * x - 1.0f : x;
    const float y = log1p_float(u) + (x < 0x1p24f ? 0.0f : 0x1.62e43p-1f);
    return x < 1.0f ? NAN : x != x ? x + x : y;
}
// atanh(a) = log1p(2a + 2a^2 / (1 - a)) / 2 below 1/2, log1p(2a / (1 - a)) / 2 above: +inf at 1, NaN beyond.
static inline float atanh_float(float x)
{
    const float a = magnitude(x);
    const float y = a < 0.5f ? 0.5f * log1p_float(2.0f * a + 2.0f * a * a / (1.0f - a))
                             : 0.5f * log1p_float(2.0f * (a / (1.0f - a)));
    return a > 1.0f ? NAN : x != x ? x + x : with_sign_of(y, x);
}

// pow(x, y), on the functions above: float_pow.h.
#include "float_pow.h"

#endif
