// nonzero_coordinates.cl: DML_NONZERO_COORDINATES (dmlpy/ops/sequences.py; ONNX's NonZero, transposed): the
// coordinates of the input's non-zero elements as rows of OutputCoordinatesTensor, in row-major element order, and
// their count in OutputCountTensor.
//
// One work-item scans the whole input serially (the row of the k-th non-zero element depends on every element
// before it): correct on any device, and as slow as one core. A device that launches more work-items (the "gpu"
// profile rounds up to a work-group) leaves every work-item but the first idle. Rows at or past the count are left
// as they were: the page calls them undefined.
//
// An element is non-zero when its bits under NONZERO_MASK are not all 0: every bit for the integers, every bit but
// the sign for FLOAT32 and FLOAT16 (+0.0 and -0.0 are zero, NaN is not), read as the unsigned integer of its width
// (ELEMENT_T), so no float arithmetic is needed.
//
// Arguments follow the element-wise convention (dmlpy/kernels/source.py): tensor 0 the input (`sizes` its RANK
// dimensions, uncoalesced: each is a coordinate), tensor 1 the count, tensor 2 the coordinates (their walk strides
// unused); then `rows`: the coordinates tensor's row stride and column stride (its last two strides) and N, its
// columns, each row holding the last N coordinates.

#ifndef ELEMENT_T
#define ELEMENT_T uint
#endif
#ifndef NONZERO_MASK
#define NONZERO_MASK ((ELEMENT_T)~(ELEMENT_T)0)
#endif

__kernel void nonzero_coordinates(__global const ELEMENT_T *input, const ulong input_offset,
                                  __global uint *count, const ulong count_offset, __global uint *coordinates,
                                  const ulong coordinates_offset, const ulong element_count, const uint8 sizes,
                                  const uint8 input_strides, const uint8 count_strides,
                                  const uint8 coordinates_strides, const uint8 rows)
{
    if (get_global_id(0) != 0)
        return;
    uint size[8], stride[8], coordinate[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    vstore8(sizes, 0, size);
    vstore8(input_strides, 0, stride);
    const ulong row_stride = rows.s0, column_stride = rows.s1;
    const uint columns = rows.s2;
    ulong at = input_offset, row_at = coordinates_offset;
    uint found = 0;
    for (ulong e = 0; e < element_count; ++e) {
        if ((input[at] & NONZERO_MASK) != 0) {
            for (uint j = 0; j < columns; ++j)
                coordinates[row_at + j * column_stride] = coordinate[RANK - columns + j];
            row_at += row_stride;
            ++found;
        }
        // The next element, like an odometer: the last coordinate moves and carries into earlier ones.
        for (int d = RANK - 1; d >= 0; --d) {
            at += stride[d];
            if (++coordinate[d] < size[d])
                break;
            at -= (ulong)size[d] * stride[d];
            coordinate[d] = 0;
        }
    }
    count[count_offset] = found;
}
