// gemm_pairs.h: gemm.cl's "cpu" tiles for the integer products (MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_
// MULTIPLY, QUANTIZED_LINEAR_CONVOLUTION: 8-bit operands), two steps of k in every 32-bit lane.
//
// The x86 instruction vpmaddwd multiplies 16 pairs of 16-bit lanes and adds each two neighbouring products into one
// 32-bit lane: 16 multiply-adds an instruction. So B's block is packed by pairs of k (panel lane 2j holds column j's
// value at k, lane 2j + 1 at k + 1), each row's A operands likewise into one uint (k in the low half, k + 1 in the
// high), broadcast over the 8 lanes; an output's sum gains a_k b_k + a_(k+1) b_(k+1) per step.
//
// LLVM 14 (PoCL) emits vpmaddwd for (sext(x) * sext(p)).even + (sext(x) * sext(p)).odd, but only while that sum is
// one expression: added straight into the accumulator, its reassociation pass adds one product to the accumulator
// first and the pattern is gone (plain vpmulld then, measured). On PoCL (DML_PAIR_MASK, programs.device_options) a
// mask in pair_products keeps the pair's sum whole; it never changes a value (below), so it costs one vpand and no
// exactness. Elsewhere the plain sum: Intel's compiler turns it into VNNI's vpdpwssd where the CPU has it (the
// pair's products and their addition to the accumulator in one instruction: 18 instructions per 128 multiply-adds
// against 34 with the mask, whose vpand splits them; its contraction at ResNet-18's int8 64->64 @56 2.24-2.27 ms
// against 2.97-3.01 ms with the mask, side by side in one process), where PoCL without the mask ran 4x slower.
//
// Both operands enter as non-negative values, so that the mask is a no-op and the two forms compute the same values:
//   u_k = a_k - za + A_LIFT in 0..510 (A_LIFT 255), beta_k = b_k + LIFT_B in 0..255 (gemm.cl's LIFT_B),
// a pair's sum at most 2 x 510 x 255 = 260100 < 2^18 (and < 2^31: vpmaddwd's signed 32-bit sum never overflows), and
//   sum_k (a_k - za)(b_k - zb) = sum_k u_k beta_k - A_LIFT sum_k beta_k - (zb + LIFT_B) sum_k (a_k - za),
// the two sums subtracted once per output from the column's sum of its panel values (column_sums) and the row's sum
// of its A operands (row_sums). Both sides are the same integer, so they agree modulo 2^32,
// where the uint arithmetic computes them (the INT32 result wraps as before). An odd block's last pair holds 0 at
// k + 1 in both operands: no product, and in neither sum.
#ifndef GEMM_PAIRS_H
#define GEMM_PAIRS_H

#define A_LIFT 255
#define PAIR_DEPTH (CPU_DEPTH / 2)
#if DML_PAIR_MASK
#define PAIR_SUM(sum) ((sum) & 0x3FFFF) // 2^18 - 1, above every pair's sum
#else
#define PAIR_SUM(sum) (sum)
#endif

// Eight outputs' pair of products: lanes 2j and 2j + 1 of x (one row's u_k, u_(k+1), repeated) times p's (column
// j's beta_k, beta_(k+1)), summed. The halves are named lane by lane, not as .even and .odd: Oclgrind 21.10's
// uninitialised-values plugin marks element 11 of a 16-lane shuffle's source as never written (a defined value:
// measured on a probe kernel), while the optimised code is the same one shuffle either way.
static inline uint8 pair_products(short16 x, short16 p)
{
    const int16 m = __builtin_convertvector(x, int16) * __builtin_convertvector(p, int16);
    const int8 low = (int8)(m.s0, m.s2, m.s4, m.s6, m.s8, m.sa, m.sc, m.se);
    const int8 high = (int8)(m.s1, m.s3, m.s5, m.s7, m.s9, m.sb, m.sd, m.sf);
    return as_uint8(PAIR_SUM(low + high));
}

// One row's A operands for a block (`block` steps of k from `at`) as pairs (`pairs`, short lanes 2p and 2p + 1 the
// low and high halves of uint p: every OpenCL device dmlpy meets is little-endian) and their sum of (a_k - za), the
// row's share of the fold (at most 128 x 255 in magnitude: an int). At a unit step the loop is a plain loop over
// consecutive elements, which both compilers vectorise; the general step's is the same loop, scalar.
static inline uint pack_a_pairs(__global const A_T *a, ulong at, ulong step, int block, int zero,
                                __private uint *pairs)
{
    __private short *lanes = (__private short *)pairs;
    int sum = 0;
    if (step == 1) {
        for (int k = 0; k < block; ++k) {
            const int operand = (int)a[at + k] - zero;
            lanes[k] = (short)(operand + A_LIFT);
            sum += operand;
        }
    } else {
        for (int k = 0; k < block; ++k) {
            const int operand = (int)a[at + k * step] - zero;
            lanes[k] = (short)(operand + A_LIFT);
            sum += operand;
        }
    }
    if (block % 2)
        lanes[block] = 0;
    return (uint)sum;
}

// The tiles of gemm.cl's "cpu" shape, 32 columns wide (CPU_ROWS x PAIR_COLUMNS outputs, K in blocks of CPU_DEPTH,
// 2 rows a pass), their operands packed as above. Twice the float tile's columns: each row's packed A operands
// (pack_a_pairs, a pass per tile and block) then serve twice the outputs, and each broadcast of a row's pair four
// vpmaddwd (one per panel vector) rather than two: PoCL's loop is 38 instructions per 128 multiply-adds (4 panel
// loads, 3 broadcasts, 8 vpmaddwd, 8 vpand, 8 vpaddd, 7 of address and loop) against 44 at 16 columns.
static inline void integer_tiles(TENSORS, uint8 sizes, STRIDES)
{
    const ulong batch1 = sizes.s1, rows = sizes.s2, columns = sizes.s3, depth = sizes.s4;
    const ulong row_tiles = (rows + CPU_ROWS - 1) / CPU_ROWS, column_tiles = (columns + PAIR_COLUMNS - 1) / PAIR_COLUMNS;
    const ulong tile_count = sizes.s0 * batch1 * row_tiles * column_tiles;
    uint8 sums[CPU_ROWS][PAIR_VECTORS];
    uint row_sums[CPU_ROWS], column_sums[PAIR_COLUMNS], column_zeros[PAIR_COLUMNS];
    short16 panel[PAIR_DEPTH][PAIR_VECTORS];
    uint a_pairs[CPU_ROWS][PAIR_DEPTH];
    for (ulong tile = get_global_id(0); tile < tile_count; tile += get_global_size(0)) {
        const ulong column_tile = tile % column_tiles, rest = tile / column_tiles;
        const ulong b0 = rest / row_tiles / batch1, b1 = rest / row_tiles % batch1;
        const ulong m0 = rest % row_tiles * CPU_ROWS, n0 = column_tile * PAIR_COLUMNS;
        const ulong tile_rows = MIN_OF((ulong)CPU_ROWS, rows - m0);
        const ulong tile_columns = MIN_OF((ulong)PAIR_COLUMNS, columns - n0);
        const ulong last = tile_rows - 1, b_step = b_strides.s3;
        for (int j = 0; j < PAIR_COLUMNS; ++j) {
            column_zeros[j] = (uint)((int)B_ZERO(b0, b1, n0 + MIN_OF((ulong)j, tile_columns - 1)) + LIFT_B);
            column_sums[j] = 0;
        }
        for (int r = 0; r < CPU_ROWS; ++r) {
            row_sums[r] = 0;
            for (int v = 0; v < PAIR_VECTORS; ++v)
                sums[r][v] = (uint8)0;
        }
        for (ulong k0 = 0; k0 < depth; k0 += CPU_DEPTH) {
            const int block = (int)MIN_OF((ulong)CPU_DEPTH, depth - k0), pairs = (block + 1) / 2;
            // B's block by pairs of rows, lifted; columns past N and an odd block's last k + 1 as 0. Two rows of
            // contiguous columns are a plain loop (vectorised: two loads, interleaved into the lanes).
            for (int p = 0; p < pairs; ++p) {
                __private short *lanes = (__private short *)panel[p];
                const ulong low_at = AT(b_strides, b_offset, b0, b1, 0, n0, k0 + 2 * p);
                const bool high = 2 * p + 1 < block;
                const ulong high_at = high ? low_at + b_strides.s4 : low_at;
                if (b_step == 1 && tile_columns == PAIR_COLUMNS && high) {
                    for (int j = 0; j < PAIR_COLUMNS; ++j) {
                        const int value_low = (int)READ_B(low_at + j) + LIFT_B;
                        const int value_high = (int)READ_B(high_at + j) + LIFT_B;
                        lanes[2 * j] = (short)value_low;
                        lanes[2 * j + 1] = (short)value_high;
                        column_sums[j] += (uint)(value_low + value_high);
                    }
                } else {
                    for (int j = 0; j < PAIR_COLUMNS; ++j) {
                        const ulong n = MIN_OF((ulong)j, tile_columns - 1);
                        const bool inside = (ulong)j < tile_columns;
                        const int value_low = inside ? (int)READ_B(low_at + n * b_step) + LIFT_B : 0;
                        const int value_high = inside && high ? (int)READ_B(high_at + n * b_step) + LIFT_B : 0;
                        lanes[2 * j] = (short)value_low;
                        lanes[2 * j + 1] = (short)value_high;
                        column_sums[j] += (uint)(value_low + value_high);
                    }
                }
            }
            for (ulong r = 0; r < tile_rows; ++r) {
                const ulong m = m0 + r;
                row_sums[r] += pack_a_pairs(a, AT(a_strides, a_offset, b0, b1, m, 0, k0), a_strides.s4, block,
                                            (int)A_ZERO(b0, b1, m), a_pairs[r]);
            }
            // Two rows at a time, eight vector accumulators in registers (each row's broadcast serving four
            // vpmaddwd); a row past M repeats the last row, computed and never stored.
            for (int r = 0; r < (int)tile_rows; r += PAIR_ROW_STEP) {
                const uint *a_0 = a_pairs[r], *a_1 = a_pairs[MIN_OF((ulong)r + 1, last)];
                uint8 s00 = sums[r][0], s01 = sums[r][1], s02 = sums[r][2], s03 = sums[r][3];
                uint8 s10 = sums[r + 1][0], s11 = sums[r + 1][1], s12 = sums[r + 1][2], s13 = sums[r + 1][3];
                for (int p = 0; p < pairs; ++p) {
                    const short16 p0 = panel[p][0], p1 = panel[p][1], p2 = panel[p][2], p3 = panel[p][3];
                    const short16 x0 = as_short16((uint8)a_0[p]), x1 = as_short16((uint8)a_1[p]);
                    s00 += pair_products(x0, p0);
                    s01 += pair_products(x0, p1);
                    s02 += pair_products(x0, p2);
                    s03 += pair_products(x0, p3);
                    s10 += pair_products(x1, p0);
                    s11 += pair_products(x1, p1);
                    s12 += pair_products(x1, p2);
                    s13 += pair_products(x1, p3);
                }
                sums[r][0] = s00, sums[r][1] = s01, sums[r][2] = s02, sums[r][3] = s03;
                sums[r + 1][0] = s10, sums[r + 1][1] = s11, sums[r + 1][2] = s12, sums[r + 1][3] = s13;
            }
        }
        for (ulong r = 0; r < tile_rows; ++r) {
            const uint *row = (const uint *)sums[r];
#if QUANTIZED
            // gemm.cl's EPILOGUE with the row's own values (A's and the output's scale, the output's zero point, the
            // bias) read once rather than per output: the same arithmetic, so the same bits (the bias added to the
            // folded sum is the same sum modulo 2^32).
            const ulong m = m0 + r;
            const float row_scale = a_scale[AT(a_scale_strides, a_scale_offset, b0, b1, m, 0, 0)];
            const float row_out_scale = out_scale[AT(out_scale_strides, out_scale_offset, b0, b1, m, 0, 0)];
            const float row_zero =
                HAS_OUT_ZERO ? (float)out_zero[AT(out_zero_strides, out_zero_offset, b0, b1, m, 0, 0)] : 0.0f;
            const uint row_bias = BIASED(0u, b0, b1, m);
            const ulong out_at = AT(out_strides, out_offset, b0, b1, m, n0, 0);
            const ulong scale_at = AT(b_scale_strides, b_scale_offset, b0, b1, 0, n0, 0);
            for (ulong j = 0; j < tile_columns; ++j) {
                const uint sum = row[j] - A_LIFT * column_sums[j] - column_zeros[j] * row_sums[r] + row_bias;
                const float q = requantize(as_int(sum), row_scale, b_scale[scale_at + j * b_scale_strides.s3],
                                           row_out_scale, row_zero);
                out[out_at + j * out_strides.s3] = CONCAT(saturate_, OUT_T)(q);
            }
#else
            for (ulong j = 0; j < tile_columns; ++j)
                EPILOGUE(row[j] - A_LIFT * column_sums[j] - column_zeros[j] * row_sums[r], b0, b1, m0 + r, n0 + j);
#endif
        }
    }
}

#endif
