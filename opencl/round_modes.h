// round_modes.h: nGraph's nine rounding modes, exact for every input. A dmlpy extension, NOT DirectML.
//
// Define ROUND_MODE (0..8, the order of dmlpy.extensions.ExtRoundingMode) and, for double, ROUND_REAL_T.
//   0 NEAREST_TOWARD_INFINITY  1 NEAREST_TOWARD_ZERO  2 NEAREST_UPWARD  3 NEAREST_DOWNWARD
//   4 NEAREST_TOWARD_EVEN      5 TOWARD_INFINITY (directed, away from zero)  6 TOWARD_ZERO  7 UP  8 DOWN
//
// The construction (peers.md §7): a = |x|, t = trunc(a), f = a - t (never rounds); decide from f, the mode
// and the sign whether to step up to t + 1 (exact: f > 0 implies a is below 2^23, 2^52 for double); put the
// sign of x back with copysign, which also gives the right signed zero. NaN and infinities fail every
// comparison (f is NaN for them) and come back unchanged. No x + 0.5, no magic constants, no integer casts.
//
// Every step is one a compiler vectorises, so a plain loop over packed tensors runs as SIMD code (PoCL, 16M
// elements: 0.9-1.0x the copy kernel, against 0.03x with fmod and 0.6x with signbit):
// - the sign test is x < 0 (or x > 0), not signbit(x): it only decides where f > 0 or f == 0.5, where x is
//   not a zero;
// - t is odd when t * 0.5 has a fraction (halving a whole number never rounds), not fmod(t, 2), a library
//   call;
// - ROUND_TRUNC is trunc, or with DML_ELEMENTWISE_BUILTINS clang's exact element-wise built-in (PoCL's trunc
//   is a library call that stops the vectoriser; see element_wise_round.cl).
#ifndef ROUND_MODES_H
#define ROUND_MODES_H

#ifndef ROUND_MODE
#error "define ROUND_MODE before including round_modes.h"
#endif
#ifndef ROUND_REAL_T
#define ROUND_REAL_T float
#endif
#if defined(DML_ELEMENTWISE_BUILTINS) && defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_trunc)
#define ROUND_TRUNC(x) __builtin_elementwise_trunc(x)
#endif
#endif
#ifndef ROUND_TRUNC
#define ROUND_TRUNC(x) trunc(x)
#endif

inline ROUND_REAL_T round_in_mode(ROUND_REAL_T x)
{
    const ROUND_REAL_T a = fabs(x);
    const ROUND_REAL_T t = ROUND_TRUNC(a);
    const ROUND_REAL_T f = a - t;
    const ROUND_REAL_T half_ = (ROUND_REAL_T)0.5;
#if ROUND_MODE == 0
    const bool up = f >= half_;
#elif ROUND_MODE == 1
    const bool up = f > half_;
#elif ROUND_MODE == 2
    const bool up = f > half_ || (f == half_ && x > 0);
#elif ROUND_MODE == 3
    const bool up = f > half_ || (f == half_ && x < 0);
#elif ROUND_MODE == 4
    const bool up = f > half_ || (f == half_ && t * half_ != ROUND_TRUNC(t * half_));
#elif ROUND_MODE == 5
    const bool up = f > 0;
#elif ROUND_MODE == 6
    const bool up = false;
#elif ROUND_MODE == 7
    const bool up = f > 0 && x > 0;
#else
    const bool up = f > 0 && x < 0;
#endif
    return copysign(up ? t + 1 : t, x);
}

#endif
