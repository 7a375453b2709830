// DMLPY_EXT_ELEMENT_WISE_ROUND: a dmlpy extension, NOT DirectML. Round in any of nGraph's nine modes.
//
// Specialised with -D options (defaults below let the file compile on its own):
//   STORAGE      1 float, 2 half (vload_half/vstore_half, computed in float), 3 double (cl_khr_fp64),
//                4 bfloat16 (a ushort holding float's top 16 bits, computed in float),
//                5 integer (returned unchanged, as OpenVINO Round-5 specifies; ELEMENT_T names the type)
//   ROUND_MODE   0..8, nGraph's modes in the order of elementwise_ops.h's round_in_mode, the exact construction
//   PACKED=1     both tensors are one contiguous run: a plain loop, which compilers vectorise (round_in_mode)
//   RANK, GRID_STRIDE, ELEMENTS_PER_ITEM   otherwise the strided walk; the launch profile (elementwise_walk.h)
//   DML_KEEP_NAN_BITS    as in element_wise_round.cl: 1 copies a NaN's bits (quieted); 0 on PoCL
//   DML_HALF_BITS=1      half tensors converted through integer bits (half_bits.h; dmlpy sets it on PoCL)

#ifndef STORAGE
#define STORAGE 1
#endif
#ifndef ROUND_MODE
#define ROUND_MODE 4
#endif
#ifndef ELEMENT_T
#define ELEMENT_T int
#endif
#ifndef DML_HALF_BITS
#define DML_HALF_BITS 0
#endif
#define TENSOR_COUNT 2
#include "elementwise_walk.h"

#if STORAGE == 3
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define ROUND_REAL_T double
typedef double storage_t;
typedef ulong raw_t;
#define QUIET_BIT 0x0008000000000000ul
#define LOAD(i, p) ((p)[i])
#define STORE(v, i, p) ((p)[i] = (v))
#elif STORAGE == 2
typedef half storage_t;
typedef ushort raw_t;
#define QUIET_BIT 0x0200u
#if DML_HALF_BITS
#include "half_bits.h"
#define LOAD(i, p) half_bits_to_float(((__global const ushort *)(p))[i])
// Every rounded half is a half: its bits need no rounding.
#define STORE(v, i, p) (((__global ushort *)(p))[i] = half_value_bits(v))
#else
#include "half_store.h"
#define LOAD(i, p) vload_half((i), (p))
#define STORE(v, i, p) store_half((v), (i), (p))
#endif
#elif STORAGE == 4
typedef ushort storage_t;
typedef ushort raw_t;
#define QUIET_BIT 0x0040u
#define LOAD(i, p) as_float((uint)(p)[i] << 16)
// Every rounded bfloat16 is an integer a bfloat16 can hold (or the input itself), so dropping the low 16
// bits of the float is exact; NaN keeps its sign and the payload's top bits.
#define STORE(v, i, p) ((p)[i] = (ushort)(as_uint(v) >> 16))
#elif STORAGE == 1
typedef float storage_t;
typedef uint raw_t;
#define QUIET_BIT 0x00400000u
#define LOAD(i, p) ((p)[i])
#define STORE(v, i, p) ((p)[i] = (v))
#else
typedef ELEMENT_T storage_t;
#endif
#include "elementwise_ops.h"

// input[from] rounded into output[to].
static inline void round_element(__global const storage_t *input, ulong from, __global storage_t *output, ulong to)
{
#if STORAGE == 5
    output[to] = input[from];
#else
    const ROUND_REAL_T x = LOAD(from, input);
    // NaN in, the same NaN out, quieted (element_wise_round.cl says why: NVIDIA canonicalises NaN). As raw bits
    // for every storage, not KEEP_NAN's float: a double NaN is no float's bits, and NVIDIA's vload_half loses a
    // half NaN's payload.
    if (DML_KEEP_NAN_BITS && isnan(x))
        ((__global raw_t *)output)[to] = QUIET_NAN_BITS(((__global const raw_t *)input)[from], QUIET_BIT);
    else
        STORE(round_in_mode(x), to, output);
#endif
}

__kernel void ext_round(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                        ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                        uint8 output_strides)
{
#if PACKED
    FOR_EACH_PACKED(i, element_count)
        round_element(input, input_offset + i, output, output_offset + i);
#else
    const uint8 strides[TENSOR_COUNT] = {input_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, output_offset};
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
        round_element(input, w.at[0], output, w.at[1]);
    } while (walk_advance(&w));
#endif
}
