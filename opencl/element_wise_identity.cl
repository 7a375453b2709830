// ELEMENT_WISE_IDENTITY (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC): output = input, or with ScaleBias
// output = input * Scale + Bias, computed in float.
//
// Specialised with -D options (defaults below let the file compile on its own):
//   SCALE_BIAS=0         copy (ScaleBias null). ELEMENT_T is the unsigned integer of the element's width (uchar,
//                        ushort, uint, ulong): each element's bits move unchanged, so FLOAT16 and FLOAT32 NaN
//                        payloads, signalling NaNs and -0 survive, and FLOAT64 needs no cl_khr_fp64. Strides make
//                        the copy any relayout: padding, transposition, broadcast (0-strides) of the input.
//   SCALE_BIAS=1         FLOAT32: y = x * SCALE + BIAS, the product rounded to float, then the sum (ELEMENT_T float).
//   SCALE_BIAS=2         FLOAT16: x read with vload_half, y computed as for 1, rounded to the nearest half by
//                        half_store.h's store_half, which keeps NaN payloads (ELEMENT_T half; no cl_khr_fp16).
//   SCALE_BIAS=3         8- to 32-bit integers (ELEMENT_T char ... uint): x converted to float (to nearest), y as for
//                        1, stored with convert_<ELEMENT_T>_sat_rtz: truncation toward zero, saturation to the
//                        type's range, NaN to 0 (Direct3D's float-to-integer rule; DirectML documents none),
//                        the NaN replaced before the conversion (see to_integer).
//   SCALE, BIAS          DML_SCALE_BIAS's members as exact float32 expressions (hex literals such as 0x1.8p+0f, or
//                        as_float(bits) for infinities and NaN). They are compiled in, because dmlpy's element-wise
//                        argument convention has no scalar arguments: each ScaleBias value is its own program.
//   PACKED=1             both tensors are one contiguous run: a plain loop, no coordinates.
//   RANK=1..8            otherwise, the strided walk (elementwise_walk.h) over the coalesced dimensions.
//   GRID_STRIDE          the launch profile (elementwise_walk.h): 0, each work-item handles ELEMENTS_PER_ITEM
//                        consecutive elements (in the output's logical order); 1, a grid-stride loop (GPUs).
//
// No fused multiply-add: FP_CONTRACT is off and the product and the sum are separate statements, so results
// equal IEEE float32 arithmetic step by step (NumPy's np.float32(x) * s + b), on every device.
//
// Arguments follow dmlpy's element-wise convention (dmlpy/kernels/spec.py): per tensor (Input, Output) its buffer and
// element offset, then the element count, the coalesced sizes and per-tensor strides (unused when PACKED=1).
// input and output may be the same buffer (in-place), so neither pointer is restrict.

#pragma OPENCL FP_CONTRACT OFF

#ifndef SCALE_BIAS
#define SCALE_BIAS 0
#endif
#ifndef ELEMENT_T
#if SCALE_BIAS == 1
#define ELEMENT_T float
#elif SCALE_BIAS == 2
#define ELEMENT_T half
#elif SCALE_BIAS == 3
#define ELEMENT_T int
#else
#define ELEMENT_T uint
#endif
#endif
#ifndef SCALE
#define SCALE 0x1p+0f
#endif
#ifndef BIAS
#define BIAS 0x0p+0f
#endif
#ifndef ELEMENTS_PER_ITEM
#define ELEMENTS_PER_ITEM 1024
#endif

#define TENSOR_COUNT 2
#include "elementwise_walk.h"

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

#if SCALE_BIAS == 0
#define MOVE(from, to) (output[to] = input[from])
#else
inline float scale_bias(float x)
{
    const float product = x * (SCALE);
    return product + (BIAS);
}
#if SCALE_BIAS == 1
#define MOVE(from, to) (output[to] = scale_bias(input[from]))
#elif SCALE_BIAS == 2
#include "half_store.h"
#define MOVE(from, to) store_half(scale_bias(vload_half((from), input)), (to), output)
#else
// convert_<type>_sat_rtz sends NaN to 0 by the OpenCL specification, but PoCL 3.0 (LLVM 14, the pyopencl wheels')
// returns the type's minimum for a NaN argument and an arbitrary value for a constant-folded one (Scale 0, Bias
// NaN): the NaN is replaced by 0 before the conversion.
inline ELEMENT_T to_integer(float y)
{
    return CONCAT(CONCAT(convert_, ELEMENT_T), _sat_rtz)(isnan(y) ? 0.0f : y);
}
#define MOVE(from, to) (output[to] = to_integer(scale_bias((float)input[from])))
#endif
#endif

__kernel void element_wise_identity(__global const ELEMENT_T *input, ulong input_offset,
                                    __global ELEMENT_T *output, ulong output_offset,
                                    ulong element_count, uint8 sizes, uint8 input_strides,
                                    uint8 output_strides)
{
#if PACKED
    FOR_EACH_PACKED(i, element_count)
        MOVE(input_offset + i, output_offset + i);
#else
    const uint8 strides[TENSOR_COUNT] = {input_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, output_offset};
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
        MOVE(w.at[0], w.at[1]);
    } while (walk_advance(&w));
#endif
}
