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

// The layout as arrays, and the groups' count and length.
typedef struct {
    uint size[8], input_stride[8], output_stride[8];
    ulong length, groups;
} Groups;

static inline Groups groups_of(ulong element_count, uint8 sizes, uint8 input_strides, uint8 output_strides)
{
    Groups g;
    vstore8(sizes, 0, g.size);
    vstore8(input_strides, 0, g.input_stride);
    vstore8(output_strides, 0, g.output_stride);
    g.length = 1;
    for (int d = 0; d < REDUCED_RANK; ++d) {
        g.length *= g.size[KEPT_RANK + d];
    }
    g.groups = element_count / g.length;
    return g;
}

// The element offsets of the group's current element in both tensors, and its coordinates along the reduced
// dimensions (the last fastest, as an odometer).
typedef struct {
    ulong input;
    ulong output;
    uint coordinate[REDUCED_RANK];
} Cursor;

// The first element of group `group`: its coordinates along the kept dimensions, from the group's index.
static inline Cursor group_start(const Groups *g, ulong group, ulong input_offset, ulong output_offset)
{
    Cursor cursor;
    cursor.input = input_offset;
    cursor.output = output_offset;
    ulong rest_of_index = group;
    for (int d = KEPT_RANK - 1; d >= 0; --d) {
        const ulong coordinate = rest_of_index % g->size[d];
        rest_of_index /= g->size[d];
        cursor.input += coordinate * g->input_stride[d];
        cursor.output += coordinate * g->output_stride[d];
    }
    for (int d = 0; d < REDUCED_RANK; ++d) {
        cursor.coordinate[d] = 0;
    }
    return cursor;
}

// Steps to the next element of the group. Each pass starts again from the group's start and never reads past
// the group's last element, so a group along one (coalesced) dimension just steps by its strides, leaving the
// coordinates alone: 1.17x faster without the odometer's count and wrap, the same bits (docs/performance.md, "The
// softmax family's walk along one dimension").
static inline void cursor_next(Cursor *cursor, const Groups *g)
{
    const uint *size = g->size + KEPT_RANK;
    const uint *input_stride = g->input_stride + KEPT_RANK;
    const uint *output_stride = g->output_stride + KEPT_RANK;
#if REDUCED_RANK == 1
    cursor->input += input_stride[0];
    cursor->output += output_stride[0];
#else
    for (int d = REDUCED_RANK - 1; d >= 0; --d) {
        cursor->input += input_stride[d];
        cursor->output += output_stride[d];
        if (++cursor->coordinate[d] < size[d]) {
            return;
        }
        cursor->coordinate[d] = 0;
        cursor->input -= (ulong)input_stride[d] * size[d];
        cursor->output -= (ulong)output_stride[d] * size[d];
    }
#endif
}

#define FOR_EACH_GROUP(group, g) for (ulong group = get_global_id(0); group < (g).groups; group += get_global_size(0))

#endif
