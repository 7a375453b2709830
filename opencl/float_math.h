// float_math.h: the transcendental functions of the element-wise operators, written once as float arithmetic: range
// reduction, polynomials evaluated with fma, integer operations on the bits, and selects. No library call: PoCL's
// loop vectoriser stops at a call to its math library (exp, log, fma itself: docs/performance.md), and every
// runtime's library gives other bits. Each step here is an IEEE 754 operation rounded once (+, -, *, / correctly
// rounded, the program built with -cl-fp32-correctly-rounded-divide-sqrt; fma rounds once by definition;
// FP_CONTRACT OFF, so no compiler fuses a product and a sum on its own), so the same inputs give the same bits on
// every device that keeps subnormals, alone and fused: tests/device/unary_math/test_bit_identity.py runs them on
// every device and compares the bits. Subnormal inputs and results are computed as the normal ones are (CPU OpenCL
// devices keep them; no program is built with -cl-denorms-are-zero); a device that flushes them gives other bits
// there only.
//
// Each function's error bound, measured against a float64 reference (docs/operators/element_wise_math.md), is
// the FLOAT32_ULPS of its operators (dmlpy/ops/element_wise_math.py, activation_exponential.py). The polynomial
// coefficients are minimax fits (relative error, float coefficients) on the reduced interval each function names;
// the residual error of each fit is far below half an ULP, so the roundings of the evaluation dominate.
//
// Special values come from the selects at each function's end, never from a library: C99 Annex F's (exp(-inf) = +0,
// log(+-0) = -inf, tanh(+-inf) = +-1, ...), a NaN input giving a NaN (x + x: quieted, its payload kept where the
// hardware keeps it). A select computes both of its sides: every value fed to a conversion to int is first clamped
// into range, so no lane ever converts a NaN or an infinity (undefined in C).
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

// bench_math.py's lanes8 probe calls an operator's function on float8: where the compiler is clang (PoCL, Intel's
// CPU runtime), the public functions are overloadable, and LANEWISE8 defines a float8 form of one, lane by lane.
#ifdef __clang__
#define MATH_OVERLOAD __attribute__((overloadable))
#define LANEWISE8(f)                                                                                       \
    MATH_OVERLOAD static inline float8 f(float8 v)                                                         \
    {                                                                                                      \
        return (float8)(f(v.s0), f(v.s1), f(v.s2), f(v.s3), f(v.s4), f(v.s5), f(v.s6), f(v.s7));           \
    }
#else
#define MATH_OVERLOAD
#define LANEWISE8(f)
#endif

#define SIGN_BIT 0x80000000u
// |x| and x with y's sign as bit operations: fabs and copysign are library calls on PoCL.
static inline float magnitude(float x) { return as_float(as_uint(x) & ~SIGN_BIT); }
static inline float with_sign_of(float x, float y) { return as_float((as_uint(x) & ~SIGN_BIT) | (as_uint(y) & SIGN_BIT)); }
// 2^k as a float, for -126 <= k <= 127 (the exponent field k + 127; callers keep k there).
static inline float power_of_two(int k) { return as_float((uint)(k + 127) << 23); }

// ------------------------------------------------------------------------------------------------- exp, expm1
// x = k ln2 + r, k = rint(x / ln2), |r| <= ln2 / 2 (a hair more: k comes from the rounded product x * (1 / ln2)).
// k: adding and subtracting 1.5 * 2^23 rounds x / ln2 to an integer (ties to even; exact for |x / ln2| < 2^22,
// which the clamp to [-104, 89] keeps); not rint, a library call on PoCL. r = (x - k ln2_hi) - k ln2_lo with
// ln2_hi + ln2_lo = ln2 to 48 bits (Cody and Waite): each fma rounds once, the first exactly, as x - k ln2_hi is
// near a multiple of ln2's ulp (Sterbenz). expm1(r) = r + r^2 P(r), P a degree-5 minimax fit of (e^r - 1 - r) / r^2
// on [-0.35, 0.35] (relative error 2.8e-9), r + r * (r P) so that expm1(-0) is -0.
// The clamp: e^x overflows from x = 88.7228 (e^89 > FLT_MAX), and rounds to +0 below x = -103.973 (e^-104 is below
// half the smallest subnormal, 2^-150), so each clamped x gives the result of every x beyond it; a NaN clamps to
// -104 (its comparisons fail) and is restored at the end.
#define EXP_LOWEST -104.0f
#define EXP_HIGHEST 89.0f
typedef struct {
    float r;      // x - k ln2
    float expm1r; // e^r - 1
    int k;
} exp_reduced;
static inline exp_reduced exp_reduce(float x)
{
    const float clamped = x > EXP_LOWEST ? (x < EXP_HIGHEST ? x : EXP_HIGHEST) : EXP_LOWEST;
    const float shifter = 0x1.8p23f;
    const float kf = (clamped * 0x1.715476p+0f + shifter) - shifter;
    float r = FMA(kf, -0x1.62e43p-1f, clamped);
    r = FMA(kf, 0x1.05c610p-29f, r); // ln2_lo = ln2 - ln2_hi is -0x1.05c61p-29
    float p = 0x1.a07482p-13f;
    p = FMA(p, r, 0x1.6d48d4p-10f);
    p = FMA(p, r, 0x1.11114ep-7f);
    p = FMA(p, r, 0x1.5554e4p-5f);
    p = FMA(p, r, 0x1.555556p-3f);
    p = FMA(p, r, 0.5f);
    exp_reduced reduced = {r, FMA(r, r * p, r), (int)kf};
    return reduced;
}

// e^x = 2^k (1 + expm1(r)): 1 + expm1(r) rounds once (within 0.5 ulp plus the fit's 2.8e-9 relative); 2^k multiplies
// exactly in two steps, 2^(k/2) then 2^(k - k/2), so a subnormal result is rounded once, at the second product, and
// an overflowing one becomes +inf there (k reaches 128, whose 2^k is no float).
static inline float exp_of_reduced(exp_reduced e)
{
    const int half_k = e.k >> 1;
    return ((1.0f + e.expm1r) * power_of_two(half_k)) * power_of_two(e.k - half_k);
}
MATH_OVERLOAD static inline float exp_float(float x)
{
    const float y = exp_of_reduced(exp_reduce(x));
    return x != x ? x + x : y;
}

// e^x - 1 = 2^k expm1(r) + (2^k - 1), one fma where 2^k - 1 is exact (|k| <= 24). Beyond, the term that would round
// moves into the other factor, exactly in exact arithmetic: for k > 24, 2^k (expm1(r) - 2^-k) + 2^k, where the
// difference rounds at a fraction of expm1(r)'s own ulp; for k < -24, 2^k (1 + expm1(r)) - 1, where the rounding of
// 1 + expm1(r) is scaled down by 2^k, far below an ulp of the result near -1. k = 0 (|x| < 0.3466) is expm1(r)
// itself, x exact as r; below |x| = 2^-25, x itself, the correctly rounded result, its zero's sign kept. From
// x = 44 (k > 63), e^x - 1 rounds to e^x's float, the exp above; below x = -44, to -1 (2^k is clamped to 2^-64).
MATH_OVERLOAD static inline float expm1_float(float x)
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
MATH_OVERLOAD static inline float log_float(float x)
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
MATH_OVERLOAD static inline float log1p_float(float x)
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
// Up to |x| = 0.875, tanh(|x|) = |x| + |x| P(x^2), P a degree-7 fit of tanh(x) / x - 1 (absolute error 6.7e-10;
// x^2 P starts at -x^2 / 3). Above, where tanh exceeds 0.7, 1 - 2 / (t + 2) with t = expm1(2|x|) (2|x| exact: musl's
// tanhf). x's sign put back last, so tanh(-0) is -0. From |x| = 9 (2 e^-2|x| < 2^-25) the correctly rounded result
// is 1, which C99 gives at infinity; a NaN stays a NaN. Tiny x, subnormals included, give x itself (x P underflows).
MATH_OVERLOAD static inline float tanh_float(float x)
{
    const float a = magnitude(x);
    const float s = x * x;
    float p = -0x1.fd7e92p-12f;
    p = FMA(p, s, 0x1.5cae2p-9f);
    p = FMA(p, s, -0x1.11557ep-7f);
    p = FMA(p, s, 0x1.638c3cp-6f);
    p = FMA(p, s, -0x1.b9dd14p-5f);
    p = FMA(p, s, 0x1.110fbep-3f);
    p = FMA(p, s, -0x1.55555p-2f);
    const float t = expm1_float(2.0f * (a < 9.0f ? a : 9.0f));
    const float y = a >= 9.0f ? 1.0f : a > 0.875f ? 1.0f - 2.0f / (t + 2.0f) : FMA(a, p * s, a);
    return x != x ? x + x : with_sign_of(y, x);
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
    const float y = (exp_float((z - a) * (z + a)) * (f * u)) * exp_float(-z * z);
    return t >= ERFC_ZERO_FROM ? 0.0f : y;
}
// erf(|x|) = 1 - e^L(|x|) above 0.9277 (Juffa's form), L a degree-9 fit of ln(erfc(t)) on [0.9277, 4] (absolute
// error 8e-9: a relative 8e-9 of e^L, which is below 0.19 there, under 2^-27 of the result): one exp, against
// erfc_tail's two, and 1.2 ULPs at most against 1.8 measured. t is clamped to 4 (a NaN too), where e^L is 1.5e-8.
MATH_OVERLOAD static inline float erf_float(float x)
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
    const float y = a < ERF_SPLIT ? erf_near_0(x) : with_sign_of(1.0f - exp_float(l), x);
    return x != x ? x + x : y;
}
// erfc(x) = 1 - erf(x) near 0 (from 0.81 to 1.19, no cancellation worth an ulp), erfc_tail(x) above, and
// 2 - erfc_tail(-x) below -0.9277 (from 1.81 to 2).
MATH_OVERLOAD static inline float erfc_float(float x)
{
    const float a = magnitude(x);
    const float tail = erfc_tail(a);
    const float y = a < ERF_SPLIT ? 1.0f - erf_near_0(x) : x > 0.0f ? tail : 2.0f - tail;
    return x != x ? x + x : y;
}


// ------------------------------------------------------------------------------------------- sin, cos, tan
// The argument reduction is exact for every float: |x| = m 2^(e - 23) (m the 24-bit significand) times 2 / pi, modulo
// 4, is m W 2^-94 modulo 4, W the 96 bits of 2 / pi from bit e - 24 on (the bits before give multiples of 4 m, the
// bits after less than 2^-70), so the low 96 bits of the integer product m W hold the quadrant (the top two) and
// the fraction (Payne and Hanek's reduction, in 32- and 64-bit integer arithmetic). No Cody-Waite fast path: its
// error grows with |x|, and one path for every x keeps one set of bits. The fraction f, 64 bits rounded to
// [-1/2, 1/2) (the quadrant stepped where f >= 1/2), becomes three exact floats and r + dr = f pi/2 in float-float:
// its relative error is near 2^-44, below the 2^-24 the functions need even for the x nearest a multiple of
// pi/2 (f above 2^-30 for every float). TWO_OVER_PI(i) is 32-bit word i of 2 / pi (word 0 the bits before the
// binary point, all zero). PoCL does not vectorise this reduction (each lane picks its words by its own index, a
// lookup per lane, and 64-bit products): SIN, COS and TAN run scalar, 1.6x faster than PoCL's built-ins.
#define TWO_OVER_PI(i)                                                                                     \
    ((i) == 1 ? 0xa2f9836eu : (i) == 2 ? 0x4e441529u : (i) == 3 ? 0xfc2757d1u : (i) == 4 ? 0xf534ddc0u :  \
     (i) == 5 ? 0xdb629599u : (i) == 6 ? 0x3c439041u : (i) == 7 ? 0xfe5163abu : 0u)
// Bits 32 k + s on of those words, 32 of them: word k's low bits and word k + 1's high ones.
static inline uint two_over_pi_window(int k, uint s)
{
    return (uint)(((((ulong)TWO_OVER_PI(k)) << 32 | TWO_OVER_PI(k + 1)) << s) >> 32);
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
    const ulong p0 = m * two_over_pi_window(k, s), p1 = m * two_over_pi_window(k + 1, s),
                p2 = m * two_over_pi_window(k + 2, s);
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
// sin(r + dr) = sin(r) + dr and cos(r + dr) = cos(r) - r dr to first order (dr below 2^-24 |r|); sin(r) = r + r^3 S(r^2),
// cos(r) = 1 + r^2 C(r^2), degree-3 fits on |r| <= pi/4 (absolute errors 2.8e-11 and 3.1e-10).
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
// gives a NaN (x - x), C99's sin(+-inf) and IEEE 754's invalid operation.
MATH_OVERLOAD static inline float sin_float(float x)
{
    const float a = magnitude(x);
    const trig_reduced t = trig_reduce(a < INFINITY ? a : 0.0f);
    const float s = sin_of_reduced(t.r, t.dr), c = cos_of_reduced(t.r, t.dr);
    const uint q = t.quadrant & 3u;
    const float y = q == 0u ? s : q == 1u ? c : q == 2u ? -s : -c;
    return a < INFINITY ? as_float(as_uint(y) ^ (as_uint(x) & SIGN_BIT)) : x - x;
}
MATH_OVERLOAD static inline float cos_float(float x)
{
    const float a = magnitude(x);
    const trig_reduced t = trig_reduce(a < INFINITY ? a : 0.0f);
    const float s = sin_of_reduced(t.r, t.dr), c = cos_of_reduced(t.r, t.dr);
    const uint q = t.quadrant & 3u;
    const float y = q == 0u ? c : q == 1u ? -s : q == 2u ? -c : s;
    return a < INFINITY ? y : x - x;
}
// tan = sin / cos in even quadrants, -cos / sin in odd ones: two results within an ulp or so and a correctly
// rounded division.
MATH_OVERLOAD static inline float tan_float(float x)
{
    const float a = magnitude(x);
    const trig_reduced t = trig_reduce(a < INFINITY ? a : 0.0f);
    const float s = sin_of_reduced(t.r, t.dr), c = cos_of_reduced(t.r, t.dr);
    const float y = (t.quadrant & 1u) == 0u ? s / c : -c / s;
    return a < INFINITY ? as_float(as_uint(y) ^ (as_uint(x) & SIGN_BIT)) : x - x;
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
MATH_OVERLOAD static inline float sinh_float(float x)
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
MATH_OVERLOAD static inline float cosh_float(float x)
{
    const float a = magnitude(x);
    const float t = expm1_float(a < 0x1.62e43p-1f ? a : 0.0f), e = exp_float(a < 88.0f ? a : 88.0f);
    const float y = a < 0x1p-12f      ? 1.0f
                    : a < 0x1.62e43p-1f ? 1.0f + t * t / (2.0f * (1.0f + t))
                    : a < 88.0f         ? 0.5f * (e + 1.0f / e)
                                        : half_exp_large(a);
    return x != x ? x + x : y;
}
// asinh(a) = log1p(a + a^2 / (sqrt(a^2 + 1) + 1)) below 2, ln(2a + 1 / (sqrt(a^2 + 1) + a)) below 2^12,
// ln(a) + ln 2 above (a^2 + 1 rounds to a^2 there).
MATH_OVERLOAD static inline float asinh_float(float x)
{
    const float a = magnitude(x);
    const float b = a < 0x1p12f ? a : 1.0f; // keeps a^2 finite in the branches not taken
    const float root = SQRT_OF(b * b + 1.0f);
    const float y = a < 0x1p-12f ? a
                    : a < 2.0f   ? log1p_float(a + a * a / (root + 1.0f))
                    : a < 0x1p12f ? log_float(2.0f * a + 1.0f / (root + a))
                                  : log_float(a) + 0x1.62e43p-1f;
    return x != x ? x + x : with_sign_of(y, x);
}
// acosh(x) = log1p(t + sqrt(t^2 + 2t)) with t = x - 1 (exact) below 2, ln(2x - 1 / (x + sqrt(x^2 - 1))) below
// 2^12, ln(x) + ln 2 above; NaN below 1, +0 at 1.
MATH_OVERLOAD static inline float acosh_float(float x)
{
    const float b = x < 0x1p12f ? x : 2.0f;
    const float t = b - 1.0f;
    const float y = x < 2.0f      ? log1p_float(t + SQRT_OF(t * t + 2.0f * t))
                    : x < 0x1p12f ? log_float(2.0f * b - 1.0f / (b + SQRT_OF(b * b - 1.0f)))
                                  : log_float(x) + 0x1.62e43p-1f;
    return x < 1.0f ? NAN : x != x ? x + x : y;
}
// atanh(a) = log1p(2a + 2a^2 / (1 - a)) / 2 below 1/2, log1p(2a / (1 - a)) / 2 above: +inf at 1, NaN beyond.
MATH_OVERLOAD static inline float atanh_float(float x)
{
    const float a = magnitude(x);
    const float y = a < 0.5f ? 0.5f * log1p_float(2.0f * a + 2.0f * a * a / (1.0f - a))
                             : 0.5f * log1p_float(2.0f * (a / (1.0f - a)));
    return a > 1.0f ? NAN : x != x ? x + x : with_sign_of(y, x);
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
MATH_OVERLOAD static inline float asin_float(float x)
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
// acos(x) = pi/2 - (x + x r(x^2)) below |x| = 1/2; pi - 2 asin(s) below -1/2, 2 asin(s) above 1/2, s = sqrt((1 -+ x)/2),
// the latter with s as head and tail as above (fdlibm's acosf); acos(1) = +0, acos(-1) = pi rounded.
MATH_OVERLOAD static inline float acos_float(float x)
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
MATH_OVERLOAD static inline float atan_float(float x)
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

LANEWISE8(exp_float)
LANEWISE8(expm1_float)
LANEWISE8(log_float)
LANEWISE8(log1p_float)
LANEWISE8(tanh_float)
LANEWISE8(erf_float)
LANEWISE8(erfc_float)
LANEWISE8(sin_float)
LANEWISE8(cos_float)
LANEWISE8(tan_float)
LANEWISE8(sinh_float)
LANEWISE8(cosh_float)
LANEWISE8(asinh_float)
LANEWISE8(acosh_float)
LANEWISE8(atanh_float)
LANEWISE8(asin_float)
LANEWISE8(acos_float)
LANEWISE8(atan_float)

#endif
