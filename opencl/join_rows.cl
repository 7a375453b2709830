// join_rows.cl: JOIN along an inner axis in one launch, each output row written whole, part after part
// (dmlpy/kernels/movement.py's joined_rows).
//
// Over the dimensions before Axis (the rows), every part holds its share of a row as one contiguous run of
// lengths[k] elements (its Axis and the dimensions after it, packed), and the output holds the parts' runs one
// after the other, also contiguous. A work-item copies ELEMENTS_PER_ITEM whole rows, each as PARTS runs
// (span_copy.h's copy_run, in the shape the runtime's compiler vectorises). One copy per part instead (the element-wise template's, as JOIN along an outer axis
// runs) writes every output row in PARTS separate launches, each a short run with gaps between: 0.4 to 0.7 of the
// copy kernel on 16M float32 joined along W from two halves.
//
// Elements move as the unsigned integer of their width (ELEMENT_T), so NaN payloads and -0 arrive unchanged.
// Arguments follow the element-wise convention (dmlpy/kernels/source.py) over the rows' index space: tensors
// 0 to PARTS - 1 the parts, tensor PARTS the output; then the parts' run lengths. The "cpu" launch profile only:
// the "gpu" one keeps a copy per part, whose neighbouring work-items coalesce.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef PARTS
#define PARTS 2
#endif
#if PARTS < 2 || PARTS > 7
#error "join_rows.cl joins 2 to 7 parts (8 tensors with the output)"
#endif

#define TENSOR_COUNT (PARTS + 1)
#include "elementwise_walk.h"
#include "span_copy.h"

#if GRID_STRIDE
#error "join_rows.cl runs under the cpu launch profile only (GRID_STRIDE=0)"
#endif

#define PART(k) , __global const ELEMENT_T *restrict tensor##k, const ulong tensor##k##_offset
#define STRIDES(k) , const uint8 strides##k

__kernel void join_rows(__global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset PART(1)
#if PARTS > 2
                        PART(2)
#endif
#if PARTS > 3
                        PART(3)
#endif
#if PARTS > 4
                        PART(4)
#endif
#if PARTS > 5
                        PART(5)
#endif
#if PARTS > 6
                        PART(6)
#endif
                        , __global ELEMENT_T *restrict output, const ulong output_offset, const ulong element_count,
                        const uint8 sizes, const uint8 strides0 STRIDES(1)
#if PARTS > 2
                        STRIDES(2)
#endif
#if PARTS > 3
                        STRIDES(3)
#endif
#if PARTS > 4
                        STRIDES(4)
#endif
#if PARTS > 5
                        STRIDES(5)
#endif
#if PARTS > 6
                        STRIDES(6)
#endif
                        , const uint8 output_strides, const uint8 part_lengths)
{
    __global const ELEMENT_T *parts[PARTS] = {tensor0, tensor1
#if PARTS > 2
                                              , tensor2
#endif
#if PARTS > 3
                                              , tensor3
#endif
#if PARTS > 4
                                              , tensor4
#endif
#if PARTS > 5
                                              , tensor5
#endif
#if PARTS > 6
                                              , tensor6
#endif
    };
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1
#if PARTS > 2
                                         , strides2
#endif
#if PARTS > 3
                                         , strides3
#endif
#if PARTS > 4
                                         , strides4
#endif
#if PARTS > 5
                                         , strides5
#endif
#if PARTS > 6
                                         , strides6
#endif
                                         , output_strides};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset
#if PARTS > 2
                                         , tensor2_offset
#endif
#if PARTS > 3
                                         , tensor3_offset
#endif
#if PARTS > 4
                                         , tensor4_offset
#endif
#if PARTS > 5
                                         , tensor5_offset
#endif
#if PARTS > 6
                                         , tensor6_offset
#endif
                                         , output_offset};
    uint lengths[8];
    vstore8(part_lengths, 0, lengths);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        __global ELEMENT_T *to = output + w.at[PARTS];
#pragma unroll
        for (int k = 0; k < PARTS; ++k) {
            copy_run(parts[k] + w.at[k], to, lengths[k]);
            to += lengths[k];
        }
    } while (walk_advance(&w));
}
