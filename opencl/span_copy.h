// span_copy.h: copy a contiguous run of ELEMENT_T inside one work-item, in the shape the runtime's compiler
// vectorises (the movement kernels' row copies: join_rows.cl, block_copy.cl, movement.cl).
//
// VECTOR_SPANS=0 (PoCL): a plain loop, which PoCL's LLVM vectorises by itself, where its vload and vstore built-ins
//                        would move one lane at a time (docs/performance.md, "PoCL's built-ins").
// VECTOR_SPANS=1 (runtimes whose compiler vectorises across work-items and never along a work-item's loop: Intel's
//                        CPU runtime, LaunchProfile.lanes_across_work_items): SPAN_LANES elements a vload and a
//                        vstore, then the rest one at a time; the loop alone ran one element an iteration there.
#ifndef SPAN_COPY_H
#define SPAN_COPY_H

#ifndef VECTOR_SPANS
#define VECTOR_SPANS 0
#endif
#define SPAN_LANES 16
#define SPAN_VECTOR_(type, lanes) type##lanes
#define SPAN_VECTOR(type, lanes) SPAN_VECTOR_(type, lanes)
#define SPAN_LOAD_(lanes) vload##lanes
#define SPAN_LOAD(lanes) SPAN_LOAD_(lanes)
#define SPAN_STORE_(lanes) vstore##lanes
#define SPAN_STORE(lanes) SPAN_STORE_(lanes)

// `count` elements from `from` to `to`, forwards; the runs never overlap (the tensors are restrict).
static inline void copy_run(__global const ELEMENT_T *from, __global ELEMENT_T *to, ulong count)
{
    ulong k = 0;
#if VECTOR_SPANS
    for (; k + SPAN_LANES <= count; k += SPAN_LANES)
        SPAN_STORE(SPAN_LANES)(SPAN_LOAD(SPAN_LANES)(0, from + k), 0, to + k);
#endif
    for (; k < count; ++k)
        to[k] = from[k];
}


// `count` elements from `from` backwards (to[k] = from[-k]) to `to`: under VECTOR_SPANS a vload, its lanes reversed
// by a shuffle (ELEMENT_T is unsigned, so its vector is shuffle's mask type too), a vstore.
static inline void copy_reversed_run(__global const ELEMENT_T *from, __global ELEMENT_T *to, ulong count)
{
    ulong k = 0;
#if VECTOR_SPANS
    const SPAN_VECTOR(ELEMENT_T, SPAN_LANES) reverse =
        (SPAN_VECTOR(ELEMENT_T, SPAN_LANES))(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (; k + SPAN_LANES <= count; k += SPAN_LANES)
        SPAN_STORE(SPAN_LANES)(shuffle(SPAN_LOAD(SPAN_LANES)(0, from - k - (SPAN_LANES - 1)), reverse), 0, to + k);
#endif
    for (; k < count; ++k)
        to[k] = from[-(long)k];
}

#endif
