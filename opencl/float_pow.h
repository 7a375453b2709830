// float_pow.h: pow(x, y) for floats as plain arithmetic, as float_math.h writes exp and log (its header says why: no
// library call, so PoCL's vectoriser runs it, and each step an IEEE 754 operation rounded once, so every device gives
// the same bits). POW and CONSTANT_POW call it (elementwise_ops.h, "powers").
//
// |x|^y = 2^(y log2|x|). A float log2 is not enough: the result's relative error is ln 2 times the absolute error of
// y log2|x|, which reaches 150 before the result leaves the float range, so an error of 2^-24 relative there would
// be 2^-24 * 150 * ln 2: over 100 ULPs. So log2|x| is carried as two floats (hi + lo, about 2^-30 relative), the
// product with y as two (the fma gives y * hi's rounding exactly), and 2^(t_hi + t_lo) reduced to 2^n 2^r with the
// low part folded into r. Measured error: docs/operators/element_wise_pow.md.
#ifndef FLOAT_POW_H
#define FLOAT_POW_H

#pragma OPENCL FP_CONTRACT OFF

// ln(m) as hi + lo for m = 1 + f in [sqrt(2) / 2, sqrt(2)), f exact: 2 atanh(s), s = f / (2 + f), as log_of_reduced
// writes it. 2 + f is u_hi + u_lo exactly (|f| < 2), the division's remainder f - s_hi u_hi is exact in one fma, so
// s = s_hi + s_lo to about 2^-45. 2 atanh(s) = 2s + (2/3) s^3 + s^5 Q(s^2), Q the series 2/5 + 2/7 z + 2/9 z^2 +
// 2/11 z^3 (|s| < 0.1716, the next term below 2^-25 of Q). (2/3) s^3 is up to 1% of 2s: in float alone its roundings
// put 3.8 ULPs on pow(1.4131924, 232.25522), so s_hi^3 comes with its two products' roundings (fma), 2/3 as two
// floats, and s_lo's share 2 s^2 s_lo (5.9e-10 there: 3.3 ULPs more without it); s^5 Q is under 2% of (2/3) s^3,
// and its roundings, with s_lo's share of it, stay below 2^-34 of ln(m).
typedef struct {
    float hi, lo;
} float_pair;
static inline float_pair ln_pair(float f)
{
    const float u_hi = 2.0f + f, u_lo = f - (u_hi - 2.0f);
    const float s_hi = f / u_hi;
    const float s_lo = (FMA(-s_hi, u_hi, f) - s_hi * u_lo) / u_hi;
    const float z = s_hi * s_hi, z_lo = FMA(s_hi, s_hi, -z);
    const float cube = z * s_hi, cube_lo = FMA(z, s_hi, -cube) + z_lo * s_hi;
    const float third2_hi = 0x1.555556p-1f, third2_lo = -0x1.555556p-26f; // 2/3 to 2^-49
    const float t_hi = cube * third2_hi;
    const float t_lo = FMA(cube, third2_hi, -t_hi) + FMA(cube, third2_lo, cube_lo * third2_hi);
    float q = 0x1.745d18p-3f; // 2/11
    q = FMA(q, z, 0x1.c71c72p-3f); // 2/9
    q = FMA(q, z, 0x1.24924ap-2f); // 2/7
    q = FMA(q, z, 0x1.99999ap-2f); // 2/5
    const float hi = 2.0f * s_hi;
    const float sum = hi + t_hi; // Fast2Sum: |hi| > |t_hi|
    const float lo = (t_hi - (sum - hi)) + (FMA(cube * z, q, FMA(2.0f * s_lo, z, 2.0f * s_lo)) + t_lo);
    const float total = sum + lo;
    const float_pair ln = {total, lo - (total - sum)};
    return ln;
}

// log2|x| as hi + lo for finite nonzero x: x = 2^k m as log_float reduces it (subnormals scaled by 2^25 first), ln(m)
// times 1/ln2 (c_hi + c_lo) with the product's rounding from an fma, then k added by Fast2Sum (|k| >= 1 > |log2 m|, or
// k = 0 and the sum exact).
static inline float_pair log2_pair(float a)
{
    const bool subnormal = a < 0x1p-126f;
    const uint bits = as_uint(subnormal ? a * 0x1p25f : a) + (0x3f800000u - 0x3f3504f3u);
    const float k = (float)((int)(bits >> 23) - 127 - (subnormal ? 25 : 0));
    const float f = as_float((bits & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
    const float_pair ln = ln_pair(f);
    const float c_hi = 0x1.715476p+0f, c_lo = 0x1.4ae0cp-26f; // 1/ln2 = c_hi + c_lo to 2^-50
    const float p_hi = ln.hi * c_hi;
    const float p_lo = FMA(ln.hi, c_hi, -p_hi) + FMA(ln.hi, c_lo, ln.lo * c_hi);
    const float sum = k + p_hi;
    const float_pair log2 = {sum, (p_hi - (sum - k)) + p_lo};
    return log2;
}

// 2^(hi + lo) for |hi + lo| below 200 (callers clamp; lo 0 where they did): n = rint(hi) by the 1.5 * 2^23 shifter
// (float_math.h's exp_reduce), r = (hi - n) + lo with hi - n exact, |r| <= 0.5 and a hair; 2^r = 1 + r P(r), P a
// degree-5 minimax fit of (2^r - 1) / r on [-0.5021, 0.5021] (relative error 7.2e-9 with these float coefficients);
// 2^n applied in two exact steps as exp_of_reduced does, so a subnormal result rounds once and an overflow is +inf.
static inline float exp2_pair(float hi, float lo)
{
    const float shifter = 0x1.8p23f;
    const float nf = (hi + shifter) - shifter;
    const float r = (hi - nf) + lo;
    float p = 0x1.42dc42p-13f;
    p = FMA(p, r, 0x1.5f0ab2p-10f);
    p = FMA(p, r, 0x1.3b2bdcp-7f);
    p = FMA(p, r, 0x1.c6af6ap-5f);
    p = FMA(p, r, 0x1.ebfbdep-3f);
    p = FMA(p, r, 0x1.62e430p-1f);
    const int n = (int)nf, half_n = n >> 1;
    return (FMA(r, p, 1.0f) * power_of_two(half_n)) * power_of_two(n - half_n);
}

// y's kind from its bits: integral (every float from 2^23 up is; NaN and infinities count too, which the callers
// never ask of them) and odd (an integer below 2^24 with its units bit set). e is the unbiased exponent; the shifts
// use it clamped to [0, 23], so none is 32 wide in the lanes that do not need it.
static inline bool pow_integral(float y)
{
    const uint bits = as_uint(y);
    const int e = (int)((bits >> 23) & 0xffu) - 127, clamped = e < 0 ? 0 : e > 23 ? 23 : e;
    const uint significand = (bits & 0x007fffffu) | 0x00800000u;
    return e >= 23 || (e >= 0 && ((significand << (clamped + 8)) << 1) == 0u);
}
static inline bool pow_odd(float y)
{
    const uint bits = as_uint(y);
    const int e = (int)((bits >> 23) & 0xffu) - 127, clamped = e < 0 ? 0 : e > 23 ? 23 : e;
    const uint significand = (bits & 0x007fffffu) | 0x00800000u;
    return e >= 0 && e <= 23 && pow_integral(y) && ((significand >> (23 - clamped)) & 1u) != 0u;
}

// pow(x, y) with C99 Annex F's special cases, as OpenCL's pow and the pages give them: pow(x, +-0) = 1 and
// pow(1, y) = 1 even for a NaN; pow(-1, +-inf) = 1; a zero or an infinite base gives 0 or +inf by whether the
// exponent's sign matches the base's size, signed by x where y is an odd integer; y infinite gives +0 or +inf by
// whether |x| < 1 and y < 0 agree; a negative finite base with a non-integral y NaN, with an integral one the sign of
// its parity. The product y log2|x| is clamped to +-200 (NaN and infinities too) before exp2_pair: e^(+-200 ln 2)
// are +inf and +0 already, and no lane converts a NaN to int.
static inline float pow_float(float x, float y)
{
    const float a = magnitude(x);
    const float_pair l = log2_pair(a);
    const float t_hi = y * l.hi;
    const bool in_range = magnitude(t_hi) < 200.0f;
    const float t_lo = in_range ? FMA(y, l.hi, -t_hi) + y * l.lo : 0.0f;
    const float clamped = in_range ? t_hi : (t_hi > 0.0f ? 200.0f : -200.0f);
    const float r = exp2_pair(clamped, t_lo);
    const bool odd = pow_odd(y);
    const float signed_r = x < 0.0f && odd ? -r : r;
    const float zero_or_inf = (a == 0.0f) == (y < 0.0f) ? INFINITY : 0.0f;
    return y == 0.0f || x == 1.0f ? 1.0f
           : x != x || y != y     ? x + y
           : a == 0.0f || a == INFINITY ? (odd ? with_sign_of(zero_or_inf, x) : zero_or_inf)
           : magnitude(y) == INFINITY ? (a == 1.0f ? 1.0f : (a < 1.0f) == (y < 0.0f) ? INFINITY : 0.0f)
           : x < 0.0f && !pow_integral(y) ? NAN
                                         : signed_r;
}

#endif
