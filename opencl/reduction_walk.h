// reduction_walk.h: the groups of an operator that reduces along axes (softmax.cl, reduce.cl), walked one
// work-item per group.
//
// Sizes and strides arrive in the element-wise argument convention (dmlpy/kernels/source.py, laid out by
// dmlpy/kernels/reduction.py): sizes[0 .. KEPT_RANK - 1] are the kept dimensions, coalesced, and
// sizes[KEPT_RANK .. KEPT_RANK + REDUCED_RANK - 1] the reduced ones, coalesced (neighbours contiguous in both
// tensors merged, so a reduction along contiguous axes walks one dimension). element_count is every element.
// Group g goes to work-items g, g + G, ... of a grid of G: the "cpu" profile launches one work-item per group, the
// "gpu" one a grid of whole work-groups (capped to fill the device), which FOR_EACH_GROUP's loop covers.
#ifndef REDUCTION_WALK_H
#define REDUCTION_WALK_H

#ifndef KEPT_RANK
#error "define KEPT_RANK: the kept dimensions after coalescing (0 when every axis is reduced)"
#endif
#ifndef REDUCED_RANK
#error "define REDUCED_RANK: the reduced dimensions after coalescing (at least 1)"
#endif

#ifndef REDUCTION_TENSORS
#define REDUCTION_TENSORS 2  // the input, then the output; a normalization's scale and bias between them
#endif

// The layout as arrays, and the groups' count and length.
typedef struct {
    uint size[8], stride[REDUCTION_TENSORS][8];
    ulong offset[REDUCTION_TENSORS];
    ulong length, groups;
} Groups;

// Filled through a pointer rather than returned: LLVM inlines a function returning a struct this large with an
// llvm.experimental.noalias.scope.decl call, which Oclgrind (21.10) cannot link, so no kernel built with
// optimisation could run under it.
static inline void groups_of(Groups *g, ulong element_count, uint8 sizes, const uint8 *strides, const ulong *offsets)
{
    vstore8(sizes, 0, g->size);
    for (int t = 0; t < REDUCTION_TENSORS; ++t) {
        vstore8(strides[t], 0, g->stride[t]);
        g->offset[t] = offsets[t];
    }
    g->length = 1;
    for (int d = 0; d < REDUCED_RANK; ++d) {
        g->length *= g->size[KEPT_RANK + d];
    }
    g->groups = element_count / g->length;
}

#if REDUCTION_TENSORS == 2
// The groups of a kernel over one input and one output, the element-wise argument convention's arguments as given.
static inline void groups_of_two(Groups *g, ulong element_count, uint8 sizes, uint8 input_strides,
                                 uint8 output_strides, ulong input_offset, ulong output_offset)
{
    const uint8 strides[2] = {input_strides, output_strides};
    const ulong offsets[2] = {input_offset, output_offset};
    groups_of(g, element_count, sizes, strides, offsets);
}
#endif

// The element offsets of the group's current element in each tensor, and its coordinates along the reduced
// dimensions (the last fastest, as an odometer).
typedef struct {
    ulong at[REDUCTION_TENSORS];
    uint coordinate[REDUCED_RANK];
} Cursor;

// The first element of group `group`: its coordinates along the kept dimensions, from the group's index (filled
// through a pointer, as groups_of is).
static inline void group_start(Cursor *cursor, const Groups *g, ulong group)
{
    for (int t = 0; t < REDUCTION_TENSORS; ++t) {
        cursor->at[t] = g->offset[t];
    }
    ulong rest_of_index = group;
    for (int d = KEPT_RANK - 1; d >= 0; --d) {
        const ulong coordinate = rest_of_index % g->size[d];
        rest_of_index /= g->size[d];
        for (int t = 0; t < REDUCTION_TENSORS; ++t) {
            cursor->at[t] += coordinate * g->stride[t][d];
        }
    }
    for (int d = 0; d < REDUCED_RANK; ++d) {
        cursor->coordinate[d] = 0;
    }
}

// Steps to the next element of the group. Each pass starts again from the group's start and never reads past
// the group's last element, so a group along one (coalesced) dimension just steps by its strides, leaving the
// coordinates alone: 1.17x faster without the odometer's count and wrap, the same bits (docs/performance.md, "The
// softmax family's walk along one dimension").
static inline void cursor_next(Cursor *cursor, const Groups *g)
{
    const uint *size = g->size + KEPT_RANK;
#if REDUCED_RANK == 1
    for (int t = 0; t < REDUCTION_TENSORS; ++t) {
        cursor->at[t] += g->stride[t][KEPT_RANK];
    }
#else
    for (int d = REDUCED_RANK - 1; d >= 0; --d) {
        for (int t = 0; t < REDUCTION_TENSORS; ++t) {
            cursor->at[t] += g->stride[t][KEPT_RANK + d];
        }
        if (++cursor->coordinate[d] < size[d]) {
            return;
        }
        cursor->coordinate[d] = 0;
        for (int t = 0; t < REDUCTION_TENSORS; ++t) {
            cursor->at[t] -= (ulong)g->stride[t][KEPT_RANK + d] * size[d];
        }
    }
#endif
}

#define FOR_EACH_GROUP(group, g) for (ulong group = get_global_id(0); group < (g).groups; group += get_global_size(0))

#endif
