// top_k.cl: DirectML's TOP_K and TOP_K1 (dmlpy/ops/top_k.py; laid out by dmlpy/kernels/reduction.py): the K
// largest (LARGEST 1: TOP_K, TOP_K1 DECREASING) or smallest (LARGEST 0: TOP_K1 INCREASING) elements of each
// sequence along Axis, sorted, into OutputValueTensor, and their indices within the sequence into
// OutputIndexTensor. One work-item per sequence (reduction_walk.h, REDUCTION_TENSORS 3: the input, the values,
// the indices; the reduced part is the one Axis, REDUCED_RANK 1). K is the kernel's last argument, so every K
// shares one program.
//
// Values are only moved, never computed: every tensor is bound as the unsigned integer of its width (BITS_T), so
// NaN payloads and -0 come out exactly as they went in. Elements are compared through a key (key_of), an unsigned
// integer whose order is the values' order (ORDER: 0 unsigned, 1 signed, 2 IEEE float of WIDTH bits):
//   unsigned   the bits themselves
//   signed     the bits with the sign bit flipped (two's complement's order shifted to start at 0)
//   float      positive values with the sign bit set, negative ones complemented (sign-magnitude turned into one
//              increasing scale), -0 given +0's key and every NaN the largest key: -0 and +0 are equal, and NaN is
//              above +inf and equal to every other NaN. That is onnx.reference's TopK, which sorts with np.lexsort
//              (NaN last, -0 == +0): NaNs are the first selected by LARGEST, the last by smallest.
// Equal keys keep ascending index order whatever the direction (the pages: "always listed by ascending index"):
// the sequence is scanned by ascending index and an element moves above a held one only when strictly better.
//
// The selection is an insertion into the outputs themselves: the K best so far, sorted, held in the output's K
// places; an element better than the worst held enters by shifting the worse ones down one place. The worst
// held key is kept in a register, so an element that does not enter costs one comparison: O(N) reads for a
// sequence of N, plus O(K) moves per element that enters (O(N K) at worst: an input sorted the wrong way round).

#include "reduction_walk.h"

#ifndef LARGEST
#error "define LARGEST: 1 selects the largest, sorted descending; 0 the smallest, sorted ascending"
#endif

#define KEY_SIGN ((BITS_T)((BITS_T)1 << (WIDTH - 1)))
#define KEY_ALL_ONES ((BITS_T)~(BITS_T)0)

static inline BITS_T key_of(BITS_T bits)
{
#if ORDER == 0
    return bits;
#elif ORDER == 1
    return (BITS_T)(bits ^ KEY_SIGN);
#else
    const BITS_T magnitude = (BITS_T)(bits & (BITS_T)(KEY_SIGN - 1));
    if (magnitude > (BITS_T)INFINITY_BITS) {
        return KEY_ALL_ONES;  // every NaN, whatever its sign and payload
    }
    if (magnitude == 0) {
        return KEY_SIGN;  // -0 as +0
    }
    return (bits & KEY_SIGN) ? (BITS_T)~bits : (BITS_T)(bits | KEY_SIGN);
#endif
}

#if LARGEST
#define BETTER(key, than) ((key) > (than))
#else
#define BETTER(key, than) ((key) < (than))
#endif

__kernel void top_k(__global const BITS_T *input, ulong input_offset, __global BITS_T *values, ulong values_offset,
                    __global INDEX_T *indices, ulong indices_offset, ulong element_count, uint8 sizes,
                    uint8 input_strides, uint8 values_strides, uint8 indices_strides, ulong k)
{
    const uint8 strides[3] = {input_strides, values_strides, indices_strides};
    const ulong offsets[3] = {input_offset, values_offset, indices_offset};
    Groups g;
    groups_of(&g, element_count, sizes, strides, offsets);
    FOR_EACH_GROUP(group, g)
    {
        Cursor cursor;
        group_start(&cursor, &g, group);
        // The outputs' first places and their steps along Axis (the cursor walks the input's N places; the outputs
        // hold only K, reached from here).
        const ulong value_at = cursor.at[1], value_step = g.stride[1][KEPT_RANK];
        const ulong index_at = cursor.at[2], index_step = g.stride[2][KEPT_RANK];
        ulong held = 0;
        BITS_T worst = 0;  // the key of the last held value, once K are held
        for (ulong i = 0; i < g.length; ++i, cursor_next(&cursor, &g)) {
            const BITS_T x = input[cursor.at[0]];
            const BITS_T key = key_of(x);
            if (held == k && !BETTER(key, worst)) {
                continue;
            }
            ulong place = held;
            if (held < k) {
                ++held;
            } else {
                place = k - 1;  // the worst held value drops out
            }
            for (; place > 0; --place) {
                const BITS_T above = values[value_at + (place - 1) * value_step];
                if (!BETTER(key, key_of(above))) {
                    break;  // equal keys stay in index order: the earlier one above
                }
                values[value_at + place * value_step] = above;
                indices[index_at + place * index_step] = indices[index_at + (place - 1) * index_step];
            }
            values[value_at + place * value_step] = x;
            indices[index_at + place * index_step] = (INDEX_T)i;
            worst = key_of(values[value_at + (held - 1) * value_step]);
        }
    }
}
