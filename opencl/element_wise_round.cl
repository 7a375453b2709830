// ELEMENT_WISE_ROUND (DML_ELEMENT_WISE_ROUND_OPERATOR_DESC): output[i] = ROUND_FN(input[i]).
//
// Specialised with -D options (defaults below let the file compile on its own):
//   DML_FLOAT16=1        tensors hold half; read with vload_half, computed in float, written with vstore_half.
//                        Exact (every half is a float, every rounded result a half) and needs no cl_khr_fp16.
//   ROUND_FN             rint  : DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN (2.5 -> 2)
//                        trunc : DML_ROUNDING_MODE_TOWARD_ZERO (-1.75 -> -1)
//                        round : DML_ROUNDING_MODE_TOWARD_INFINITY, halves away from zero (2.5 -> 3), not ceil.
//                        The built-ins are exact for every input, keep the sign of zero, pass infinities and
//                        NaN (sign and payload) through; never replace them with x + 0.5 tricks.
//   RANK=0               packed: both tensors are one contiguous run; each work-item rounds VECTOR_WIDTH
//                        neighbours with one vector load and store.
//   RANK=1..8            strided (padding, broadcast 0-strides, permutations): each work-item walks
//                        ELEMENTS_PER_ITEM consecutive elements, stepping coordinates like an odometer.
//
// Arguments follow dmlpy's element-wise convention (dmlpy/codegen.py): per tensor its buffer and element
// offset, then the element count, the coalesced sizes and per-tensor strides (unused when RANK=0).
// input and output may be the same buffer (in-place), so neither pointer is restrict.

#ifndef DML_FLOAT16
#define DML_FLOAT16 0
#endif
#ifndef ROUND_FN
#define ROUND_FN rint
#endif
#ifndef RANK
#define RANK 0
#endif
#ifndef VECTOR_WIDTH
#define VECTOR_WIDTH 8
#endif
#ifndef ELEMENTS_PER_ITEM
#define ELEMENTS_PER_ITEM 16
#endif

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)

#if DML_FLOAT16
typedef half storage_t;
#define LOAD(index, p) vload_half((index), (p))
#define STORE(value, index, p) vstore_half((value), (index), (p))
#define LOAD_VECTOR(index, p) CONCAT(vload_half, VECTOR_WIDTH)((index), (p))
#define STORE_VECTOR(value, index, p) CONCAT(vstore_half, VECTOR_WIDTH)((value), (index), (p))
#else
typedef float storage_t;
#define LOAD(index, p) ((p)[index])
#define STORE(value, index, p) ((p)[index] = (value))
#define LOAD_VECTOR(index, p) CONCAT(vload, VECTOR_WIDTH)((index), (p))
#define STORE_VECTOR(value, index, p) CONCAT(vstore, VECTOR_WIDTH)((value), (index), (p))
#endif

__kernel void element_wise_round(__global const storage_t *input, ulong input_offset,
                                 __global storage_t *output, ulong output_offset,
                                 ulong element_count, uint8 sizes, uint8 input_strides,
                                 uint8 output_strides)
{
#if RANK == 0
    __global const storage_t *src = input + input_offset;
    __global storage_t *dst = output + output_offset;
    const ulong item = get_global_id(0);
    const ulong first = item * VECTOR_WIDTH;
    if (first + VECTOR_WIDTH <= element_count) {
        STORE_VECTOR(ROUND_FN(LOAD_VECTOR(item, src)), item, dst);
    } else {
        for (ulong i = first; i < element_count; ++i)
            STORE(ROUND_FN(LOAD(i, src)), i, dst);
    }
#else
    const ulong first = get_global_id(0) * ELEMENTS_PER_ITEM;
    if (first >= element_count)
        return;
    const ulong end = min(first + (ulong)ELEMENTS_PER_ITEM, element_count);

    uint size[8], in_stride[8], out_stride[8];
    vstore8(sizes, 0, size);
    vstore8(input_strides, 0, in_stride);
    vstore8(output_strides, 0, out_stride);

    // Coordinates of the first element (last dimension fastest) and its offsets in each tensor; 64-bit, so
    // tensors of up to 2^32-1 elements with large strides cannot overflow.
    ulong coord[RANK];
    ulong rest = first;
    ulong in_at = input_offset, out_at = output_offset;
    for (int d = RANK - 1; d >= 0; --d) {
        coord[d] = rest % size[d];
        rest /= size[d];
        in_at += coord[d] * in_stride[d];
        out_at += coord[d] * out_stride[d];
    }
    for (ulong i = first; i < end; ++i) {
        STORE(ROUND_FN(LOAD(in_at, input)), out_at, output);
        for (int d = RANK - 1; d >= 0; --d) {
            in_at += in_stride[d];
            out_at += out_stride[d];
            if (++coord[d] < size[d])
                break;
            in_at -= (ulong)size[d] * in_stride[d];
            out_at -= (ulong)size[d] * out_stride[d];
            coord[d] = 0;
        }
    }
#endif
}
