// reverse_subsequences.cl: DML_REVERSE_SUBSEQUENCES (dmlpy/ops/sequences.py; ONNX's ReverseSequence), a movement:
// along dimension AXIS, output element a of a sequence whose length is L (SequenceLengthsTensor's element for that
// sequence, clamped to the axis's size n) reads the input at L - 1 - a where a < L, at a itself beyond (lengths 0
// and 1 leave the sequence as it is).
//
// Elements move as the unsigned integer of their width (ELEMENT_T: uchar, ushort, uint or ulong), so NaN payloads,
// -0 and 64-bit types arrive unchanged; LENGTH_T is the lengths' type (uint, or ulong from FL 5_0).
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): tensor 0 the input, tensor 1 the lengths
// (stride 0 along AXIS: one length per sequence), tensor 2 the output; `sizes` the output's RANK dimensions,
// uncoalesced (AXIS must stay a dimension of its own). The walk (elementwise_walk.h) steps through the output in
// the launch profile's shape; the input's walk offset is the element at the same coordinates, moved along AXIS to
// the mirrored one.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef LENGTH_T
#define LENGTH_T uint
#endif

#define TENSOR_COUNT 3
#include "elementwise_walk.h"

__kernel void reverse_subsequences(__global const ELEMENT_T *input, const ulong input_offset,
                                   __global const LENGTH_T *lengths, const ulong lengths_offset,
                                   __global ELEMENT_T *output, const ulong output_offset, const ulong element_count,
                                   const uint8 sizes, const uint8 input_strides, const uint8 lengths_strides,
                                   const uint8 output_strides)
{
    const uint8 strides[TENSOR_COUNT] = {input_strides, lengths_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, lengths_offset, output_offset};
    walk_t w;
    if (!walk_begin(&w, element_count, sizes, strides, offsets))
        return;
    const ulong axis_stride = w.stride[0][AXIS];
    do {
        const ulong a = w.coord[AXIS];
        const ulong length = min((ulong)lengths[w.at[1]], (ulong)w.size[AXIS]);
        // The sequence's first element (a = 0) in the input, then the mirrored coordinate's offset from it.
        const ulong source = a < length ? length - 1 - a : a;
        output[w.at[2]] = input[w.at[0] - a * axis_stride + source * axis_stride];
    } while (walk_advance(&w));
}
