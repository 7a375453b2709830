// cumulative.cl: DirectML's CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT (dmlpy/ops/cumulative.py; laid out by
// dmlpy/kernels/reduction.py): at every element, the sum (PRODUCT 0) or product (PRODUCT 1) of the elements of its
// sequence along Axis up to it, one work-item per sequence (reduction_walk.h; the reduced part is the one Axis,
// REDUCED_RANK 1).
//
// REVERSED 1 (AxisDirection DECREASING) runs the tally from the sequence's last element to its first; EXCLUSIVE 1
// (HasExclusiveSum, HasExclusiveProduct) writes the tally before taking in the element, so the first output is 0
// (or 1) and the whole total is written nowhere: ONNX CumSum's reverse and exclusive (onnx.reference's CumSum).
//
// Each element is read before its own output is written, and no other output is written before it is read, so
// OutputTensor may alias InputTensor (in-place execution, which the pages allow).
//
// FLOAT_VALUES 1 computes in float (a FLOAT16 tensor read through its bits and each output rounded once to half,
// DML_FLOAT16 1):
//   sums      a running sum with Neumaier's compensation in blocks (compensated.h), each output the compensated total so
//             far: the m-th is within 2u|S_m| + 2m u^2 sum|x| of the exact prefix sum S_m (u = 2^-24), where a
//             plain running sum's error grows as (m - 1) u sum|x|
//   products  a serial running product: the m-th within (m - 1) u |P_m| of the exact one (no underflow)
// a FLOAT16 output adds its one rounding, 2^-11 relative. Otherwise the tensors are bound as the unsigned integer
// of their width (STORAGE_T) and the arithmetic wraps modulo 2^width, as ELEMENT_WISE_ADD and MULTIPLY wrap: the
// low bits of a two's complement sum or product are those of the unsigned one.

#include "compensated.h"
#include "float_tensors.h"
#include "reduction_walk.h"

#if FLOAT_VALUES
typedef float element_t;
#else
typedef STORAGE_T element_t;
#endif

#if FLOAT_VALUES && !PRODUCT
typedef BlockedSum tally_t;  // compensated in blocks: an axis past 2^24 elements stays within 2u|S|
#define TALLY_START blocked_sum()
#define TALLY_TAKE(tally, x) blocked_add(&(tally), (x))
#define TALLY_VALUE(tally) blocked_total(tally)
#elif FLOAT_VALUES
typedef float tally_t;
#define TALLY_START 1.0f
#define TALLY_TAKE(tally, x) ((tally) *= (x))
#define TALLY_VALUE(tally) (tally)
#else
typedef STORAGE_T tally_t;
#define TALLY_START ((STORAGE_T)PRODUCT)
#if PRODUCT
#define TALLY_TAKE(tally, x) ((tally) = (STORAGE_T)((tally) * (x)))
#else
#define TALLY_TAKE(tally, x) ((tally) = (STORAGE_T)((tally) + (x)))
#endif
#define TALLY_VALUE(tally) (tally)
#endif

__kernel void cumulative(__global const STORAGE_T *input, ulong input_offset, __global STORAGE_T *output,
                         ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                         uint8 output_strides)
{
    Groups g;
    groups_of_two(&g, element_count, sizes, input_strides, output_strides, input_offset, output_offset);
    const ulong input_step = g.stride[0][KEPT_RANK], output_step = g.stride[1][KEPT_RANK];
    FOR_EACH_GROUP(group, g)
    {
        Cursor start;
        group_start(&start, &g, group);
        tally_t tally = TALLY_START;
        for (ulong i = 0; i < g.length; ++i) {
            const ulong place = REVERSED ? g.length - 1 - i : i;
            const ulong output_at = start.at[1] + place * output_step;
            const element_t x = LOAD(input, start.at[0] + place * input_step);
#if EXCLUSIVE
            STORE(TALLY_VALUE(tally), output, output_at);
            TALLY_TAKE(tally, x);
#else
            TALLY_TAKE(tally, x);
            STORE(TALLY_VALUE(tally), output, output_at);
#endif
        }
    }
}
