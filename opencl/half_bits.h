// half_bits.h: float16 <-> float through integer bits, exact, in code a compiler vectorises.
//
// vload_half and vstore_half are the portable way to read and write half tensors without cl_khr_fp16, and the
// kernels use them everywhere but on PoCL, where in a plain loop they defeat the vectoriser: clang narrows
// vload_half -> trunc -> vstore_half into half-precision operations, which x86 without AVX512-FP16 runs one
// element at a time (the float16 Round extension at 0.02-0.2x the copy kernel, 16M elements). These two
// functions do the same conversions with integer and float operations only. dmlpy's runtime turns them on
// with -DDML_HALF_BITS=1 on PoCL (programs.device_options); they rely on float subnormals (no
// -cl-denorms-are-zero, which dmlpy never passes).
#ifndef HALF_BITS_H
#define HALF_BITS_H

// A half's bits as the float of the same value, for all 65,536 patterns. Placed in a float's low exponent
// and mantissa bits, a finite half's magnitude is off by exactly 2^-112 (subnormal halves land on float
// subnormals, which the product makes normal): one multiplication by 2^112, exact. Infinities and NaN get
// the float's all-ones exponent instead, payload kept (a signalling NaN stays one, as vload_half's does).
inline float half_bits_to_float(ushort bits)
{
    const uint magnitude = bits & 0x7fffu;
    const float finite = as_float(magnitude << 13) * 0x1p112f;
    const uint special = (magnitude << 13) | 0x7f800000u;
    const uint value = magnitude >= 0x7c00u ? special : as_uint(finite);
    return as_float(value | ((uint)(bits & 0x8000u) << 16));
}

// A float as the nearest half's bits, ties to even (what vstore_half does), with vstore_half's NaN: the sign,
// the quiet bit and the top ten payload bits (half_store.h). From F. Giesen's float_to_half_fast3_rtne:
// - at or above 2^16 the half is infinite (or NaN);
// - below 2^-14 (half subnormals and zero) adding 0.5 puts the ten mantissa bits at the bottom of the sum, and
//   the float addition itself rounds them, ties to even;
// - otherwise the exponent is rebiased and 0xfff plus the kept mantissa's lowest bit added below the cut: a
//   carry out of the discarded 13 bits is exactly rounding up, ties to even, into the exponent if need be (up
//   to infinity from 65520).
inline ushort float_to_half_bits(float value)
{
    const uint bits = as_uint(value);
    const uint magnitude = bits & 0x7fffffffu;
    const uint sign = (bits >> 16) & 0x8000u;
    const uint nan = 0x7e00u | ((magnitude >> 13) & 0x03ffu);
    const uint special = magnitude > 0x7f800000u ? nan : 0x7c00u;
    const uint small = as_uint(as_float(magnitude) + 0.5f) - as_uint(0.5f);
    const uint normal = (magnitude + 0xc8000fffu + ((magnitude >> 13) & 1u)) >> 13;
    const uint half_bits = magnitude >= 0x47800000u ? special : magnitude < 0x38800000u ? small : normal;
    return (ushort)(sign | half_bits);
}

#endif
