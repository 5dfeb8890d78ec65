// Ring allgather as NCCL runs it: per channel and pipeline step, n-1 steps in which every
// rank passes on the block it received the step before (its own block first). Every rank
// sends n-1 messages of S/(n*channels*steps).

#include "algorithms/ring_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// The n blocks of a slice already cut the data into n pieces, so a slice is one message.
std::uint64_t slices(const Plan& plan) { return ring_units(plan) / plan.n; }

void emit(RankEmitter& out) {
  emit_ring_pass(out, out.n() - 1, 0, [](std::uint32_t) { return DataAction::Copy; });
}

}  // namespace

extern const Algorithm kAllgatherRing{"ring", Collective::Allgather,
                                      "NCCL ring: n-1 steps passing blocks around a ring, pipelined in chunks", slices,
                                      emit, nullptr, nullptr, 1, false, ChunkPath::Ring};

}  // namespace collsim::collectives
