// normalize.cl: DirectML's normalizations over groups of elements (dmlpy/ops/mean_variance_normalization.py,
// lp_normalization.py; laid out by dmlpy/kernels/reduction.py), one work-item per group (reduction_walk.h).
//
// mean_variance_normalization (MEAN_VARIANCE_NORMALIZATION, 1 and 2; REDUCTION_TENSORS 4: the input, ScaleTensor,
// BiasTensor, the output; an absent scale or bias is bound but never read, HAS_SCALE and HAS_BIAS 0):
//   center   = the group's mean (USE_MEAN 1), else 0 (MVN2's UseMean FALSE)
//   variance = the mean of (x - center)^2: a second pass over the group, which stays accurate where the mean is
//              large against the spread (the one-pass E[x^2] - E[x]^2 cancels there); both sums compensated
//              (compensated.h)
//   y        = ACTIVATION(Scale * (x - center) / sqrt(variance + Epsilon) + Bias) (USE_VARIANCE 1: elementwise_ops.h's
//              batch_normalization, the same arithmetic), or ACTIVATION(Scale * (x - center) + Bias)
// lp_normalization (LP_NORMALIZATION; REDUCTION_TENSORS 2): y = x / max(norm, Epsilon), norm the group's L1 (P 1)
//   or L2 (P 2) norm from a compensated sum; where Epsilon enters is dmlpy's choice, the page does not say
//   (docs/operators/normalization.md).
// EPSILON is the descriptor's Epsilon as a float literal; ACTIVATION(v) the FusedActivation's own expression (v
// itself without one). A FLOAT16 tensor is read as floats and the result rounded once to half (DML_FLOAT16 1).
// mean_variance_normalization reads its elements through element_at and stores through store_result: the input
// and the output, or under FUSED 1 a graph's group anchored by it (anchored.h; SCALE_AT and BIAS_AT then read
// the tensors the group binds for them).

#include "compensated.h"
#include "elementwise_ops.h"
#include "float_tensors.h"
#include "reduction_walk.h"
#include "anchored.h"

#ifndef ACTIVATION
#define ACTIVATION(v) (v)
#endif

// The sum over the group of f(x), compensated; `x` names the element (element_at) in the expression f.
#define GROUP_SUM(result, t, start, g, f)                                                                          \
    do {                                                                                                           \
        BlockedSum sum_ = blocked_sum();                                                                           \
        Cursor cursor_ = (start);                                                                                  \
        for (ulong i_ = 0; i_ < (g).length; ++i_) {                                                                \
            const float x = element_at(t, cursor_.at);                                                             \
            blocked_add(&sum_, (f));                                                                               \
            cursor_next(&cursor_, &(g));                                                                           \
        }                                                                                                          \
        (result) = blocked_total(sum_);                                                                            \
    } while (0)

// The tensors: the kernel's own, or under FUSED a graph group's (anchored.h), whose prologue computes each element
// and whose epilogue takes each result to its stores.
#if FUSED
static inline float element_at(const Tensors *t, const ulong *at)
{
    FUSED_ELEMENT(t, at, 0)
}

static inline void store_result(const Tensors *t, float result, const ulong *at)
{
    FUSED_STORE(t, result, at)
}
#ifndef SCALE_AT
#define SCALE_AT(t, at) 1.0f  // no ScaleTensor: HAS_SCALE 0, never read
#endif
#ifndef BIAS_AT
#define BIAS_AT(t, at) 0.0f  // no BiasTensor: HAS_BIAS 0, never read
#endif
#else
#if REDUCTION_TENSORS == 4
typedef struct {
    __global const storage_t *input, *scale, *bias;
    __global storage_t *output;
} Tensors;
#define SCALE_AT(t, at) LOAD((t)->scale, (at)[1])
#define BIAS_AT(t, at) LOAD((t)->bias, (at)[2])
#else
typedef struct {
    __global const storage_t *input;
    __global storage_t *output;
} Tensors;
#endif

static inline float element_at(const Tensors *t, const ulong *at)
{
    return LOAD(t->input, at[0]);
}

static inline void store_result(const Tensors *t, float result, const ulong *at)
{
    STORE(result, t->output, at[REDUCTION_TENSORS - 1]);
}
#endif

#ifndef P  // MEAN_VARIANCE_NORMALIZATION; LP_NORMALIZATION defines its P
#if FUSED
__kernel void mean_variance_normalization(FUSED_PARAMETERS, ulong element_count, uint8 sizes FUSED_STRIDES)
{
    ANCHORED_BEGIN(tensors, g, element_count, sizes);
#else
__kernel void mean_variance_normalization(__global const storage_t *input, ulong input_offset,
                                          __global const storage_t *scale, ulong scale_offset,
                                          __global const storage_t *bias, ulong bias_offset,
                                          __global storage_t *output, ulong output_offset, ulong element_count,
                                          uint8 sizes, uint8 input_strides, uint8 scale_strides,
                                          uint8 bias_strides, uint8 output_strides)
{
    const uint8 strides[4] = {input_strides, scale_strides, bias_strides, output_strides};
    const ulong offsets[4] = {input_offset, scale_offset, bias_offset, output_offset};
    const Tensors tensors = {input, scale, bias, output};
    Groups g;
    groups_of(&g, element_count, sizes, strides, offsets);
#endif
    const Tensors *t = &tensors;
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);
        float center = 0.0f, variance;
#if USE_MEAN
        GROUP_SUM(center, t, start, g, x);
        center /= (float)g.length;
#endif
        GROUP_SUM(variance, t, start, g, (x - center) * (x - center));
        variance /= (float)g.length;

        Cursor cursor = start;
        for (ulong i = 0; i < g.length; ++i) {
            const float x = element_at(t, cursor.at);
            const float s = HAS_SCALE ? SCALE_AT(t, cursor.at) : 1.0f;
            const float b = HAS_BIAS ? BIAS_AT(t, cursor.at) : 0.0f;
#if USE_VARIANCE
            const float y = batch_normalization(x, center, variance, s, b, EPSILON);
#else
            const float scaled = s * (x - center);
            const float y = scaled + b;
#endif
            store_result(t, ACTIVATION(y), cursor.at);
            cursor_next(&cursor, &g);
        }
    }
}
#else
#if FUSED
__kernel void lp_normalization(FUSED_PARAMETERS, ulong element_count, uint8 sizes FUSED_STRIDES)
{
    ANCHORED_BEGIN(tensors, g, element_count, sizes);
#else
__kernel void lp_normalization(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                               ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                               uint8 output_strides)
{
    const Tensors tensors = {input, output};
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
#endif
    const Tensors *t = &tensors;
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);
        float norm;
#if P == 1
        GROUP_SUM(norm, t, start, g, fabs(x));
#else
        GROUP_SUM(norm, t, start, g, x * x);
        norm = sqrt(norm);
#endif
        const float divisor = fmax(norm, EPSILON);
        Cursor cursor = start;
        for (ulong i = 0; i < g.length; ++i) {
            store_result(t, element_at(t, cursor.at) / divisor, cursor.at);
            cursor_next(&cursor, &g);
        }
    }
}
#endif
