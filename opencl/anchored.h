// anchored.h: a graph's group anchored by a reduction or a normalization (dmlpy/graph/anchored.py), compiled into the
// anchor's own kernel (reduce.cl, normalize.cl): element-wise nodes before it computed on each element as it is
// loaded (the prologue), and element-wise nodes after it applied to each result before it is stored (the
// epilogue), so the values between them never reach memory. dmlpy/kernels/anchored.py writes these #define lines
// before the source (FUSED 1); the anchor kernel reads its elements and stores its results through them only:
//   FUSED_PARAMETERS        the kernel's tensors in the element-wise argument convention: buffer, ulong offset
//   FUSED_STRIDES           ", uint8 strides0, ..." (the convention's strides after the sizes)
//   FUSED_MEMBERS           the Tensors struct's members, one __global pointer per tensor
//   FUSED_POINTERS, FUSED_STRIDE_LIST, FUSED_OFFSET_LIST   initialisers of the struct and of the walk's arrays
//   FUSED_ELEMENT(t, at, i) the body of element_at: the anchor's input element at at[k] + i of each tensor k it
//                           reads (i 0 on the cursor's walk; the vector walks' tensors step by 1), the prologue's
//                           statements on the loads, returning the last
//   FUSED_LANES(t, at, i)   the body of lanes_at: the same for 8 consecutive elements, each tensor read as one
//                           vector (reduce.cl's LOAD8), the statements once per lane, returning their float8
//   FUSED_STORE(t, result, at)  the body of store_result: the anchor's result rounded to its output's type, the
//                           epilogue's statements, the stores of the values read outside the group
// Every value is rounded to its edge's data type where the nodes one by one would store it (TO_HALF for FLOAT16,
// the operator's own conversion otherwise), so the fused group's bits are the nodes' one by one.
#ifndef ANCHORED_H
#define ANCHORED_H

#include "half_bits.h"

#if FUSED
#ifndef TO_HALF
#define TO_HALF(x) half_value(x)
#endif

typedef struct {
    FUSED_MEMBERS
} Tensors;

// The kernel's prologue: the tensors as a struct, and the walk's strides and offsets as arrays.
#define ANCHORED_BEGIN(t, g, element_count, sizes)                                                                  \
    const Tensors t = FUSED_POINTERS;                                                                               \
    const uint8 strides_[REDUCTION_TENSORS] = FUSED_STRIDE_LIST;                                                     \
    const ulong offsets_[REDUCTION_TENSORS] = FUSED_OFFSET_LIST;                                                     \
    Groups g;                                                                                                       \
    groups_of(&g, element_count, sizes, strides_, offsets_)
#endif

#endif
