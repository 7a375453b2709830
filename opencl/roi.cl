// roi.cl: DirectML's regions of interest (dmlpy/ops/roi.py; laid out by dmlpy/kernels/roi.py), one output element
// at a time: elementwise_walk.h steps through the output {NumROIs, ChannelCount, OutputHeight, OutputWidth}, and the
// walk's strides of the other tensors are those of the dimensions they follow (InputTensor's along C, ROITensor's and
// BatchIndicesTensor's along NumROIs), so w.at[t] is the channel's plane, the region's row and its batch index.
// docs/operators/roi.md states the choices the pages leave open.
//
// roi_align (ROI_ALIGN, ROI_ALIGN1; ROI_ALIGN is ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset -0.5 and
// AlignRegionsToCorners FALSE). Per dimension (X: width, Y: height) of region [x1, y1, x2, y2], the page's logic:
//     scaled1 = c1 * SpatialScale, size = c2 * SpatialScale - scaled1
//     count   = clamp(ceil(|size| / OutputSize), MinimumSamplesPerOutput, MaximumSamplesPerOutput)
//     step    = size / (OutputSize * count)          (AlignRegionsToCorners: size / (OutputSize * count - 1), or 0
//                                                      where that is one sample: the corner samples on the corners)
//     sample k of output o lies at x = (o * count + k - OutputPixelOffset) * step + scaled1 - InputPixelOffset
// k in [0, count) (the page's "<=" would take count + 1 samples, one shared with the next output element: ONNX
// RoiAlign's grid, which onnxruntime's DirectML provider maps to ROI_ALIGN1, takes count). A negative size steps
// backwards (an inverted region mirrors), a zero one samples one point. Every step is a float operation in this
// order, uncontracted (FP_CONTRACT OFF) and divisions correctly rounded, so the tests reproduce each x bit for bit.
// A sample outside the input (x < -1 or x > InputWidth, likewise y; a NaN too), or of a region whose batch index is
// not below BatchCount (undefined to DirectML), reads OutOfBoundsInputValue; inside, x is clamped to [0, size - 1]
// (Caffe2's and ONNX RoiAlign's bilinear rule, which both interpolation modes share here) and
//   LINEAR              the 4 elements around (x, y) weighed by hy * hx, hy * lx, ly * hx, ly * lx (l the fraction
//                       past floor, h = 1 - l), summed in that order
//   NEAREST_NEIGHBOR    the element at floor(x + 0.5), floor(y + 0.5) (halves up, resample.cl's nearest).
// REDUCTION 0 AVERAGE: compensated.h's blocked sum of the samples / (countX * countY); 1 MAX: the largest sample,
// a NaN the largest (the first one), as pooling.cl's MAX. The maximum is of interpolated values (DirectML's "maximum
// with inputValue"), not ONNX's reference's maximum of the weighted corners.
//
// roi_pooling (ROI_POOLING, POOLING 1; Caffe's ROIPool, ONNX MaxRoiPool): region row [BatchID, x1, y1, x2, y2],
// corners scaled by SpatialScale and rounded halves away from zero (C's round), inclusive; a region's height
// h = max(y2 - y1 + 1, 1), bin ph its rows [y1 + floor(ph * h / PooledHeight), y1 + ceil((ph + 1) * h /
// PooledHeight)) in exact integer division, clamped to [0, InputHeight), likewise columns; the output the largest
// element of the bin (a NaN the largest), 0 for an empty bin (Caffe's) and for a BatchID, truncated, outside
// [0, BatchCount).
//
// Both read and write FLOAT16 as bits through half_bits.h (float_tensors.h); the arithmetic is in float.
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): tensor 0 InputTensor, 1 ROITensor,
// (roi_align) 2 BatchIndicesTensor, last OutputTensor; then `geometry` (BatchCount, InputHeight, InputWidth, the
// input's strides along N, H and W, ROITensor's stride along its row, AlignRegionsToCorners), `samples`
// (MinimumSamplesPerOutput, MaximumSamplesPerOutput) and `scalars`, the float bits of SpatialScaleX, SpatialScaleY,
// InputPixelOffset, OutputPixelOffset and OutOfBoundsInputValue (roi_pooling: SpatialScale in lane 0).

#pragma OPENCL FP_CONTRACT OFF

#ifndef POOLING
#define POOLING 0
#endif
#ifndef REDUCTION
#define REDUCTION 0
#endif
#ifndef LINEAR
#define LINEAR 1
#endif
#ifndef INDEX_T
#define INDEX_T uint
#endif

#define RANK 4
#define TENSOR_COUNT (POOLING ? 3 : 4)
#include "compensated.h"
#include "elementwise_walk.h"
#include "float_tensors.h"

// The input's geometry, unpacked from `geometry`.
typedef struct {
    uint batches, height, width, batch_stride, row_stride, column_stride, roi_stride, corners;
} input_t;

static inline void input_of(input_t *g, uint8 geometry)
{
    g->batches = geometry.s0;
    g->height = geometry.s1;
    g->width = geometry.s2;
    g->batch_stride = geometry.s3;
    g->row_stride = geometry.s4;
    g->column_stride = geometry.s5;
    g->roi_stride = geometry.s6;
    g->corners = geometry.s7;
}

// Whether `x` replaces `best` as the largest: a NaN replaces any number, nothing replaces a NaN (pooling.cl's MAX).
static inline bool replaces(float x, float best)
{
    return !isnan(best) && (isnan(x) || x > best);
}

#if !POOLING

// One dimension of a region's samples: the region's scaled start, the distance between samples, InputPixelOffset and
// the samples per output element.
typedef struct {
    float start, step, input_offset;
    uint count;
} axis_t;

static inline void axis_of(axis_t *a, float c1, float c2, float spatial_scale, uint output_size, uint minimum,
                           uint maximum, uint corners, float input_offset)
{
    const float scaled1 = c1 * spatial_scale;
    const float size = c2 * spatial_scale - scaled1;
    // fmax takes a NaN ratio to 1; a ratio past UINT_MAX saturates (float's 2^32 is no uint).
    const float wanted = fmax(ceil(fabs(size) / (float)output_size), 1.0f);
    const uint count = clamp(wanted >= 4294967296.0f ? UINT_MAX : (uint)wanted, minimum, maximum);
    const float samples = (float)output_size * (float)count;
    a->count = count;
    a->step = corners ? (samples > 1.0f ? size / (samples - 1.0f) : 0.0f) : size / samples;
    a->start = scaled1;
    a->input_offset = input_offset;
}

// Sample k's coordinate along one dimension for output coordinate o, in the page's order of operations.
static inline float sample_at(const axis_t *a, ulong o, uint k, float output_offset)
{
    return ((float)(o * a->count + k) - output_offset) * a->step + a->start - a->input_offset;
}

// A coordinate's two taps along a dimension of n elements and the second's weight (LINEAR), or its nearest element
// (`low`, NEAREST_NEIGHBOR); x already inside [-1, n].
typedef struct {
    uint low, high;
    float fraction;
} taps_t;

static inline void taps_of(taps_t *t, float x, uint n)
{
    x = fmax(x, 0.0f);
#if LINEAR
    const float low = floor(x);
    if (low >= (float)(n - 1)) {
        t->low = t->high = n - 1;
        t->fraction = 0.0f;
    } else {
        t->low = (uint)low;
        t->high = t->low + 1;
        t->fraction = x - low;
    }
#else
    t->low = (uint)fmin(floor(x + 0.5f), (float)(n - 1));
    t->high = t->low;
    t->fraction = 0.0f;
#endif
}

static inline bool inside(float x, uint n)
{
    return x >= -1.0f && x <= (float)n;  // false for a NaN
}

// The sample at (x, y) of the plane starting at `plane`.
static inline float sample_value(__global const storage_t *input, ulong plane, const input_t *g, float x, float y,
                                 float outside)
{
    if (!inside(x, g->width) || !inside(y, g->height))
        return outside;
    taps_t tx, ty;
    taps_of(&tx, x, g->width);
    taps_of(&ty, y, g->height);
    const ulong row_low = plane + (ulong)ty.low * g->row_stride, row_high = plane + (ulong)ty.high * g->row_stride;
#if LINEAR
    const float ly = ty.fraction, lx = tx.fraction, hy = 1.0f - ly, hx = 1.0f - lx;
    const float v1 = LOAD(input, row_low + (ulong)tx.low * g->column_stride);
    const float v2 = LOAD(input, row_low + (ulong)tx.high * g->column_stride);
    const float v3 = LOAD(input, row_high + (ulong)tx.low * g->column_stride);
    const float v4 = LOAD(input, row_high + (ulong)tx.high * g->column_stride);
    return hy * hx * v1 + hy * lx * v2 + ly * hx * v3 + ly * lx * v4;
#else
    (void)row_high;
    return LOAD(input, row_low + (ulong)tx.low * g->column_stride);
#endif
}

__kernel void roi_align(__global const storage_t *restrict tensor0, const ulong tensor0_offset,
                        __global const storage_t *restrict tensor1, const ulong tensor1_offset,
                        __global const INDEX_T *restrict tensor2, const ulong tensor2_offset,
                        __global storage_t *restrict tensor3, const ulong tensor3_offset, const ulong element_count,
                        const uint8 sizes, const uint8 strides0, const uint8 strides1, const uint8 strides2,
                        const uint8 strides3, const uint8 geometry, const uint8 samples, const uint8 scalar_bits)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1, strides2, strides3};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset, tensor2_offset, tensor3_offset};
    input_t g;
    input_of(&g, geometry);
    const float8 scalars = as_float8(scalar_bits);
    const float input_offset = scalars.s2, output_offset = scalars.s3, outside = scalars.s4;
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        const ulong roi = w.at[1];
        const float x1 = LOAD(tensor1, roi), y1 = LOAD(tensor1, roi + g.roi_stride);
        const float x2 = LOAD(tensor1, roi + 2 * (ulong)g.roi_stride);
        const float y2 = LOAD(tensor1, roi + 3 * (ulong)g.roi_stride);
        axis_t ax, ay;
        axis_of(&ax, x1, x2, scalars.s0, w.size[3], samples.s0, samples.s1, g.corners, input_offset);
        axis_of(&ay, y1, y2, scalars.s1, w.size[2], samples.s0, samples.s1, g.corners, input_offset);
        const ulong batch = (ulong)tensor2[w.at[2]];
        const bool known = batch < g.batches;
        const ulong plane = w.at[0] + (known ? batch * g.batch_stride : 0);
#if REDUCTION == 0
        BlockedSum sum = blocked_sum();
#else
        float best = 0.0f;
        bool found = false;
#endif
        for (uint ky = 0; ky < ay.count; ++ky) {
            // An unknown batch's samples all lie outside: a NaN coordinate is outside every input.
            const float y = known ? sample_at(&ay, w.coord[2], ky, output_offset) : NAN;
            for (uint kx = 0; kx < ax.count; ++kx) {
                const float x = sample_at(&ax, w.coord[3], kx, output_offset);
                const float v = sample_value(tensor0, plane, &g, x, y, outside);
#if REDUCTION == 0
                blocked_add(&sum, v);
#else
                if (!found || replaces(v, best)) {
                    best = v;
                    found = true;
                }
#endif
            }
        }
#if REDUCTION == 0
        const float y = blocked_total(sum) / ((float)ax.count * (float)ay.count);
#else
        const float y = best;
#endif
        STORE(y, tensor3, w.at[3]);
    } while (walk_advance(&w));
}

#else

// A corner scaled and rounded halves away from zero, as a long: clamped first, so that a huge or NaN value
// converts defined (a NaN to 0).
static inline long corner(float c, float spatial_scale)
{
    const float r = round(c * spatial_scale);
    return isnan(r) ? 0 : (long)clamp(r, -2147483648.0f, 2147483647.0f);
}

// The bin [first, last) of bin index p of `bins` along a region from `start` of `extent` elements, clamped to
// [0, n): floor(p * extent / bins) and ceil((p + 1) * extent / bins) in exact integer division.
static inline void bin_of(long *first, long *last, long start, long extent, ulong p, uint bins, uint n)
{
    const long lo = (long)p * extent / (long)bins, hi = ((long)p + 1) * extent + (long)bins - 1;
    *first = clamp(start + lo, 0L, (long)n);
    *last = clamp(start + hi / (long)bins, 0L, (long)n);
}

__kernel void roi_pooling(__global const storage_t *restrict tensor0, const ulong tensor0_offset,
                          __global const storage_t *restrict tensor1, const ulong tensor1_offset,
                          __global storage_t *restrict tensor2, const ulong tensor2_offset, const ulong element_count,
                          const uint8 sizes, const uint8 strides0, const uint8 strides1, const uint8 strides2,
                          const uint8 geometry, const uint8 scalar_bits)
{
    const uint8 strides[TENSOR_COUNT] = {strides0, strides1, strides2};
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset, tensor1_offset, tensor2_offset};
    input_t g;
    input_of(&g, geometry);
    const float scale = as_float(scalar_bits.s0);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        const ulong roi = w.at[1];
        // A BatchID is a float holding an integer; truncated as C converts it, a NaN or one out of range to none.
        const float id = LOAD(tensor1, roi);
        const bool known = id >= 0.0f && id < (float)g.batches;
        const long x1 = corner(LOAD(tensor1, roi + g.roi_stride), scale);
        const long y1 = corner(LOAD(tensor1, roi + 2 * (ulong)g.roi_stride), scale);
        const long x2 = corner(LOAD(tensor1, roi + 3 * (ulong)g.roi_stride), scale);
        const long y2 = corner(LOAD(tensor1, roi + 4 * (ulong)g.roi_stride), scale);
        long row, row_end, column, column_end;
        bin_of(&row, &row_end, y1, max(y2 - y1 + 1, 1L), w.coord[2], w.size[2], g.height);
        bin_of(&column, &column_end, x1, max(x2 - x1 + 1, 1L), w.coord[3], w.size[3], g.width);
        const ulong plane = w.at[0] + (known ? (ulong)id * g.batch_stride : 0);
        float best = 0.0f;
        bool found = false;
        if (known)
            for (long i = row; i < row_end; ++i)
                for (long j = column; j < column_end; ++j) {
                    const float v = LOAD(tensor0, plane + (ulong)i * g.row_stride + (ulong)j * g.column_stride);
                    if (!found || replaces(v, best)) {
                        best = v;
                        found = true;
                    }
                }
        STORE(best, tensor2, w.at[2]);
    } while (walk_advance(&w));
}

#endif
