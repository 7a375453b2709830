// elementwise.cl: the element-wise template, one kernel for a single operator or for a fused group of them.
// A graph's element-wise nodes in one kernel (DML_GRAPH_DESC through device.compile_graph): every element is
// loaded once from each input, carried through the operators in registers and stored once to each output, so
// DequantizeLinear -> Round -> QuantizeLinear reads and writes memory once instead of three times. The
// operators' arithmetic is elementwise_ops.h's.
//
// dmlpy/kernels/elementwise.py writes the specialisation as #define lines before this file (the program's
// source shows them); the defaults below make it compile on its own, as a float32 copy.
//   TENSOR_COUNT         tensors bound to the kernel (1 to 9: QUANTIZED_LINEAR_ADD's eight inputs and output; a
//                        fused group binds at most 8): the inputs, then the outputs. A single operator binds
//                        every tensor slot, an absent optional one too (never read).
//   TENSOR<k>_T          tensor k's storage type (float, half, uchar, char, short, ushort, int, uint, ulong;
//                        uchar for the 4-bit types, two elements a byte)
//   STEP<k>              PACKED and ROWS: tensor k's step along the innermost dimension, 1 or 0 (a per-tensor
//                        or per-axis scale read once for a whole run)
//   FUSED=1              a graph's group of operators: the kernel is fused_elementwise, else elementwise.
//   MAY_ALIAS=1          a single operator that may run in place: its output may be its input, so no tensor is
//                        restrict and every value is read where it is used. Otherwise the tensors never
//                        overlap (DirectML refuses it), which restrict tells the compiler: without it, it must
//                        assume every store may change every later load.
//   FUSED_PROLOGUE       PACKED: loads of the tensors read once (STEP<k> 0) before the loop, with LOAD_ONE.
//   FUSED_BODY           the operators in order, one statement each: `const float v3 = ...;`, from loads of
//                        the inputs (LOAD, LOAD_HALF) to stores of the outputs (STORE, STORE_HALF). Each value
//                        is rounded to its output's data type where the operators one by one would store it
//                        (TO_HALF for FLOAT16, a saturating conversion for 8-bit integers), so a fused result is
//                        bit-identical to running them one by one. A copy moves each element's bits as the
//                        unsigned integer of its width (NaN payloads, signalling NaNs, 64-bit types exactly).
//   PACKED=1             every tensor one contiguous run or one value: a plain loop the compiler vectorises.
//   ROWS=1               "cpu" profile, every tensor stepping by 1 or 0 along the innermost coalesced dimension
//                        ROW_DIM (padding, per-axis scales): rows of it as plain loops, the rows walked with
//                        elementwise_walk.h over the RANK = ROW_DIM dimensions before it.
//   RANK, GRID_STRIDE, ELEMENTS_PER_ITEM   otherwise the strided walk; the launch profile (elementwise_walk.h).
//   NIBBLE_PAIRS=1       an output holds 4-bit elements: the two of a byte are stored by one work-item, one
//                        after the other (elementwise_walk.h); such an output is packed, so element offset e
//                        is byte e / 2.
//   PAIRED=1             PACKED or ROWS with 4-bit tensors, each row of a 4-bit tensor stepping by 1 starting at
//                        an even element: two elements an iteration (HALF 0 and 1), so such a tensor reads or
//                        writes one whole byte per iteration at constant shifts. PAIR_BEGIN declares the 4-bit
//                        outputs' bytes, PAIR_END stores them.
//   LANES=4              PACKED under the "gpu" profile, without 4-bit tensors: a work-item takes LANES consecutive
//                        elements a step, each tensor's read with one vload before any is computed and written
//                        with one vstore after (elementwise_lanes.h). LANE_LOADS, LANE_OUTPUTS and LANE_STORES are
//                        the generated vector loads, output vectors and stores.
//   DML_ELEMENTWISE_BUILTINS, DML_KEEP_NAN_BITS   elementwise_ops.h's options, set by dmlpy's runtime.
//
// Arguments follow dmlpy's element-wise convention (dmlpy/kernels/source.py): per tensor its buffer and element
// offset, then the element count, the coalesced sizes and per-tensor strides.

#pragma OPENCL FP_CONTRACT OFF

#ifndef TENSOR_COUNT
#define TENSOR_COUNT 2
#define TENSOR0_T float
#define TENSOR1_T float
#define STEP0 1
#define STEP1 1
#define PACKED 1
#define FUSED_PROLOGUE
#define FUSED_BODY                                                                                         \
    const float v0 = LOAD(0);                                                                              \
    STORE(1, v0);
#endif
#ifndef ROWS
#define ROWS 0
#endif
#ifndef FUSED
#define FUSED 0
#endif
#ifndef MAY_ALIAS
#define MAY_ALIAS 0
#endif
#ifndef PAIRED
#define PAIRED 0
#endif
#if TENSOR_COUNT > 9
#error "an element-wise kernel binds at most 9 tensors"
#endif

#include "elementwise_walk.h"
#include "elementwise_ops.h"

#ifndef LANES
#define LANES 1
#endif
#if LANES > 1 && !(PACKED && GRID_STRIDE && !PAIRED && !NIBBLE_PAIRS && LANES == 4)
#error "LANES (4) needs PACKED under the gpu launch profile (GRID_STRIDE=1), without 4-bit tensors"
#endif

// ------------------------------------------------------------------------------------------ loads and stores
// AT(k) is the element offset of the current element in tensor k; each loop shape below defines it. ELEMENT(k) is
// that element, HALF_BITS(k) a half tensor's element as its bits: the LANES loop redefines both as a component
// of the tensor's vector (elementwise_lanes.h).
#define ELEMENT(k) tensor##k[AT(k)]
#define HALF_BITS(k) ((__global ushort *)tensor##k)[AT(k)]
#define LOAD(k) (ELEMENT(k))
#define LOAD_ONE(k) (tensor##k[tensor##k##_offset])
#define STORE(k, value) (ELEMENT(k) = (value))
// Half tensors are read and written through their bits on every device (half_bits.h): a value stored to a half
// tensor is a half's already (TO_HALF: the nearest half as a float, NaN payload kept), so its bits are exact. Not
// vload_half and half_store.h's store_half, as element_wise_round.cl (everywhere) and ext_round.cl (off PoCL)
// read and write halves: on an NVIDIA H100 a kernel that read one half NaN and stored it to two half tensors
// wrote both as 0x7fff (the compiler keeps such a value in half precision, where NaN is canonical), while those
// kernels, which copy a NaN element's raw bits, kept the payload (0x7fbf).
#define LOAD_HALF(k) half_bits_to_float(HALF_BITS(k))
#define LOAD_ONE_HALF(k) half_bits_to_float(((__global const ushort *)tensor##k)[tensor##k##_offset])
#define STORE_HALF(k, value) (HALF_BITS(k) = half_value_bits(value))
#define TO_HALF(x) half_value(x)
// 4-bit tensors (INT4, UINT4): element e is in byte e / 2, the even element in the low nibble (DirectML's order,
// docs/quantization.md). AT(k) counts elements, so a 4-bit tensor's offsets and strides need no conversion.
#define LOAD_UINT4(k) uint4_at(tensor##k, AT(k))
#define LOAD_INT4(k) int4_at(tensor##k, AT(k))
#define LOAD_ONE_UINT4(k) uint4_at(tensor##k, tensor##k##_offset)
#define LOAD_ONE_INT4(k) int4_at(tensor##k, tensor##k##_offset)
#define STORE_UINT4(k, value) store_nibble(tensor##k, AT(k), (uchar)(value))
#define STORE_INT4(k, value) store_nibble(tensor##k, AT(k), (uchar)(value))

// PAIRED: element (row start) + (2 * pair + HALF) * STEP. A 4-bit tensor stepping by 1 starts its rows at even
// elements (the generator checks), so its pair is the byte (row start) / 2 + pair and HALF picks the nibble; one
// stepping by 0 reads one nibble for the whole row, wherever it is. The loops count pairs, so a byte's index is
// affine in the loop variable: with elements j and j / 2 the compiler did not see that, and on PoCL (64M packed
// INT4 -> FLOAT32) the loop stayed scalar, 4.2x the time of INT8 -> FLOAT32; counting pairs, 0.97x.
#if PAIRED
#undef LOAD_UINT4
#undef LOAD_INT4
#undef STORE_UINT4
#undef STORE_INT4
#define PAIRED_NIBBLE(k)                                                                                   \
    ((tensor##k[(ROW_START(k) >> 1) + pair * STEP##k] >> (((ROW_START(k) & 1) + HALF * STEP##k) * 4)) & 0x0f)
#define LOAD_UINT4(k) ((uchar)PAIRED_NIBBLE(k))
#define LOAD_INT4(k) ((char)((PAIRED_NIBBLE(k) ^ 8) - 8))
#define STORE_UINT4(k, value) (nibbles##k |= (uchar)(((value) & 0x0f) << (HALF * 4)))
#define STORE_INT4(k, value) STORE_UINT4(k, value)
#define STORE_PAIR(k) (tensor##k[(ROW_START(k) >> 1) + pair] = nibbles##k)
#endif

static inline uchar uint4_at(__global const uchar *bytes, ulong at)
{
    return (bytes[at >> 1] >> ((at & 1) * 4)) & 0x0f;
}

// The nibble's bit 3 is the sign: flipping it and subtracting 8 maps 8..15 to -8..-1 and keeps 0..7, with no
// implementation-defined narrowing.
static inline char int4_at(__global const uchar *bytes, ulong at)
{
    return (char)((uint4_at(bytes, at) ^ 8) - 8);
}

// Storing a nibble writes its whole byte: the even element writes it with a zero high nibble, the odd one that
// follows in the same work-item (NIBBLE_PAIRS) reads it back and adds its own. So no work-item ever writes a
// byte another one writes, and an odd element count leaves the last byte's high nibble 0.
static inline void store_nibble(__global uchar *bytes, ulong at, uchar value)
{
    __global uchar *byte = bytes + (at >> 1);
    *byte = (at & 1) ? (uchar)((*byte & 0x0f) | (value << 4)) : (uchar)(value & 0x0f);
}

// ------------------------------------------------------------------------------------------------ the kernel
#if MAY_ALIAS
#define TENSOR_PARAMETER(k) __global TENSOR##k##_T *tensor##k, ulong tensor##k##_offset
#else
#define TENSOR_PARAMETER(k) __global TENSOR##k##_T *restrict tensor##k, ulong tensor##k##_offset
#endif
#define STRIDES_PARAMETER(k) , uint8 strides##k

#if FUSED
__kernel void fused_elementwise(
#else
__kernel void elementwise(
#endif
                                TENSOR_PARAMETER(0)
#if TENSOR_COUNT > 1
                                , TENSOR_PARAMETER(1)
#endif
#if TENSOR_COUNT > 2
                                , TENSOR_PARAMETER(2)
#endif
#if TENSOR_COUNT > 3
                                , TENSOR_PARAMETER(3)
#endif
#if TENSOR_COUNT > 4
                                , TENSOR_PARAMETER(4)
#endif
#if TENSOR_COUNT > 5
                                , TENSOR_PARAMETER(5)
#endif
#if TENSOR_COUNT > 6
                                , TENSOR_PARAMETER(6)
#endif
#if TENSOR_COUNT > 7
                                , TENSOR_PARAMETER(7)
#endif
#if TENSOR_COUNT > 8
                                , TENSOR_PARAMETER(8)
#endif
                                , ulong element_count, uint8 sizes STRIDES_PARAMETER(0)
#if TENSOR_COUNT > 1
                                STRIDES_PARAMETER(1)
#endif
#if TENSOR_COUNT > 2
                                STRIDES_PARAMETER(2)
#endif
#if TENSOR_COUNT > 3
                                STRIDES_PARAMETER(3)
#endif
#if TENSOR_COUNT > 4
                                STRIDES_PARAMETER(4)
#endif
#if TENSOR_COUNT > 5
                                STRIDES_PARAMETER(5)
#endif
#if TENSOR_COUNT > 6
                                STRIDES_PARAMETER(6)
#endif
#if TENSOR_COUNT > 7
                                STRIDES_PARAMETER(7)
#endif
#if TENSOR_COUNT > 8
                                STRIDES_PARAMETER(8)
#endif
)
{
#if PACKED && PAIRED
#define ROW_START(k) tensor##k##_offset
#define AT(k) (tensor##k##_offset + (2 * pair + HALF) * STEP##k)
    FUSED_PROLOGUE
    // Whole pairs in the loop, which then has no condition in it; an odd count's last element after it.
    const ulong pairs = element_count / 2;
#define PAIR_HALVES 2
    FOR_EACH_PACKED_PAIR(pair, pairs) {
#include "elementwise_pair.h"
    }
#undef PAIR_HALVES
#define PAIR_HALVES 1
    if (element_count % 2 && OWNS_PACKED_PAIR(pairs)) {
        const ulong pair = pairs;
#include "elementwise_pair.h"
    }
#elif PACKED
#define AT(k) (tensor##k##_offset + i * STEP##k)
    // Without MAY_ALIAS no output overlaps an input (DirectML refuses it; a graph runs no operator in place),
    // so reading the one-value tensors once is exact, and lets the loop vectorise.
    FUSED_PROLOGUE
#if LANES > 1
    // The last element_count % LANES elements first, one a work-item: the loop over whole groups after it redefines
    // the element macros.
    const ulong groups = element_count / LANES;
    for (ulong i = groups * LANES + get_global_id(0); i < element_count; i += get_global_size(0)) {
        FUSED_BODY
    }
    FOR_EACH_PACKED(group, groups) {
#include "elementwise_lanes.h"
    }
#elif !GRID_STRIDE && ELEMENTS_PER_ITEM == 1
    // One element a work-item (LaunchProfile.lanes_across_work_items: Intel's compiler makes neighbouring work-items
    // a vector's lanes), launched as exactly element_count work-items (LoweredOperator.launch_ranges), so no bound
    // to check: behind a check on each lane the vectorised loads and stores were masked, and a masked narrowing
    // store (vpmovdw, vpmovdb) took 1.5-4x the time of a plain one (FLOAT32 -> FLOAT16 CAST, -> UINT8
    // QUANTIZE_LINEAR, on AMD Zen 4).
    {
        const ulong i = get_global_id(0);
        FUSED_BODY
    }
#else
    FOR_EACH_PACKED(i, element_count) {
        FUSED_BODY
    }
#endif
#else
    const uint8 strides[TENSOR_COUNT] = {strides0
#if TENSOR_COUNT > 1
                                         , strides1
#endif
#if TENSOR_COUNT > 2
                                         , strides2
#endif
#if TENSOR_COUNT > 3
                                         , strides3
#endif
#if TENSOR_COUNT > 4
                                         , strides4
#endif
#if TENSOR_COUNT > 5
                                         , strides5
#endif
#if TENSOR_COUNT > 6
                                         , strides6
#endif
#if TENSOR_COUNT > 7
                                         , strides7
#endif
#if TENSOR_COUNT > 8
                                         , strides8
#endif
    };
    const ulong offsets[TENSOR_COUNT] = {tensor0_offset
#if TENSOR_COUNT > 1
                                         , tensor1_offset
#endif
#if TENSOR_COUNT > 2
                                         , tensor2_offset
#endif
#if TENSOR_COUNT > 3
                                         , tensor3_offset
#endif
#if TENSOR_COUNT > 4
                                         , tensor4_offset
#endif
#if TENSOR_COUNT > 5
                                         , tensor5_offset
#endif
#if TENSOR_COUNT > 6
                                         , tensor6_offset
#endif
#if TENSOR_COUNT > 7
                                         , tensor7_offset
#endif
#if TENSOR_COUNT > 8
                                         , tensor8_offset
#endif
    };
#if ROWS
    // This work-item's ELEMENTS_PER_ITEM consecutive elements, a row segment at a time: the walk holds the row's
    // start in every tensor, the plain loop steps along it by STEP<k> (1, or 0 for a per-axis scale).
#if PAIRED
#define ROW_START(k) (w.at[k])
#define AT(k) (w.at[k] + (2 * pair + HALF) * STEP##k)
#else
#define AT(k) (w.at[k] + j * STEP##k)
#endif
    const ulong row_length = CONCAT(sizes.s, ROW_DIM);
    ulong element = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM;
    const ulong end = min(element + (ulong)ELEMENTS_PER_ITEM, element_count);
    if (element < end) {
        walk_t w;
        walk_start(&w, element / row_length, sizes, strides, offsets);
        ulong column = element % row_length;
        for (;;) {
            const ulong stop = min(row_length, column + (end - element));
#if PAIRED
            // column and stop are even: so are row_length and ELEMENTS_PER_ITEM, and so the element count.
#define PAIR_HALVES 2
            for (ulong pair = column / 2; pair < stop / 2; ++pair) {
#include "elementwise_pair.h"
            }
#else
            for (ulong j = column; j < stop; ++j) {
                FUSED_BODY
            }
#endif
            element += stop - column;
            if (element >= end)
                break;
            walk_next(&w);
            column = 0;
        }
    }
#else
#define AT(k) (w.at[k])
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
        FUSED_BODY
    } while (walk_advance(&w));
#endif
#endif
}
