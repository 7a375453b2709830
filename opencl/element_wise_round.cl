// ELEMENT_WISE_ROUND (DML_ELEMENT_WISE_ROUND_OPERATOR_DESC): output[i] = ROUND(input[i]), the rounding
// function elementwise_ops.h names for the mode (ROUNDING_MODE_<n>), as the template and fused graphs use it.
//
// Specialised with -D options (defaults below let the file compile on its own):
//   DML_FLOAT16=1        tensors hold half; read with vload_half, computed in float, written with vstore_half.
//                        Exact (every half is a float, every rounded result a half) and needs no cl_khr_fp16.
//   DML_HALF_BITS=1      set by dmlpy's runtime on PoCL: halves moved as their bits and converted by F16C or
//                        half_bits.h instead (see LOAD_VECTOR below).
//   ROUNDING_MODE        DML_ROUNDING_MODE's value: 0 HALVES_TO_NEAREST_EVEN (rint), 1 TOWARD_ZERO (trunc),
//                        2 TOWARD_INFINITY (halves away from zero, OpenCL's round(); not ceil). elementwise_ops.h's
//                        ROUNDING_MODE_<n> says which exact function each is.
//   DML_ELEMENTWISE_BUILTINS  set by dmlpy's runtime on PoCL: elementwise_ops.h's vectorisable forms (see ROUND).
//   DML_KEEP_NAN_BITS    1 (the default): a NaN is copied bit for bit, quieted, not rounded (see round_element);
//                        dmlpy's runtime sets 0 on PoCL, whose built-ins keep NaN bits themselves.
//   RANK=0               packed: both tensors are one contiguous run.
//   RANK=1..8            strided (padding, broadcast 0-strides, permutations): coordinates step like an odometer.
//   GRID_STRIDE=0        the "cpu" launch profile: each work-item rounds ELEMENTS_PER_ITEM consecutive elements
//                        (in the output's logical order), VECTOR_WIDTH at a time with vector loads, rounding and
//                        stores (gathered and scattered through a private array where a stride is not 1). Long
//                        work-items suit CPU devices: PoCL runs each as a plain loop of SIMD instructions.
//   TILED=1              "cpu" profile, RANK >= 2: a transpose (dmlpy/kernels/coalescing.py's tile_order), the input contiguous
//                        along dimension RANK-2 and the output along RANK-1. Walking the output's order would
//                        gather each vector from eight cache lines; the work goes by 8 x 8 tiles instead (see
//                        round_tile).
//   GRID_STRIDE=1        the "gpu" launch profile: work-item g of a grid of G rounds vectors g, g + G, ... (packed)
//                        or elements g, g + G, ... (strided, elementwise_walk.h): neighbouring work-items touch
//                        neighbouring addresses, so the loads coalesce, and one launch covers any size. On an
//                        H100, 4-wide vectors (16 bytes of float, 8 of half) measured 1.1-1.2x the scalar copy
//                        kernel's bandwidth at 16M-64M elements; 8-wide ones 0.45-1.0x, scalar ones 0.8-1.2x.
//
// Arguments follow dmlpy's element-wise convention (dmlpy/kernels/source.py): per tensor its buffer and element
// offset, then the element count, the coalesced sizes and per-tensor strides (unused when RANK=0).
// input and output may be the same buffer (in-place), so neither pointer is restrict.

#ifndef DML_FLOAT16
#define DML_FLOAT16 0
#endif
#ifndef DML_HALF_BITS
#define DML_HALF_BITS 0
#endif
#ifndef ROUNDING_MODE
#define ROUNDING_MODE 0
#endif
#ifndef RANK
#define RANK 0
#endif
#ifndef VECTOR_WIDTH
#define VECTOR_WIDTH 8
#endif
#ifndef GRID_STRIDE
#define GRID_STRIDE 0
#endif
#ifndef ELEMENTS_PER_ITEM
#define ELEMENTS_PER_ITEM 2048
#endif
#ifndef TILED
#define TILED 0
#endif
#if TILED && (GRID_STRIDE || RANK < 2 || VECTOR_WIDTH != 8)
#error "TILED needs the cpu launch profile (GRID_STRIDE=0, VECTOR_WIDTH=8) and RANK >= 2"
#endif

#include "elementwise_ops.h"

#if DML_FLOAT16
typedef half storage_t;
typedef ushort raw_t;
#define QUIET_BIT 0x0200u

#if DML_HALF_BITS
// PoCL (programs.device_options): the halves converted through their bits (half_bits.h), which its vectoriser
// turns into a few SIMD instructions per vector, where vload_half8 and vstore_half8 ran lane by lane (16M
// elements: 0.39-0.42x the copy kernel). Every rounded half is a half, so its bits need no rounding; a NaN keeps
// its sign and payload, quieted.
#include "half_bits.h"
#define HALF_BITS(p) ((__global ushort *)(p))
#define LOAD(index, p) half_bits_to_float(HALF_BITS(p)[index])
#define STORE(value, index, p) (HALF_BITS(p)[index] = half_value_bits(value))
// The bits move lane by lane, which clang combines into one vector load or store: PoCL's vload8 and vstore8 of
// ushort are calls into its library (two calls and two vzeroupper per eight elements).
static inline ushort4 half_bits_load4(__global const ushort *p) { return (ushort4)(p[0], p[1], p[2], p[3]); }
static inline ushort8 half_bits_load8(__global const ushort *p)
{
    return (ushort8)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}
static inline void half_bits_store4(ushort4 v, __global ushort *p)
{
    p[0] = v.s0, p[1] = v.s1, p[2] = v.s2, p[3] = v.s3;
}
static inline void half_bits_store8(ushort8 v, __global ushort *p)
{
    p[0] = v.s0, p[1] = v.s1, p[2] = v.s2, p[3] = v.s3, p[4] = v.s4, p[5] = v.s5, p[6] = v.s6, p[7] = v.s7;
}
#if VECTOR_WIDTH == 8 && defined(__has_builtin) && __has_builtin(__builtin_ia32_vcvtph2ps256)
// x86's F16C instructions, which PoCL's clang offers as builtins where the CPU has them: one instruction converts
// eight halves each way (16M elements, halves away from zero: 0.24-0.26x the copy kernel with half_bits.h's
// vector conversions, about 40 instructions per eight elements). Both exact here: vcvtph2ps is exact, and
// vcvtps2ph in mode 0 rounds to nearest even, which leaves a rounded half as it is. A NaN comes back quieted, sign
// and payload kept, as rounding it must give.
#define HALF_CONVERSION_TO_NEAREST 0
#define LOAD_VECTOR(index, p) __builtin_ia32_vcvtph2ps256(as_short8(half_bits_load8(HALF_BITS(p) + (index) * 8)))
#define STORE_VECTOR(value, index, p) \
    half_bits_store8(as_ushort8(__builtin_ia32_vcvtps2ph256((value), HALF_CONVERSION_TO_NEAREST)), HALF_BITS(p) + (index) * 8)
#else
#define LOAD_VECTOR(index, p) \
    CONCAT(half_bits_to_float, VECTOR_WIDTH)(CONCAT(half_bits_load, VECTOR_WIDTH)(HALF_BITS(p) + (index) * VECTOR_WIDTH))
#define STORE_VECTOR(value, index, p) \
    CONCAT(half_bits_store, VECTOR_WIDTH)(CONCAT(half_value_bits, VECTOR_WIDTH)(value), HALF_BITS(p) + (index) * VECTOR_WIDTH)
#endif
#else
// Scalar half stores (packed tails, strided scatters) go through store_half: PoCL 3.0's scalar vstore_half
// drops NaN payloads.
#include "half_store.h"

#define LOAD(index, p) vload_half((index), (p))
#define STORE(value, index, p) store_half((value), (index), (p))
#define LOAD_VECTOR(index, p) CONCAT(vload_half, VECTOR_WIDTH)((index), (p))
#define STORE_VECTOR(value, index, p) CONCAT(vstore_half, VECTOR_WIDTH)((value), (index), (p))
#endif
#else
typedef float storage_t;
typedef uint raw_t;
#define QUIET_BIT 0x00400000u
#define LOAD(index, p) ((p)[index])
#define STORE(value, index, p) ((p)[index] = (value))
#define LOAD_VECTOR(index, p) CONCAT(vload, VECTOR_WIDTH)((index), (p))
#define STORE_VECTOR(value, index, p) CONCAT(vstore, VECTOR_WIDTH)((value), (index), (p))
#endif
typedef CONCAT(float, VECTOR_WIDTH) compute_vector_t;

// The rounding itself: elementwise_ops.h's function for the mode, instantiated for this kernel's vector type
// where it is a user function (DEFINE_ROUNDING_MODES; the built-ins are overloaded already). ROUND_VECTOR rounds
// a loaded vector: the same, but where F16C loads and stores it (above).
#define ROUND(x) CONCAT(ROUNDING_MODE_, ROUNDING_MODE)(x)
DEFINE_ROUNDING_MODES(compute_vector_t)
#ifdef HALF_CONVERSION_TO_NEAREST
// Clang sees vcvtph2ps -> roundeven (or trunc) -> vcvtps2ph as a half rounded in half precision and narrows it so,
// which x86 without AVX512-FP16 runs element by element (0.06-0.07x the copy kernel). Halves to even and toward zero
// are therefore written in float operations it cannot narrow, exact for |x| < 2^23, which every half is; halves
// away from zero (round_half_away's selects) is not narrowed.
#define SIGN_BITS(x) (as_uint8(x) & 0x80000000u)
// Halves to even: c = 2^23 with x's sign makes x + c a float whose last place is 1, so the addition rounds x to an
// integer, halves to even, and subtracting c again is exact (clang does not reassociate without
// -cl-fast-relaxed-math). The result is 0 or has x's sign, so putting x's sign bit on it changes only a zero
// (-0.3 gives -0). NaN and infinities pass through both additions.
static inline float8 round_half_even_small(float8 x)
{
    const float8 c = as_float8(as_uint8((float8)(0x1p23f)) | SIGN_BITS(x));
    return as_float8(as_uint8((x + c) - c) | SIGN_BITS(x));
}
// Toward zero: the conversion to int truncates, exactly for |x| < 2^31, which every finite half is; infinities and
// NaN (magnitude bits from 65536 up) come back as they are, and are never converted (undefined in C: the select's
// other side gets 0). x's sign bit put back gives -0.7 its -0.
static inline float8 round_toward_zero_small(float8 x)
{
    const int8 finite = (as_uint8(x) & 0x7fffffffu) < 0x47800000u;
    const float8 converted = convert_float8(convert_int8(finite ? x : (float8)(0.0f)));
    return finite ? as_float8(as_uint8(converted) | SIGN_BITS(x)) : x;
}
#if ROUNDING_MODE == 0
#define ROUND_VECTOR(x) round_half_even_small(x)
#elif ROUNDING_MODE == 1
#define ROUND_VECTOR(x) round_toward_zero_small(x)
#endif
#endif
#ifndef ROUND_VECTOR
#define ROUND_VECTOR(x) ROUND(x)
#endif

#if GRID_STRIDE && RANK > 0
#define TENSOR_COUNT 2
#include "elementwise_walk.h"
#endif

// NaN in, the same NaN out, quieted as IEEE 754 rounding quiets a signalling NaN, sign and payload kept:
// NVIDIA's rint, trunc and round return the canonical NaN 0x7fffffff for every NaN, and its vload_half and
// vstore_half(N) lose a half NaN's payload, so a NaN element is copied as its raw bits, quieted
// (elementwise_ops.h's QUIET_NAN_BITS), instead of converted and rounded. A vector holding a NaN
// (any(isnan(...)): one compare and a branch not taken on NaN-free data) goes element by element.
static inline void round_element(__global const storage_t *input, ulong from, __global storage_t *output, ulong to)
{
    const float x = LOAD(from, input);
    if (DML_KEEP_NAN_BITS && isnan(x))
        ((__global raw_t *)output)[to] = QUIET_NAN_BITS(((__global const raw_t *)input)[from], QUIET_BIT);
    else
        STORE(ROUND(x), to, output);
}

// VECTOR_WIDTH consecutive elements from input[from] to output[to].
static inline void round_vector(__global const storage_t *input, ulong from, __global storage_t *output, ulong to)
{
    const compute_vector_t x = LOAD_VECTOR(0, input + from);
    if (DML_KEEP_NAN_BITS && any(isnan(x))) {
        for (int k = 0; k < VECTOR_WIDTH; ++k)
            round_element(input, from + k, output, to + k);
    } else {
        STORE_VECTOR(ROUND_VECTOR(x), 0, output + to);
    }
}

#if TILED
// One 8 x 8 tile of a transpose: rows[j] holds input elements (i, j) for i = 0..7, read as one vector from
// input[from + j * from_row]; output element (i, j) goes to output[to + i * to_row + j]. Eight vector loads,
// rounding (element-wise, so before the transpose), the transpose in registers, eight vector stores: every
// cache line read or written is used whole. A tile holding a NaN goes element by element (round_element).
#define TILE_COLUMN(k) (float8)(rows[0].s##k, rows[1].s##k, rows[2].s##k, rows[3].s##k, \
                                rows[4].s##k, rows[5].s##k, rows[6].s##k, rows[7].s##k)
static inline void round_tile(__global const storage_t *input, ulong from, ulong from_row, __global storage_t *output,
                       ulong to, ulong to_row)
{
    // Unrolled, the eight rows stay in registers: 0.5 -> 0.7-0.9x the copy kernel (float32, 16M elements).
    float8 rows[8];
    bool has_nan = false;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        rows[j] = LOAD_VECTOR(0, input + from + j * from_row);
        has_nan |= DML_KEEP_NAN_BITS && any(isnan(rows[j]));
    }
    if (has_nan) {
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j)
                round_element(input, from + i + j * from_row, output, to + i * to_row + j);
        return;
    }
#pragma unroll
    for (int j = 0; j < 8; ++j)
        rows[j] = ROUND_VECTOR(rows[j]);
    STORE_VECTOR(TILE_COLUMN(0), 0, output + to);
    STORE_VECTOR(TILE_COLUMN(1), 0, output + to + to_row);
    STORE_VECTOR(TILE_COLUMN(2), 0, output + to + 2 * to_row);
    STORE_VECTOR(TILE_COLUMN(3), 0, output + to + 3 * to_row);
    STORE_VECTOR(TILE_COLUMN(4), 0, output + to + 4 * to_row);
    STORE_VECTOR(TILE_COLUMN(5), 0, output + to + 5 * to_row);
    STORE_VECTOR(TILE_COLUMN(6), 0, output + to + 6 * to_row);
    STORE_VECTOR(TILE_COLUMN(7), 0, output + to + 7 * to_row);
}

// The tiles of a transpose: the tensors' last two dimensions cut into 8 x 8 tiles (partial ones at the edges go
// element by element), the outer dimensions iterated around them. Work-item g of G takes tiles
// [T * g / G, T * (g + 1) / G) of all T, which covers every tile whatever the launch's size.
static inline void round_tiles(__global const storage_t *input, ulong input_offset, __global storage_t *output,
                        ulong output_offset, ulong element_count, uint8 sizes, uint8 input_strides,
                        uint8 output_strides)
{
    uint size[8], in_stride[8], out_stride[8];
    vstore8(sizes, 0, size);
    vstore8(input_strides, 0, in_stride);
    vstore8(output_strides, 0, out_stride);
    const ulong rows = size[RANK - 2], columns = size[RANK - 1];  // input rows, output rows
    const ulong in_row = in_stride[RANK - 1], out_row = out_stride[RANK - 2];
    const ulong row_tiles = (rows + 7) / 8, column_tiles = (columns + 7) / 8;
    const ulong tiles = element_count / (rows * columns) * row_tiles * column_tiles;
    const ulong g = get_global_id(0), work_items = get_global_size(0);
    const ulong end = tiles * (g + 1) / work_items;
    for (ulong t = tiles * g / work_items; t < end; ++t) {
        ulong rest = t;
        const ulong j0 = rest % column_tiles * 8;
        rest /= column_tiles;
        const ulong i0 = rest % row_tiles * 8;
        rest /= row_tiles;
        ulong from = input_offset + i0 + j0 * in_row, to = output_offset + i0 * out_row + j0;
        for (int d = RANK - 3; d >= 0; --d) {
            const ulong coord = rest % size[d];
            rest /= size[d];
            from += coord * in_stride[d];
            to += coord * out_stride[d];
        }
        if (i0 + 8 <= rows && j0 + 8 <= columns) {
            round_tile(input, from, in_row, output, to, out_row);
        } else {
            for (ulong i = 0; i < min(8ul, rows - i0); ++i)
                for (ulong j = 0; j < min(8ul, columns - j0); ++j)
                    round_element(input, from + i + j * in_row, output, to + i * out_row + j);
        }
    }
}
#endif

__kernel void element_wise_round(__global const storage_t *input, ulong input_offset,
                                 __global storage_t *output, ulong output_offset,
                                 ulong element_count, uint8 sizes, uint8 input_strides,
                                 uint8 output_strides)
{
#if GRID_STRIDE && RANK == 0
    __global const storage_t *src = input + input_offset;
    __global storage_t *dst = output + output_offset;
    const ulong vectors = element_count / VECTOR_WIDTH;
    for (ulong v = get_global_id(0); v < vectors; v += get_global_size(0))
        round_vector(src, v * VECTOR_WIDTH, dst, v * VECTOR_WIDTH);
    for (ulong i = vectors * VECTOR_WIDTH + get_global_id(0); i < element_count; i += get_global_size(0))
        round_element(src, i, dst, i);
#elif GRID_STRIDE
    const uint8 strides[TENSOR_COUNT] = {input_strides, output_strides};
    const ulong offsets[TENSOR_COUNT] = {input_offset, output_offset};
    walk_t w;
    if (walk_begin(&w, element_count, sizes, strides, offsets)) do {
        round_element(input, w.at[0], output, w.at[1]);
    } while (walk_advance(&w));
#elif TILED
    round_tiles(input, input_offset, output, output_offset, element_count, sizes, input_strides, output_strides);
#else
    // Each work-item rounds one chunk of ELEMENTS_PER_ITEM consecutive elements (in the output's logical
    // order), VECTOR_WIDTH at a time: few, long work-items suit CPU devices, and the vector built-ins
    // (rint, trunc, round on floatN; vload_halfN, vstore_halfN) compile to branch-free SIMD code.
    const ulong first = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM;
    if (first >= element_count)
        return;
    const ulong end = min(first + (ulong)ELEMENTS_PER_ITEM, element_count);
#if RANK == 0
    __global const storage_t *src = input + input_offset;
    __global storage_t *dst = output + output_offset;
    ulong i = first;
    for (; i + VECTOR_WIDTH <= end; i += VECTOR_WIDTH)
        round_vector(src, i, dst, i);
    for (; i < end; ++i)
        round_element(src, i, dst, i);
#else
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
    // Walk the chunk one run of the innermost dimension at a time; carry into the outer ones between runs.
    const ulong inner = size[RANK - 1];
    const ulong in_step = in_stride[RANK - 1], out_step = out_stride[RANK - 1];
    float lanes[VECTOR_WIDTH];
    ulong i = first;
    while (i < end) {
        const ulong run = min(inner - coord[RANK - 1], end - i);
        ulong j = 0;
        for (; j + VECTOR_WIDTH <= run; j += VECTOR_WIDTH) {
            compute_vector_t v;
            if (in_step == 1) {
                v = LOAD_VECTOR(0, input + in_at + j);
            } else {
#if VECTOR_WIDTH == 8
                // Built from the eight loads directly rather than through the private array: PoCL then keeps the
                // lanes in registers (transposed 4-D input, 16M: float32 6-8 -> 11-12 GB/s, float16 2.2 -> 5-7).
                const ulong at = in_at + j * in_step;
                v = (compute_vector_t)(LOAD(at, input), LOAD(at + in_step, input), LOAD(at + 2 * in_step, input),
                                       LOAD(at + 3 * in_step, input), LOAD(at + 4 * in_step, input),
                                       LOAD(at + 5 * in_step, input), LOAD(at + 6 * in_step, input),
                                       LOAD(at + 7 * in_step, input));
#else
                for (int k = 0; k < VECTOR_WIDTH; ++k)
                    lanes[k] = LOAD(in_at + (j + k) * in_step, input);
                v = CONCAT(vload, VECTOR_WIDTH)(0, lanes);
#endif
            }
            if (DML_KEEP_NAN_BITS && any(isnan(v))) {
                for (int k = 0; k < VECTOR_WIDTH; ++k)
                    round_element(input, in_at + (j + k) * in_step, output, out_at + (j + k) * out_step);
                continue;
            }
            v = ROUND_VECTOR(v);
            if (out_step == 1) {
                STORE_VECTOR(v, 0, output + out_at + j);
            } else {
                CONCAT(vstore, VECTOR_WIDTH)(v, 0, lanes);
                for (int k = 0; k < VECTOR_WIDTH; ++k)
                    STORE(lanes[k], out_at + (j + k) * out_step, output);
            }
        }
        for (; j < run; ++j)
            round_element(input, in_at + j * in_step, output, out_at + j * out_step);
        i += run;
        in_at += run * in_step;
        out_at += run * out_step;
        coord[RANK - 1] += run;
        if (coord[RANK - 1] < inner)
            break;  // the chunk ended inside this run
        coord[RANK - 1] = 0;
        in_at -= inner * in_step;
        out_at -= inner * out_step;
        for (int d = RANK - 2; d >= 0; --d) {
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
#endif
}
