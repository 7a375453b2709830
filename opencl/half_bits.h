// half_bits.h: float16 <-> float through integer bits, exact, in code a compiler vectorises.
//
// vload_half and vstore_half are the portable way to read and write half tensors without cl_khr_fp16, but on
// PoCL, in a plain loop, they defeat the vectoriser: clang narrows vload_half -> trunc -> vstore_half into
// half-precision operations, which x86 without AVX512-FP16 runs one element at a time (the float16 Round
// extension at 0.02-0.2x the copy kernel, 16M elements); and on NVIDIA a value kept in half precision loses its
// NaN payload (elementwise.cl). These functions do the same conversions with integer and float operations only;
// each was checked against NumPy's conversions on all 65,536 halves or all 2^32 floats. The element-wise
// template (elementwise.cl) converts every half tensor through them on every device; ext_round.cl does on PoCL
// only (-DDML_HALF_BITS=1, programs.device_options); half_store.h stores NaN with half_value_bits everywhere.
// They rely on float subnormals (no -cl-denorms-are-zero, which dmlpy never passes).
#ifndef HALF_BITS_H
#define HALF_BITS_H

// A half's bits as the float of the same value. Placed in a float's low exponent and mantissa bits, a finite
// half's magnitude is off by exactly 2^-112 (subnormal halves land on float subnormals, which the product makes
// normal): one multiplication by 2^112, exact. Infinities and NaN get the float's all-ones exponent instead,
// payload kept (a signalling NaN stays one, as vload_half's does).
static inline float half_bits_to_float(ushort bits)
{
    const uint magnitude = bits & 0x7fffu;
    const float finite = as_float(magnitude << 13) * 0x1p112f;
    const uint special = (magnitude << 13) | 0x7f800000u;
    const uint value = magnitude >= 0x7c00u ? special : as_uint(finite);
    return as_float(value | ((uint)(bits & 0x8000u) << 16));
}

// The half nearest to a float (ties to even), as a float: what storing it with vstore_half and loading it back
// gives. NaN stays NaN; from 65520 up the half is infinite. Below 2^-14 (half subnormals and zero) adding 0.5
// puts the half's last place at the sum's last bit, so the float addition itself rounds, ties to even, and
// subtracting 0.5 again is exact. Above, adding 0xfff plus the kept mantissa's lowest bit to the 13 bits a
// half drops, then clearing them, is rounding to nearest, ties to even (a carry runs into the exponent).
static inline float half_value(float value)
{
    const uint bits = as_uint(value);
    const uint magnitude = bits & 0x7fffffffu;
    const uint small = as_uint((as_float(magnitude) + 0.5f) - 0.5f);
    const uint normal = (magnitude + 0x0fffu + ((magnitude >> 13) & 1u)) & 0xffffe000u;
    const uint rounded = magnitude > 0x7f800000u   ? magnitude
                         : magnitude >= 0x477ff000u ? 0x7f800000u
                         : magnitude < 0x38800000u  ? small
                                                    : normal;
    return as_float(rounded | (bits & 0x80000000u));
}

// The bits of a float that holds a half's value (a rounded half, or half_value's result): the product by
// 2^-112 is exact and leaves the half's bits 13 places up. Infinity as itself, NaN as IEEE conversion gives
// it: the sign, the quiet bit and the top ten payload bits (half_store.h uses this for NaN).
static inline ushort half_value_bits(float value)
{
    const uint bits = as_uint(value);
    const uint magnitude = bits & 0x7fffffffu;
    const uint finite = as_uint(as_float(magnitude) * 0x1p-112f) >> 13;
    const uint special = 0x7c00u | (magnitude > 0x7f800000u ? 0x0200u : 0u) | ((magnitude >> 13) & 0x03ffu);
    return (ushort)(((bits >> 16) & 0x8000u) | (magnitude >= 0x7f800000u ? special : finite));
}

// N halves' bits as floats, and N floats holding halves as their bits (N = 4, 8): half_bits_to_float and
// half_value_bits lane by lane, written with vector operators only (a vector ?: for the select) so that a vector
// walk converts N halves in a few AVX2 instructions. PoCL ran N scalar conversions one lane at a time: reduce.cl's
// FLOAT16 SUM at 0.05-0.11x a read of its input, and vload_half8/vstore_half8 held element_wise_round.cl's float16
// Round at 0.39-0.42x the copy kernel. Checked against NumPy's float16 on all 65,536 halves
// (tests/device/reduction/test_half_lanes.py; element_wise_round.cl's exhaustive float16 tests).
#define DEFINE_HALF_BITS_VECTORS(N)                                                                         \
    static inline float##N half_bits_to_float##N(ushort##N bits)                                            \
    {                                                                                                       \
        const uint##N wide = convert_uint##N(bits);                                                         \
        const uint##N magnitude = wide & 0x7fffu;                                                           \
        const float##N finite = as_float##N(magnitude << 13) * 0x1p112f;                                    \
        const uint##N special = (magnitude << 13) | 0x7f800000u;                                            \
        const uint##N value = magnitude >= 0x7c00u ? special : as_uint##N(finite);                          \
        return as_float##N(value | ((wide & 0x8000u) << 16));                                               \
    }                                                                                                       \
    static inline ushort##N half_value_bits##N(float##N value)                                              \
    {                                                                                                       \
        const uint##N bits = as_uint##N(value);                                                             \
        const uint##N magnitude = bits & 0x7fffffffu;                                                       \
        const uint##N finite = as_uint##N(as_float##N(magnitude) * 0x1p-112f) >> 13;                        \
        const uint##N quiet = magnitude > 0x7f800000u ? (uint##N)(0x0200u) : (uint##N)(0u);                 \
        const uint##N special = 0x7c00u | quiet | ((magnitude >> 13) & 0x03ffu);                            \
        return convert_ushort##N(((bits >> 16) & 0x8000u) | (magnitude >= 0x7f800000u ? special : finite)); \
    }
DEFINE_HALF_BITS_VECTORS(4)
DEFINE_HALF_BITS_VECTORS(8)

#endif
