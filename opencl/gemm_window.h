// gemm_window.h: gemm.cl's "cpu" panel of B read through a FORWARD convolution's window (IMPLICIT 1, implicit
// GEMM): B is the convolution's input itself, and the panel's row k, column n holds the element that filter row k
// (input channel c, filter element kd, kh, kw) meets at output position n (od, oh, ow), or the padding value: the
// element convolution.cl's unfold would have written to the columns at (k, n), so the contraction sums the same
// values in the same order, without the columns' temporary or the unfold's launch.
//
// B's strides (gemm.cl's b_strides) are the input's: batch, group (a group's InputChannelCount / GroupCount
// channels), channel, then its three spatial axes (leading ones of a 1-D or 2-D input 0). The window's numbers
// follow gemm.cl's own arguments as four vectors: the input's spatial sizes and the window's own outputs (ID, IH, IW,
// VD, VH, VW: the output less OutputPadding), the strides and dilations (SD, SH, SW, DD, DH, DW), the start
// paddings (PD, PH, PW), the filter's and the output's spatial sizes (KD, KH, KW, OD, OH, OW).
//
// A tile's columns are consecutive output positions, so per filter row they are a few runs along ow (one where the
// tile lies inside one output row), and where they read does not depend on the input channel: recipes below.
// The padding value is a float convolution's 0, as are columns past N (never stored).
#ifndef GEMM_WINDOW_H
#define GEMM_WINDOW_H

#define BACKWARD 0
#include "convolution_window.h"

typedef struct {
    long extent[3], valid[3], stride[3], dilation[3], start[3], filter[3], output[3];
    ulong input_stride[4]; // channel, d, h, w
} window_t;

#define WINDOW_PARAMETERS , uint8 window, int8 steps, int8 starts, uint8 shape

// Filled through a pointer, not returned: LLVM inlines a function returning a struct this large with an
// llvm.experimental.noalias.scope.decl call, which Oclgrind (21.10) cannot run (reduction_walk.h says the same).
static inline void window_of(window_t *w, uint8 b_strides, uint8 window, int8 steps, int8 starts, uint8 shape)
{
    const uint v[6] = {window.s0, window.s1, window.s2, window.s3, window.s4, window.s5};
    const int s[6] = {steps.s0, steps.s1, steps.s2, steps.s3, steps.s4, steps.s5};
    const int p[3] = {starts.s0, starts.s1, starts.s2};
    const uint f[6] = {shape.s0, shape.s1, shape.s2, shape.s3, shape.s4, shape.s5};
    const uint input_stride[4] = {b_strides.s2, b_strides.s3, b_strides.s4, b_strides.s5};
    for (int d = 0; d < 3; ++d) {
        w->extent[d] = v[d];
        w->valid[d] = v[3 + d];
        w->stride[d] = s[d];
        w->dilation[d] = s[3 + d];
        w->start[d] = p[d];
        w->filter[d] = f[d];
        w->output[d] = f[3 + d];
    }
    for (int d = 0; d < 4; ++d)
        w->input_stride[d] = input_stride[d];
}

// Per filter element (tap) and tile, where the tile's columns read in a channel. The reads do not depend on the
// channel, so a tile works them out once per tap (the first WINDOW_TAPS taps kept; a tap past those has its recipe
// made per row) and every filter row of that tap copies by them. Where the tile's columns lie in one output row
// (`single`: most tiles), its inside is one run: columns [lo, hi) read offsets start + (j - lo) * step from the
// channel's first element, the others (padding, or past N) are 0. Otherwise each column's offset, or NOWHERE (0).
#define WINDOW_TAPS 64
#define NOWHERE -1
typedef struct {
    long offset[CPU_COLUMNS];
    long start;
    int lo, hi, single;
} recipe_t;

// The recipe of tap (kd, kh, kw) for `columns` consecutive output positions from `first` (od, oh, ow), a run of
// one output row at a time.
static inline void window_recipe(const window_t *w, const long *tap, const long *first, int columns,
                                 __private recipe_t *recipe)
{
    const ulong step = (ulong)w->stride[2] * w->input_stride[3];
    long od = first[0], oh = first[1], ow = first[2];
    recipe->single = columns <= w->output[2] - ow;
    recipe->lo = recipe->hi = 0;
    recipe->start = 0;
    for (int j = 0; j < CPU_COLUMNS; ++j)
        recipe->offset[j] = NOWHERE;
    for (int j = 0; j < columns;) {
        const int count = (int)MIN_OF((long)(columns - j), w->output[2] - ow);
        const long id = source_of(od, tap[0], w->stride[0], w->dilation[0], w->start[0], w->extent[0], w->valid[0]);
        const long ih = source_of(oh, tap[1], w->stride[1], w->dilation[1], w->start[1], w->extent[1], w->valid[1]);
        if (id >= 0 && ih >= 0) {
            const long base = ow * w->stride[2] - w->start[2] + tap[2] * w->dilation[2];
            const long valid = w->valid[2] - ow;
            long lo, hi;
            forward_range(base, w->stride[2], w->extent[2], count < valid ? count : valid, &lo, &hi);
            const ulong from = (ulong)id * w->input_stride[1] + (ulong)ih * w->input_stride[2] +
                               (ulong)(base + lo * w->stride[2]) * w->input_stride[3];
            for (long i = lo; i < hi; ++i)
                recipe->offset[j + i] = (long)(from + (ulong)(i - lo) * step);
            recipe->start = (long)from;
            recipe->lo = (int)lo;
            recipe->hi = (int)hi;
        }
        j += count;
        ow = 0;
        if (++oh == w->output[1]) {
            oh = 0;
            ++od;
        }
    }
}

// Whether a row by `recipe` reads all CPU_COLUMNS columns from one run: a copy without the padding's tests.
#define WHOLE_RUN(recipe) ((recipe)->single && (recipe)->lo == 0 && (recipe)->hi == CPU_COLUMNS)

// One panel row (CPU_COLUMNS floats, FLOAT16's bits converted) by `recipe` from the channel whose first element is
// `at`.
static inline void window_row(__global const A_T *b, ulong at, const __private recipe_t *recipe, ulong step,
                              __private float *row)
{
    if (recipe->single) {
        const ulong from = at + (ulong)recipe->start;
        const int lo = recipe->lo, hi = recipe->hi;
        // A whole run at stride 1 (most layers) or 2 (the downsampling ones) over a packed row: a constant step,
        // which the compiler can copy as whole vectors (at 1, two loads), where a step known only at run time
        // keeps the loop scalar.
        if (WHOLE_RUN(recipe) && step == 1) {
            for (int j = 0; j < CPU_COLUMNS; ++j)
                row[j] = FLOAT_OF(b[from + (ulong)j]);
            return;
        }
        if (WHOLE_RUN(recipe) && step == 2) {
            for (int j = 0; j < CPU_COLUMNS; ++j)
                row[j] = FLOAT_OF(b[from + 2 * (ulong)j]);
            return;
        }
        for (int j = 0; j < lo; ++j)
            row[j] = 0.0f;
        for (int j = lo; j < hi; ++j)
            row[j] = FLOAT_OF(b[from + (ulong)(j - lo) * step]);
        for (int j = hi; j < CPU_COLUMNS; ++j)
            row[j] = 0.0f;
        return;
    }
    for (int j = 0; j < CPU_COLUMNS; ++j) {
        const long offset = recipe->offset[j];
        row[j] = offset == NOWHERE ? 0.0f : FLOAT_OF(b[at + (ulong)offset]);
    }
}

// A tile's walk over the rows of K, each row a channel and a tap: k's channel and tap index, and the tap's
// coordinates (kd, kh, kw), moved on by one per row (an odometer: no division per row).
typedef struct {
    long channel, t, tap[3];
} walk_t;

static inline void walk_next(walk_t *walk, const window_t *w)
{
    if (++walk->t == w->filter[0] * w->filter[1] * w->filter[2]) {
        walk->t = 0;
        ++walk->channel;
    }
    if (++walk->tap[2] == w->filter[2]) {
        walk->tap[2] = 0;
        if (++walk->tap[1] == w->filter[1]) {
            walk->tap[1] = 0;
            if (++walk->tap[0] == w->filter[0])
                walk->tap[0] = 0;
        }
    }
}

// The walk from row k0 (filled through a pointer, as window_of); at k0 0 (a tile's first block) the tile's recipes
// are made first.
static inline void walk_from(walk_t *walk, ulong k0, const window_t *w, const long *first, int columns,
                             __private recipe_t *recipes)
{
    const long taps = w->filter[0] * w->filter[1] * w->filter[2];
    walk->channel = walk->t = walk->tap[0] = walk->tap[1] = walk->tap[2] = 0;
    if (k0 == 0) {
        for (long t = 0; t < MIN_OF(taps, (long)WINDOW_TAPS); ++t) {
            window_recipe(w, walk->tap, first, columns, &recipes[t]);
            walk_next(walk, w);
        }
    }
    walk->channel = (long)(k0 / (ulong)taps);
    walk->t = (long)(k0 % (ulong)taps);
    walk->tap[2] = walk->t % w->filter[2];
    walk->tap[1] = walk->t / w->filter[2] % w->filter[1];
    walk->tap[0] = walk->t / w->filter[2] / w->filter[1];
}

// The walk's current row's recipe: the tile's, or made in `scratch` for a tap past WINDOW_TAPS.
static inline const __private recipe_t *walk_recipe(const walk_t *walk, const window_t *w, const long *first,
                                                    int columns, __private recipe_t *recipes,
                                                    __private recipe_t *scratch)
{
    if (walk->t < WINDOW_TAPS)
        return &recipes[walk->t];
    window_recipe(w, walk->tap, first, columns, scratch);
    return scratch;
}

// gemm.cl's float panel: rows k0 .. k0 + block - 1 (row k at panel + k * CPU_COLUMNS) for the tile's `columns`
// output positions from `first`; `at` is the tile's batch and group's first input element.
static inline void window_block(__global const A_T *b, ulong at, const window_t *w, ulong k0, int block,
                                const long *first, int columns, __private recipe_t *recipes,
                                __private recipe_t *scratch, __private float *panel)
{
    const ulong step = (ulong)w->stride[2] * w->input_stride[3];
    walk_t walk;
    walk_from(&walk, k0, w, first, columns, recipes);
    for (int k = 0; k < block; ++k, walk_next(&walk, w)) {
        const __private recipe_t *recipe = walk_recipe(&walk, w, first, columns, recipes, scratch);
        const ulong channel_at = at + (ulong)walk.channel * w->input_stride[0];
        window_row(b, channel_at, recipe, step, panel + k * CPU_COLUMNS);
    }
}

// n's output position (od, oh, ow).
static inline void window_position(ulong n, const window_t *w, long *position)
{
    position[2] = (long)(n % (ulong)w->output[2]);
    n /= (ulong)w->output[2];
    position[1] = (long)(n % (ulong)w->output[1]);
    position[0] = (long)(n / (ulong)w->output[1]);
}

#endif
