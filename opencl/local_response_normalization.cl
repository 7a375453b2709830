// local_response_normalization.cl: DML_LOCAL_RESPONSE_NORMALIZATION (dmlpy/ops/local_response_normalization.py),
// one output element at a time:
//
//   y = x / (Bias + Alpha / LocalSize * S)^Beta,   S = the sum of x'^2 over x's window
//
// The window, per dimension of { N, C, H, W }, runs from `before` elements before x's coordinate to `after` after
// it, clipped at the tensor's edges (an element outside adds nothing; the divisor stays LocalSize, as ONNX's LRN):
// CrossChannel TRUE along C only, FALSE along H and W (LocalSize x LocalSize), before = floor((LocalSize - 1) / 2)
// and after = ceil((LocalSize - 1) / 2) as ONNX centres it. The squares' sum is compensated (compensated.h), each
// square's rounding error recovered exactly by fma(x, x, -x^2), so S is within 2u of the exact sum of squares of a
// window of any size. OpenCL 1.2's full profile allows pow 16 ULPs (its table 7.1); the division is correctly
// rounded (-cl-fp32-correctly-rounded-divide-sqrt): docs/operators/normalization.md derives the bound from these.
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): tensor 0 the input, tensor 1 the output,
// `sizes` the four dimensions uncoalesced (the window needs each); then `window`: the channel window's before and
// after, the spatial window's before and after, then the bits of the float Alpha / LocalSize, Beta and Bias (numbers
// as arguments: every LRN of one data type shares one program). A FLOAT16 tensor is read as floats and the result
// rounded once to half (DML_FLOAT16 1).

#include "compensated.h"
#include "float_tensors.h"

#define TENSOR_COUNT 2
#define RANK 4
#include "elementwise_walk.h"


// Whether window offset k (0 .. before + after) of `coordinate` is inside a dimension of `size`, and where: the
// index coordinate + k - before wraps past `size` in unsigned arithmetic where it lies before the edge, so one
// comparison clips both edges (no saturating subtraction, which compilers make llvm.usub.sat, an intrinsic
// Oclgrind cannot run).
#define WINDOW_INDEX(coordinate, k, before) ((coordinate) + (k) - (before))

__kernel void local_response_normalization(__global const storage_t *input, const ulong input_offset,
                                           __global storage_t *output, const ulong output_offset,
                                           const ulong element_count, const uint8 sizes, const uint8 input_strides,
                                           const uint8 output_strides, const uint8 window)
{
    const uint8 strides[TENSOR_COUNT] = {input_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, output_offset};
    const ulong channel_before = window.s0, channel_after = window.s1;
    const ulong spatial_before = window.s2, spatial_after = window.s3;
    const float scale = as_float(window.s4), beta = as_float(window.s5), bias = as_float(window.s6);
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    do {
        const ulong c = w.coord[1], h = w.coord[2], x_ = w.coord[3];
        const ulong batch_at = input_offset + w.coord[0] * input_strides.s0;
        CompensatedSum sum = {0.0f, 0.0f};
        for (ulong k = 0; k <= channel_before + channel_after; ++k) {
            const ulong channel = WINDOW_INDEX(c, k, channel_before);
            if (channel >= sizes.s1)
                continue;
            for (ulong i = 0; i <= spatial_before + spatial_after; ++i) {
                const ulong row = WINDOW_INDEX(h, i, spatial_before);
                if (row >= sizes.s2)
                    continue;
                for (ulong j = 0; j <= spatial_before + spatial_after; ++j) {
                    const ulong column = WINDOW_INDEX(x_, j, spatial_before);
                    if (column >= sizes.s3)
                        continue;
                    const float v = LOAD(input, batch_at + channel * input_strides.s1 + row * input_strides.s2 +
                                                    column * input_strides.s3);
                    const float square = v * v;
                    compensated_add(&sum, square);
                    sum.compensation += fma(v, v, -square);  // exact: the square's rounding error
                }
            }
        }
        const float base = bias + scale * compensated_total(sum);
        STORE(LOAD(input, w.at[0]) / pow(base, beta), output, w.at[1]);
    } while (walk_advance(&w));
}
