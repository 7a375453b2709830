// convolution_window.h: the window arithmetic that convolution.cl's unfold and depthwise.cl's kernel share: which
// input element a filter element meets (source_of), the range of a FORWARD run that meets one (forward_range), and
// the odometer that walks a work-item's runs of the innermost dimension (first_run, next_run). BACKWARD comes from
// the including file.
#ifndef CONVOLUTION_WINDOW_H
#define CONVOLUTION_WINDOW_H

// The input coordinate that filter index k meets at output coordinate o along one dimension, or -1 where none does.
static inline long source_of(long o, long k, long stride, long dilation, long start, long extent, long valid)
{
#if BACKWARD
    const long t = o + start - k * dilation;
    // t % stride of a negative t is never taken: t >= 0 is tested first
    const bool meets = t >= 0 && t % stride == 0 && t / stride < extent && o < valid;
    return meets ? t / stride : -1;
#else
    const long i = o * stride - start + k * dilation;
    return o < valid && i >= 0 && i < extent ? i : -1;
#endif
}

#if !BACKWARD
// FORWARD along the innermost axis: the outputs j = 0, 1, ... of a run (or block) whose first output meets input
// index base + j * stride. The j that meet an input element are one range [*lo, *hi): base + j * stride in
// [0, extent), j < limit (the run's length, and the window's own outputs); *lo = *hi where none does.
// Stride 1 (most layers) takes no division: one per call measured a quarter of the depth-wise kernel's time, where
// it runs per filter element and block.
static inline void forward_range(long base, long stride, long extent, long limit, long *lo, long *hi)
{
    const long last = extent - 1 - base;  // the last j's offset: j * stride <= last
    long first, end;
    if (stride == 1) {
        first = base >= 0 ? 0 : -base;
        end = last < 0 ? 0 : last + 1;
    } else {
        first = base >= 0 ? 0 : (stride - 1 - base) / stride;
        end = last < 0 ? 0 : last / stride + 1;
    }
    end = end < limit ? end : limit;
    *lo = first < end ? first : (end > 0 ? end : 0);
    *hi = end > *lo ? end : *lo;
}
#endif

// A work-item's runs: e's coordinates in `shape` (RANK dimensions, the last fastest) mapped once, by divisions,
// for the first run; each next run moves them on by the run's length with carries, no division (a division per
// dimension per run of 56 outputs measured a third of the unfold's time).
static inline void first_run(ulong e, const long *shape, int rank, long *c)
{
    for (int d = rank - 1; d >= 0; --d) {
        c[d] = (long)(e % (ulong)shape[d]);
        e /= (ulong)shape[d];
    }
}

static inline void next_run(ulong count, const long *shape, int rank, long *c)
{
    c[rank - 1] += (long)count;
    for (int d = rank - 1; d > 0 && c[d] >= shape[d]; --d) {
        c[d] = 0;
        ++c[d - 1];
    }
}

#endif
