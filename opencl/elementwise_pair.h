// elementwise_pair.h: one pair of elements of elementwise.cl's PAIRED loops, included (as text, so no include
// guard) where a loop takes a pair: FUSED_BODY for HALF 0 and, where PAIR_HALVES is 2, HALF 1, between PAIR_BEGIN
// (the 4-bit outputs' bytes declared) and PAIR_END (stored). HALF is redefined between the two bodies, so each
// expands AT(k) and the nibble loads and stores for its element.
PAIR_BEGIN
#define HALF 0
{ FUSED_BODY }
#undef HALF
#if PAIR_HALVES == 2
#define HALF 1
{ FUSED_BODY }
#undef HALF
#endif
PAIR_END
