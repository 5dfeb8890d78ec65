// Ring allreduce as NCCL runs it: per channel and pipeline step the data is cut into n
// blocks; n-1 reduce-scatter steps (receive, reduce, pass on) then n-1 allgather steps
// (receive, keep, pass on). Every rank sends 2(n-1) messages of S/(n*channels*steps).

#include "algorithms/ring_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// Allreduce has one block per slice, so the ring's n pieces are n slices.
std::uint64_t slices(const Plan& plan) { return ring_units(plan); }

// 2(n-1) rounds: the first n-1 reduce, the rest pass the finished blocks on.
void emit(RankEmitter& out) {
  const std::uint32_t n = out.n();
  emit_ring_pass(out, 2 * (n - 1), 0, [n](std::uint32_t k) { return k < n - 1 ? DataAction::Reduce : DataAction::Copy; });
}

}  // namespace

extern const Algorithm kAllreduceRing{"ring", Collective::Allreduce,
                                      "NCCL ring: reduce-scatter then allgather around a ring, pipelined in chunks",
                                      slices, emit, nullptr, nullptr, 1, false, ChunkPath::Ring};

}  // namespace collsim::collectives
