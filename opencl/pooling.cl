// pooling.cl: DirectML's poolings (dmlpy/ops/pooling.py, pooling_grad.py's MAX_UNPOOLING; laid out by
// dmlpy/kernels/pooling.py).
//
// pooling (FUNCTION 0 AVERAGE, 1 MAX, 2 LP): one output element at a time (elementwise_walk.h over the output's
// index space: a work-item takes a run of ELEMENTS_PER_ITEM consecutive outputs, or the grid-stride loop's), each
// the function of its window. Lowering gives every tensor 5 dimensions {N, C, D, H, W} (a 4-D one gains D = 1), so
// along spatial dimension d (D, H, W) the window's k-th element reads input coordinate
//     i = o * Strides[d] + k * Dilations[d] - StartPadding[d],  k in [0, WindowSize[d]),
// and only the i inside [0, InputTensor.Sizes[2 + d]) are read: `window_span` turns that test into a range of k per
// dimension, so the loops visit exactly the inside elements and no element is tested in them.
//   AVERAGE  the sum of the inside elements / their count (options.s0, IncludePadding, 0) or / the whole window's
//            element count (1: the padding's elements count as 0s); a window with no inside element (all padding,
//            IncludePadding 0) is 0 / 0 = NaN.
//   LP       (sum |x|^P)^(1/P), P = options.s1 >= 1: |x| for P 1, x * x for P 2 (one rounding each) and pown
//            otherwise; the root is the sum itself, sqrt (correctly rounded: -cl-fp32-correctly-rounded-divide-sqrt)
//            or powr.
//   Both sum in float with compensated.h's blocked compensated sum, so that a global window (every spatial element
//   of a channel) is as accurate as a short one; a FLOAT16 tensor is read as floats and the result rounded once.
//   MAX      the largest inside element, its bits copied: a float as the unsigned integer of its width (ELEMENT_T),
//            so a NaN's payload and -0 arrive unchanged, compared as a float (FLOAT_KEY 1 FLOAT32, 2 FLOAT16); an
//            integer as itself (FLOAT_KEY 0, ELEMENT_T its signed or unsigned type). A NaN is the largest, the
//            first one (np.max's, reduce.cl's MAX); of equal values the first in the window's row-major order
//            (DirectML's "the first value encountered"). HAS_INDICES: each maximum's index into InputTensor read as
//            a packed row-major array, (((n * C + c) * D + i_D) * H + i_H) * W + i_W, whatever InputTensor's
//            strides (MAX_POOLING1's page: "a contiguous one-dimensional array"; ONNX MaxPool's Indices). A window
//            with no inside element gives LOWEST (-inf, the integer's minimum) and the index all ones.
//
// quantized_average_pooling (FUNCTION 4, QUANTIZED_LINEAR_AVERAGE_POOLING): AVERAGE's window and divisor over
// quantized elements, requantized. Tensors 0 to 5 are the operator's slots in order: InputTensor, InputScaleTensor,
// InputZeroPointTensor, OutputScaleTensor, OutputZeroPointTensor, OutputTensor; a scale or zero point walks with
// stride 0 but along C (one value, or one per channel), an absent zero point (HAS_INPUT_ZERO, HAS_OUTPUT_ZERO 0) is
// bound as NULL and never read. With S the sum of (x - InputZeroPoint) over the inside elements (exact: a long) and n
// AVERAGE's divisor, the output is
//     saturate(rint((S / n) * (InputScale / OutputScale)) + OutputZeroPoint),
// rint halving to even and saturate elementwise_ops.h's (QuantizeLinear's arithmetic). A padding element counts as
// the zero point (a dequantized 0), so IncludePadding only changes n. Each of the three float operations is rounded
// once, so the argument of rint is within 3 units of roundoff (2^-24) of the exact one and the output differs from
// the exactly rounded one only where the exact value lies that close to a half; where InputScale / OutputScale is a
// power of two (equal scales) and n < 2^14, never (docs/operators/pooling.md proves both). S / n is divided before
// the scales meet because a tie S / n = k + 1/2 is then a float exactly: scaling first would round it off the tie.
// A window with no inside element and IncludePadding 0 is 0 / 0, NaN, which saturates to 0 (QuantizeLinear's NaN).
//
// max_unpooling (FUNCTION 3): one InputTensor element at a time (walk over the input's index space), written at
// the position IndicesTensor gives, OutputTensor read as a packed row-major array of output_sizes; an index past
// OutputTensor's elements writes nothing. The plan zero-fills OutputTensor first (generators.cl's fill).
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py), then the geometry as uint8 vectors,
// lanes 0 to 2 the spatial dimensions D, H, W: the input's sizes and strides, WindowSize, Strides, Dilations,
// StartPadding, and options (IncludePadding, P). Tensor 0 is the input, its walk strides only N's and C's (the
// window adds the spatial offsets); tensor 1 the output; tensor 2 (INDICES_SLOT) OutputIndicesTensor, bound and never
// written where it is absent (HAS_INDICES 0).

#define POOL_AVERAGE 0
#define POOL_MAX 1
#define POOL_LP 2
#define UNPOOL 3
#define POOL_QUANTIZED_AVERAGE 4
#ifndef FUNCTION
#define FUNCTION POOL_AVERAGE
#endif
#ifndef INDICES_SLOT
#define INDICES_SLOT 0
#endif
#ifndef HAS_INDICES
#define HAS_INDICES 0
#endif
#ifndef INDEX_T
#define INDEX_T uint
#endif
#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef FLOAT_KEY
#define FLOAT_KEY 1
#endif

#if FUNCTION == UNPOOL
#define RANK 4
#define TENSOR_COUNT 3
#elif FUNCTION == POOL_QUANTIZED_AVERAGE
#define RANK 5
#define TENSOR_COUNT 6
#include "elementwise_ops.h"
#else
#define RANK 5
#define TENSOR_COUNT (2 + INDICES_SLOT)
#endif

#include "compensated.h"
#include "elementwise_walk.h"
#include "float_tensors.h"

#if FUNCTION != UNPOOL

// The window geometry, unpacked from its kernel arguments (lanes 0 to 2: D, H, W).
typedef struct {
    uint size[8], stride[8], window[8], step[8], dilation[8], start[8], option[8];
} geometry_t;

static inline void unpack_geometry(geometry_t *g, const uint8 input_sizes, const uint8 input_strides,
                                   const uint8 window, const uint8 step, const uint8 dilation, const uint8 start,
                                   const uint8 options)
{
    vstore8(input_sizes, 0, g->size);
    vstore8(input_strides, 0, g->stride);
    vstore8(window, 0, g->window);
    vstore8(step, 0, g->step);
    vstore8(dilation, 0, g->dilation);
    vstore8(start, 0, g->start);
    vstore8(options, 0, g->option);
}

// One output element's window: per spatial dimension the first input coordinate (k = 0) and the k inside the input.
typedef struct {
    long first[3], lo[3], hi[3];
} span_t;

// The window of the output element at `coord` (5-D), and how many of its elements lie inside the input. k is inside
// where 0 <= first + k * dilation < size: k >= ceil(-first / dilation) and k <= (size - 1 - first) / dilation, both
// non-negative divisions of exact integers.
static inline ulong window_span(const geometry_t *g, const ulong *coord, span_t *s)
{
    ulong inside = 1;
    for (int d = 0; d < 3; ++d) {
        const long first = (long)coord[2 + d] * g->step[d] - (long)g->start[d];
        const long dilation = g->dilation[d], size = g->size[d];
        const long hi = first < size ? min((size - 1 - first) / dilation + 1, (long)g->window[d]) : 0;
        const long lo = first >= 0 ? 0 : min((dilation - 1 - first) / dilation, hi);
        s->first[d] = first;
        s->lo[d] = lo;
        s->hi[d] = hi;
        inside *= (ulong)(hi - lo);
    }
    return inside;
}

// The header of three nested loops over the window's inside elements, i0, i1, i2 their input coordinates along D, H
// and W; the statement after it is the body.
#define FOR_EACH_INSIDE(g, s)                                                                                       \
    for (long i0 = (s).first[0] + (s).lo[0] * (g).dilation[0], e0 = (s).first[0] + (s).hi[0] * (g).dilation[0];   \
         i0 < e0; i0 += (g).dilation[0])                                                                            \
        for (long i1 = (s).first[1] + (s).lo[1] * (g).dilation[1],                                                  \
                  e1 = (s).first[1] + (s).hi[1] * (g).dilation[1];                                                  \
             i1 < e1; i1 += (g).dilation[1])                                                                        \
            for (long i2 = (s).first[2] + (s).lo[2] * (g).dilation[2],                                              \
                      e2 = (s).first[2] + (s).hi[2] * (g).dilation[2];                                              \
                 i2 < e2; i2 += (g).dilation[2])

// The input offset of the inside element (i0, i1, i2) of the window whose N and C start at `base`.
#define INPUT_AT(g, base) ((base) + (ulong)i0 * (g).stride[0] + (ulong)i1 * (g).stride[1] + (ulong)i2 * (g).stride[2])

#if FUNCTION == POOL_MAX
#if FLOAT_KEY == 1
#define KEY(bits) as_float(bits)
#elif FLOAT_KEY == 2
#define KEY(bits) half_bits_to_float(bits)
#else
#define KEY(x) (x)
#endif
#if FLOAT_KEY
// A NaN replaces any number, and nothing replaces a NaN: the first NaN stays (reduce.cl's REPLACES).
#define REPLACES(x, best) (!isnan(best) && (isnan(x) || (x) > (best)))
#else
#define REPLACES(x, best) ((x) > (best))
#endif
#endif

#if FUNCTION == POOL_QUANTIZED_AVERAGE
__kernel void quantized_average_pooling(__global const INPUT_T *restrict tensor0, const ulong tensor0_offset,
                                        __global const float *restrict tensor1, const ulong tensor1_offset,
                                        __global const INPUT_T *restrict tensor2, const ulong tensor2_offset,
                                        __global const float *restrict tensor3, const ulong tensor3_offset,
                                        __global const OUTPUT_T *restrict tensor4, const ulong tensor4_offset,
                                        __global OUTPUT_T *restrict tensor5, const ulong tensor5_offset,
                                        const ulong element_count, const uint8 sizes, const uint8 strides0,
                                        const uint8 strides1, const uint8 strides2, const uint8 strides3,
                                        const uint8 strides4, const uint8 strides5, const uint8 input_sizes,
                                        const uint8 input_strides, const uint8 window, const uint8 step,
                                        const uint8 dilation, const uint8 start, const uint8 options)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1, strides2, strides3, strides4, strides5};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset, tensor2_offset,
                                         tensor3_offset, tensor4_offset, tensor5_offset};
    geometry_t g;
    unpack_geometry(&g, input_sizes, input_strides, window, step, dilation, start, options);
    const ulong whole = (ulong)g.window[0] * g.window[1] * g.window[2];
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        span_t s;
        const ulong inside = window_span(&g, w.coord, &s);
        const ulong base = w.at[0];
        const long zero_in = HAS_INPUT_ZERO ? (long)tensor2[w.at[2]] : 0;
        long sum = 0;
        FOR_EACH_INSIDE(g, s)
        {
            sum += (long)tensor0[INPUT_AT(g, base)] - zero_in;
        }
        const float average = (float)sum / (float)(g.option[0] ? whole : inside);
        const float ratio = tensor1[w.at[1]] / tensor3[w.at[3]];
        const float zero_out = HAS_OUTPUT_ZERO ? (float)tensor4[w.at[4]] : 0.0f;
        tensor5[w.at[5]] = CONCAT(saturate_, OUTPUT_T)(RINT(average * ratio) + zero_out);
    } while (walk_advance(&w));
}
#else
__kernel void pooling(__global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,
                      __global ELEMENT_T *restrict tensor1, const ulong tensor1_offset,
#if INDICES_SLOT
                      __global INDEX_T *restrict tensor2, const ulong tensor2_offset,
#endif
                      const ulong element_count, const uint8 sizes, const uint8 strides0, const uint8 strides1,
#if INDICES_SLOT
                      const uint8 strides2,
#endif
                      const uint8 input_sizes, const uint8 input_strides, const uint8 window, const uint8 step,
                      const uint8 dilation, const uint8 start, const uint8 options)
{
#if INDICES_SLOT
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1, strides2};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset, tensor2_offset};
#else
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset};
#endif
    geometry_t g;
    unpack_geometry(&g, input_sizes, input_strides, window, step, dilation, start, options);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        span_t s;
        const ulong inside = window_span(&g, w.coord, &s);
        const ulong base = w.at[0];
#if FUNCTION == POOL_MAX
        ELEMENT_T best = (ELEMENT_T)LOWEST;
        ulong best_index = ~0ul;
        bool found = false;
        // The packed row-major index of (n, c, 0, 0, 0); the window adds its element's.
        const ulong plane = (w.coord[0] * w.size[1] + w.coord[1]) * g.size[0];
        FOR_EACH_INSIDE(g, s)
        {
            const ELEMENT_T x = tensor0[INPUT_AT(g, base)];
            if (!found || REPLACES(KEY(x), KEY(best))) {
                best = x;
                best_index = ((plane + (ulong)i0) * g.size[1] + (ulong)i1) * g.size[2] + (ulong)i2;
                found = true;
            }
        }
        tensor1[w.at[1]] = best;
#if HAS_INDICES
        tensor2[w.at[2]] = (INDEX_T)best_index;
#endif
#else
        BlockedSum sum = blocked_sum();
#if FUNCTION == POOL_LP
        const uint p = g.option[1];
        FOR_EACH_INSIDE(g, s)
        {
            const float x = fabs(LOAD(tensor0, INPUT_AT(g, base)));
            blocked_add(&sum, p == 1 ? x : p == 2 ? x * x : pown(x, (int)p));
        }
        const float total = blocked_total(sum);
        const float y = p == 1 ? total : p == 2 ? sqrt(total) : powr(total, 1.0f / (float)p);
#else
        FOR_EACH_INSIDE(g, s)
        {
            blocked_add(&sum, LOAD(tensor0, INPUT_AT(g, base)));
        }
        // The divisor is exact in float up to 2^24 elements; a larger window's is rounded once, a relative 2^-24
        // more error (docs/operators/pooling.md's bound says so).
        const ulong whole = (ulong)g.window[0] * g.window[1] * g.window[2];
        const float y = blocked_total(sum) / (float)(g.option[0] ? whole : inside);
#endif
        STORE(y, tensor1, w.at[1]);
#endif
    } while (walk_advance(&w));
}
#endif

#else

__kernel void max_unpooling(__global const ELEMENT_T *restrict tensor0, const ulong tensor0_offset,
                            __global const INDEX_T *restrict tensor1, const ulong tensor1_offset,
                            __global ELEMENT_T *restrict tensor2, const ulong tensor2_offset,
                            const ulong element_count, const uint8 sizes, const uint8 strides0,
                            const uint8 strides1, const uint8 strides2, const uint8 output_sizes,
                            const uint8 output_strides)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1, strides2};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset, tensor2_offset};
    uint size[8], stride[8];
    vstore8(output_sizes, 0, size);
    vstore8(output_strides, 0, stride);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        // The packed row-major index as coordinates, innermost first; what is left past the outermost dimension
        // says the index lies beyond OutputTensor.
        ulong rest = (ulong)tensor1[w.at[1]], at = tensor2_offset;
        for (int d = RANK - 1; d >= 0; --d) {
            at += (rest % size[d]) * stride[d];
            rest /= size[d];
        }
        if (rest == 0)
            tensor2[at] = tensor0[w.at[0]];
    } while (walk_advance(&w));
}

#endif
