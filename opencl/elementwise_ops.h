// elementwise_ops.h: each element-wise operator's arithmetic, written once. The one template
// (elementwise.cl) builds an operator's output from these helpers (the operator's ``expression`` in dmlpy/ops/),
// and a kernel kept for speed (element_wise_round.cl, ext_round.cl) includes this file for its arithmetic too,
// so an operator alone, fused in a graph and in its dedicated kernel computes the same bits.
//
// Values are floats (a FLOAT16 element is a half's value, exact in float) or the integer storage types. Every
// helper is exact as IEEE-754 arithmetic step by step: no fma the source does not write (FP_CONTRACT is off), no
// reassociation (dmlpy never passes -cl-fast-relaxed-math), and float subnormals kept (no -cl-denorms-are-zero).
// The transcendental functions are float_math.h's and float_trig.h's, plain arithmetic too: the same bits everywhere.
//
// Every helper here and in the headers it includes is static inline: a kernel calls a few of them, and a function
// with external linkage is compiled whether called or not (measured: static halved the build of an ADD kernel,
// 0.22 s to 0.12 s on PoCL and 0.11 s to 0.06 s on Intel's CPU runtime).
//
// Options (defaults below):
//   DML_ELEMENTWISE_BUILTINS  set by dmlpy's runtime on PoCL: rint, trunc, ceil and floor as clang's exact
//                        element-wise built-ins, which its clang compiles to the target's rounding instruction
//                        (vroundps on x86) instead of a library call that stops the vectoriser. Opt-in, because
//                        other clang-based implementations may accept the built-ins and fail to run them
//                        (Oclgrind does).
//   DML_KEEP_NAN_BITS    1 (the default): rounding passes a NaN through quieted, sign and payload kept, as IEEE 754
//                        rounding does: NVIDIA's rint, trunc and round return one canonical NaN for every NaN.
//                        dmlpy's runtime sets 0 on PoCL, whose built-ins keep every NaN's bits themselves.
//   ROUND_MODE           0..8, one of nGraph's nine rounding modes for round_in_mode (dmlpy's extensions, NOT
//                        DirectML); ROUND_REAL_T its type (float, or double with cl_khr_fp64).
#ifndef ELEMENTWISE_OPS_H
#define ELEMENTWISE_OPS_H

#pragma OPENCL FP_CONTRACT OFF

#include "double_bits.h"
#include "half_bits.h"
#include "float_math.h"
#include "float_trig.h"

#ifndef DML_KEEP_NAN_BITS
#define DML_KEEP_NAN_BITS 1
#endif

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

// clang's overloadable extension lets one definition serve float and a kernel's vector type. Only where
// DML_ELEMENTWISE_BUILTINS says the compiler is PoCL's clang: elsewhere the float definitions stand alone (the
// vector paths that add the others exist for that case only).
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#define ELEMENTWISE_OVERLOAD __attribute__((overloadable))
#else
#define ELEMENTWISE_OVERLOAD
#endif

// ------------------------------------------------------------------------------------------------ rounding
// rint, trunc, ceil and floor are exact for every input (IEEE-754 roundToIntegral): the sign of zero kept, infinities and
// NaN passed through. Never x + 0.5 tricks.
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_roundeven)
#define RINT(x) __builtin_elementwise_roundeven(x)
#endif
#if __has_builtin(__builtin_elementwise_trunc)
#define TRUNC(x) __builtin_elementwise_trunc(x)
#endif
#if __has_builtin(__builtin_elementwise_ceil)
#define CEIL_OF(x) __builtin_elementwise_ceil(x)
#endif
#if __has_builtin(__builtin_elementwise_floor)
#define FLOOR_OF(x) __builtin_elementwise_floor(x)
#endif
#endif
#ifndef RINT
#define RINT(x) rint(x)
#endif
#ifndef TRUNC
#define TRUNC(x) trunc(x)
#endif
#ifndef CEIL_OF
#define CEIL_OF(x) ceil(x)
#endif
#ifndef FLOOR_OF
#define FLOOR_OF(x) floor(x)
#endif

// Halves away from zero (DML_ROUNDING_MODE_TOWARD_INFINITY, OpenCL's round()) from trunc, exactly:
// t = trunc(x); f = x - t never rounds and has x's sign; where f >= 0.5 one step up, where f <= -0.5 one step
// down (t +- 1 is exact, as a fraction means |x| < 2^23). Otherwise t itself, which keeps the sign of zero; NaN
// and infinities (f is NaN for them) fail both comparisons and come back as trunc gives them. Comparisons, not
// fabs and copysign: those are library calls on PoCL (float32 16M at 0.50-0.69x the copy kernel with them). For
// PoCL only (ROUNDING_MODE_2 below), whose round() is a library call that stops the vectoriser. The ternaries
// select per component on vectors.
#define DEFINE_ROUND_HALF_AWAY(T)                                                                          \
    ELEMENTWISE_OVERLOAD static inline T round_half_away(T x)                                              \
    {                                                                                                      \
        const T t = TRUNC(x);                                                                              \
        const T f = x - t;                                                                                 \
        return f >= (T)(0.5f) ? t + (T)(1.0f) : f <= (T)(-0.5f) ? t - (T)(1.0f) : t;                       \
    }

// DML_ROUNDING_MODE's three modes, ROUNDING_MODE_<value>: the one place that says which exact IEEE-754 function
// each is (NaN aside: KEEP_NAN below, or a kernel's raw-bits copy). Every definition is exact for every input,
// keeps the sign of zero and passes infinities through; never x + 0.5 tricks.
//   0 HALVES_TO_NEAREST_EVEN  rint (2.5 -> 2)
//   1 TOWARD_ZERO             trunc (-1.75 -> -1)
//   2 TOWARD_INFINITY         halves away from zero (2.5 -> 3), OpenCL's round(); not ceil
// With DML_ELEMENTWISE_BUILTINS, halves away from zero is round_half_away, which vectorises; elsewhere OpenCL's
// round() itself, overloaded for vectors as a user function cannot be off PoCL. DEFINE_ROUNDING_MODES(T) defines
// the user functions the modes call for another type T (a kernel's vector type); nothing where they are the
// built-ins, overloaded already.
#define ROUNDING_MODE_0(x) RINT(x)
#define ROUNDING_MODE_1(x) TRUNC(x)
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_trunc)
#define ROUNDING_MODE_2(x) round_half_away(x)
#define DEFINE_ROUNDING_MODES(T) DEFINE_ROUND_HALF_AWAY(T)
DEFINE_ROUND_HALF_AWAY(float)
#endif
#endif
#ifndef ROUNDING_MODE_2
#define ROUNDING_MODE_2(x) round(x)
#define DEFINE_ROUNDING_MODES(T)
#endif

// A NaN's bits as IEEE 754 rounding returns the NaN: quieted (quiet_bit, the top mantissa bit of the type, set),
// sign and payload kept. On raw bits for kernels that copy a NaN element as it is stored (element_wise_round.cl,
// ext_round.cl); KEEP_NAN applies it to a float.
#define QUIET_NAN_BITS(bits, quiet_bit) ((bits) | (quiet_bit))

// A NaN passed through quieted, anything else rounded. For a FLOAT16 value (a half's value in float) the
// quieted float NaN stores as the quieted half NaN (half_bits.h).
#define KEEP_NAN(x, rounded)                                                                               \
    ((DML_KEEP_NAN_BITS && isnan(x)) ? as_float(QUIET_NAN_BITS(as_uint(x), 0x00400000u)) : (rounded))

// ELEMENT_WISE_ROUND in DirectML's three modes (the template's and fused graphs' names).
#define ROUND_HALVES_TO_NEAREST_EVEN(x) KEEP_NAN((x), ROUNDING_MODE_0(x))
#define ROUND_TOWARD_ZERO(x) KEEP_NAN((x), ROUNDING_MODE_1(x))
#define ROUND_TOWARD_INFINITY(x) KEEP_NAN((x), ROUNDING_MODE_2(x))

// ELEMENT_WISE_CEIL and ELEMENT_WISE_FLOOR: ceil and floor are exact like rint.
#define CEIL(x) KEEP_NAN((x), CEIL_OF(x))
#define FLOOR(x) KEEP_NAN((x), FLOOR_OF(x))

// ---------------------------------------------------------------------------------------------- unary math
// ELEMENT_WISE_SQRT, RECIP, EXP, LOG, the trigonometric and hyperbolic functions, their inverses and ERF
// (dmlpy/ops/element_wise_math.py), in float. A FLOAT16 value is computed in float and rounded once to half at the
// store. SQRT and RECIP are correctly rounded: their programs build with -cl-fp32-correctly-rounded-divide-sqrt, and
// the half of a correctly rounded float root or quotient of a half is the correctly rounded half (24 >= 2 * 11 + 2
// bits, so the double rounding is innocuous; after a ScaleBias the operand is a float, and the half is that of the
// correctly rounded float). The others are float_math.h's and float_trig.h's: plain float arithmetic, the same bits
// on every device, vectorised by PoCL but for SIN, COS and TAN, each within its operator's FLOAT32_ULPS (what was
// measured, with a margin: docs/operators/element_wise_math.md). A NaN comes back a NaN (IEEE 754 fixes no payload).
#define SQRT(x) SQRT_OF(x)
#define RECIP(x) (1.0f / (x))
#define EXP(x) exp_float(x)
#define LOG(x) log_float(x)
#define SIN(x) sin_float(x)
#define COS(x) cos_float(x)
#define TAN(x) tan_float(x)
#define ASIN(x) asin_float(x)
#define ACOS(x) acos_float(x)
#define ATAN(x) atan_float(x)
#define SINH(x) sinh_float(x)
#define COSH(x) cosh_float(x)
#define TANH(x) tanh_float(x)
#define ASINH(x) asinh_float(x)
#define ACOSH(x) acosh_float(x)
#define ATANH(x) atanh_float(x)
#define ERF(x) erf_float(x)

// ------------------------------------------------------------------------------------ binary arithmetic
// ADD, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MEAN and DIFFERENCE_SQUARE, as <name>_<T>(a, b) for each register type T
// (a FLOAT16 value is a float). Float arithmetic is IEEE 754's, each step rounded once: a + b, a - b, a * b and a / b
// are correctly rounded (the template builds with -cl-fp32-correctly-rounded-divide-sqrt), and so is a FLOAT16 result
// computed in float and rounded once to half, as float's 24 bits are at least 2 * 11 + 2 (Figueroa, "When is double
// rounding innocuous?", 1995).
// Integers wrap modulo 2^width, as two's complement hardware computes them: each operation runs on the operands
// converted to the unsigned type W (uint, or ulong for 64 bits), which C defines modulo 2^32 (2^64) where signed
// overflow is undefined and a ushort product would overflow int; the low bits are then reinterpreted as T (U is T's
// unsigned type of the same width; as_T keeps the bits, where a narrowing cast to a signed type is
// implementation-defined).
#define WRAPPED(T, U, W, expression) as_##T((U)(expression))

// DIVIDE of integers truncates toward zero (the page: "the result is truncated"). The pages leave a zero divisor
// undefined: the quotient has all bits set, as D3D's udiv and DXIL's UDiv define it for unsigned operands
// (signed ones too here: -1); MIN / -1 wraps to MIN. The divisor is made 1 where the quotient is not divided, so no
// lane ever divides by 0 or overflows (x86's idiv traps on both).
// MIN and MAX are D3D's min and max (the sm4 instructions): a < b ? a : b and a >= b ? a : b, a NaN operand giving the
// other operand, so min(-0, +0) is +0 and max(-0, +0) is -0; for integers the plain comparison.
#define DEFINE_BINARY_ARITHMETIC(T, U, W, SIGNED)                                                          \
    static inline T add_##T(T a, T b) { return WRAPPED(T, U, W, (W)a + (W)b); }                            \
    static inline T subtract_##T(T a, T b) { return WRAPPED(T, U, W, (W)a - (W)b); }                       \
    static inline T multiply_##T(T a, T b) { return WRAPPED(T, U, W, (W)a * (W)b); }                       \
    static inline T divide_##T(T a, T b)                                                                   \
    {                                                                                                      \
        const bool zero = b == 0, negates = SIGNED && b == (T)-1;                                          \
        const T quotient = a / (zero || negates ? (T)1 : b);                                               \
        return zero ? as_##T((U)~(U)0) : negates ? WRAPPED(T, U, W, (W)0 - (W)a) : quotient;               \
    }                                                                                                      \
    static inline T min_##T(T a, T b) { return a < b ? a : b; }                                            \
    static inline T max_##T(T a, T b) { return a >= b ? a : b; }                                           \
    static inline T difference_square_##T(T a, T b)                                                        \
    {                                                                                                      \
        const W d = (W)a - (W)b;                                                                           \
        return WRAPPED(T, U, W, d * d);                                                                    \
    }
DEFINE_BINARY_ARITHMETIC(char, uchar, uint, 1)
DEFINE_BINARY_ARITHMETIC(uchar, uchar, uint, 0)
DEFINE_BINARY_ARITHMETIC(short, ushort, uint, 1)
DEFINE_BINARY_ARITHMETIC(ushort, ushort, uint, 0)
DEFINE_BINARY_ARITHMETIC(int, uint, uint, 1)
DEFINE_BINARY_ARITHMETIC(uint, uint, uint, 0)
DEFINE_BINARY_ARITHMETIC(long, ulong, ulong, 1)
DEFINE_BINARY_ARITHMETIC(ulong, ulong, ulong, 0)

static inline float add_float(float a, float b) { return a + b; }
static inline float subtract_float(float a, float b) { return a - b; }
static inline float multiply_float(float a, float b) { return a * b; }
static inline float divide_float(float a, float b) { return a / b; }
static inline float min_float(float a, float b) { return (a < b || b != b) ? a : b; }
static inline float max_float(float a, float b) { return (a >= b || b != b) ? a : b; }
static inline float difference_square_float(float a, float b)
{
    const float d = a - b;
    return d * d;
}

// MEAN, (a + b) / 2, correctly rounded: where a + b is finite, halving its correctly rounded value is exact (or, for a
// sum below 2^-125, the sum itself is exact, as every float there is a multiple of 2^-149, and the halving rounds
// once). Where a + b overflows two finite operands, both are at least 2^103 in magnitude, so halving each is exact and
// their sum rounds once. An infinity or NaN operand gives what a + b gives. MEAN of integers (INT32, UINT32 only) is
// the exact sum in 64 bits halved toward zero, as DIVIDE truncates: the pages say neither how it rounds nor whether
// a + b may overflow first.
static inline float mean_float(float a, float b)
{
    const float sum = a + b;
    // Comparisons, not isinf or fabs: on PoCL those are library calls that keep the loop scalar (16M packed floats:
    // 37 ms, against 7 ms, the copy kernel's time, with the comparisons).
    return (sum == INFINITY || sum == -INFINITY) ? a * 0.5f + b * 0.5f : sum * 0.5f;
}
static inline int mean_int(int a, int b) { return (int)(((long)a + (long)b) / 2); }
static inline uint mean_uint(uint a, uint b) { return (uint)(((ulong)a + (ulong)b) / 2); }

// ------------------------------------------------------------------------------------------ remainders
// MODULUS_TRUNCATE (C's fmod and %: the remainder of the quotient rounded toward zero, with the dividend's sign) and
// MODULUS_FLOOR (Python's %: of the quotient rounded toward -infinity, with the divisor's sign), as
// modulus_<truncate|floor>_<T> (dmlpy/ops/element_wise_modulus.py). A float's truncated remainder is fmod's, exact
// (IEEE 754's remainder of two floats is a float, and OpenCL's fmod returns it exactly); the floored one adds the
// divisor to a nonzero remainder of the other sign, one rounding, and gives a zero remainder the divisor's sign,
// as NumPy's remainder does; a zero divisor gives NaN (fmod's). An integer divided by 0 leaves a remainder with all
// bits set, as D3D's udiv and DXIL's UDiv define it, the quotient's rule above; MIN % -1 is 0, with no division
// (x86's idiv traps on it).
static inline float modulus_truncate_float(float a, float b) { return fmod(a, b); }
static inline float modulus_floor_float(float a, float b)
{
    const float r = fmod(a, b);
    return r != 0.0f ? ((r < 0.0f) != (b < 0.0f) ? r + b : r) : copysign(0.0f, b);
}
#define DEFINE_REMAINDERS(T, U, SIGNED)                                                                    \
    static inline T modulus_truncate_##T(T a, T b)                                                         \
    {                                                                                                      \
        const bool zero = b == 0, negates = SIGNED && b == (T)-1;                                          \
        const T r = a % (zero || negates ? (T)1 : b);                                                      \
        return zero ? as_##T((U)~(U)0) : negates ? (T)0 : r;                                               \
    }                                                                                                      \
    static inline T modulus_floor_##T(T a, T b)                                                            \
    {                                                                                                      \
        const T r = modulus_truncate_##T(a, b);                                                            \
        return (b != 0 && r != 0 && SIGNED && ((r < 0) != (b < 0))) ? (T)(r + b) : r;                      \
    }
DEFINE_REMAINDERS(char, uchar, 1)
DEFINE_REMAINDERS(uchar, uchar, 0)
DEFINE_REMAINDERS(short, ushort, 1)
DEFINE_REMAINDERS(ushort, ushort, 0)
DEFINE_REMAINDERS(int, uint, 1)
DEFINE_REMAINDERS(uint, uint, 0)
DEFINE_REMAINDERS(long, ulong, 1)
DEFINE_REMAINDERS(ulong, ulong, 0)

// ----------------------------------------------------------------------------------- selection and angles
// IF (dmlpy/ops/element_wise_if.py): A where the condition byte is nonzero, else B, moved unchanged (alone, every
// tensor bound as the unsigned integer of its width, so any type's bits, FLOAT64 included). ATAN_YX
// (dmlpy/ops/element_wise_atan_yx.py): atan2(A, B), the angle of the point (B, A), float_trig.h's atan2_float (2.4
// ULPs at most measured, within OpenCL's full-profile bound for atan2, 6, which FLOAT32_ULPS keeps; C99 Annex F at
// the origin and at infinities: atan2(+-0, +0) is +-0, atan2(+-0, -0) is +-pi).
#define IF(condition, a, b) ((condition) != 0 ? (a) : (b))
static inline float atan_yx_float(float a, float b) { return atan2_float(a, b); }

// -------------------------------------------------------------------------------------- signs and clamps
// ABS, NEGATE, SIGN (dmlpy/ops/element_wise_signs.py), CLIP, CLIP1, THRESHOLD (dmlpy/ops/element_wise_clip.py), as
// <name>_<T> for each register type T they take. Float ABS and NEGATE are IEEE 754's sign-bit operations, exact for
// every input, a NaN's payload kept: ABS clears the sign bit through as_uint rather than fabs, a library call on
// PoCL that keeps the loop scalar; NEGATE flips it through as_uint too, as C's -x would, but NVIDIA's compiler
// makes -x of a NaN its canonical NaN 0x7fffffff (measured on an H100, driver 580.159.04). Integer NEGATE and ABS
// wrap as two's complement does: -MIN and abs(MIN) are MIN (the pages leave them undocumented). Integer ABS is
// the unsigned minimum of x and 0 - x, both taken as unsigned: for x < 0 they are 2^w - |x| and |x|, for x >= 0 x
// and 2^w - x (0 and 0 at 0), so the smaller is |x|, and for MIN both are 2^(w-1), which reinterpreted is that wrap.
// Not OpenCL's abs(), a library call on PoCL that keeps the loop scalar (ABS INT32 at 0.25x the copy kernel, 1.0x
// this way), nor the select x < 0 ? -x : x, which clang makes llvm.abs, an intrinsic Oclgrind cannot run
// ("Undefined external function: llvm.abs.i64"); Oclgrind runs this form at every width. SIGN is the page's
// formula: -1 below 0, 1 above, 0 otherwise: -0 and NaN give 0.
// The clamps are the pages' formulas with MIN and MAX above (D3D's min and max, a NaN operand giving the other):
// CLIP min(high, max(low, x)), CLIP1 max(low, min(x, high)), THRESHOLD max(x, low). So a NaN input gives low for
// CLIP and THRESHOLD and high for CLIP1 (low for CLIP1 too where low > high), and where low > high CLIP gives high
// and CLIP1 low. Integer bounds come exact in the tensor's type (dmlpy converts CLIP's and THRESHOLD's FLOAT bounds
// as Direct3D converts a float to an integer: toward zero, saturated).
// A NaN x takes its result explicitly (the formula's, with the NaN operand dropped), before the clamp: NVIDIA's
// compiler turns a clamp to [0, 1] into the saturate modifier, which flushes NaN to +0 (measured on an H100, driver
// 580.159.04: CLIP1 of NaN to [0, 1] gave 0, not 1). For an integer x the test is false and folds away.
static inline float abs_float(float x) { return as_float(as_uint(x) & 0x7fffffffu); }
// A FLOAT16 or FLOAT32 ABS or NEGATE alone acts on the encoding (its tensors bound as unsigned integers): the sign
// bit cleared or flipped, every other bit kept, a signalling NaN's too, which a half through a float register would
// come back without (half_bits.h quiets it).
#define ABS_BITS(bits, sign) ((bits) & ~(sign))
#define NEGATE_BITS(bits, sign) ((bits) ^ (sign))
static inline float negate_float(float x) { return as_float(as_uint(x) ^ 0x80000000u); }
static inline float sign_float(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }
#define DEFINE_SIGNED(T, U, W)                                                                             \
    static inline T abs_##T(T x) { return as_##T(min_##U((U)x, (U)((U)0 - (U)x))); }                       \
    static inline T negate_##T(T x) { return WRAPPED(T, U, W, (W)0 - (W)x); }                              \
    static inline T sign_##T(T x) { return x > 0 ? (T)1 : x < 0 ? (T)-1 : (T)0; }
#define DEFINE_UNSIGNED(T)                                                                                 \
    static inline T sign_##T(T x) { return x > 0 ? (T)1 : (T)0; }
#define DEFINE_CLAMPS(T)                                                                                   \
    static inline T clip_##T(T x, T low, T high)                                                           \
    {                                                                                                      \
        return x != x ? min_##T(high, low) : min_##T(high, max_##T(low, x));                               \
    }                                                                                                      \
    static inline T clip1_##T(T x, T low, T high)                                                          \
    {                                                                                                      \
        return x != x ? max_##T(low, high) : max_##T(low, min_##T(x, high));                               \
    }                                                                                                      \
    static inline T threshold_##T(T x, T low) { return max_##T(x, low); }
DEFINE_SIGNED(char, uchar, uint)
DEFINE_SIGNED(short, ushort, uint)
DEFINE_SIGNED(int, uint, uint)
DEFINE_SIGNED(long, ulong, ulong)
DEFINE_UNSIGNED(uchar)
DEFINE_UNSIGNED(ushort)
DEFINE_UNSIGNED(uint)
DEFINE_UNSIGNED(ulong)
// CLIP_GRAD and CLIP_GRAD1, the clamps' gradients: 0 where x lies at or beyond a bound (the pages' inclusive
// comparisons), else the incoming gradient; a NaN x compares false, passing its gradient. dmlpy gives an integer
// tensor's FLOAT bound exactly: x <= Min is x <= floor(Min), x >= Max is x >= ceil(Max), and a bound beyond the
// type's range makes its comparison constant (0 or 1), never a saturated value that would compare wrongly at the edge.
#define AT_OR_BELOW(x, bound) ((x) <= (bound))
#define AT_OR_ABOVE(x, bound) ((x) >= (bound))
#define CLIP_GRAD(gradient, blocked) ((blocked) ? 0 : (gradient))
DEFINE_CLAMPS(float)
DEFINE_CLAMPS(char)
DEFINE_CLAMPS(uchar)
DEFINE_CLAMPS(short)
DEFINE_CLAMPS(ushort)
DEFINE_CLAMPS(int)
DEFINE_CLAMPS(uint)
DEFINE_CLAMPS(long)
DEFINE_CLAMPS(ulong)

// ---------------------------------------------------------------------------------- comparisons and logic
// The comparisons (LOGICAL_EQUALS ... LESS_THAN_OR_EQUAL) and LOGICAL_AND, OR, XOR, NOT (dmlpy/ops/element_wise_logical.py):
// 1 or 0, converted exactly to the output's type by the store. Two values of one type compare as C compares them,
// which for floats is IEEE 754's comparison: a NaN is unordered with everything, itself included, so it gives 0
// in all five (and 0 from EQUALS with itself); -0 equals +0. A half's value is exact in float, so the comparison
// is the halves'. The pages leave NaN undocumented; Direct3D's comparison instructions are IEEE 754's too.
// The logical operators read any nonzero element as true (XOR compares truths: 2 XOR 1 is 0).
#define LOGICAL_EQUALS(a, b) ((a) == (b) ? 1 : 0)
#define LOGICAL_GREATER_THAN(a, b) ((a) > (b) ? 1 : 0)
#define LOGICAL_LESS_THAN(a, b) ((a) < (b) ? 1 : 0)
#define LOGICAL_GREATER_THAN_OR_EQUAL(a, b) ((a) >= (b) ? 1 : 0)
#define LOGICAL_LESS_THAN_OR_EQUAL(a, b) ((a) <= (b) ? 1 : 0)
#define LOGICAL_AND(a, b) (((a) != 0 && (b) != 0) ? 1 : 0)
#define LOGICAL_OR(a, b) (((a) != 0 || (b) != 0) ? 1 : 0)
#define LOGICAL_XOR(a, b) ((((a) != 0) != ((b) != 0)) ? 1 : 0)
#define LOGICAL_NOT(x) ((x) == 0 ? 1 : 0)

// ---------------------------------------------------------------------------------------------- bits
// BIT_AND, BIT_OR, BIT_XOR, BIT_NOT, BIT_COUNT, BIT_SHIFT_LEFT, BIT_SHIFT_RIGHT (dmlpy/ops/element_wise_bits.py) on
// each element's encoding: alone, every tensor is bound as the unsigned integer of its width (a float's bits, NaN
// payloads and signalling NaNs included, FLOAT64 with no cl_khr_fp64); fused, an integer tensor's register holds
// the same bits. C's &, |, ^ and ~ act on those bits; bit_count_<U> counts them. A shift count of the element's width
// or more shifts every bit out, giving 0: the pages leave it undocumented, C leaves it undefined and OpenCL masks
// the count (D3D's shift instructions mask a 32-bit shift's count to 5 bits), while NumPy and ONNX's BitShift give
// 0, the value the shift means. The shifts are logical (the tables have unsigned types only).
#define BIT_AND(a, b) ((a) & (b))
#define BIT_OR(a, b) ((a) | (b))
#define BIT_XOR(a, b) ((a) ^ (b))
#define BIT_NOT(x) (~(x))
// BIT_COUNT counts in the element's unsigned type U, picked by its size (a signed register converted to U, which
// keeps its bits), not with popcount, a library call on PoCL that keeps the loop scalar (0.13x the copy kernel).
// The count is the parallel one (Hacker's Delight, 5-1), exact for every input: each pair of bits becomes its count
// (the pair 2a + b less a is a + b), pairs are added into 4-bit fields and those into bytes, each field wide enough
// for its sum (at most 2, 4, 8); the product with 0x0101.. sums every byte into the top one (at most 64, so no
// carry leaves a byte), shifted down. The masks are U's all-ones divided by 3, 5, 17 and 255: 0x55.., 0x33..,
// 0x0f.. and 0x01.. at every width.
#define DEFINE_BIT_COUNT(U)                                                                                \
    static inline uint bit_count_##U(U x)                                                                  \
    {                                                                                                      \
        const U ones = (U)~(U)0;                                                                           \
        const U pairs = (U)(x - ((x >> 1) & ones / 3));                                                    \
        const U nibbles = (U)((pairs & ones / 5) + ((pairs >> 2) & ones / 5));                             \
        const U bytes = (U)((nibbles + (nibbles >> 4)) & ones / 17);                                       \
        return (uint)((U)(bytes * (ones / 255)) >> (8 * sizeof(U) - 8));                                   \
    }
DEFINE_BIT_COUNT(uchar)
DEFINE_BIT_COUNT(ushort)
DEFINE_BIT_COUNT(uint)
DEFINE_BIT_COUNT(ulong)
#define BIT_COUNT(x)                                                                                       \
    (sizeof(x) == 1   ? bit_count_uchar((uchar)(x))                                                       \
     : sizeof(x) == 2 ? bit_count_ushort((ushort)(x))                                                     \
     : sizeof(x) == 4 ? bit_count_uint((uint)(x))                                                         \
                      : bit_count_ulong((ulong)(x)))
#define BIT_SHIFT_LEFT(a, b) ((b) < 8 * sizeof(a) ? (a) << (b) : 0)
#define BIT_SHIFT_RIGHT(a, b) ((b) < 8 * sizeof(a) ? (a) >> (b) : 0)

// ------------------------------------------------------------------------------- piecewise activations
// ACTIVATION_RELU, LEAKY_RELU, THRESHOLDED_RELU, LINEAR, HARD_SIGMOID, HARD_SWISH, SOFTSIGN, SHRINK, PARAMETERIZED_RELU
// and RELU_GRAD (dmlpy/ops/activation_piecewise.py): the pages' formulas step by step, each step rounded once (no fma,
// FP_CONTRACT off), MIN and MAX D3D's (a NaN operand gives the other). So RELU, max(0, x), gives +0 for -0 and for a
// NaN; HARD_SIGMOID, max(0, min(Alpha * x + Beta, 1)), gives 1 for a NaN; THRESHOLDED_RELU and RELU_GRAD compare
// strictly (a NaN fails, giving 0); LEAKY_RELU and PARAMETERIZED_RELU keep x where x >= 0 (-0 included) and scale
// the rest (a NaN too, a NaN back). Integer RELU and PARAMETERIZED_RELU (from FL 5_1) are exact in the type (the
// product wraps, as MULTIPLY's). SOFTSIGN is x / (1 + |x|): the sum and the quotient correctly rounded.
#define DEFINE_RELU(T)                                                                                     \
    static inline T relu_##T(T x) { return max_##T((T)0, x); }                                             \
    static inline T parameterized_relu_##T(T x, T slope) { return x >= (T)0 ? x : multiply_##T(slope, x); } \
    static inline T relu_grad_##T(T x, T gradient) { return x > (T)0 ? gradient : (T)0; }
DEFINE_RELU(float)
DEFINE_RELU(char)
DEFINE_RELU(short)
DEFINE_RELU(int)
static inline float leaky_relu_float(float x, float alpha) { return x >= 0.0f ? x : alpha * x; }
static inline float thresholded_relu_float(float x, float alpha) { return x > alpha ? x : 0.0f; }
static inline float linear_float(float x, float alpha, float beta) { return alpha * x + beta; }
static inline float hard_sigmoid_float(float x, float alpha, float beta)
{
    const float y = alpha * x + beta;
    return y != y ? 1.0f : max_float(0.0f, min_float(y, 1.0f));  // NaN before the clamp: see CLIP1's
}
static inline float hard_swish_float(float x, float alpha, float beta)
{
    return x * hard_sigmoid_float(x, alpha, beta);
}
static inline float softsign_float(float x) { return x / (1.0f + abs_float(x)); }
// SHRINK: x - Bias where x > Threshold, else x + Bias where x < -Threshold, else 0, in the page's order (a negative
// Threshold, where both hold, gives x - Bias; ONNX's Shrink tests x < -lambd first). Floats: IEEE 754's strict
// comparisons (a NaN x fails both, giving +0) and one correctly rounded sum (dmlpy writes -Threshold as its literal).
// FLOAT16 (shrink_to_half): the float sum rounded to nearest and then to half would be rounded twice, missing the
// nearest half where the first rounding lands on a tie between halves (x = 1, Bias = -(2^-11 + 2^-34) would give 1,
// not the nearest half 1.001: up to 0.5 + 2^-14 half ULP off). Rounded to odd instead, a float of 24 bits rounds
// correctly to half's 11 (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
// rounding to odd", 2008): Knuth's TwoSum gives the nearest sum's error exactly, and an inexact even sum steps one
// unit toward the exact value, to the odd neighbour on that side (an exact, odd, infinite or NaN sum is kept).
static inline float shrink_float(float x, float threshold, float negated_threshold, float bias)
{
    return x > threshold ? x - bias : x < negated_threshold ? x + bias : 0.0f;
}
static inline float sum_rounded_to_odd(float a, float b)
{
    const float sum = a + b;
    const float b_in_sum = sum - a;
    const float error = (a - (sum - b_in_sum)) + (b - b_in_sum);
    if (error == 0.0f || !isfinite(sum) || (as_uint(sum) & 1u) != 0u)
        return sum;
    return as_float((error > 0.0f) == (sum > 0.0f) ? as_uint(sum) + 1u : as_uint(sum) - 1u);
}
static inline float shrink_to_half(float x, float threshold, float negated_threshold, float bias)
{
    return x > threshold ? sum_rounded_to_odd(x, -bias) : x < negated_threshold ? sum_rounded_to_odd(x, bias) : 0.0f;
}
// Integer tensors (from FL 5_1): the pages leave the conversion of the FLOAT Bias and Threshold undocumented. dmlpy
// takes both as the real numbers they are: the comparisons are CLIP_GRAD's, exact (x > Threshold is
// !(x <= floor(Threshold)), a constant beyond the type's range; a NaN Threshold holds for no x), and the exact sum is
// converted as Direct3D converts a float to an integer, toward zero and saturated (a NaN to 0), the rule dmlpy gives
// CLIP's FLOAT bounds. With Bias = whole + fraction (whole toward zero, |fraction| < 1 with Bias's sign), x - Bias is
// d + pull with d = x - whole, an integer exact in long (dmlpy clamps whole to +-2^40, past which the result
// saturates either way), and pull = -fraction in (-1, 1): it truncates to d - 1 where d > 0 and pull < 0, to d + 1
// where d < 0 and pull > 0 (toward zero both), else to d; x + Bias likewise with d = x + whole, pull = fraction.
// fraction_sign is the fraction's sign (-1, 0, 1); a NaN Bias comes as the range [0, 0], its NaN sum's conversion.
// The saturation is two comparisons, not clamp, a library call on PoCL that keeps the loop scalar.
static inline long shrink_integer(long x, bool above, bool below, long whole, int fraction_sign, long lowest,
                                  long highest)
{
    const long d = above ? x - whole : x + whole;
    const int pull = above ? -fraction_sign : fraction_sign;  // the sign of what is added to d
    const long truncated = (pull < 0 && d > 0) ? d - 1 : (pull > 0 && d < 0) ? d + 1 : d;
    const long saturated = truncated < lowest ? lowest : truncated > highest ? highest : truncated;
    return (above || below) ? saturated : 0;
}

// --------------------------------------------------------------------------------- exponential activations
// ACTIVATION_ELU, CELU, SCALED_ELU, SIGMOID, TANH, SCALED_TANH, SOFTPLUS, PARAMETRIC_SOFTPLUS, GELU and SWISH
// (dmlpy/ops/activation_exponential.py): each page's formula on float_math.h's exp, expm1, log1p, tanh and erfc,
// in float, rewritten where the formula as written loses accuracy or overflows (the same function
// of exact numbers; the choices and each operator's ULP bound, propagated from the OpenCL bounds of the built-ins
// these functions replace, which they meet: docs/operators/activation_exponential.md):
// * exp(x) - 1 is expm1(x) (ELU, CELU, SCALED_ELU): exp(x) - 1 cancels near 0, where expm1 keeps its 3-ULP bound.
//   SCALED_ELU's Alpha * exp(x) - Alpha is Alpha * expm1(x).
// * SIGMOID, 1 / (1 + exp(-x)), takes e = exp(-|x|), never above 1, so nothing overflows: 1 / (1 + e) from 0,
//   e / (1 + e) below, whose subnormal results (x < -87.3) come from exp's own, not from 1 / (1 + inf).
// * SOFTPLUS and PARAMETRIC_SOFTPLUS's ln(1 + exp(t)) is max(t, 0) + log1p(exp(-|t|)): exp never overflows (its
//   argument is at most 0) and log1p keeps ln(1 + e) accurate where e is tiny (t well below 0). SOFTPLUS divides
//   max(t, 0) by Steepness before adding, as x itself where t > 0 (t / Steepness is x in exact arithmetic, for
//   either sign of Steepness), so an overflowing t = Steepness * x still gives x + 0; PARAMETRIC_SOFTPLUS gives
//   (Alpha * x) * Beta where t = Beta * x overflows to +inf (the log1p term is 0 there), which Alpha may bring back
//   into range.
// * A parameter that scales x (Steepness, Beta, SigmoidInputScale) rounds t unless it is a power of two, and exp
//   multiplies that rounding by |t| (up to 87 * 2^-24: 65 ULPs measured at Steepness 3). t_lo = fma(param, x, -t) is
//   the rounding, exactly (0 where t is infinite, where no rounding remains to correct), and
//   exp(s + d) = exp(s) * (1 + d) to first order: SOFTPLUS's e = exp(-|t|) becomes fma(e, -+t_lo, e), SWISH's
//   h = exp(t / 2) fma(h, t_lo / 2, h). |t_lo| <= 2^-24 |t| < 2^-16 wherever exp's result is nonzero, so the
//   second-order term, t_lo^2 / 2, is under 2^-33 relative; each fma adds one rounding, 2^-24 relative, to the bound.
// * GELU's 0.5 * x * (1 + erf(x / sqrt(2))) is x * (0.5 * erfc(-x / sqrt(2))), as 1 + erf(z) = erfc(-z): 1 + erf(z)
//   cancels for z below 0, where erfc keeps its 16-ULP bound. erfc(z) falls steeply (its relative slope is about
//   2z at z = 9), so z's own rounding would cost up to a hundred ULPs: z is the float z plus dz, the product's
//   rounding error (exact, by fma) and the rest of 1 / sqrt(2), and erfc(z + dz) is erfc(z) - 2 / sqrt(pi) *
//   exp(-z^2) * dz, the first-order term, as |dz| < 2^-23 |z| leaves the second below 2^-40 relative. Beyond
//   |z| = 16 erfc is 0 or 2 and the term is dropped, which also keeps infinities from making it NaN. 0.5 * erfc is
//   exact for a normal erfc (it is at most 2); where it underflows to 0 (x below about -14.1) the result is -0, the
//   product's sign, not -inf * 0.
// * SWISH is x * SIGMOID(t), t = SigmoidInputScale * x; below t = 0 it is (x * h) * h / (1 + h * h) with
//   h = exp(t / 2): SIGMOID's e^t is subnormal below t = -87.3, with a subnormal's few significant bits, which a
//   product with x (up to 2^128) would carry into a normal result; h stays normal down to t = -174, where x * e^t
//   underflows anyway. Where h is 0 the result is a zero of x's sign (not -inf * 0 for x = -inf).
// * SCALED_TANH is Alpha * tanh(Beta * x) with ELEMENT_WISE_TANH's TANH.
// Branches compare with x >= 0 (ELU, CELU) and x > 0 (SCALED_ELU) as the pages write; both keep -0 (ELU's x, or
// Alpha * expm1(-0) = -0 for positive Alpha), and CELU keeps x from 0 up for every nonzero Alpha, as its
// max(0, x) + min(0, Alpha * (exp(x / Alpha) - 1)) does (one of its terms is always 0). A NaN comes back a NaN from
// every one: each branch's arithmetic propagates it (IEEE 754 fixes no payload).
static inline float elu_float(float x, float alpha) { return x >= 0.0f ? x : alpha * expm1_float(x); }
static inline float celu_float(float x, float alpha) { return x >= 0.0f ? x : alpha * expm1_float(x / alpha); }
static inline float scaled_elu_float(float x, float alpha, float gamma)
{
    return x > 0.0f ? gamma * x : gamma * (alpha * expm1_float(x));
}
// e^-|x| by exp_of_nonpositive (exp_float's bits without its upper clamp); one division of the chosen numerator.
static inline float sigmoid_float(float x)
{
    const float e = exp_of_nonpositive(-abs_float(x));
    return (x >= 0.0f ? 1.0f : e) / (1.0f + e);
}
static inline float scaled_tanh_float(float x, float alpha, float beta) { return alpha * TANH(beta * x); }
static inline float product_rounding(float a, float b, float product)
{
    return (product == INFINITY || product == -INFINITY) ? 0.0f : FMA(a, b, -product);
}
static inline float log1p_exp_negative(float t, float t_lo)
{
    const float e = exp_float(-abs_float(t)); // e^-|t + t_lo| = e * (1 -+ t_lo) to first order
    return log1p_float(FMA(e, t > 0.0f ? -t_lo : t_lo, e));
}
static inline float softplus_float(float x, float steepness)
{
    const float t = steepness * x;
    const float t_lo = product_rounding(steepness, x, t);
    return (t > 0.0f ? x : 0.0f) + log1p_exp_negative(t, t_lo) / steepness;
}
static inline float parametric_softplus_float(float x, float alpha, float beta)
{
    const float t = beta * x;
    if (t == INFINITY)
        return (alpha * x) * beta;
    const float t_lo = product_rounding(beta, x, t);
    return alpha * ((t > 0.0f ? t : 0.0f) + log1p_exp_negative(t, t_lo));
}
#define SQRT1_2_REST 0x1.9fcef4p-27f // 1 / sqrt(2) - M_SQRT1_2_F, rounded
static inline float gelu_float(float x)
{
    const float z = -x * M_SQRT1_2_F;
    const float dz = FMA(-x, M_SQRT1_2_F, -z) - x * SQRT1_2_REST;
    const float slope_term = abs_float(z) < 16.0f ? M_2_SQRTPI_F * exp_float(-z * z) * dz : 0.0f;
    const float half_erfc = 0.5f * (erfc_float(z) - slope_term);
    return half_erfc == 0.0f ? -0.0f : x * half_erfc;
}
static inline float swish_float(float x, float sigmoid_input_scale)
{
    const float t = sigmoid_input_scale * x;
    if (t >= 0.0f || t != t)
        return x * sigmoid_float(t);
    const float h_of_rounded_t = exp_float(0.5f * t); // e^t = h * h
    const float h = FMA(h_of_rounded_t, 0.5f * product_rounding(sigmoid_input_scale, x, t), h_of_rounded_t);
    return h == 0.0f ? with_sign_of(0.0f, x) : ((x * h) * h) / (1.0f + h * h);
}

// ------------------------------------------------------------------------------------------------- powers
// POW and CONSTANT_POW (dmlpy/ops/element_wise_pow.py). Floats: float_pow.h's pow_float (plain arithmetic, the same
// bits on every device, 0.92 ULPs measured), or OpenCL's pown where the exponent is an integer tensor (ExponentTensor
// of another type, from DML_FEATURE_LEVEL_3_0), both C99 Annex F's special cases (pow(x, +-0) = 1 and pow(1, y) = 1
// even for a NaN; a negative base with a non-integral exponent NaN, as the pages say), pown within the OpenCL
// specification's 16 ULPs (FLOAT32_ULPS; docs/operators/element_wise_pow.md gives the errors measured). pown takes an int: a UINT32 exponent above INT_MAX becomes the largest int of its parity, which
// leaves every result unchanged (0, an infinity or +-1 by parity at such powers).
// Integers: exact, "when input and exponent are both integer types" (the page), by squaring in the unsigned type W,
// so each product wraps modulo 2^width as MULTIPLY's does. A negative exponent is 1 / x^n truncated toward zero, as
// integer DIVIDE truncates: 1 for x = 1, +-1 by parity for x = -1, 0 for |x| > 1, and for x = 0 the quotient of a
// zero divisor, all bits set (the rule of DIVIDE above; the page says nothing of it).
static inline int pown_exponent(long n) { return n > 0x7fffffffL ? 0x7ffffffe | (int)(n & 1L) : (int)n; }
#define DEFINE_POW(T, U, W, SIGNED)                                                                        \
    static inline T integer_pow_##T(T x, long n)                                                           \
    {                                                                                                      \
        if (n < 0L)                                                                                        \
            return x == (T)1                     ? (T)1                                                    \
                   : (SIGNED && x == (T)-1)      ? ((n & 1L) != 0L ? (T)-1 : (T)1)                         \
                   : x == (T)0                   ? as_##T((U)~(U)0)                                        \
                                                 : (T)0;                                                   \
        W result = 1u, square = (W)x;                                                                      \
        for (ulong e = (ulong)n; e != 0UL; e >>= 1) {                                                      \
            if ((e & 1UL) != 0UL)                                                                          \
                result *= square;                                                                          \
            square *= square;                                                                              \
        }                                                                                                  \
        return WRAPPED(T, U, W, result);                                                                   \
    }
DEFINE_POW(char, uchar, uint, 1)
DEFINE_POW(uchar, uchar, uint, 0)
DEFINE_POW(short, ushort, uint, 1)
DEFINE_POW(ushort, ushort, uint, 0)
DEFINE_POW(int, uint, uint, 1)
DEFINE_POW(uint, uint, uint, 0)

// ---------------------------------------------------------------------------------------------------- cast
// CAST (dmlpy/ops/cast.py) converts each element to OutputTensor's DataType. Microsoft's page documents no
// conversion rule; these are Direct3D's, which DirectML's HLSL shaders inherit (D3D11.3 functional spec, 3.9
// "Data conversion"), else IEEE 754's and C's (docs/operators/cast.md):
//   float to integer   toward zero; beyond the type's range, infinities included, saturated; NaN to 0 (D3D's
//                      ftoi/ftou). TO_INTEGER below, with FLOAT16 exact in float first.
//   integer to integer two's complement wrap modulo 2^width of the output, sign-extended from a signed input
//                      (C's conversion to an unsigned type, as HLSL's casts truncate bits).
//   to a float         to nearest, ties to even, overflow to infinity (IEEE 754's default; D3D's float32 to
//                      float16 rounds so too): convert_float_rte for integers (exact up to 2^24), the store's
//                      half_value for a FLOAT16 output. An integer is rounded once to float, and to half from that:
//                      innocuous, as an integer not exact in float (|x| > 2^24) is infinite in half either way.
//   float to float     widening exact; a NaN keeps its sign and payload's top bits, quieted (IEEE 754), but
//                      FLOAT16 to FLOAT32 keeps every NaN's bits, a signalling one signalling (the template loads a
//                      half through half_bits_to_float: 0x7d01 becomes 0x7fa02000).
// FLOAT64 has no register (double needs cl_khr_fp64, which no DirectML operator may ask of a device): a cast from
// or to FLOAT64 runs on the encodings, every tensor bound as the unsigned integer of its width, in the integer
// arithmetic of double_bits.h, exact on any device.
#define CAST_INTEGER(T, U, x) WRAPPED(T, U, U, x)

// ------------------------------------------------------------------------------------- special-value tests
// ELEMENT_WISE_IS_NAN and ELEMENT_WISE_IS_INFINITY (dmlpy/ops/element_wise_is.py): 1 where the float value
// passes, else 0, converted exactly to the output's integer type by the store. Comparisons only, exact for every
// input: IEEE 754 orders a NaN with nothing, itself included, so x != x holds for a NaN of any sign and payload,
// quiet or signalling (a half's NaN loads as a float NaN, half_bits.h), and for no number; no template program
// builds with -cl-finite-math-only or -cl-fast-relaxed-math, which would let the compiler fold it away. isnan
// and isinf are not used: on PoCL they are library calls that stop the vectoriser. A NaN equals no infinity, so
// the infinity tests give it 0. IS_INFINITY_<mode> is DML_IS_INFINITY_MODE's EITHER, POSITIVE or NEGATIVE.
#define IS_NAN(x) ((x) != (x) ? 1 : 0)
#define IS_INFINITY_EITHER(x) (((x) == INFINITY || (x) == -INFINITY) ? 1 : 0)
#define IS_INFINITY_POSITIVE(x) ((x) == INFINITY ? 1 : 0)
#define IS_INFINITY_NEGATIVE(x) ((x) == -INFINITY ? 1 : 0)

#ifdef ROUND_MODE
#ifndef ROUND_REAL_T
#define ROUND_REAL_T float
#endif
// nGraph's nine rounding modes, exact for every input (dmlpy's extensions, NOT DirectML), in the order of
// dmlpy.extensions.ExtRoundingMode:
//   0 NEAREST_TOWARD_INFINITY  1 NEAREST_TOWARD_ZERO  2 NEAREST_UPWARD  3 NEAREST_DOWNWARD
//   4 NEAREST_TOWARD_EVEN      5 TOWARD_INFINITY (directed, away from zero)  6 TOWARD_ZERO  7 UP  8 DOWN
// The construction (peers.md §7): a = |x|, t = trunc(a), f = a - t (never rounds); decide from f, the mode
// and the sign whether to step up to r = t + 1 (exact: f > 0 implies a is below 2^23, 2^52 for double); put the
// sign of x back by negating r where x < 0, which also gives the right signed zero: -0 for a negative x that
// rounds to 0, and for x = -0, which is not below 0, r = trunc(-0) = -0 itself. |x| is x < 0 ? -x : x likewise
// (-0 kept, harmless: trunc gives -0 and f is 0). Negation is exact. NaN and infinities fail every comparison
// (f is NaN for them) and come back unchanged: a NaN is never negated, trunc keeps its sign and payload.
// No x + 0.5, no magic constants, no integer casts.
// Every step is one a compiler vectorises (PoCL, 16M elements, FLOAT32 NEAREST_UPWARD: 1.0x the copy kernel,
// against 0.03x with fmod, 0.6x with signbit and 0.04x with fabs and copysign, library calls there): the sign
// test is x < 0 (or x > 0), not signbit(x), as it only decides where x is not a zero (f > 0, f == 0.5, or the
// negation, which leaves a zero's sign as trunc gave it); t is odd when t * 0.5 has a fraction (halving a whole
// number never rounds), not fmod(t, 2), a library call.
static inline ROUND_REAL_T round_in_mode(ROUND_REAL_T x)
{
    const ROUND_REAL_T a = x < 0 ? -x : x;
    const ROUND_REAL_T t = TRUNC(a);
    const ROUND_REAL_T f = a - t;
    const ROUND_REAL_T half_ = (ROUND_REAL_T)0.5;
#if ROUND_MODE == 0
    const bool up = f >= half_;
#elif ROUND_MODE == 1
    const bool up = f > half_;
#elif ROUND_MODE == 2
    const bool up = f > half_ || (f == half_ && x > 0);
#elif ROUND_MODE == 3
    const bool up = f > half_ || (f == half_ && x < 0);
#elif ROUND_MODE == 4
    const bool up = f > half_ || (f == half_ && t * half_ != TRUNC(t * half_));
#elif ROUND_MODE == 5
    const bool up = f > 0;
#elif ROUND_MODE == 6
    const bool up = false;
#elif ROUND_MODE == 7
    const bool up = f > 0 && x > 0;
#else
    const bool up = f > 0 && x < 0;
#endif
    const ROUND_REAL_T r = up ? t + 1 : t;
    return x < 0 ? -r : r;
}
#endif

// ------------------------------------------------------------------------------------------ linear maps
// DML_SCALE_BIAS, g(x) = x * Scale + Bias: the product rounded to float, then the sum; never one fma, so a
// FLOAT32 result equals NumPy's np.float32(x) * s + b.
static inline float scale_bias(float x, float scale, float bias)
{
    const float product = x * scale;
    return product + bias;
}

// BATCH_NORMALIZATION: scale * (x - mean) / sqrt(variance + epsilon) + bias, in the page's order of operations,
// each rounded to float (no fma: FP_CONTRACT OFF), division and sqrt correctly rounded (TEMPLATE_OPTIONS). Within
// 4 roundings of the float64 formula: docs/operators/normalization.md derives the bound the tests use.
static inline float batch_normalization(float x, float mean, float variance, float scale, float bias, float epsilon)
{
    const float scaled = scale * (x - mean);
    return scaled / sqrt(variance + epsilon) + bias;
}

// ELEMENT_WISE_DEQUANTIZE_LINEAR: (input - zero_point) * scale, in float. Exact up to the product for inputs of
// up to 16 bits: their difference fits a float's 24-bit significand.
static inline float dequantize(float x, float scale, float zero_point)
{
    return (x - zero_point) * scale;
}

// The same for 32-bit integer inputs: the difference exact in 64 bits, rounded once to float (ties to even),
// then the product. Through float the operands would round first: (23946213 - -2445234) * 0.28006872f is
// 7391418.5 that way, 7391419 (the exact product's nearest float) this way.
static inline float dequantize_wide(long difference, float scale)
{
    return (float)difference * scale;
}

// ELEMENT_WISE_QUANTIZE_LINEAR before rounding: input / scale. The division is a true one: the program is
// built with -cl-fp32-correctly-rounded-divide-sqrt. A half input's quotient is rounded to half first, which
// gives the correctly rounded half quotient (24 >= 2 * 11 + 2 bits, so the double rounding is innocuous).
static inline float quantize_quotient(float x, float scale, bool half_input)
{
    const float quotient = x / scale;
    return half_input ? half_value(quotient) : quotient;
}

// ELEMENT_WISE_QUANTIZE_LINEAR before saturation: rint(input / scale) + zero_point, halves to even as ONNX and
// WebNN specify.
static inline float quantize(float x, float scale, float zero_point, bool half_input)
{
    return RINT(quantize_quotient(x, scale, half_input)) + zero_point;
}

// ELEMENT_WISE_QUANTIZED_LINEAR_ADD is these helpers composed, no arithmetic of its own:
// saturate(quantize(dequantize(a) + dequantize(b), output scale, output zero point)). The page does not say how
// round() breaks ties; halves go to even, as QuantizeLinear's do and ONNX's QLinearAdd specifies.

// ------------------------------------------------------------------------------- float to integer
// A float to integer type T: truncation toward zero, saturation to T's range, NaN to 0 (Direct3D's float-to-integer
// rule; DirectML documents none for ScaleBias on integers), as comparisons and C's conversion, exact for every
// input. lowest is T's minimum and limit its maximum plus one (-2^(w-1) and 2^(w-1), or 0 and 2^w), exact floats,
// so each comparison is exact: v >= limit saturates to the maximum, v < lowest to the minimum, and every other
// non-NaN v lies in [lowest, limit), where C's conversion truncates toward zero into T's range (v in (lowest - 1,
// lowest), whose truncation is the minimum, takes the second test). The maximum is no threshold: INT_MAX as a float
// rounds to 2^31, out of range. Not convert_<T>_sat_rtz and isnan: on PoCL both are library calls that keep the
// loop scalar (CAST FLOAT32 to INT32 at 0.21x the copy kernel, to INT8 0.11x), and PoCL 3.0 (LLVM 14, the pyopencl
// wheels') returns T's minimum from convert_<T>_sat_rtz(NaN), and an arbitrary value when the NaN is a compile-time
// constant (Scale 0, Bias NaN).
#define DEFINE_TO_INTEGER(T, MINIMUM, MAXIMUM, LOWEST, LIMIT)                                              \
    static inline T float_to_##T(float v)                                                                  \
    {                                                                                                      \
        return v != v ? (T)0 : v >= LIMIT ? (T)MAXIMUM : v < LOWEST ? (T)MINIMUM : (T)v;                   \
    }
DEFINE_TO_INTEGER(char, CHAR_MIN, CHAR_MAX, -0x1p7f, 0x1p7f)
DEFINE_TO_INTEGER(uchar, 0, UCHAR_MAX, 0.0f, 0x1p8f)
DEFINE_TO_INTEGER(short, SHRT_MIN, SHRT_MAX, -0x1p15f, 0x1p15f)
DEFINE_TO_INTEGER(ushort, 0, USHRT_MAX, 0.0f, 0x1p16f)
DEFINE_TO_INTEGER(int, INT_MIN, INT_MAX, -0x1p31f, 0x1p31f)
DEFINE_TO_INTEGER(uint, 0, UINT_MAX, 0.0f, 0x1p32f)
DEFINE_TO_INTEGER(long, LONG_MIN, LONG_MAX, -0x1p63f, 0x1p63f)
DEFINE_TO_INTEGER(ulong, 0, ULONG_MAX, 0.0f, 0x1p64f)
#define TO_INTEGER(T, v) CONCAT(float_to_, T)(v)

// convert_uchar_sat and convert_char_sat of a whole number (a quantized value), exactly, and the same into the
// 4-bit ranges (QUANTIZE's INT4 and UINT4): NaN to 0, then a clamp into range. Written as comparisons and
// selects: PoCL's convert_*_sat are library calls that stop the vectoriser, and so, on the pyopencl wheels' PoCL
// here, were isnan, fmin and fmax (64M float32 -> int8 QuantizeLinear: 540 ms with them, 35 ms without).
#define SATURATE(v, low, high) ((v) >= (low) ? ((v) <= (high) ? (v) : (high)) : ((v) == (v) ? (low) : 0.0f))
static inline uchar saturate_uchar(float v)
{
    return (uchar)SATURATE(v, 0.0f, 255.0f);
}
static inline char saturate_char(float v)
{
    return (char)SATURATE(v, -128.0f, 127.0f);
}
static inline uchar saturate_uint4(float v)
{
    return (uchar)SATURATE(v, 0.0f, 15.0f);
}
static inline char saturate_int4(float v)
{
    return (char)SATURATE(v, -8.0f, 7.0f);
}

#endif
