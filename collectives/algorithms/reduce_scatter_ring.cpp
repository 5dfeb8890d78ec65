// Ring reduce-scatter as NCCL runs it: per channel and pipeline step, n-1 steps in which
// every rank adds its contribution to the block it received and passes it on, so that block
// b arrives complete at rank b. Every rank sends n-1 messages of S/(n*channels*steps).

#include "algorithms/ring_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// The n blocks of a slice already cut the data into n pieces, so a slice is one message.
std::uint64_t slices(const Plan& plan) { return ring_units(plan) / plan.n; }

void emit(RankEmitter& out) {
  // Step k sends block me-k-1 and reduces block me-k-2, which is me itself at the last step.
  emit_ring_pass(out, out.n() - 1, 1, [](std::uint32_t) { return DataAction::Reduce; });
}

}  // namespace

extern const Algorithm kReduceScatterRing{
    "ring", Collective::ReduceScatter,
    "NCCL ring: n-1 steps reducing blocks on their way around a ring, pipelined in chunks", slices, emit,
    nullptr, nullptr, 1, false, ChunkPath::Ring};

}  // namespace collsim::collectives
