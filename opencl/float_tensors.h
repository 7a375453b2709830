// float_tensors.h: how a kernel that computes in float reads and writes its tensors (softmax.cl, normalize.cl,
// local_response_normalization.cl, reduce.cl, cumulative.cl). A FLOAT16 tensor (DML_FLOAT16 1) is bound as its bits
// and converted through half_bits.h, as the element-wise template does: vload_half and vstore_half stop PoCL's
// vectoriser and lose NaN payloads on NVIDIA (half_bits.h); a store rounds the float to half once. Otherwise LOAD and
// STORE read and write the element as it is (FLOAT32, or an integer type where the kernel computes on integers).
#ifndef FLOAT_TENSORS_H
#define FLOAT_TENSORS_H

#include "half_bits.h"

#if DML_FLOAT16
typedef ushort storage_t;
#define LOAD(buffer, at) half_bits_to_float((buffer)[at])
#define STORE(value, buffer, at) ((buffer)[at] = half_value_bits(half_value(value)))
#else
typedef float storage_t;
#define LOAD(buffer, at) ((buffer)[at])
#define STORE(value, buffer, at) ((buffer)[at] = (value))
#endif

#endif
