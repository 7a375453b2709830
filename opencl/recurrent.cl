// recurrent.cl: one time step of DirectML's RNN, LSTM and GRU (dmlpy/ops/recurrent.py; laid out by
// dmlpy/kernels/recurrent.py), every direction in one launch. The operator's plan launches this kernel once per
// step s = 0 .. seq_length - 1 (twice for GRU with LINEAR_BEFORE_RESET 0, PHASE 0 then 1), each launch after the
// one before, so a step reads the states the previous launch wrote.
//
// One work-item per (direction d, batch item b, hidden unit j) computes unit j's gates: each gate row's sum over
// X_t W^T (input_size terms) and H_(t-1) R^T (hidden_size terms) is one fma chain in float, then the biases, the
// peepholes, the clip and the activations (F, G, H below: the ActivationDescs' own expressions from
// elementwise_ops.h, written as a prelude by the plan), and the state update (ONNX's RNN, LSTM and GRU):
//   RNN   H_t = f(x + r + Wb + Rb)
//   LSTM  i = f(x_i + r_i + b_i + P_i C_(t-1)), f = f(x_f + r_f + b_f + P_f C_(t-1)) (1 - i when COUPLE), c = g(...),
//         C_t = f C_(t-1) + i c, o = f(x_o + r_o + b_o + P_o C_t), H_t = o h(C_t); the gates' inputs clipped
//   GRU   z = f(...), r = f(...), h = g(x_h + Wb_h + (r H_(t-1)) R_h^T + Rb_h), or under LINEAR_BEFORE_RESET
//         g(x_h + Wb_h + r (H_(t-1) R_h^T + Rb_h)); H_t = (1 - z) h + z H_(t-1)
// GRU without LINEAR_BEFORE_RESET needs r_k H_(t-1)[k] of every unit k of its batch item: PHASE 0 writes z and that
// product to the state buffer's gate rows, and PHASE 1 reads them after the launch between.
//
// Direction: the forward direction's step s is time t = s, the backward one's t = length - 1 - s, where length is
// the batch item's SequenceLengthsTensor entry (seq_length where absent). A step s at or past length leaves the
// states as they are and writes 0 to OutputSequenceTensor at t = s (ONNX's Y past a sequence's end), so every
// output position is written once; the last step writes OutputSingleTensor and OutputCellSingleTensor: the states
// after the item's last live step.
//
// The states live in float in the temporary region `state` (never rounded to half between steps): rows of
// UNITS = num_directions * batch_size * hidden_size floats, H at rows s % 2 (read) and (s + 1) % 2 (written), C at
// 2 + the same, GRU's gates at rows 4 (z) and 5 (r H_(t-1)). A step reads only the rows the previous launch wrote
// and writes the other parity, so no work-item reads what another writes in the same launch.

#include "elementwise_ops.h"
#include "float_tensors.h"

#ifndef CELL
#error "define CELL: 0 RNN, 1 LSTM, 2 GRU"
#endif
#define GATES (CELL == 0 ? 1 : CELL == 1 ? 4 : 3)
#ifndef PHASE
#define PHASE 1
#endif
#ifndef COUPLE
#define COUPLE 0
#endif
#ifndef LINEAR_BEFORE_RESET
#define LINEAR_BEFORE_RESET 0
#endif
#ifndef F1  // one direction: the backward activations are the forward ones (never chosen)
#define F1(v) F0(v)
#define G1(v) G0(v)
#define H1(v) H0(v)
#endif

// fields.s2, which optional tensors are bound.
#define HAS_BIAS 1u
#define HAS_HIDDEN_INIT 2u
#define HAS_CELL_INIT 4u
#define HAS_LENGTHS 8u
#define HAS_PEEPHOLE 16u
#define HAS_SEQUENCE 32u
#define HAS_SINGLE 64u
#define HAS_CELL_SINGLE 128u

// fields.s1, DML_RECURRENT_NETWORK_DIRECTION.
#define BACKWARD 1u
#define BIDIRECTIONAL 2u

#if GRID_STRIDE
#define FOR_EACH_UNIT(e) for (ulong e = get_global_id(0); e < element_count; e += get_global_size(0))
#else
#define FOR_EACH_UNIT(e)                                                                                          \
    for (ulong e = get_global_id(0) * (ulong)ELEMENTS_PER_ITEM, end_ = min(e + (ulong)ELEMENTS_PER_ITEM, element_count); \
         e < end_; ++e)
#endif

// The sum over k of a[k] * b[k] for one gate row: X_t's row against W's (input_size terms).
static inline float input_row(__global const storage_t *x, ulong x_at, uint x_step, __global const storage_t *w,
                              ulong w_at, uint w_step, uint count)
{
    float sum = 0.0f;
    for (uint k = 0; k < count; ++k)
        sum = fma(LOAD(x, x_at + (ulong)k * x_step), LOAD(w, w_at + (ulong)k * w_step), sum);
    return sum;
}

// The sum over k of state[k] * R's row (hidden_size terms): state a float row of the temporary region.
static inline float recurrence_row(__global const float *state, ulong state_at, __global const storage_t *r,
                                   ulong r_at, uint r_step, uint count)
{
    float sum = 0.0f;
    for (uint k = 0; k < count; ++k)
        sum = fma(state[state_at + k], LOAD(r, r_at + (ulong)k * r_step), sum);
    return sum;
}

static inline float clipped(float v, uint use_clip, float clip)
{
    return use_clip ? fmin(fmax(v, -clip), clip) : v;
}

__kernel void recurrent_step(
    __global const storage_t *x, ulong x_offset, __global const storage_t *w, ulong w_offset,
    __global const storage_t *r, ulong r_offset, __global const storage_t *bias, ulong bias_offset,
    __global const storage_t *hidden_init, ulong hidden_init_offset, __global const storage_t *cell_init,
    ulong cell_init_offset, __global const uint *lengths, ulong lengths_offset, __global const storage_t *peephole,
    ulong peephole_offset, __global storage_t *sequence, ulong sequence_offset, __global storage_t *single,
    ulong single_offset, __global storage_t *cell_single, ulong cell_single_offset, __global float *state,
    ulong state_offset, ulong element_count, uint8 sizes, uint8 xs, uint8 ws, uint8 rs, uint8 bs, uint8 his,
    uint8 cis, uint8 ls, uint8 ps, uint8 ys, uint8 sis, uint8 csis, uint8 state_strides, uint8 fields)
{
    const uint seq_length = sizes.s0, batch = sizes.s2, hidden = sizes.s3, input_size = sizes.s4;
    const uint step = fields.s0, direction = fields.s1, present = fields.s2, use_clip = fields.s4;
    const float clip = as_float(fields.s3);
    const ulong units = element_count;
    FOR_EACH_UNIT(e)
    {
        const uint j = (uint)(e % hidden), b = (uint)(e / hidden % batch), d = (uint)(e / hidden / batch);
        const ulong row_start = e - j;  // unit 0 of this (direction, batch item) in a state row
        uint length = seq_length;
        if (present & HAS_LENGTHS)
            length = min(lengths[lengths_offset + (ulong)b * ls.s3], seq_length);
        const bool live = step < length;
        const bool backward = direction == BACKWARD || (direction == BIDIRECTIONAL && d == 1);
        const uint t = live && backward ? length - 1 - step : step;

        // H_(t-1) and C_(t-1): the rows the previous launch wrote, or at step 0 the initial states (0 where absent).
        __global float *h_previous = state + state_offset + (ulong)(step % 2) * units;
        __global float *h_next = state + state_offset + (ulong)((step + 1) % 2) * units;
        __global float *c_previous = h_previous + 2 * units, *c_next = h_next + 2 * units;
        float h_old, c_old = 0.0f;
        if (step == 0) {
            const ulong init = (ulong)d * his.s1 + (ulong)b * his.s2 + (ulong)j * his.s3;
            h_old = (present & HAS_HIDDEN_INIT) ? LOAD(hidden_init, hidden_init_offset + init) : 0.0f;
            const ulong cell_at = (ulong)d * cis.s1 + (ulong)b * cis.s2 + (ulong)j * cis.s3;
            c_old = (present & HAS_CELL_INIT) ? LOAD(cell_init, cell_init_offset + cell_at) : 0.0f;
        } else {
            h_old = h_previous[e];
            c_old = CELL == 1 ? c_previous[e] : 0.0f;
        }
        float h_new = h_old, c_new = c_old;

        if (live) {
            const ulong x_at = x_offset + (ulong)t * xs.s1 + (ulong)b * xs.s2;
            const ulong w_at = w_offset + (ulong)d * ws.s1, r_at = r_offset + (ulong)d * rs.s1;
            const ulong bias_at = bias_offset + (ulong)d * bs.s2;
            float gate[4];
            for (uint g = 0; g < GATES; ++g) {
                const ulong row = (ulong)g * hidden + j;
                float sum = input_row(x, x_at, xs.s3, w, w_at + row * ws.s2, ws.s3, input_size);
                if (present & HAS_BIAS)
                    sum += LOAD(bias, bias_at + row * bs.s3);
                float recurrence = 0.0f;
                if (!(CELL == 2 && g == 2)) {  // GRU's h gate: its recurrence is below
                    if (step == 0) {  // no row holds H_(-1) yet: read every unit's from HiddenInitTensor
                        for (uint k = 0; k < hidden; ++k) {
                            const float h0 = (present & HAS_HIDDEN_INIT)
                                                 ? LOAD(hidden_init, hidden_init_offset + (ulong)d * his.s1 +
                                                                         (ulong)b * his.s2 + (ulong)k * his.s3)
                                                 : 0.0f;
                            recurrence = fma(h0, LOAD(r, r_at + row * rs.s2 + (ulong)k * rs.s3), recurrence);
                        }
                    } else {
                        recurrence = recurrence_row(h_previous, row_start, r, r_at + row * rs.s2, rs.s3, hidden);
                    }
                    if (present & HAS_BIAS)
                        recurrence += LOAD(bias, bias_at + ((ulong)GATES * hidden + row) * bs.s3);
                }
                gate[g] = sum + recurrence;
            }
#if CELL == 0
            h_new = d ? F1(gate[0]) : F0(gate[0]);
#elif CELL == 1
            float pi = 0.0f, po = 0.0f, pf = 0.0f;
            if (present & HAS_PEEPHOLE) {
                const ulong p_at = peephole_offset + (ulong)d * ps.s2;
                pi = LOAD(peephole, p_at + (ulong)j * ps.s3);
                po = LOAD(peephole, p_at + ((ulong)hidden + j) * ps.s3);
                pf = LOAD(peephole, p_at + (2ul * hidden + j) * ps.s3);
            }
            const float in_pre = clipped(fma(pi, c_old, gate[0]), use_clip, clip);
            const float forget_pre = clipped(fma(pf, c_old, gate[2]), use_clip, clip);
            const float cell_pre = clipped(gate[3], use_clip, clip);
            const float in = d ? F1(in_pre) : F0(in_pre);
            const float forget = COUPLE ? 1.0f - in : (d ? F1(forget_pre) : F0(forget_pre));
            const float candidate = d ? G1(cell_pre) : G0(cell_pre);
            c_new = fma(forget, c_old, in * candidate);
            const float out_pre = clipped(fma(po, c_new, gate[1]), use_clip, clip);
            const float out = d ? F1(out_pre) : F0(out_pre);
            h_new = out * (d ? H1(c_new) : H0(c_new));
#else
            const float z = d ? F1(gate[0]) : F0(gate[0]);
            const float reset = d ? F1(gate[1]) : F0(gate[1]);
            __global float *gates = state + state_offset + 4 * units;
#if PHASE == 0
            gates[e] = z;
            gates[units + e] = reset * h_old;
#else
            const ulong h_row = r_at + (2ul * hidden + j) * rs.s2;
            const float h_bias = (present & HAS_BIAS) ? LOAD(bias, bias_at + (5ul * hidden + j) * bs.s3) : 0.0f;
#if LINEAR_BEFORE_RESET
            float recurrence = 0.0f;
            if (step == 0) {
                for (uint k = 0; k < hidden; ++k) {
                    const float h0 = (present & HAS_HIDDEN_INIT)
                                         ? LOAD(hidden_init, hidden_init_offset + (ulong)d * his.s1 +
                                                                 (ulong)b * his.s2 + (ulong)k * his.s3)
                                         : 0.0f;
                    recurrence = fma(h0, LOAD(r, h_row + (ulong)k * rs.s3), recurrence);
                }
            } else {
                recurrence = recurrence_row(h_previous, row_start, r, h_row, rs.s3, hidden);
            }
            const float h_pre = fma(reset, recurrence + h_bias, gate[2]);
#else
            // PHASE 0 wrote r_k H_(t-1)[k] of every unit of this item into the gate rows.
            const float h_pre = gate[2] + recurrence_row(gates + units, row_start, r, h_row, rs.s3, hidden) + h_bias;
#endif
            const float candidate = d ? G1(h_pre) : G0(h_pre);
            h_new = fma(z, h_old - candidate, candidate);  // (1 - z) h + z H_(t-1), one rounding fewer
#endif
#endif
        }
#if !(CELL == 2 && PHASE == 0)
        h_next[e] = h_new;
        if (CELL == 1)
            c_next[e] = c_new;
        if (present & HAS_SEQUENCE)
            STORE(live ? h_new : 0.0f, sequence,
                  sequence_offset + (ulong)t * ys.s0 + (ulong)d * ys.s1 + (ulong)b * ys.s2 + (ulong)j * ys.s3);
        if (step == seq_length - 1 && (present & HAS_SINGLE))
            STORE(h_new, single,
                  single_offset + (ulong)d * sis.s1 + (ulong)b * sis.s2 + (ulong)j * sis.s3);
        if (CELL == 1 && step == seq_length - 1 && (present & HAS_CELL_SINGLE))
            STORE(c_new, cell_single,
                  cell_single_offset + (ulong)d * csis.s1 + (ulong)b * csis.s2 + (ulong)j * csis.s3);
#endif
    }
}
