// MPICH's pairwise-exchange alltoall: n-1 steps, one peer per step, each step a blocking
// sendrecv that must complete before the next starts. At step k rank r sends to r+k and
// receives from r-k (mod n); when n is a power of two the partner is r XOR k instead, so
// that both directions of a step use the same pair of ranks (MPICH's choice too).

#include <bit>
#include <vector>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n(), me = out.me();
  const UnitLayout& layout = out.layout();
  const bool power_of_two = std::has_single_bit(n);
  const std::uint64_t chunks = plan.block_pipeline_steps();
  for (std::uint32_t c = 0; c < plan.channels; ++c) {
    std::vector<goal::LocalOp> previous, current;  // every op of the previous / current step
    for (std::uint32_t k = 1; k < n; ++k) {
      const std::uint32_t to = power_of_two ? me ^ k : (me + k) % n;
      const std::uint32_t from = power_of_two ? me ^ k : (me + n - k) % n;
      current.clear();
      for (std::uint64_t s = 0; s < chunks; ++s) {
        const std::uint64_t slice = std::uint64_t{c} * chunks + s;
        const std::uint64_t u_out = layout.unit(slice, std::uint64_t{me} * n + to);
        const std::uint64_t u_in = layout.unit(slice, std::uint64_t{from} * n + me);
        // Only a step's first send and receive wait for the whole previous step: the later
        // chunks of a connection start after its first one anyway.
        const Deps after = s == 0 ? Deps(previous) : Deps();
        current.push_back(out.send(to, c, UnitRange{u_out, u_out + 1}, after));
        current.push_back(out.recv(from, c, UnitRange{u_in, u_in + 1}, DataAction::Copy, after));
      }
      previous.swap(current);
    }
  }
}

}  // namespace

extern const Algorithm kAlltoallPairwise{
    "pairwise", Collective::AllToAll,
    "MPICH pairwise exchange: n-1 ordered sendrecv steps (partner r XOR k for powers of two, else r+k / r-k)",
    pipelined_slices, emit};

}  // namespace collsim::collectives
