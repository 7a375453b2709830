// block_copy.cl: a strided copy whose two innermost dimensions interleave BLOCK rows, walked so that every row is
// read or written contiguously (DEPTH_TO_SPACE and SPACE_TO_DEPTH; dmlpy/kernels/movement.py's block_layout).
//
// Over the copy's index space, the innermost dimension b (BLOCK elements, a compile-time 2 to 8) and the one
// before it, j, are laid out so that one tensor, the packed one, holds each j's BLOCK elements next to each other
// (strides j: BLOCK, b: 1) and the other holds BLOCK separate rows, `plane` elements apart (strides j: 1, b:
// plane):
//   PACKED_OUTPUT=1  the output is packed (DEPTH_TO_SPACE): BLOCK input rows interleaved into one output row
//   PACKED_OUTPUT=0  the input is packed (SPACE_TO_DEPTH): one input row dealt out to BLOCK output rows
// The element-wise template walks such a copy element by element along b, each step a jump of `plane` in the other
// tensor (a gather or a scatter its walk cannot vectorise: 0.3 to 0.5 of the copy kernel on 16M float32). Here a
// work-item takes ELEMENTS_PER_ITEM groups of BLOCK elements (one j each) and copies a row segment of groups with
// BLOCK contiguous streams in the other tensor, unrolled at the compile-time BLOCK, which compilers vectorise as
// interleaving shuffles.
//
// Elements move as the unsigned integer of their width (ELEMENT_T), so NaN payloads and -0 arrive unchanged.
// Arguments follow the element-wise convention (dmlpy/kernels/source.py) over the groups' index space, the
// dimensions before b (tensor 0 the input, tensor 1 the output; element_count counts groups), then `plane`. The
// "cpu" launch profile only: the "gpu" one keeps the template's copy, whose neighbouring work-items coalesce.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef BLOCK
#define BLOCK 2
#endif
#ifndef PACKED_OUTPUT
#define PACKED_OUTPUT 1
#endif
#ifndef RANK
#define RANK 1
#endif

#define TENSOR_COUNT 2
#include "elementwise_walk.h"
#include "span_copy.h"

#if GRID_STRIDE
#error "block_copy.cl runs under the cpu launch profile only (GRID_STRIDE=0)"
#endif

__kernel void block_copy(__global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,
                         __global ELEMENT_T *restrict tensor1, const ulong tensor1_offset, const ulong element_count,
                         const uint8 sizes, const uint8 strides0, const uint8 strides1, const ulong plane)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset};
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    const uint width = w.size[RANK - 1];
    for (;;) {
        // The groups from here to the end of this row of j (or of this work-item's share).
        const ulong count = min((ulong)width - w.coord[RANK - 1], w.end - w.element);
        __global const ELEMENT_T *from = tensor0 + w.at[0];
        __global ELEMENT_T *to = tensor1 + w.at[1];
#if PACKED_OUTPUT
        for (ulong k = 0; k < count; ++k) {
#pragma unroll
            for (int b = 0; b < BLOCK; ++b)
                to[k * BLOCK + b] = from[b * plane + k];
        }
#else
        // Each output row in turn: one contiguous write stream at a time (on PoCL 1.0 of the copy kernel, against
        // 0.7 for the k-outer order's BLOCK streams).
        ulong k = 0;
#if VECTOR_SPANS && BLOCK == 2
        // Lanes across work-items (Intel): eight groups a vload, dealt out by their even and odd lanes.
        for (; k + SPAN_LANES / 2 <= count; k += SPAN_LANES / 2) {
            const SPAN_VECTOR(ELEMENT_T, SPAN_LANES) v = SPAN_LOAD(SPAN_LANES)(0, from + 2 * k);
            SPAN_STORE(8)(v.even, 0, to + k);
            // The odd lanes named one by one: Oclgrind's uninitialised-values pass (at -cl-opt-disable) reports
            // `.odd` and odd swizzles of 8- and 16-bit vectors as uninitialised, though every lane was loaded.
            SPAN_STORE(8)((SPAN_VECTOR(ELEMENT_T, 8))(v.s1, v.s3, v.s5, v.s7, v.s9, v.sb, v.sd, v.sf), 0, to + plane + k);
        }
#endif
        for (int b = 0; b < BLOCK; ++b)
            for (ulong j = k; j < count; ++j)
                to[b * plane + j] = from[j * BLOCK + b];
#endif
        // To the row's last group, then one step on: the walk's odometer carries into the outer dimensions.
        w.element += count - 1;
        w.coord[RANK - 1] += count - 1;
        for (int t = 0; t < TENSOR_COUNT; ++t)
            w.at[t] += (count - 1) * w.stride[t][RANK - 1];
        if (!walk_advance(&w))
            return;
    }
}
