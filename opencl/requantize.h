// requantize.h: the quantized products' result from their exact integer sum, written once for gemm.cl's epilogue
// (QUANTIZED_LINEAR_MATRIX_MULTIPLY, QUANTIZED_LINEAR_CONVOLUTION through im2col) and depthwise.cl's depth-wise
// kernel (QUANTIZED_LINEAR_CONVOLUTION with one channel a group), so both paths of one operator compute the same bits.
#ifndef REQUANTIZE_H
#define REQUANTIZE_H

#include "elementwise_ops.h"

// The INT32 sum (a bias already added, modulo 2^32 as the sum is) rounded once to float, times A's scale, then times
// B's (the product of the dequantized operands, in that order: a different order rounds differently); then
// QuantizeLinear's arithmetic (elementwise_ops.h's quantize, halves to even), before saturation to the output type.
static inline float requantize(int sum, float a_scale, float b_scale, float out_scale, float out_zero)
{
    return quantize(((float)sum * a_scale) * b_scale, out_scale, out_zero, false);
}

#endif
