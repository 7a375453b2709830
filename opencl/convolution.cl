// convolution.cl: the convolutions' unfold step (dmlpy/kernels/convolution.py): the input's windows laid out as the
// columns of a matrix, so that gemm.cl's contraction with the filter computes the convolution (im2col). The
// depth-wise convolution, computed directly, is depthwise.cl's.
//
// The columns tensor is (BatchCount, InputChannelCount, KD, KH, KW, OD, OH, OW): for every input channel and
// filter element (kd, kh, kw), a row holding, per output position (od, oh, ow), the input element that filter element
// meets there, or the padding value. A convolution with fewer than 3 spatial dimensions has the leading ones of size
// 1 (filter 1, stride 1, dilation 1, no padding). Per spatial dimension, with output coordinate o and filter index k:
//   FORWARD   i = o * stride - start + k * dilation; outside [0, input) (padding), or o past the window's own
//             outputs (OutputPadding's zeros at the end), the element is the padding value
//   BACKWARD  the transposed convolution, as a gather: t = o + start - k * dilation; the input element i = t / stride
//             meets it where t is a non-negative multiple of stride and i < input; elsewhere the padding value
// The padding value is 0 for the floats and the input's zero point for the integer convolutions (FILL_TENSOR 1:
// its bits, read from that tensor), so padding contributes nothing after the zero point is taken away.
//
// Elements move as the unsigned integer of their width (ELEMENT_T), so floats (FLOAT16 as its bits) arrive unchanged.
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): tensors input, fill (unread without
// FILL_TENSOR) and columns; element_count the columns' elements; sizes the columns' (BatchCount, InputChannelCount,
// KD, KH, KW, OD, OH, OW); the input's strides (batch, channel, d, h, w), the fill's (unread) and the columns' eight;
// then the input's spatial sizes (ID, IH, IW) and the window's own outputs (VD, VH, VW: the output less
// OutputPadding under FORWARD, all of it under BACKWARD); the strides and dilations (SD, SH, SW, DD, DH, DW); the
// start paddings (PD, PH, PW).
//
// Launch shapes: "cpu" (GRID_STRIDE 0), a work-item fills ELEMENTS_PER_ITEM consecutive columns elements, a run of
// the innermost dimension at a time (the outer coordinates mapped once per run); "gpu", a grid-stride loop over the
// elements, neighbouring work-items writing neighbouring elements.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef BACKWARD
#define BACKWARD 0
#endif
#ifndef FILL_TENSOR
#define FILL_TENSOR 0
#endif

#include "convolution_window.h"

// The kernel's arguments, unpacked.
typedef struct {
    long shape[8];  // the columns': (batch, channel, kd, kh, kw, od, oh, ow)
    long extent[3], valid[3], stride[3], dilation[3], start[3];
    ulong input_stride[5], column_stride[8];
} unfold_t;

// `count` columns elements from the one at coordinates c, all in one run of the innermost dimension (ow).
static inline void unfold_run(__global const ELEMENT_T *input, ulong input_offset, __global ELEMENT_T *columns,
                              ulong columns_offset, const unfold_t *u, const long *c, ulong count, ELEMENT_T fill)
{
    ulong out = columns_offset;
    for (int d = 0; d < 8; ++d)
        out += (ulong)c[d] * u->column_stride[d];
    const ulong step = u->column_stride[7];
    // The depth and height coordinates hold along the run.
    const long id = source_of(c[5], c[2], u->stride[0], u->dilation[0], u->start[0], u->extent[0], u->valid[0]);
    const long ih = source_of(c[6], c[3], u->stride[1], u->dilation[1], u->start[1], u->extent[1], u->valid[1]);
    if (id < 0 || ih < 0) {
        for (ulong j = 0; j < count; ++j)
            columns[out + j * step] = fill;
        return;
    }
    const ulong at = input_offset + (ulong)c[0] * u->input_stride[0] + (ulong)c[1] * u->input_stride[1] +
                     (ulong)id * u->input_stride[2] + (ulong)ih * u->input_stride[3];
#if BACKWARD
    for (ulong j = 0; j < count; ++j) {
        const long iw =
            source_of(c[7] + (long)j, c[4], u->stride[2], u->dilation[2], u->start[2], u->extent[2], u->valid[2]);
        columns[out + j * step] = iw >= 0 ? input[at + (ulong)iw * u->input_stride[4]] : fill;
    }
#else
    // The run's inside, the outputs whose input is there, is one plain copy (at stride 1 from a packed row to the
    // packed columns, consecutive elements, which the compiler vectorises); only the padding at its ends fills.
    const long base = c[7] * u->stride[2] - u->start[2] + c[4] * u->dilation[2];
    const long valid = u->valid[2] - c[7];
    long lo, hi;
    forward_range(base, u->stride[2], u->extent[2], (long)count < valid ? (long)count : valid, &lo, &hi);
    const ulong from = at + (ulong)(base + lo * u->stride[2]) * u->input_stride[4];
    const ulong input_step = (ulong)u->stride[2] * u->input_stride[4];
    for (long j = 0; j < lo; ++j)
        columns[out + (ulong)j * step] = fill;
    if (step == 1 && input_step == 1) {
        for (long j = lo; j < hi; ++j)
            columns[out + (ulong)j] = input[from + (ulong)(j - lo)];
    } else {
        for (long j = lo; j < hi; ++j)
            columns[out + (ulong)j * step] = input[from + (ulong)(j - lo) * input_step];
    }
    for (ulong j = (ulong)hi; j < count; ++j)
        columns[out + j * step] = fill;
#endif
}

__kernel void unfold(__global const ELEMENT_T *restrict input, const ulong input_offset,
                     __global const ELEMENT_T *restrict fill_tensor, const ulong fill_offset,
                     __global ELEMENT_T *restrict columns, const ulong columns_offset, const ulong element_count,
                     const uint8 sizes, const uint8 input_strides, const uint8 fill_strides,
                     const uint8 column_strides, const uint8 window, const int8 steps, const int8 starts)
{
#if FILL_TENSOR
    const ELEMENT_T fill = fill_tensor[fill_offset];
#else
    const ELEMENT_T fill = 0;
#endif
    unfold_t u;
    const uint shape[8] = {sizes.s0, sizes.s1, sizes.s2, sizes.s3, sizes.s4, sizes.s5, sizes.s6, sizes.s7};
    const uint column_stride[8] = {column_strides.s0, column_strides.s1, column_strides.s2, column_strides.s3,
                                   column_strides.s4, column_strides.s5, column_strides.s6, column_strides.s7};
    const uint input_stride[5] = {input_strides.s0, input_strides.s1, input_strides.s2, input_strides.s3,
                                  input_strides.s4};
    const uint w[6] = {window.s0, window.s1, window.s2, window.s3, window.s4, window.s5};
    const int s[6] = {steps.s0, steps.s1, steps.s2, steps.s3, steps.s4, steps.s5};
    const int p[3] = {starts.s0, starts.s1, starts.s2};
    for (int d = 0; d < 8; ++d) {
        u.shape[d] = shape[d];
        u.column_stride[d] = column_stride[d];
    }
    for (int d = 0; d < 5; ++d)
        u.input_stride[d] = input_stride[d];
    for (int d = 0; d < 3; ++d) {
        u.extent[d] = w[d];
        u.valid[d] = w[3 + d];
        u.stride[d] = s[d];
        u.dilation[d] = s[3 + d];
        u.start[d] = p[d];
    }
#if GRID_STRIDE
    long c[8];  // an element's coordinates in the columns' shape
    for (ulong e = get_global_id(0); e < element_count; e += get_global_size(0)) {
        first_run(e, u.shape, 8, c);
        unfold_run(input, input_offset, columns, columns_offset, &u, c, 1, fill);
    }
#else
    const ulong first = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM;
    const ulong end = min(first + (ulong)ELEMENTS_PER_ITEM, element_count);
    long c[8];  // the run's first element's coordinates in the columns' shape
    if (first < end)
        first_run(first, u.shape, 8, c);
    for (ulong e = first; e < end;) {
        const ulong count = min((ulong)(u.shape[7] - c[7]), end - e);
        unfold_run(input, input_offset, columns, columns_offset, &u, c, count, fill);
        next_run(count, u.shape, 8, c);
        e += count;
    }
#endif
}
