// depthwise_operands.h: depthwise.cl's depth-wise kernel per operator: its tensors in the operator's binding
// order (DEPTHWISE_TENSORS, DEPTHWISE_STRIDES, DEPTHWISE_ARGUMENTS), what it reads per channel (CHANNEL_STRIDES,
// CHANNEL_VALUES), an input and a filter element as the sum's operands (INPUT_VALUE, FILTER_VALUE) and the output's
// ending (FINISH): depthwise.cl's opening comment says each operator's arithmetic.
#ifndef DEPTHWISE_OPERANDS_H
#define DEPTHWISE_OPERANDS_H

#include "elementwise_ops.h"
#include "float_tensors.h"
#include "requantize.h"

#ifndef ACTIVATION
#define ACTIVATION(v) (v)
#endif
#ifndef HAS_BIAS
#define HAS_BIAS 0
#endif
#ifndef FLIPPED
#define FLIPPED 0
#endif
#ifndef INTEGER_SUM
#define INTEGER_SUM 0
#endif
#ifndef QUANTIZED
#define QUANTIZED 0
#endif

// The tensors as parameters: `q` is restrict for the kernel's, nothing for depthwise_run's (restrict on an inlined
// function's parameters leaves llvm.experimental.noalias.scope.decl calls, which Oclgrind cannot run).
#define VALUE(name, q) __global const name##_T *q name, const ulong name##_offset
#if !INTEGER_SUM
typedef float acc_t;
typedef storage_t INPUT_T, FILTER_T, BIAS_T, OUTPUT_T;
#define DEPTHWISE_TENSORS(q)                                                                                          \
    VALUE(INPUT, q), VALUE(FILTER, q), VALUE(BIAS, q), __global OUTPUT_T *q OUTPUT, const ulong OUTPUT_offset
#define DEPTHWISE_STRIDES const uint8 input_strides, const uint8 filter_strides, const uint8 bias_strides
#define DEPTHWISE_ARGUMENTS INPUT, INPUT_offset, FILTER, FILTER_offset, BIAS, BIAS_offset, OUTPUT, OUTPUT_offset
#define CHANNEL_STRIDES(w) (w).channel_stride[0] = bias_strides.s1
#define CHANNEL_VALUES(w, c)                                                                                          \
    const float bias_ = HAS_BIAS ? LOAD(BIAS, BIAS_offset + (c) * (w)->channel_stride[0]) : 0.0f
#define INPUT_VALUE(at) LOAD(INPUT, at)
#define FILTER_VALUE(at) LOAD(FILTER, at)
#define FINISH(acc, at) STORE(ACTIVATION((acc) + bias_), OUTPUT, at)
#else
typedef uint acc_t;
typedef INPUT_T INPUT_ZERO_T;
typedef FILTER_T FILTER_ZERO_T;
typedef int BIAS_T;
typedef float INPUT_SCALE_T, FILTER_SCALE_T, OUTPUT_SCALE_T;
typedef OUTPUT_T OUTPUT_ZERO_T;
#define ZERO_POINT(name, at) (HAS_##name ? (int)name[at] : 0)
#define INPUT_VALUE(at) ((acc_t)((int)INPUT[at] - input_zero_))
#define FILTER_VALUE(at) ((acc_t)((int)FILTER[at] - filter_zero_))
#if !QUANTIZED
#define DEPTHWISE_TENSORS(q)                                                                                          \
    VALUE(INPUT, q), VALUE(INPUT_ZERO, q), VALUE(FILTER, q), VALUE(FILTER_ZERO, q), __global int *q OUTPUT,           \
    const ulong OUTPUT_offset
#define DEPTHWISE_STRIDES                                                                                             \
    const uint8 input_strides, const uint8 input_zero_strides, const uint8 filter_strides,                            \
    const uint8 filter_zero_strides
#define DEPTHWISE_ARGUMENTS                                                                                           \
    INPUT, INPUT_offset, INPUT_ZERO, INPUT_ZERO_offset, FILTER, FILTER_offset, FILTER_ZERO, FILTER_ZERO_offset,       \
    OUTPUT, OUTPUT_offset
#define CHANNEL_STRIDES(w) (w).channel_stride[0] = filter_zero_strides.s1
#define CHANNEL_VALUES(w, c)                                                                                        \
    const int input_zero_ = ZERO_POINT(INPUT_ZERO, INPUT_ZERO_offset);                                             \
    const int filter_zero_ = ZERO_POINT(FILTER_ZERO, FILTER_ZERO_offset + (c) * (w)->channel_stride[0])
#define FINISH(acc, at) (OUTPUT[at] = as_int(acc))
#else
#define DEPTHWISE_TENSORS(q)                                                                                          \
    VALUE(INPUT, q), VALUE(INPUT_SCALE, q), VALUE(INPUT_ZERO, q), VALUE(FILTER, q), VALUE(FILTER_SCALE, q),           \
    VALUE(FILTER_ZERO, q), VALUE(BIAS, q), VALUE(OUTPUT_SCALE, q), VALUE(OUTPUT_ZERO, q),                             \
    __global OUTPUT_T *q OUTPUT, const ulong OUTPUT_offset
#define DEPTHWISE_STRIDES                                                                                             \
    const uint8 input_strides, const uint8 input_scale_strides, const uint8 input_zero_strides,                       \
    const uint8 filter_strides, const uint8 filter_scale_strides, const uint8 filter_zero_strides,                    \
    const uint8 bias_strides, const uint8 output_scale_strides, const uint8 output_zero_strides
#define DEPTHWISE_ARGUMENTS                                                                                           \
    INPUT, INPUT_offset, INPUT_SCALE, INPUT_SCALE_offset, INPUT_ZERO, INPUT_ZERO_offset, FILTER, FILTER_offset,       \
    FILTER_SCALE, FILTER_SCALE_offset, FILTER_ZERO, FILTER_ZERO_offset, BIAS, BIAS_offset, OUTPUT_SCALE,              \
    OUTPUT_SCALE_offset, OUTPUT_ZERO, OUTPUT_ZERO_offset, OUTPUT, OUTPUT_offset
#define CHANNEL_STRIDES(w)                                                                                          \
    ((w).channel_stride[0] = filter_zero_strides.s1, (w).channel_stride[1] = filter_scale_strides.s1,               \
     (w).channel_stride[2] = bias_strides.s1)
#define CHANNEL_VALUES(w, c)                                                                                        \
    const int input_zero_ = ZERO_POINT(INPUT_ZERO, INPUT_ZERO_offset);                                             \
    const int filter_zero_ = ZERO_POINT(FILTER_ZERO, FILTER_ZERO_offset + (c) * (w)->channel_stride[0]);           \
    const float filter_scale_ = FILTER_SCALE[FILTER_SCALE_offset + (c) * (w)->channel_stride[1]];                  \
    const uint bias_ = HAS_BIAS ? (uint)BIAS[BIAS_offset + (c) * (w)->channel_stride[2]] : 0u;                      \
    const float input_scale_ = INPUT_SCALE[INPUT_SCALE_offset], output_scale_ = OUTPUT_SCALE[OUTPUT_SCALE_offset]; \
    const float output_zero_ = (float)ZERO_POINT(OUTPUT_ZERO, OUTPUT_ZERO_offset)
#define FINISH(acc, at)                                                                                             \
    (OUTPUT[at] = CONCAT(saturate_, OUTPUT_T)(                                                                      \
         requantize(as_int((acc) + bias_), filter_scale_, input_scale_, output_scale_, output_zero_)))
#endif
#endif

#endif
