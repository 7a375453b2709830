// depthwise.cl: a depth-wise convolution (GroupCount = InputChannelCount = OutputChannelCount: one filter channel per
// channel) computed directly, each output element the sum over its own window; im2col would copy the input once per
// filter element to feed a product of one row per group. Per output element (n, c, od, oh, ow), over the filter's
// (kd, kh, kw): input[n, c, source_of(od, kd), ..] * filter[c, 0, kd, kh, kw] (FLIPPED: each spatial index read
// from its end, CONVOLUTION's Mode against Direction), summed in that order, then stored once (FINISH). A window
// that meets no input element, and FORWARD's OutputPadding outputs (past the window's own, source_of -1), sum to 0,
// as the im2col path's padding does.
//   CONVOLUTION (INTEGER_SUM 0): summed in float, then the bias (HAS_BIAS) and ACTIVATION(v), the FusedActivation's
//     expression; FLOAT16 tensors bound as their bits (DML_FLOAT16 1: float_tensors.h's LOAD and STORE).
//   CONVOLUTION_INTEGER (INTEGER_SUM 1, QUANTIZED 0) and QUANTIZED_LINEAR_CONVOLUTION (QUANTIZED 1): each operand
//     less its zero point (absent: 0), products and sums in 32-bit unsigned arithmetic, exact modulo 2^32 as gemm.cl's
//     integer contraction is (padding holds the input's zero point there, so skipping it here is the same sum); the
//     INT32 sum stored, or with QUANTIZED_LINEAR_CONVOLUTION's bias added requantized (requantize.h, gemm.cl's
//     arithmetic: the filter is its A, the input its B) and saturated to OUTPUT_T.
//
// Arguments: the operator's tensors in its binding order (DEPTHWISE_TENSORS); element_count the output's elements;
// sizes the output's (BatchCount, ChannelCount, OD, OH, OW); the input's strides (batch, channel, d, h, w), the
// filter's (channel, kd, kh, kw), every per-channel or single value's (its channel's at 1, 0 for a single value) and
// the output's five, in that order; then the input's spatial sizes and the window's own outputs (ID, IH, IW, VD, VH,
// VW), the strides and dilations (SD, SH, SW, DD, DH, DW), the start paddings (PD, PH, PW) and the filter's spatial
// sizes (KD, KH, KW). Launch shapes as convolution.cl's unfold's: "cpu" a run of ELEMENTS_PER_ITEM outputs per
// work-item, a row (ow) at a time; "gpu" a grid-stride loop.

#ifndef BACKWARD
#define BACKWARD 0
#endif
#ifndef DEPTHWISE_KW
#define DEPTHWISE_KW 0  // no fast path (depthwise_rows)
#endif

#include "convolution_window.h"
#include "depthwise_operands.h"

typedef struct {
    long shape[5];  // the output's (batch, channel, od, oh, ow)
    long extent[3], valid[3], stride[3], dilation[3], start[3], filter_size[3];
    ulong input_stride[5], filter_stride[4], channel_stride[3], output_stride[5];
} depthwise_t;

// The filter's index along spatial axis d that loop index k reads.
static inline ulong tap(const depthwise_t *w, int d, long k)
{
    return (ulong)(FLIPPED ? w->filter_size[d] - 1 - k : k);
}

// Outputs per block of a row: the "cpu" profile's accumulators, a private array. Per filter element the outputs
// whose input it meets are one range of the block (FORWARD's input index is linear in the output's), so the inner
// loop is a plain one over that range: at stride 1 over a packed row, consecutive loads and accumulators, which the
// compiler vectorises (8 lanes on AVX2); a loop over a private array vectorises as one over global memory does.
#if GRID_STRIDE
#define DEPTHWISE_BLOCK 1
#else
#define DEPTHWISE_BLOCK 64
#endif

// `count` output elements from the one at coordinates c, all in one run of the innermost dimension (ow). Float
// products and sums
// are written apart and contracted into fma where the compiler chooses (FP_CONTRACT ON): PoCL calls fma() out of
// line, a call per step (gemm.cl's MAD says the same). Fused or not, the bound is the same.
#pragma OPENCL FP_CONTRACT ON
static inline void depthwise_run(DEPTHWISE_TENSORS(), const depthwise_t *w, const long *c, ulong count)
{
    ulong out = OUTPUT_offset;
    for (int d = 0; d < 5; ++d)
        out += (ulong)c[d] * w->output_stride[d];
    const ulong plane = INPUT_offset + (ulong)c[0] * w->input_stride[0] + (ulong)c[1] * w->input_stride[1];
    const ulong taps = FILTER_offset + (ulong)c[1] * w->filter_stride[0];
    const long stride = w->stride[2];
    CHANNEL_VALUES(w, (ulong)c[1]);
    for (ulong first = 0; first < count; first += DEPTHWISE_BLOCK) {
        const long ow = c[4] + (long)first;  // the block's first output
        const long n = count - first < DEPTHWISE_BLOCK ? (long)(count - first) : DEPTHWISE_BLOCK;
        acc_t acc[DEPTHWISE_BLOCK];
        for (long j = 0; j < n; ++j)
            acc[j] = 0;
        for (long kd = 0; kd < w->filter_size[0]; ++kd) {
            const long id = source_of(c[2], kd, w->stride[0], w->dilation[0], w->start[0], w->extent[0], w->valid[0]);
            if (id < 0)
                continue;
            for (long kh = 0; kh < w->filter_size[1]; ++kh) {
                const long ih =
                    source_of(c[3], kh, w->stride[1], w->dilation[1], w->start[1], w->extent[1], w->valid[1]);
                if (ih < 0)
                    continue;
                const ulong row = plane + (ulong)id * w->input_stride[2] + (ulong)ih * w->input_stride[3];
                const ulong filter_row =
                    taps + tap(w, 0, kd) * w->filter_stride[1] + tap(w, 1, kh) * w->filter_stride[2];
                for (long kw = 0; kw < w->filter_size[2]; ++kw) {
                    const acc_t f = FILTER_VALUE(filter_row + tap(w, 2, kw) * w->filter_stride[3]);
#if BACKWARD
                    for (long j = 0; j < n; ++j) {
                        const long iw =
                            source_of(ow + j, kw, stride, w->dilation[2], w->start[2], w->extent[2], w->valid[2]);
                        if (iw >= 0)
                            acc[j] = INPUT_VALUE(row + (ulong)iw * w->input_stride[4]) * f + acc[j];
                    }
#else
                    // Output ow + j meets input base + j * stride: in [0, extent) for j in [lo, hi), and only the
                    // window's own outputs (ow + j < valid) take it.
                    const long base = ow * stride - w->start[2] + kw * w->dilation[2];
                    const long valid = w->valid[2] - ow;
                    long lo, hi;
                    forward_range(base, stride, w->extent[2], n < valid ? n : valid, &lo, &hi);
                    if (lo >= hi)
                        continue;
                    const ulong at = row + (ulong)(base + lo * stride) * w->input_stride[4];
                    const ulong step = (ulong)stride * w->input_stride[4];
                    if (step == 1) {
                        for (long j = lo; j < hi; ++j)
                            acc[j] = INPUT_VALUE(at + (ulong)(j - lo)) * f + acc[j];
                    } else {
                        for (long j = lo; j < hi; ++j)
                            acc[j] = INPUT_VALUE(at + (ulong)(j - lo) * step) * f + acc[j];
                    }
#endif
                }
            }
        }
        for (long j = 0; j < n; ++j)
            FINISH(acc[j], out + (first + (ulong)j) * w->output_stride[4]);
    }
}

#if DEPTHWISE_KW
// The "cpu" profile's fast path (depthwise_plan's row_blocks picks it: FLOAT32, FORWARD, a filter of depth 1 and
// DEPTHWISE_KH x DEPTHWISE_KW elements, stride DEPTHWISE_SW and dilation 1 along the rows, no OutputPadding along
// them, the input's and output's rows packed). The general run above keeps its sums in a private array, loaded and
// stored around each multiply-add (9 times an output for 3 x 3), and works out each filter element's range of
// outputs per block: about 17 instructions an output. Here, per row of outputs, the filter's KH input rows are first
// copied into private rows padded with zeros (a plain copy, vectorised; a row that meets no input is all zeros; a
// row the previous row of outputs copied is kept, padded_rows_t), so that every block of 8 outputs reads them
// without a check; the block's 8 sums stay in one float8 across the whole window, each filter element's 8 lanes one
// vector load (two and a shuffle at stride 2), the filter's elements loaded once per row.
//
// The same bits as the general run: each lane sums the same terms in the same order (the filter's rows, then within
// a row its elements), each `x * f + sum` contracted as the general run's are, plus a term 0 * f for each padding
// element. Adding that zero leaves a sum s unchanged but for the sign of a zero (-0 + +0 is +0), which reaches the
// output only through a bias of -0 (+0 and any other bias give the same result from either zero): a channel whose
// bias is -0 takes the general run, and so does one whose filter holds an infinity or NaN (0 * inf is NaN, where the
// general run leaves padding out).
#define BLOCK 8

// Eight consecutive elements from p, as a vector: one unaligned 32-byte load, a memcpy. Eight scalar loads let
// LLVM's GVN forward the lanes a neighbouring filter element's vector already loaded and rebuild the rest with
// shuffles (PoCL: 15 instructions a filter row at stride 1, against 3 multiply-adds from memory now); PoCL runs
// vload8 as an out-of-line call, and a cast to float8 * would claim 32-byte alignment.
#define RUN8(p) run8(p)
static inline float8 run8(const float *p)
{
    float8 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

// The 8 lanes filter element k meets, from a block's first input element p.
#if DEPTHWISE_SW == 1
#define LANES(p, k) RUN8((p) + (k))
#else
#define LANES(p, k) even_lanes(RUN8((p) + (k)), RUN8((p) + (k) + 8))
static inline float8 even_lanes(float8 a, float8 b)
{
    return (float8)(a.s0, a.s2, a.s4, a.s6, b.s0, b.s2, b.s4, b.s6);
}
#endif

// The padded rows a work-item keeps from one row of outputs to the next (most input rows serve DEPTHWISE_KH rows
// of outputs): slot ih % DEPTHWISE_KH holds input row ih where DEPTHWISE_RING (the plan's check that a row of
// outputs' filter rows never share a slot: the row dilation prime to DEPTHWISE_KH), else slot kh, each with the
// input row (its offset), first element and length it holds; slot DEPTHWISE_KH is zeros, for the filter rows that
// meet no input row.
typedef struct {
    float row[DEPTHWISE_KH + 1][DEPTHWISE_SPAN];
    ulong at[DEPTHWISE_KH];
    long base[DEPTHWISE_KH], span[DEPTHWISE_KH];
    long zeros;  // the zeros slot's elements written
} padded_rows_t;

static inline void depthwise_rows(DEPTHWISE_TENSORS(), const depthwise_t *w, const long *c, ulong count,
                                  padded_rows_t *padded)
{
    const ulong taps = FILTER_offset + (ulong)c[1] * w->filter_stride[0];
    float f[DEPTHWISE_KH][DEPTHWISE_KW];
    bool finite = true;
    for (int kh = 0; kh < DEPTHWISE_KH; ++kh) {
        const ulong filter_row = taps + tap(w, 0, 0) * w->filter_stride[1] + tap(w, 1, kh) * w->filter_stride[2];
        for (int kw = 0; kw < DEPTHWISE_KW; ++kw) {
            f[kh][kw] = FILTER_VALUE(filter_row + tap(w, 2, kw) * w->filter_stride[3]);
            finite = finite && (as_uint(f[kh][kw]) & 0x7f800000u) != 0x7f800000u;  // not inf or NaN
        }
    }
    CHANNEL_VALUES(w, (ulong)c[1]);
    if (!finite || as_uint(bias_) == 0x80000000u) {  // see above: an infinite or NaN f, or a bias of -0
        depthwise_run(DEPTHWISE_ARGUMENTS, w, c, count);
        return;
    }
    ulong out = OUTPUT_offset;
    for (int d = 0; d < 5; ++d)
        out += (ulong)c[d] * w->output_stride[d];
    const ulong plane = INPUT_offset + (ulong)c[0] * w->input_stride[0] + (ulong)c[1] * w->input_stride[1];
    // The padded rows: element i is the input row's base + i, or 0 outside it; long enough for whole blocks
    // (depthwise_plan keeps span within DEPTHWISE_SPAN). A row the previous row of outputs copied is kept.
    const ulong blocks = (count + BLOCK - 1) / BLOCK;
    const long base = c[4] * DEPTHWISE_SW - w->start[2];
    const long span = (long)blocks * BLOCK * DEPTHWISE_SW + DEPTHWISE_KW - 1;
    const long end = w->extent[2] - base < span ? w->extent[2] - base : span;
    const long lo = base >= 0 ? 0 : (-base < span ? -base : span), hi = end > lo ? end : lo;
    const long id = source_of(c[2], 0, w->stride[0], w->dilation[0], w->start[0], w->extent[0], w->valid[0]);
    const float *rows[DEPTHWISE_KH];
    for (int kh = 0; kh < DEPTHWISE_KH; ++kh) {
        const long ih = source_of(c[3], kh, w->stride[1], w->dilation[1], w->start[1], w->extent[1], w->valid[1]);
        if (id < 0 || ih < 0) {
            for (long i = padded->zeros; i < span; ++i)
                padded->row[DEPTHWISE_KH][i] = 0.0f;
            padded->zeros = padded->zeros > span ? padded->zeros : span;
            rows[kh] = padded->row[DEPTHWISE_KH];
            continue;
        }
        const ulong at = plane + (ulong)id * w->input_stride[2] + (ulong)ih * w->input_stride[3];
        const int slot = DEPTHWISE_RING ? (int)(ih % DEPTHWISE_KH) : kh;
        float *row = padded->row[slot];
        rows[kh] = row;
        if (padded->at[slot] == at && padded->base[slot] == base && padded->span[slot] == span)
            continue;
        padded->at[slot] = at;
        padded->base[slot] = base;
        padded->span[slot] = span;
        for (long i = 0; i < lo; ++i)
            row[i] = 0.0f;
        for (long i = lo; i < hi; ++i)
            row[i] = INPUT[at + (ulong)(base + i)];
        for (long i = hi; i < span; ++i)
            row[i] = 0.0f;
    }
    for (ulong b = 0; b < blocks; ++b) {
        float8 sum = 0.0f;
#pragma unroll
        for (int kh = 0; kh < DEPTHWISE_KH; ++kh) {
            const float *p = rows[kh] + b * BLOCK * DEPTHWISE_SW;
#pragma unroll
            for (int kw = 0; kw < DEPTHWISE_KW; ++kw)
                sum = LANES(p, kw) * f[kh][kw] + sum;
        }
        const ulong at = out + b * BLOCK;
        if (count - b * BLOCK >= BLOCK) {
            FINISH(sum.s0, at);
            FINISH(sum.s1, at + 1);
            FINISH(sum.s2, at + 2);
            FINISH(sum.s3, at + 3);
            FINISH(sum.s4, at + 4);
            FINISH(sum.s5, at + 5);
            FINISH(sum.s6, at + 6);
            FINISH(sum.s7, at + 7);
        } else {
            const float sums[BLOCK] = {sum.s0, sum.s1, sum.s2, sum.s3, sum.s4, sum.s5, sum.s6, sum.s7};
            for (ulong j = 0; j < count - b * BLOCK; ++j)
                FINISH(sums[j], at + j);
        }
    }
}
#endif

__kernel void depthwise(DEPTHWISE_TENSORS(restrict), const ulong element_count, const uint8 sizes, DEPTHWISE_STRIDES,
                        const uint8 output_strides, const uint8 window, const int8 steps, const int8 starts,
                        const uint8 kernel_sizes)
{
    depthwise_t w;
    const uint shape[5] = {sizes.s0, sizes.s1, sizes.s2, sizes.s3, sizes.s4};
    const uint input_stride[5] = {input_strides.s0, input_strides.s1, input_strides.s2, input_strides.s3,
                                  input_strides.s4};
    const uint filter_stride[4] = {filter_strides.s0, filter_strides.s1, filter_strides.s2, filter_strides.s3};
    const uint output_stride[5] = {output_strides.s0, output_strides.s1, output_strides.s2, output_strides.s3,
                                   output_strides.s4};
    const uint v[6] = {window.s0, window.s1, window.s2, window.s3, window.s4, window.s5};
    const int s[6] = {steps.s0, steps.s1, steps.s2, steps.s3, steps.s4, steps.s5};
    const int p[3] = {starts.s0, starts.s1, starts.s2};
    const uint k[3] = {kernel_sizes.s0, kernel_sizes.s1, kernel_sizes.s2};
    for (int d = 0; d < 5; ++d) {
        w.shape[d] = shape[d];
        w.input_stride[d] = input_stride[d];
        w.output_stride[d] = output_stride[d];
    }
    for (int d = 0; d < 4; ++d)
        w.filter_stride[d] = filter_stride[d];
    for (int d = 0; d < 3; ++d) {
        w.channel_stride[d] = 0;
        w.extent[d] = v[d];
        w.valid[d] = v[3 + d];
        w.stride[d] = s[d];
        w.dilation[d] = s[3 + d];
        w.start[d] = p[d];
        w.filter_size[d] = k[d];
    }
    CHANNEL_STRIDES(w);
#if GRID_STRIDE
    long c[5];  // an output element's coordinates
    for (ulong e = get_global_id(0); e < element_count; e += get_global_size(0)) {
        first_run(e, w.shape, 5, c);
        depthwise_run(DEPTHWISE_ARGUMENTS, &w, c, 1);
    }
#else
    const ulong first = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM;
    const ulong end = min(first + (ulong)ELEMENTS_PER_ITEM, element_count);
    long c[5];  // the run's first output's coordinates
#if DEPTHWISE_KW
    padded_rows_t padded;
    padded.zeros = 0;
    for (int k = 0; k < DEPTHWISE_KH; ++k) {
        padded.at[k] = ~0ul;  // no input row starts there
        padded.base[k] = padded.span[k] = 0;
    }
#endif
    if (first < end)
        first_run(first, w.shape, 5, c);
    for (ulong e = first; e < end;) {
        const ulong count = min((ulong)(w.shape[4] - c[4]), end - e);
#if DEPTHWISE_KW
        depthwise_rows(DEPTHWISE_ARGUMENTS, &w, c, count, &padded);
#else
        depthwise_run(DEPTHWISE_ARGUMENTS, &w, c, count);
#endif
        next_run(count, w.shape, 5, c);
        e += count;
    }
#endif
}
