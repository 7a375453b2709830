// elementwise_walk.h: the strided walk shared by dmlpy's element-wise kernels.
//
// A work-item visits elements of a RANK-dimensional index space (last dimension fastest) one at a time, and
// keeps for each of TENSOR_COUNT tensors the element offset of the current element. Sizes and strides arrive
// as uint8 kernel arguments (dmlpy/kernels/source.py's convention); offsets are 64-bit so tensors of up to 2^32-1
// elements with large strides cannot overflow.
//
// Which elements a work-item visits is the launch profile's shape (dmlpy/kernels/launch.py, LaunchProfile):
//   GRID_STRIDE=0 (CPU devices)  ELEMENTS_PER_ITEM consecutive elements, stepping like an odometer: one long
//                                loop per work-item, which PoCL runs as plain (SIMD) code.
//   GRID_STRIDE=1 (GPUs)         elements g, g + G, g + 2G, ... for work-item g of a grid of G: neighbouring
//                                work-items touch neighbouring elements (coalesced access), and one launch of a
//                                grid that fills the device covers any element count.
// NIBBLE_PAIRS=1 (an output of 4-bit elements, two a byte): elements 2j and 2j + 1 go to one work-item, one
// after the other, so the two stores into one byte never race. The "cpu" shape has that already (its runs are
// ELEMENTS_PER_ITEM long, an even number); the "gpu" one steps by pairs: 2g, 2g + 1, 2g + 2G, 2g + 2G + 1, ...
// A kernel walks with: if (walk_begin(&w, ...)) do { ...w.at[t]... } while (walk_advance(&w));
//
// Packed tensors (each one contiguous run, or one value for every element) need no walk:
// FOR_EACH_PACKED(i, count) is the header of a plain loop over this work-item's elements i, in the same
// launch profile's shape. Compilers vectorise such loops where the walk's odometer defeats them (PoCL, 16M
// elements of the Round extension: 0.9-1.0x the copy kernel, against 0.01-0.2x through the walk).
#ifndef ELEMENTWISE_WALK_H
#define ELEMENTWISE_WALK_H

#ifndef TENSOR_COUNT
#error "define TENSOR_COUNT before including elementwise_walk.h"
#endif
#ifndef RANK
#define RANK 1
#endif
#ifndef GRID_STRIDE
#define GRID_STRIDE 0
#endif
#ifndef ELEMENTS_PER_ITEM
#define ELEMENTS_PER_ITEM 16
#endif
#ifndef NIBBLE_PAIRS
#define NIBBLE_PAIRS 0
#endif
#ifndef PACKED
#define PACKED 0  // set by lowering where every tensor is packed: the kernel loops with FOR_EACH_PACKED
#endif

#if GRID_STRIDE
#define FOR_EACH_PACKED(i, count) for (ulong i = get_global_id(0); i < (count); i += get_global_size(0))
#else
// 64-bit even where size_t is 32; a work-item past the end gets an empty range.
#define FOR_EACH_PACKED(i, count)                                                                          \
    for (ulong i = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM,                                            \
               i##_end = min(i + (ulong)ELEMENTS_PER_ITEM, (ulong)(count));                                \
         i < i##_end; ++i)
#endif

// PAIRED loops (elementwise.cl) count pairs of elements (2p, 2p + 1): FOR_EACH_PACKED_PAIR(p, pairs) visits
// this work-item's, ELEMENTS_PER_ITEM / 2 consecutive ones in the "cpu" shape, p = g, g + G, ... in the "gpu" one.
// OWNS_PACKED_PAIR(p): whether pair p is this work-item's (for an odd count's last element, alone in its pair).
#if GRID_STRIDE
#define FOR_EACH_PACKED_PAIR(p, pairs) for (ulong p = get_global_id(0); p < (pairs); p += get_global_size(0))
#define OWNS_PACKED_PAIR(p) ((p) % get_global_size(0) == get_global_id(0))
#else
#define FOR_EACH_PACKED_PAIR(p, pairs)                                                                     \
    for (ulong p = get_global_id(0) * (ulong)(ELEMENTS_PER_ITEM / 2),                                      \
               p##_end = min(p + (ulong)(ELEMENTS_PER_ITEM / 2), (ulong)(pairs));                          \
         p < p##_end; ++p)
#define OWNS_PACKED_PAIR(p) ((p) / (ELEMENTS_PER_ITEM / 2) == get_global_id(0))
#endif

typedef struct {
    uint size[8];
    uint stride[TENSOR_COUNT][8];
    ulong base[TENSOR_COUNT];
    ulong coord[RANK];
    ulong at[TENSOR_COUNT];
    ulong element, end;
} walk_t;

// Position the walk on `element`: its coordinates and its offset in each tensor.
static inline void walk_seek(walk_t *w, ulong element)
{
    for (int t = 0; t < TENSOR_COUNT; ++t)
        w->at[t] = w->base[t];
#if RANK == 1
    w->coord[0] = element;  // element < size[0]: no division
    for (int t = 0; t < TENSOR_COUNT; ++t)
        w->at[t] += element * w->stride[t][0];
#else
    ulong rest = element;
    for (int d = RANK - 1; d >= 0; --d) {
        // 32-bit division where the index fits: GPUs emulate the 64-bit one in dozens of instructions.
        const ulong coord = rest <= UINT_MAX ? (uint)rest % w->size[d] : rest % w->size[d];
        rest = rest <= UINT_MAX ? (uint)rest / w->size[d] : rest / w->size[d];
        w->coord[d] = coord;
        for (int t = 0; t < TENSOR_COUNT; ++t)
            w->at[t] += coord * w->stride[t][d];
    }
#endif
}

// Position the walk on `first`, keeping the sizes, strides and offsets for later steps.
static inline void walk_start(walk_t *w, ulong first, uint8 sizes, const uint8 *strides, const ulong *offsets)
{
    vstore8(sizes, 0, w->size);
    for (int t = 0; t < TENSOR_COUNT; ++t) {
        vstore8(strides[t], 0, w->stride[t]);
        w->base[t] = offsets[t];
    }
    walk_seek(w, first);
}

// Step to the next element like an odometer: the last coordinate moves and carries into earlier ones.
static inline void walk_next(walk_t *w)
{
    for (int d = RANK - 1; d >= 0; --d) {
        for (int t = 0; t < TENSOR_COUNT; ++t)
            w->at[t] += w->stride[t][d];
        if (++w->coord[d] < w->size[d])
            return;
        for (int t = 0; t < TENSOR_COUNT; ++t)
            w->at[t] -= (ulong)w->size[d] * w->stride[t][d];
        w->coord[d] = 0;
    }
}

// This work-item's first element (false when it has none).
static inline bool walk_begin(walk_t *w, ulong element_count, uint8 sizes, const uint8 *strides, const ulong *offsets)
{
#if GRID_STRIDE
    w->element = get_global_id(0) * (ulong)(NIBBLE_PAIRS + 1);
    w->end = element_count;
#else
    w->element = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM;  // 64-bit even where size_t is 32
    w->end = min(w->element + (ulong)ELEMENTS_PER_ITEM, element_count);
#endif
    if (w->element >= w->end)
        return false;
    walk_start(w, w->element, sizes, strides, offsets);
    return true;
}

// This work-item's next element (false after its last).
static inline bool walk_advance(walk_t *w)
{
#if GRID_STRIDE
#if NIBBLE_PAIRS
    if ((w->element & 1) == 0) {  // the pair's second element
        if (++w->element >= w->end)
            return false;
        walk_next(w);
        return true;
    }
    w->element += 2 * (ulong)get_global_size(0) - 1;
#else
    w->element += get_global_size(0);
#endif
    if (w->element >= w->end)
        return false;
    walk_seek(w, w->element);
#else
    if (++w->element >= w->end)
        return false;
    walk_next(w);
#endif
    return true;
}

#endif
