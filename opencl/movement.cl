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

// i modulo a period p > 0, in [0, p), for negative i too.
static inline long wrapped(long i, long p)
{
    const long r = i % p;
    return r < 0 ? r + p : r;
}

// The input coordinate for a mapped one outside [0, n) (n >= 1), by the boundary rule; inside, itself.
static inline long bounded(long i, long n)
{
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
    return i;  // NONE: always inside; CONSTANT: the caller tests first
#endif
}

__kernel void movement(__global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,
                       __global ELEMENT_T *restrict tensor1, const ulong tensor1_offset, const ulong element_count,
                       const uint8 sizes, const uint8 strides0, const uint8 strides1, const int8 start,
                       const int8 step, const uint8 input_sizes, const uint8 input_strides, const ulong fill)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset};
    int first[8], steps[8];
    uint extent[8], stride[8];
    vstore8(start, 0, first);
    vstore8(step, 0, steps);
    vstore8(input_sizes, 0, extent);
    vstore8(input_strides, 0, stride);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        ulong at = tensor0_offset;
        bool inside = true;
        for (int d = 0; d < RANK; ++d) {
            const long i = first[d] + (long)steps[d] * (long)w.coord[d];
            const long n = extent[d];
#if BOUNDARY == BOUNDARY_CONSTANT
            inside = inside && i >= 0 && i < n;
            at += inside ? (ulong)i * stride[d] : 0;
#else
            at += (ulong)bounded(i, n) * stride[d];
#endif
        }
        tensor1[w.at[1]] = inside ? tensor0[at] : (ELEMENT_T)fill;
    } while (walk_advance(&w));
}
