// indexing.cl: DirectML's operators whose elements move to or from places an index tensor names
// (dmlpy/ops/gather.py, scatter.py; lowered by dmlpy/kernels/indexing.py):
//   gather   GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1: target[e] = source[view(e) + indexed(e)]
//   scatter  SCATTER_ELEMENTS, SCATTER_ND (after a copy of InputTensor into OutputTensor):
//            target[view(e) + indexed(e)] = source[e]
//   one_hot  ONE_HOT: target[e] = e's coordinate along Axis == the index ? OnValue : OffValue
//
// Every one walks an index space (elementwise_walk.h) over three tensors bound in the element-wise argument
// convention: 0 the source (InputTensor, or SCATTER's UpdatesTensor, or ONE_HOT's ValuesTensor), 1 IndicesTensor, 2
// the target. Each tensor's strides are its VIEW of that space, made by lowering: a gather's output space steps the
// input along every dimension an index does not choose (0 along the chosen ones) and the indices along those an
// index comes from, so one walk serves Gather's, GatherElements' and GatherND's different shape rules alike. The
// chosen dimensions are then added per element: TUPLE indices, read `tuple_stride` apart (GatherND's index tuple; 1
// for the others), index t choosing along a dimension of `axis_sizes[t]` elements, `axis_strides[t]` apart.
//
// An index below 0 counts from the end of its dimension (signed INDEX_T, from DML_FEATURE_LEVEL_3_0). One still
// outside the dimension: a gather reads the nearest element (GATHER's page: "reads are clamped inside the input
// buffer"; the others' pages are silent, and dmlpy does the same); a scatter writes nothing for it (no page says,
// and a write outside OutputTensor would corrupt other memory); ONE_HOT's sequence is all OffValue (its page).
// Elements move as the unsigned integer of their width (ELEMENT_T), so every encoding arrives unchanged.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef INDEX_T
#define INDEX_T uint
#endif
#ifndef INDEX_SIGNED
#define INDEX_SIGNED 0
#endif
#ifndef TUPLE
#define TUPLE 1
#endif

#define TENSOR_COUNT 3
#include "elementwise_walk.h"

// Index `raw` along a dimension of `size` elements, a negative one from the end; -1 where it is still outside.
static inline long resolved(INDEX_T raw, uint size)
{
#if INDEX_SIGNED
    const long index = (long)raw < 0 ? (long)raw + size : (long)raw;
    return index >= 0 && index < size ? index : -1;
#else
    return (ulong)raw < size ? (long)raw : -1;
#endif
}

// The element offset the TUPLE indices at `at` choose, each resolved; `inside` false when one is outside its
// dimension, where the offset holds the nearest element's.
static inline ulong chosen(__global const INDEX_T *indices, ulong at, ulong tuple_stride, const uint *axis_sizes,
                           const uint *axis_strides, bool *inside)
{
    ulong offset = 0;
    *inside = true;
    for (int t = 0; t < TUPLE; ++t) {
        const INDEX_T raw = indices[at + t * tuple_stride];
        long index = resolved(raw, axis_sizes[t]);
        if (index < 0) {
            *inside = false;
#if INDEX_SIGNED
            index = (long)raw < 0 ? 0 : (long)axis_sizes[t] - 1;
#else
            index = (long)axis_sizes[t] - 1;
#endif
        }
        offset += (ulong)index * axis_strides[t];
    }
    return offset;
}

#define WALK_ARGUMENTS                                                                                             \
    __global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,                                        \
        __global const INDEX_T *restrict tensor1, const ulong tensor1_offset,                                      \
        __global ELEMENT_T *restrict tensor2, const ulong tensor2_offset, const ulong element_count,                 \
        const uint8 sizes, const uint8 strides0, const uint8 strides1, const uint8 strides2

#define WALK_BEGIN                                                                                                 \
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1, strides2};                                            \
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset, tensor2_offset};                          \
    walk_t w;                                                                                                      \
    if (!walk_begin(&w, element_count, sizes, strides, offsets))                                                   \
        return;

// A gather's and a scatter's parameters after the walk's: the chosen dimensions' sizes and strides, the tuple's step.
#define CHOSEN_ARGUMENTS const uint8 axis_size_vector, const uint8 axis_stride_vector, const ulong tuple_stride

// The walk of a gather or a scatter: `offset` the element offset the element's indices choose, `inside` whether
// they all lie inside their dimensions; `move` the one statement that differs.
#define INDEXED_WALK(move)                                                                                         \
    uint axis_sizes[8], axis_strides[8];                                                                           \
    vstore8(axis_size_vector, 0, axis_sizes);                                                                      \
    vstore8(axis_stride_vector, 0, axis_strides);                                                                  \
    WALK_BEGIN                                                                                                     \
    do {                                                                                                           \
        bool inside;                                                                                               \
        const ulong offset = chosen(tensor1, w.at[1], tuple_stride, axis_sizes, axis_strides, &inside);             \
        move;                                                                                                      \
    } while (walk_advance(&w));

__kernel void gather(WALK_ARGUMENTS, CHOSEN_ARGUMENTS)
{
    INDEXED_WALK(tensor2[w.at[2]] = tensor0[w.at[0] + offset])
}

__kernel void scatter(WALK_ARGUMENTS, CHOSEN_ARGUMENTS)
{
    INDEXED_WALK(if (inside) tensor2[w.at[2] + offset] = tensor0[w.at[0]])
}

// ONE_HOT: `axis` is the output dimension of the sequences (the walk is not coalesced, so it is the tensor's own),
// OffValue the source's element at its offset, OnValue the one `on_offset` elements further.
__kernel void one_hot(WALK_ARGUMENTS, const uint8 axis_and_size, const ulong on_offset)
{
    const uint axis = axis_and_size.s0, axis_size = axis_and_size.s1;
    WALK_BEGIN
    do {
        const long index = resolved(tensor1[w.at[1]], axis_size);
        tensor2[w.at[2]] = tensor0[w.at[0] + (index == (long)w.coord[axis] ? on_offset : 0)];
    } while (walk_advance(&w));
}
