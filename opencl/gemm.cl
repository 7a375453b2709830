// gemm.cl: DirectML's matrix products (dmlpy/ops/gemm.py, matrix_multiply_integer.py; laid out by
// dmlpy/kernels/contraction.py): GEMM (OPERATOR 0), MATRIX_MULTIPLY_INTEGER (1), QUANTIZED_LINEAR_MATRIX_MULTIPLY
// (2) and MATRIX_MULTIPLY_INTEGER_TO_FLOAT (3), one kernel, `contraction`, whose tensors are the operator's; and the
// convolutions' products (dmlpy/kernels/convolution.py: the filter times the unfolded input, or, IMPLICIT, the input
// read through the window into the panel by gemm_window.h): CONVOLUTION as GEMM,
// CONVOLUTION_INTEGER as MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_CONVOLUTION (4), QUANTIZED_LINEAR_MATRIX_MULTIPLY
// with an INT32 bias per row added to the sum.
//
// The contraction domain is (batch0, batch1, M, N, K): `sizes` holds those five, and every tensor walks it through
// its own strides (0 where it does not move: A along N, B along M, the output along K, a per-row zero point along
// everything but M). A transpose is swapped strides, a broadcast a 0 stride: no kernel variant for either.
//
// Accumulation: every output element is one serial chain over k = 0, 1, ..., K - 1 in both launch shapes,
// acc = MAD(a_k, b_k, acc): floats a product and a sum, fused into an fma where the compiler contracts them (the
// dot product's bound |error| <= gamma_K * sum |a||b| holds either way, docs/operators/gemm.md),
// integers in 32-bit unsigned arithmetic, exact modulo 2^32 (an INT32 result wraps as ELEMENT_WISE_ADD does).
// No built-in function is called in the loops: PoCL 3.0 calls them out of line (fma, min, vload8 measured so),
// which keeps its code scalar.
//
// Epilogues (EPILOGUE(acc, at) below): GEMM ACTIVATION(Alpha * acc + Beta * C); MATRIX_MULTIPLY_INTEGER the sum
// itself; QUANTIZED_LINEAR_MATRIX_MULTIPLY saturate(quantize(sum * AScale * BScale, OutputScale, OutputZeroPoint)),
// elementwise_ops.h's quantize (halves to even), QUANTIZED_LINEAR_CONVOLUTION the same of sum + Bias (modulo 2^32); MATRIX_MULTIPLY_INTEGER_TO_FLOAT sum * AScale * BScale + Bias.
// Zero points are taken away as the operands are read, in the integers (exact).
//
// Launch shapes. "cpu" (GRID_STRIDE 0): a work-item computes tiles of CPU_ROWS x CPU_COLUMNS outputs, the columns
// as CPU_VECTORS 8-wide vectors (one AVX2 register each), K in blocks of CPU_DEPTH: the block of B is copied once
// into a private panel of vectors (zero points taken away, columns past N as 0) and reused by every row of the
// tile, 4 rows at a time (8 vector accumulators, 2 panel loads and 4 broadcasts per k), the tile's partial sums
// kept in a private array between K blocks; the integer products' tiles (gemm_pairs.h) hold two steps of k
// in each 32-bit lane, PAIR_COLUMNS wide, PAIR_ROW_STEP rows a pass. "gpu" (GRID_STRIDE 1): a work-group
// computes GPU_TILE x GPU_TILE outputs from GPU_DEPTH-deep tiles of A and B in local memory, each of 256 virtual
// work-items 4 x 4 outputs, strided by 16 so that neighbouring work-items touch neighbouring columns; a work-group of fewer work-items
// (the kernel's limit on some device) takes the virtual ones in passes. Both loop over their tiles (a grid-stride
// loop), so any launch size covers the domain.

#include "elementwise_ops.h"
#include "requantize.h"

#define GEMM 0
#define MATRIX_MULTIPLY_INTEGER 1
#define QUANTIZED_LINEAR_MATRIX_MULTIPLY 2
#define MATRIX_MULTIPLY_INTEGER_TO_FLOAT 3
#define QUANTIZED_LINEAR_CONVOLUTION 4
#define QUANTIZED (OPERATOR == QUANTIZED_LINEAR_MATRIX_MULTIPLY || OPERATOR == QUANTIZED_LINEAR_CONVOLUTION)

// ------------------------------------------------------------------------------------- what is accumulated
#if OPERATOR == MATRIX_MULTIPLY_INTEGER || QUANTIZED
typedef uint acc_t;
typedef uint8 acc8_t;
typedef int zero_t;
#define MAD(a, b, acc) ((acc) + (a) * (b))
// (x - zero point) of 8-bit operands fits an int; as uint its products and sums wrap modulo 2^32, which is the
// INT32 result's bits (signed overflow would be undefined).
#define OPERAND(x, zero) ((acc_t)((int)(x) - (int)(zero)))
#else
typedef float acc_t;
typedef float8 acc8_t;
// A product and a sum, which the loops below let the compiler contract into one fma (FP_CONTRACT ON there): on PoCL
// fma() is a library call, and a call per step keeps the loop scalar. Fused or not, the bound is the same.
#define MAD(a, b, acc) ((a) * (b) + (acc))
#if OPERATOR == GEMM
typedef float zero_t; // GEMM has no zero points: never read
#define OPERAND(x, zero) (x)
#else
typedef long zero_t;
// MATRIX_MULTIPLY_INTEGER_TO_FLOAT: the difference exact in 64 bits, rounded once to float (exact up to 16-bit
// operands), as dequantize_wide rounds it.
#define OPERAND(x, zero) ((acc_t)((long)(x) - (long)(zero)))
#endif
#endif

// A FLOAT16 tensor is bound as its bits (DML_FLOAT16 1) and read through half_bits.h.
#if DML_FLOAT16
#define FLOAT_OF(x) half_bits_to_float(x)
#define STORE_FLOAT(value, buffer, at) ((buffer)[at] = half_value_bits(half_value(value)))
#else
#define FLOAT_OF(x) (x)
#define STORE_FLOAT(value, buffer, at) ((buffer)[at] = (value))
#endif

#define MIN_OF(a, b) ((a) < (b) ? (a) : (b))

#ifndef ACTIVATION
#define ACTIVATION(v) (v)
#endif

// ------------------------------------------------------------------------------------- each operator's tensors
// A tensor's element at (batch0, batch1, m, n, k) is base + the dot product of the coordinates with its strides.
#define AT(strides, offset, b0, b1, m, n, k)                                                                        \
    ((offset) + (b0) * (ulong)(strides).s0 + (b1) * (ulong)(strides).s1 + (m) * (ulong)(strides).s2 +               \
     (n) * (ulong)(strides).s3 + (k) * (ulong)(strides).s4)

#if OPERATOR == GEMM
#define TENSORS                                                                                                    \
    __global const A_T *a, ulong a_offset, __global const A_T *b, ulong b_offset, __global const A_T *c,           \
        ulong c_offset, __global A_T *out, ulong out_offset
#define STRIDES uint8 a_strides, uint8 b_strides, uint8 c_strides, uint8 out_strides
#define SCALARS , uint8 scalars // Alpha's and Beta's bits: every Alpha and Beta share one program
#define A_ZERO(b0, b1, m) 0
#define B_ZERO(b0, b1, n) 0
#define READ_A(at) FLOAT_OF(a[at])
#define READ_B(at) FLOAT_OF(b[at])
#elif OPERATOR == MATRIX_MULTIPLY_INTEGER
#define TENSORS                                                                                                    \
    __global const A_T *a, ulong a_offset, __global const A_T *a_zero, ulong a_zero_offset, __global const B_T *b, \
        ulong b_offset, __global const B_T *b_zero, ulong b_zero_offset, __global int *out, ulong out_offset
#define STRIDES uint8 a_strides, uint8 a_zero_strides, uint8 b_strides, uint8 b_zero_strides, uint8 out_strides
#define TENSOR_NAMES a, a_offset, a_zero, a_zero_offset, b, b_offset, b_zero, b_zero_offset, out, out_offset
#define STRIDE_NAMES a_strides, a_zero_strides, b_strides, b_zero_strides, out_strides
#elif QUANTIZED
// QUANTIZED_LINEAR_CONVOLUTION's bias comes before the output scale, in the operator's binding order.
#if OPERATOR == QUANTIZED_LINEAR_CONVOLUTION
#define BIAS_TENSOR __global const int *bias, ulong bias_offset,
#define BIAS_STRIDES uint8 bias_strides,
#define BIAS_NAMES bias, bias_offset,
#define BIAS_STRIDE_NAMES bias_strides,
#else
#define BIAS_TENSOR
#define BIAS_STRIDES
#define BIAS_NAMES
#define BIAS_STRIDE_NAMES
#endif
#define TENSORS                                                                                                    \
    __global const A_T *a, ulong a_offset, __global const float *a_scale, ulong a_scale_offset,                    \
        __global const A_T *a_zero, ulong a_zero_offset, __global const B_T *b, ulong b_offset,                    \
        __global const float *b_scale, ulong b_scale_offset, __global const B_T *b_zero, ulong b_zero_offset,      \
        BIAS_TENSOR __global const float *out_scale, ulong out_scale_offset, __global const OUT_T *out_zero,       \
        ulong out_zero_offset, __global OUT_T *out, ulong out_offset
#define STRIDES                                                                                                    \
    uint8 a_strides, uint8 a_scale_strides, uint8 a_zero_strides, uint8 b_strides, uint8 b_scale_strides,          \
        uint8 b_zero_strides, BIAS_STRIDES uint8 out_scale_strides, uint8 out_zero_strides, uint8 out_strides
#define TENSOR_NAMES                                                                                               \
    a, a_offset, a_scale, a_scale_offset, a_zero, a_zero_offset, b, b_offset, b_scale, b_scale_offset, b_zero,     \
        b_zero_offset, BIAS_NAMES out_scale, out_scale_offset, out_zero, out_zero_offset, out, out_offset
#define STRIDE_NAMES                                                                                               \
    a_strides, a_scale_strides, a_zero_strides, b_strides, b_scale_strides, b_zero_strides, BIAS_STRIDE_NAMES      \
        out_scale_strides, out_zero_strides, out_strides
#else
#define TENSORS                                                                                                    \
    __global const A_T *a, ulong a_offset, __global const SCALE_T *a_scale, ulong a_scale_offset,                  \
        __global const A_T *a_zero, ulong a_zero_offset, __global const A_T *b, ulong b_offset,                    \
        __global const SCALE_T *b_scale, ulong b_scale_offset, __global const A_T *b_zero, ulong b_zero_offset,    \
        __global const SCALE_T *bias, ulong bias_offset, __global SCALE_T *out, ulong out_offset
#define STRIDES                                                                                                    \
    uint8 a_strides, uint8 a_scale_strides, uint8 a_zero_strides, uint8 b_strides, uint8 b_scale_strides,          \
        uint8 b_zero_strides, uint8 bias_strides, uint8 out_strides
#endif

#if OPERATOR != GEMM
#define SCALARS
// The integer operators' zero points: one per row of A (per column of B) or one for all, a stride of 0; absent, 0.
#define A_ZERO(b0, b1, m) (HAS_A_ZERO ? a_zero[AT(a_zero_strides, a_zero_offset, b0, b1, m, 0, 0)] : 0)
#define B_ZERO(b0, b1, n) (HAS_B_ZERO ? b_zero[AT(b_zero_strides, b_zero_offset, b0, b1, 0, n, 0)] : 0)
#define READ_A(at) (a[at])
#define READ_B(at) (b[at])
#endif

// The result for output (b0, b1, m, n) from its sum `acc`, stored.
#if OPERATOR == GEMM
#define EPILOGUE(acc, b0, b1, m, n)                                                                                \
    do {                                                                                                           \
        const float scaled_ = HAS_C ? fma(alpha, (acc), beta * FLOAT_OF(c[AT(c_strides, c_offset, b0, b1, m, n, 0)])) \
                                    : alpha * (acc);                                                               \
        STORE_FLOAT(ACTIVATION(scaled_), out, AT(out_strides, out_offset, b0, b1, m, n, 0));                       \
    } while (0)
#elif OPERATOR == MATRIX_MULTIPLY_INTEGER
#define EPILOGUE(acc, b0, b1, m, n) (out[AT(out_strides, out_offset, b0, b1, m, n, 0)] = as_int(acc))
#elif QUANTIZED
// The exact integer sum (with QUANTIZED_LINEAR_CONVOLUTION's bias, modulo 2^32 as the INT32 sum is) requantized
// (requantize.h: times A's scale, times B's, QuantizeLinear's arithmetic), saturated to the output type.
#if OPERATOR == QUANTIZED_LINEAR_CONVOLUTION
#define BIASED(acc, b0, b1, m) ((acc) + (HAS_BIAS ? (uint)bias[AT(bias_strides, bias_offset, b0, b1, m, 0, 0)] : 0u))
#else
#define BIASED(acc, b0, b1, m) (acc)
#endif
#define EPILOGUE(acc, b0, b1, m, n)                                                                                \
    do {                                                                                                           \
        const float zero_ = HAS_OUT_ZERO ? (float)out_zero[AT(out_zero_strides, out_zero_offset, b0, b1, m, 0, 0)] \
                                         : 0.0f;                                                                   \
        const float q_ = requantize(as_int(BIASED(acc, b0, b1, m)),                                                \
                                    a_scale[AT(a_scale_strides, a_scale_offset, b0, b1, m, 0, 0)],                 \
                                    b_scale[AT(b_scale_strides, b_scale_offset, b0, b1, 0, n, 0)],                 \
                                    out_scale[AT(out_scale_strides, out_scale_offset, b0, b1, m, 0, 0)], zero_);   \
        out[AT(out_strides, out_offset, b0, b1, m, n, 0)] = CONCAT(saturate_, OUT_T)(q_);                          \
    } while (0)
#else
#define EPILOGUE(acc, b0, b1, m, n)                                                                                \
    do {                                                                                                           \
        const float scaled_ = ((acc) * FLOAT_OF(a_scale[AT(a_scale_strides, a_scale_offset, b0, b1, m, 0, 0)])) * \
                              FLOAT_OF(b_scale[AT(b_scale_strides, b_scale_offset, b0, b1, 0, n, 0)]);             \
        const float biased_ =                                                                                      \
            HAS_BIAS ? scaled_ + FLOAT_OF(bias[AT(bias_strides, bias_offset, b0, b1, m, n, 0)]) : scaled_;        \
        STORE_FLOAT(biased_, out, AT(out_strides, out_offset, b0, b1, m, n, 0));                                   \
    } while (0)
#endif

// ------------------------------------------------------------------------------------- the "cpu" shape's operands
// The integer products (MATRIX_MULTIPLY_INTEGER and the quantized ones, 8-bit operands) run gemm_pairs.h's tiles:
// B enters their panel lifted to 0..255 (b + LIFT_B, LIFT_B 128 for a signed B), its zero point folded out of the sum.
#define INTEGER_PANEL (OPERATOR == MATRIX_MULTIPLY_INTEGER || QUANTIZED)
#if INTEGER_PANEL
#define LIFT_B ((B_T)0x80 < 0 ? 128 : 0)
#endif

// ------------------------------------------------------------------------------------- the kernel
#define CPU_ROWS 64
#define CPU_VECTORS 2 // named accumulators below: two vectors a row
#define CPU_COLUMNS (8 * CPU_VECTORS)
#define CPU_DEPTH 128
#define CPU_ROW_STEP 4 // the rows of one pass: the code below names its accumulators
#define PAIR_VECTORS 4 // gemm_pairs.h's integer tiles: 32 columns, 2 rows a pass (named accumulators there)
#define PAIR_COLUMNS (8 * PAIR_VECTORS)
#define PAIR_ROW_STEP 2
#define GPU_TILE 64
#define GPU_DEPTH 16
#define GPU_ITEMS 256
#define GPU_STEP 16 // GPU_TILE / 4: a virtual work-item's rows and columns are GPU_STEP apart

// IMPLICIT 1: B is a FORWARD float convolution's input, its panel read through the window (gemm_window.h), "cpu"
// only. The integer convolutions keep the unfold (docs/operators/convolution.md says why).
#ifndef IMPLICIT
#define IMPLICIT 0
#endif
#if IMPLICIT
#if GRID_STRIDE || INTEGER_PANEL || OPERATOR != GEMM
#error "IMPLICIT reads a float convolution's B in the \"cpu\" shape only"
#endif
#include "gemm_window.h"
#else
#define WINDOW_PARAMETERS
#endif

#if INTEGER_PANEL && !GRID_STRIDE
#include "gemm_pairs.h"
#endif

__kernel void contraction(TENSORS, ulong element_count, uint8 sizes, STRIDES SCALARS WINDOW_PARAMETERS)
{
#if OPERATOR == GEMM
    const float alpha = as_float(scalars.s0), beta = as_float(scalars.s1);
#endif
    const ulong batch1 = sizes.s1, rows = sizes.s2, columns = sizes.s3, depth = sizes.s4;
#if INTEGER_PANEL && !GRID_STRIDE
    integer_tiles(TENSOR_NAMES, sizes, STRIDE_NAMES);
#elif !GRID_STRIDE
    const ulong row_tiles = (rows + CPU_ROWS - 1) / CPU_ROWS, column_tiles = (columns + CPU_COLUMNS - 1) / CPU_COLUMNS;
    const ulong tile_count = sizes.s0 * batch1 * row_tiles * column_tiles;
    acc8_t sums[CPU_ROWS][CPU_VECTORS];
    acc8_t panel[CPU_DEPTH][CPU_VECTORS];
#if IMPLICIT
    window_t w;
    window_of(&w, b_strides, window, steps, starts, shape);
    recipe_t recipes[WINDOW_TAPS], scratch;
#endif
    for (ulong tile = get_global_id(0); tile < tile_count; tile += get_global_size(0)) {
        const ulong column_tile = tile % column_tiles, rest = tile / column_tiles;
        const ulong b0 = rest / row_tiles / batch1, b1 = rest / row_tiles % batch1;
        const ulong m0 = rest % row_tiles * CPU_ROWS, n0 = column_tile * CPU_COLUMNS;
        const ulong tile_rows = MIN_OF((ulong)CPU_ROWS, rows - m0), tile_columns = MIN_OF((ulong)CPU_COLUMNS, columns - n0);
        for (int r = 0; r < CPU_ROWS; ++r) {
            for (int v = 0; v < CPU_VECTORS; ++v)
                sums[r][v] = (acc8_t)0;
        }
#if IMPLICIT
        long first[3];
        window_position(n0, &w, first);
        const ulong window_at = b_offset + b0 * (ulong)b_strides.s0 + b1 * (ulong)b_strides.s1;
#endif
        for (ulong k0 = 0; k0 < depth; k0 += CPU_DEPTH) {
            const int block = (int)MIN_OF((ulong)CPU_DEPTH, depth - k0);
            // B's block as vectors of 8 columns (zero points taken away); columns past N read as 0. A whole row
            // that is contiguous in memory is a plain copy, which the compiler turns into vector loads.
#if IMPLICIT
            window_block(b, window_at, &w, k0, block, first, (int)tile_columns, recipes, &scratch, (float *)panel);
#else
            const ulong b_step = b_strides.s3;
            for (int k = 0; k < block; ++k) {
                acc_t *row = (acc_t *)panel[k];
                const ulong b_at = AT(b_strides, b_offset, b0, b1, 0, n0, k0 + k);
                if (b_step == 1 && tile_columns == CPU_COLUMNS) {
                    for (int j = 0; j < CPU_COLUMNS; ++j)
                        row[j] = OPERAND(READ_B(b_at + j), B_ZERO(b0, b1, n0 + j));
                } else {
                    for (int j = 0; j < CPU_COLUMNS; ++j) {
                        const ulong n = MIN_OF((ulong)j, tile_columns - 1);
                        const acc_t value = OPERAND(READ_B(b_at + n * b_step), B_ZERO(b0, b1, n0 + n));
                        row[j] = (ulong)j < tile_columns ? value : (acc_t)0;
                    }
                }
            }
#endif
            // Four rows at a time, eight vector accumulators in registers; rows past M repeat the last row,
            // computed and never stored.
            for (int r = 0; r < (int)tile_rows; r += CPU_ROW_STEP) {
                const ulong last = tile_rows - 1, a_step = a_strides.s4;
                const ulong m_0 = m0 + MIN_OF((ulong)r, last), m_1 = m0 + MIN_OF((ulong)r + 1, last);
                const ulong m_2 = m0 + MIN_OF((ulong)r + 2, last), m_3 = m0 + MIN_OF((ulong)r + 3, last);
                const ulong at_0 = AT(a_strides, a_offset, b0, b1, m_0, 0, k0);
                const ulong at_1 = AT(a_strides, a_offset, b0, b1, m_1, 0, k0);
                const ulong at_2 = AT(a_strides, a_offset, b0, b1, m_2, 0, k0);
                const ulong at_3 = AT(a_strides, a_offset, b0, b1, m_3, 0, k0);
                const zero_t zero_0 = A_ZERO(b0, b1, m_0), zero_1 = A_ZERO(b0, b1, m_1);
                const zero_t zero_2 = A_ZERO(b0, b1, m_2), zero_3 = A_ZERO(b0, b1, m_3);
                acc8_t s00 = sums[r][0], s01 = sums[r][1], s10 = sums[r + 1][0], s11 = sums[r + 1][1];
                acc8_t s20 = sums[r + 2][0], s21 = sums[r + 2][1], s30 = sums[r + 3][0], s31 = sums[r + 3][1];
                for (int k = 0; k < block; ++k) {
#pragma OPENCL FP_CONTRACT ON
                    const acc8_t p0 = panel[k][0], p1 = panel[k][1];
                    const acc_t a0 = OPERAND(READ_A(at_0 + k * a_step), zero_0);
                    const acc_t a1 = OPERAND(READ_A(at_1 + k * a_step), zero_1);
                    const acc_t a2 = OPERAND(READ_A(at_2 + k * a_step), zero_2);
                    const acc_t a3 = OPERAND(READ_A(at_3 + k * a_step), zero_3);
                    const acc8_t x0 = (acc8_t)a0, x1 = (acc8_t)a1, x2 = (acc8_t)a2, x3 = (acc8_t)a3;
                    s00 = MAD(x0, p0, s00);
                    s01 = MAD(x0, p1, s01);
                    s10 = MAD(x1, p0, s10);
                    s11 = MAD(x1, p1, s11);
                    s20 = MAD(x2, p0, s20);
                    s21 = MAD(x2, p1, s21);
                    s30 = MAD(x3, p0, s30);
                    s31 = MAD(x3, p1, s31);
                }
                sums[r][0] = s00, sums[r][1] = s01, sums[r + 1][0] = s10, sums[r + 1][1] = s11;
                sums[r + 2][0] = s20, sums[r + 2][1] = s21, sums[r + 3][0] = s30, sums[r + 3][1] = s31;
            }
        }
        for (ulong r = 0; r < tile_rows; ++r) {
            const acc_t *row = (const acc_t *)sums[r];
#if OPERATOR == GEMM
            // Alpha and Beta 1 (every convolution): fma(1, s, 1 * c) is s + c rounded once, the same bits without
            // fma's call per output (PoCL calls it out of line), so the row's outputs are one plain loop.
            if (alpha == 1.0f && beta == 1.0f) {
                const ulong out_at = AT(out_strides, out_offset, b0, b1, m0 + r, n0, 0);
                const ulong c_at = AT(c_strides, c_offset, b0, b1, m0 + r, n0, 0);
                for (ulong j = 0; j < tile_columns; ++j) {
                    const float sum_ = HAS_C ? row[j] + FLOAT_OF(c[c_at + j * c_strides.s3]) : row[j];
                    STORE_FLOAT(ACTIVATION(sum_), out, out_at + j * out_strides.s3);
                }
                continue;
            }
#endif
            for (ulong j = 0; j < tile_columns; ++j)
                EPILOGUE(row[j], b0, b1, m0 + r, n0 + j);
        }
    }
#else
    __local acc_t a_tile[GPU_DEPTH][GPU_TILE];
    __local acc_t b_tile[GPU_DEPTH][GPU_TILE];
    const ulong row_tiles = (rows + GPU_TILE - 1) / GPU_TILE, column_tiles = (columns + GPU_TILE - 1) / GPU_TILE;
    const ulong tile_count = sizes.s0 * batch1 * row_tiles * column_tiles;
    const uint items = get_local_size(0), item = get_local_id(0);
    for (ulong tile = get_group_id(0); tile < tile_count; tile += get_num_groups(0)) {
        const ulong column_tile = tile % column_tiles, rest = tile / column_tiles;
        const ulong b0 = rest / row_tiles / batch1, b1 = rest / row_tiles % batch1;
        const ulong m0 = rest % row_tiles * GPU_TILE, n0 = column_tile * GPU_TILE;
        for (uint first = 0; first < GPU_ITEMS; first += items) {
            const uint virtual_item = first + item;
            const uint row0 = virtual_item / GPU_STEP, column0 = virtual_item % GPU_STEP;
            acc_t acc[4][4];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j)
                    acc[i][j] = (acc_t)0;
            for (ulong k0 = 0; k0 < depth; k0 += GPU_DEPTH) {
                const uint block = (uint)MIN_OF((ulong)GPU_DEPTH, depth - k0);
                barrier(CLK_LOCAL_MEM_FENCE); // the previous block's readers are done
                for (uint e = item; e < GPU_DEPTH * GPU_TILE; e += items) {
                    const uint k = e / GPU_TILE, x = e % GPU_TILE;
                    const ulong m = m0 + x, n = n0 + x;
                    a_tile[k][x] = m < rows && k < block
                                       ? OPERAND(READ_A(AT(a_strides, a_offset, b0, b1, m, 0, k0 + k)), A_ZERO(b0, b1, m))
                                       : (acc_t)0;
                    b_tile[k][x] = n < columns && k < block
                                       ? OPERAND(READ_B(AT(b_strides, b_offset, b0, b1, 0, n, k0 + k)), B_ZERO(b0, b1, n))
                                       : (acc_t)0;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (virtual_item < GPU_ITEMS) {
#pragma OPENCL FP_CONTRACT ON
                    for (uint k = 0; k < block; ++k)
                        for (int i = 0; i < 4; ++i)
                            for (int j = 0; j < 4; ++j)
                                acc[i][j] = MAD(a_tile[k][row0 + GPU_STEP * i], b_tile[k][column0 + GPU_STEP * j],
                                                acc[i][j]);
                }
            }
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) {
                    const ulong m = m0 + row0 + GPU_STEP * i, n = n0 + column0 + GPU_STEP * j;
                    if (virtual_item < GPU_ITEMS && m < rows && n < columns)
                        EPILOGUE(acc[i][j], b0, b1, m, n);
                }
        }
    }
#endif
}
