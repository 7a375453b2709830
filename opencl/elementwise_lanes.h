// elementwise_lanes.h: one step of elementwise.cl's LANES loop, group `group` of LANES consecutive elements,
// included (as text, so no include guard) as the body of the loop over groups. LANE_LOADS reads each input's LANES
// elements with one vload (or its one value, broadcast), LANE_OUTPUTS declares each output's vector, FUSED_BODY runs
// once per lane with ELEMENT(k) and HALF_BITS(k) the lane's component of tensor k's vector, and LANE_STORES writes
// each output with one vstore. Every read of a step comes before every write, so in place (MAY_ALIAS) is exact:
// DirectML runs an operator in place only where its output is exactly its input.
//
// Why: under the "gpu" shape a work-item with one element a step has one load in flight: the compiler may not move
// the next step's loads above this step's stores (unrolling the loop by 4 did not help). Here the loads of LANES
// elements come first. NVIDIA's compiler makes each vload4 four scalar loads (PTX ld.global.u32 x 4; vloadn needs only
// element alignment), so the gain is four loads issued together, not wider ones. On an NVIDIA H100, dispatch times
// (benchmarks/bench_operators.py, bench_binary.py, one run each, before and after): 16M float32 IDENTITY 0.09 -> 0.08
// ms, the fused five-operator float32 chain 0.10 -> 0.08 ms, the fused INT8 QDQ chain at 64M 0.29 -> 0.22 ms.
LANE_LOADS
LANE_OUTPUTS
#undef ELEMENT
#undef HALF_BITS
#define ELEMENT(k) CONCAT(lanes##k.s, LANE)
#define HALF_BITS(k) ELEMENT(k)
#define LANE 0
{ FUSED_BODY }
#undef LANE
#define LANE 1
{ FUSED_BODY }
#undef LANE
#define LANE 2
{ FUSED_BODY }
#undef LANE
#define LANE 3
{ FUSED_BODY }
#undef LANE
LANE_STORES
