// double_bits.h: FLOAT64 values as their encodings, converted to and from float bits and integers in integer
// arithmetic only, exact on any device (CAST, opencl/elementwise_ops.h section "cast"; dmlpy/ops/cast.py).
//
// FLOAT64 has no register (double needs cl_khr_fp64, which no DirectML operator may ask of a device), so a cast
// from or to FLOAT64 binds every tensor as the unsigned integer of its width and converts with these functions.
// round_shift rounds m / 2^shift (shift 1 to 63) to nearest even, or to odd (the kept bits ORed with "anything
// dropped"): a value rounded to odd at float's 24 bits rounds correctly to any format of at most 22 bits
// afterwards (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
// to odd", 2008), which is how a FLOAT64 reaches FLOAT16 through a float.
#ifndef DOUBLE_BITS_H
#define DOUBLE_BITS_H

#define DOUBLE_FRACTION 0x000fffffffffffffUL

static inline ulong round_shift(ulong m, uint shift, bool to_odd)
{
    const ulong kept = m >> shift, dropped = m & ((1UL << shift) - 1UL), midpoint = 1UL << (shift - 1u);
    if (to_odd)
        return kept | (dropped != 0UL ? 1UL : 0UL);
    return kept + ((dropped > midpoint || (dropped == midpoint && (kept & 1UL) != 0UL)) ? 1UL : 0UL);
}

// A FLOAT64's bits to the nearest float's (or rounded to odd): a normal double is m * 2^(e - 1075) with m of 53
// bits; the float keeps 24, fewer below 2^-126 (float subnormals), none below 2^-150. Adding the rounded m (hidden
// bit included) to the exponent field minus one lets a carry step the exponent, into infinity at the top.
static inline uint double_bits_to_float_bits(ulong d, bool to_odd)
{
    const uint sign = (uint)(d >> 32) & 0x80000000u, e = (uint)(d >> 52) & 0x7ffu;
    const ulong fraction = d & DOUBLE_FRACTION;
    if (e == 0x7ffu)
        return sign | 0x7f800000u | (fraction != 0UL ? 0x00400000u | (uint)(fraction >> 29) : 0u);
    if (e >= 1151u) // 2^128 and above
        return sign | 0x7f800000u;
    const ulong m = e != 0u ? fraction | (1UL << 52) : fraction;
    const int biased = (int)(e != 0u ? e : 1u) - 896; // the float's exponent field for this binade
    const uint shift = biased >= 1 ? 29u : (uint)(30 - biased);
    if (shift > 63u) // below 2^-150: nearer 0 than the least subnormal
        return sign | (to_odd && m != 0UL ? 1u : 0u);
    return sign | ((biased >= 1 ? (uint)(biased - 1) << 23 : 0u) + (uint)round_shift(m, shift, to_odd));
}

// A float's bits to the FLOAT64 of the same value, exactly; a NaN quieted, sign and payload kept.
static inline ulong float_bits_to_double_bits(uint f)
{
    const ulong sign = (ulong)(f & 0x80000000u) << 32;
    const uint e = (f >> 23) & 0xffu, fraction = f & 0x7fffffu;
    if (e == 0xffu)
        return sign | 0x7ff0000000000000UL | ((ulong)fraction << 29) | (fraction != 0u ? 0x0008000000000000UL : 0UL);
    if (e != 0u)
        return sign | ((ulong)(e + 896u) << 52) | ((ulong)fraction << 29);
    if (fraction == 0u)
        return sign;
    const uint top = 31u - clz(fraction); // a subnormal float is fraction * 2^-149: 2^(top - 149) and below
    return sign | ((ulong)(top + 874u) << 52) | (((ulong)fraction << (52u - top)) & DOUBLE_FRACTION);
}

// An unsigned 64-bit integer to the nearest FLOAT64's bits (ties to even), as the exponent field plus the
// rounded significand, its hidden bit carrying into the exponent.
static inline ulong unsigned_to_double_bits(ulong m)
{
    if (m == 0UL)
        return 0UL;
    const uint top = 63u - clz(m);
    if (top <= 52u)
        return ((ulong)(top + 1023u) << 52) | ((m << (52u - top)) & DOUBLE_FRACTION);
    return ((ulong)(top + 1022u) << 52) + round_shift(m, top - 52u, false);
}
static inline ulong signed_to_double_bits(long x)
{
    // |x| as the smaller of x and 0 - x as unsigned (2^63 for LONG_MIN): the select x < 0 ? 0 - x : x would be
    // llvm.abs after clang's optimisation, which Oclgrind cannot run (elementwise_ops.h's integer ABS says more).
    const ulong magnitude = min((ulong)x, 0UL - (ulong)x);
    return (x < 0L ? 0x8000000000000000UL : 0UL) | unsigned_to_double_bits(magnitude);
}

// A FLOAT64's bits to an integer of `width` bits, D3D's rule: |x| truncated (saturated at 2^64 - 1), then the sign
// and the type's range; NaN gives 0.
static inline ulong double_bits_truncated_magnitude(ulong d)
{
    const int e = (int)((d >> 52) & 0x7ffUL) - 1023;
    const ulong m = (d & DOUBLE_FRACTION) | (1UL << 52);
    return e < 0 ? 0UL : e > 63 ? ~0UL : e <= 52 ? m >> (52 - e) : m << (e - 52);
}
static inline bool double_bits_is_nan(ulong d) { return (d & 0x7fffffffffffffffUL) > 0x7ff0000000000000UL; }
static inline long double_bits_to_signed(ulong d, uint width)
{
    const ulong high = (1UL << (width - 1u)) - 1UL, magnitude = double_bits_truncated_magnitude(d);
    if (double_bits_is_nan(d))
        return 0L;
    if ((d >> 63) != 0UL) // -(high + 1) is the type's minimum, reached exactly or by saturation
        return magnitude > high ? -(long)high - 1L : -(long)magnitude;
    return magnitude > high ? (long)high : (long)magnitude;
}
static inline ulong double_bits_to_unsigned(ulong d, uint width)
{
    const ulong high = width == 64u ? ~0UL : (1UL << width) - 1UL, magnitude = double_bits_truncated_magnitude(d);
    return (double_bits_is_nan(d) || (d >> 63) != 0UL) ? 0UL : min(magnitude, high);
}

#endif // DOUBLE_BITS_H
