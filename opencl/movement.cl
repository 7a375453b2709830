// movement.cl: an output element is one input element, or a constant, at a coordinate mapped per dimension.
// DirectML's operators that move data without computing, where a strided read cannot express the move
// (dmlpy/kernels/movement.py lowers the others to the element-wise template's copy):
//   SLICE1 with a negative stride   in = start + step * out, step < 0: the window read from its end
//   PADDING, PADDING1               in = out - StartPadding, and outside the input the PaddingMode's rule
//   TILE                            in = out, wrapped: the input repeated
//
// Per dimension d of the output's RANK: in[d] = start[d] + step[d] * out[d] (signed, 64-bit), then, where in[d]
// falls outside [0, input_sizes[d]), the BOUNDARY rule (DML_PADDING_MODE's, computed for any distance outside, so
// a padding wider than the input folds again as np.pad folds it):
//   BOUNDARY_NONE       never outside (SLICE1: the validator keeps the window inside the input)
//   BOUNDARY_CONSTANT   the element is `fill` (PaddingValue's bits in the output's type)
//   BOUNDARY_EDGE       the nearest edge element
//   BOUNDARY_REFLECTION mirrored about the edge element, which is not repeated (period 2 * (n - 1))
//   BOUNDARY_SYMMETRIC  mirrored about the edge, which is repeated (period 2 * n)
//   BOUNDARY_WRAP       the input repeated (period n): PADDING's WRAP and TILE
//
// Elements move as the unsigned integer of their width (ELEMENT_T: uchar, ushort, uint or ulong), so NaN
// payloads, signalling NaNs, -0 and 64-bit types arrive unchanged.
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py), then the map: tensor 0 is the input,
// tensor 1 the output; `sizes` are the output's and the walk (elementwise_walk.h) steps through the output,
// the input's walk strides being 0 (its offset is the map's); then start, step, the input's sizes and strides,
// and the fill bits.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef RANK
#define RANK 1
#endif
#define BOUNDARY_NONE 0
#define BOUNDARY_CONSTANT 1
#define BOUNDARY_EDGE 2
#define BOUNDARY_REFLECTION 3
#define BOUNDARY_SYMMETRIC 4
#define BOUNDARY_WRAP 5
#ifndef BOUNDARY
#define BOUNDARY BOUNDARY_NONE
#endif

#define TENSOR_COUNT 2
#include "elementwise_walk.h"
#include "span_copy.h"

// i modulo a period p > 0, in [0, p), for negative i too.
static inline long wrapped(long i, long p)
{
    const long r = i % p;
    return r < 0 ? r + p : r;
}

// The input coordinate for a mapped one (n >= 1): inside [0, n) itself (every rule maps an inside coordinate to
// itself, so the test skips REFLECTION's, SYMMETRIC's and WRAP's `%` for all but the border), outside by the
// boundary rule.
static inline long bounded(long i, long n)
{
    if (i >= 0 && i < n)
        return i;
#if BOUNDARY == BOUNDARY_EDGE
    return clamp(i, 0L, n - 1);
#elif BOUNDARY == BOUNDARY_REFLECTION
    if (n == 1)
        return 0;
    const long m = wrapped(i, 2 * (n - 1));
    return m < n ? m : 2 * (n - 1) - m;
#elif BOUNDARY == BOUNDARY_SYMMETRIC
    const long m = wrapped(i, 2 * n);
    return m < n ? m : 2 * n - 1 - m;
#elif BOUNDARY == BOUNDARY_WRAP
    return wrapped(i, n);
#else
    return i;  // NONE: never outside; CONSTANT: the caller tests first
#endif
}

// The window, unpacked from its kernel arguments.
typedef struct {
    int first[8], step[8];
    uint extent[8], stride[8];
} window_t;

// The input offset of the output coordinate `coord`'s dimensions [0, dims), and (CONSTANT) whether all of them
// lie inside the input: where one does not, the offset is meaningless and the element is `fill`.
static inline ulong map_dims(const window_t *m, const ulong *coord, int dims, bool *inside)
{
    ulong at = 0;
    *inside = true;
    for (int d = 0; d < dims; ++d) {
        const long i = m->first[d] + (long)m->step[d] * (long)coord[d];
#if BOUNDARY == BOUNDARY_CONSTANT
        *inside = *inside && i >= 0 && i < m->extent[d];
        at += *inside ? (ulong)i * m->stride[d] : 0;
#else
        at += (ulong)bounded(i, m->extent[d]) * m->stride[d];
#endif
    }
    return at;
}

#if !GRID_STRIDE
// `count` elements from `from` (stepping `from_step`, signed) to `to` (stepping `to_step`). Steps of 0, 1 and -1
// into a packed run get loops of their own, which compilers vectorise (PoCL: SIMD stores of one value, SIMD loads
// and stores, SIMD loads and a shuffle); the strides being kernel arguments, the general loop alone would move
// element by element.
static inline void copy_span(__global const ELEMENT_T *from, long from_step, __global ELEMENT_T *to,
                             ulong to_step, ulong count)
{
    if (to_step == 1 && from_step == 0) {
        const ELEMENT_T value = *from;
        for (ulong k = 0; k < count; ++k)
            to[k] = value;
    } else if (to_step == 1 && from_step == 1) {
        copy_run(from, to, count);
    } else if (to_step == 1 && from_step == -1) {
        copy_reversed_run(from, to, count);
    } else {
        for (ulong k = 0; k < count; ++k)
            to[k * to_step] = from[(long)k * from_step];
    }
}

// Output elements [c, c + count) of one row (the innermost dimension, RANK - 1) whose other dimensions map to
// input offset `at` (`inside`: CONSTANT's test of them). The elements whose innermost coordinate lies inside the
// input are one span; the border's take the boundary rule one by one (WRAP's are whole periods, spans too).
static inline void copy_row(__global const ELEMENT_T *source, ulong at, bool inside,
                            __global ELEMENT_T *target, ulong out_at, ulong out_step, const window_t *m,
                            ulong c, ulong count, ELEMENT_T fill)
{
    const int d = RANK - 1;
    const long first = m->first[d], step = m->step[d], n = m->extent[d], stride = m->stride[d];
#if BOUNDARY == BOUNDARY_CONSTANT
    if (!inside) {
        for (ulong k = 0; k < count; ++k)
            target[out_at + k * out_step] = fill;
        return;
    }
#endif
#if BOUNDARY == BOUNDARY_NONE
    // Never outside: the whole row is one span, at any step.
    copy_span(source + at + (first + step * (long)c) * stride, step * stride, target + out_at, out_step, count);
#elif BOUNDARY == BOUNDARY_WRAP
    // Step 1 (movement.py): from each element's wrapped coordinate j, n - j elements are the input in order; an
    // input one element wide is that element all along the row (TILE of a size-1 dimension: a broadcast).
    if (n == 1) {
        copy_span(source + at, 0, target + out_at, out_step, count);
        return;
    }
    for (ulong k = 0; k < count;) {
        const long j = bounded(first + (long)(c + k), n);
        const ulong span = min((ulong)(n - j), count - k);
        copy_span(source + at + j * stride, stride, target + out_at + k * out_step, out_step, span);
        k += span;
    }
#else
    // Step 1 (movement.py): i = first + c is inside for c in [-first, n - first), clamped to this run.
    const ulong end = c + count;
    const ulong lo = clamp(-first, (long)c, (long)end), hi = clamp(n - first, (long)lo, (long)end);
    for (ulong e = c; e < lo; ++e)
#if BOUNDARY == BOUNDARY_CONSTANT
        target[out_at + (e - c) * out_step] = fill;
#else
        target[out_at + (e - c) * out_step] = source[at + bounded(first + (long)e, n) * stride];
#endif
    copy_span(source + at + (first + (long)lo) * stride, stride, target + out_at + (lo - c) * out_step, out_step, hi - lo);
    for (ulong e = hi; e < end; ++e)
#if BOUNDARY == BOUNDARY_CONSTANT
        target[out_at + (e - c) * out_step] = fill;
#else
        target[out_at + (e - c) * out_step] = source[at + bounded(first + (long)e, n) * stride];
#endif
#endif
}
#endif

__kernel void movement(__global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,
                       __global ELEMENT_T *restrict tensor1, const ulong tensor1_offset, const ulong element_count,
                       const uint8 sizes, const uint8 strides0, const uint8 strides1, const int8 start,
                       const int8 step, const uint8 input_sizes, const uint8 input_strides, const ulong fill)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset};
    window_t m;
    vstore8(start, 0, m.first);
    vstore8(step, 0, m.step);
    vstore8(input_sizes, 0, m.extent);
    vstore8(input_strides, 0, m.stride);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
#if GRID_STRIDE
    // Neighbouring work-items take neighbouring elements (coalesced stores): each element maps every dimension.
    do {
        bool inside;
        const ulong at = tensor0_offset + map_dims(&m, w.coord, RANK, &inside);
        tensor1[w.at[1]] = inside ? tensor0[at] : (ELEMENT_T)fill;
    } while (walk_advance(&w));
#else
    // This work-item's ELEMENTS_PER_ITEM consecutive elements, a row (a run of the innermost dimension) at a time:
    // the outer dimensions map once per row, and the row is copied as spans (copy_row). 16M float32 on PoCL,
    // against one mapping per element: SLICE1 reversed, PADDING CONSTANT and REFLECTION, TILE (see
    // docs/performance.md, "Movement operators").
    const uint width = w.size[RANK - 1];
    const ulong out_step = w.stride[1][RANK - 1];
    for (;;) {
        const ulong c = w.coord[RANK - 1];
        const ulong count = min((ulong)width - c, w.end - w.element);
        bool inside;
        const ulong at = tensor0_offset + map_dims(&m, w.coord, RANK - 1, &inside);
        copy_row(tensor0, at, inside, tensor1, w.at[1], out_step, &m, c, count, (ELEMENT_T)fill);
        // To the row's last element, then one step on: the walk's odometer carries into the outer dimensions.
        w.element += count - 1;
        w.coord[RANK - 1] += count - 1;
        w.at[1] += (count - 1) * out_step;
        if (!walk_advance(&w))
            return;
    }
#endif
}
