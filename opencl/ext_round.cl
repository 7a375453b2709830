// DMLPY_EXT_ELEMENT_WISE_ROUND: a dmlpy extension, NOT DirectML. Round in any of nGraph's nine modes.
//
// Specialised with -D options (defaults below let the file compile on its own):
//   STORAGE      1 float, 2 half (vload_half/vstore_half, computed in float), 3 double (cl_khr_fp64),
//                4 bfloat16 (a ushort holding float's top 16 bits, computed in float),
//                5 integer (returned unchanged, as OpenVINO Round-5 specifies; ELEMENT_T names the type)
//   MODE         0 NEAREST_TOWARD_INFINITY  1 NEAREST_TOWARD_ZERO  2 NEAREST_UPWARD  3 NEAREST_DOWNWARD
//                4 NEAREST_TOWARD_EVEN      5 TOWARD_INFINITY (directed, away from zero)
//                6 TOWARD_ZERO  7 UP (ceil)  8 DOWN (floor)
//   RANK, ELEMENTS_PER_ITEM   the strided walk (elementwise_walk.h)
//
// The exact construction (peers.md §7): a = |x|, t = trunc(a), f = a - t (never rounds); decide from f, the
// mode and the sign whether to step up to t + 1 (exact: f > 0 implies a is below 2^23, 2^52 for double); put
// the sign of x back with copysign, which also gives the right signed zero. NaN and infinities fail every
// comparison (f is NaN for them) and come back unchanged. No x + 0.5, no magic constants, no integer casts.

#ifndef STORAGE
#define STORAGE 1
#endif
#ifndef MODE
#define MODE 4
#endif
#ifndef ELEMENT_T
#define ELEMENT_T int
#endif
#ifndef ELEMENTS_PER_ITEM
#define ELEMENTS_PER_ITEM 16
#endif

#define TENSOR_COUNT 2
#include "elementwise_walk.h"

#if STORAGE == 3
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
typedef double storage_t;
#define LOAD(i, p) ((p)[i])
#define STORE(v, i, p) ((p)[i] = (v))
#elif STORAGE == 2
typedef float real_t;
typedef half storage_t;
#define LOAD(i, p) vload_half((i), (p))
#define STORE(v, i, p) vstore_half((v), (i), (p))
#elif STORAGE == 4
typedef float real_t;
typedef ushort storage_t;
#define LOAD(i, p) as_float((uint)(p)[i] << 16)
// Every rounded bfloat16 is an integer a bfloat16 can hold (or the input itself), so dropping the low 16
// bits of the float is exact; NaN keeps its sign and the payload's top bits.
#define STORE(v, i, p) ((p)[i] = (ushort)(as_uint(v) >> 16))
#elif STORAGE == 1
typedef float real_t;
typedef float storage_t;
#define LOAD(i, p) ((p)[i])
#define STORE(v, i, p) ((p)[i] = (v))
#else
typedef ELEMENT_T storage_t;
#endif

#if STORAGE != 5
inline real_t round_in_mode(real_t x)
{
    const real_t a = fabs(x);
    const real_t t = trunc(a);
    const real_t f = a - t;
    const real_t half_ = (real_t)0.5;
#if MODE == 0
    const bool up = f >= half_;
#elif MODE == 1
    const bool up = f > half_;
#elif MODE == 2
    const bool up = f > half_ || (f == half_ && !signbit(x));
#elif MODE == 3
    const bool up = f > half_ || (f == half_ && signbit(x));
#elif MODE == 4
    const bool up = f > half_ || (f == half_ && fmod(t, (real_t)2) != 0);
#elif MODE == 5
    const bool up = f > 0;
#elif MODE == 6
    const bool up = false;
#elif MODE == 7
    const bool up = f > 0 && !signbit(x);
#else
    const bool up = f > 0 && signbit(x);
#endif
    return copysign(up ? t + 1 : t, x);
}
#endif

__kernel void ext_round(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                        ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                        uint8 output_strides)
{
    const ulong first = get_global_id(0) * ELEMENTS_PER_ITEM;
    if (first >= element_count)
        return;
    const ulong end = min(first + (ulong)ELEMENTS_PER_ITEM, element_count);
    const uint8 strides[TENSOR_COUNT] = {input_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, output_offset};
    walk_t w;
    walk_start(&w, first, sizes, strides, offsets);
    for (ulong i = first; i < end; ++i) {
#if STORAGE == 5
        output[w.at[1]] = input[w.at[0]];
#else
        STORE(round_in_mode(LOAD(w.at[0], input)), w.at[1], output);
#endif
        walk_next(&w);
    }
}
