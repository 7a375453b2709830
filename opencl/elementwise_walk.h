// elementwise_walk.h: the strided walk shared by dmlpy's element-wise kernels.
//
// A work-item visits elements [first, end) of a RANK-dimensional index space, last dimension fastest, and
// keeps for each of TENSOR_COUNT tensors the element offset of the current element. Sizes and strides arrive
// as uint8 kernel arguments (dmlpy/codegen.py's convention); offsets are 64-bit so tensors of up to 2^32-1
// elements with large strides cannot overflow.
#ifndef ELEMENTWISE_WALK_H
#define ELEMENTWISE_WALK_H

#ifndef TENSOR_COUNT
#error "define TENSOR_COUNT before including elementwise_walk.h"
#endif
#ifndef RANK
#define RANK 1
#endif

typedef struct {
    uint size[8];
    uint stride[TENSOR_COUNT][8];
    ulong coord[RANK];
    ulong at[TENSOR_COUNT];
} walk_t;

// Position the walk on element `first`.
inline void walk_start(walk_t *w, ulong first, uint8 sizes, const uint8 *strides, const ulong *offsets)
{
    vstore8(sizes, 0, w->size);
    for (int t = 0; t < TENSOR_COUNT; ++t) {
        vstore8(strides[t], 0, w->stride[t]);
        w->at[t] = offsets[t];
    }
    ulong rest = first;
    for (int d = RANK - 1; d >= 0; --d) {
        w->coord[d] = rest % w->size[d];
        rest /= w->size[d];
        for (int t = 0; t < TENSOR_COUNT; ++t)
            w->at[t] += w->coord[d] * w->stride[t][d];
    }
}

// Step to the next element like an odometer: the last coordinate moves and carries into earlier ones.
inline void walk_next(walk_t *w)
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

#endif
