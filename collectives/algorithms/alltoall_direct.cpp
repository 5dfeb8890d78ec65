// Alltoall as NCCL runs it: a group of sends and receives to and from every peer at once,
// with no order between peers. Block (s*n + d) goes from s to d; the block a rank keeps
// for itself stays in place. Every pair's block is cut into channels x pipeline chunks.

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n(), me = out.me();
  const UnitLayout& layout = out.layout();
  const std::uint64_t steps = plan.block_pipeline_steps();
  for (std::uint32_t c = 0; c < plan.channels; ++c)
    for (std::uint64_t s = 0; s < steps; ++s) {
      const std::uint64_t slice = std::uint64_t{c} * steps + s;
      // Peers in NCCL's p2p order (send to me + k, receive from me - k), so that ranks do
      // not all start on the same peer.
      for (std::uint32_t k = 1; k < n; ++k) {
        const std::uint32_t to = (me + k) % n, from = (me + n - k) % n;
        const std::uint64_t u_in = layout.unit(slice, std::uint64_t{from} * n + me);
        const std::uint64_t u_out = layout.unit(slice, std::uint64_t{me} * n + to);
        out.recv(from, c, UnitRange{u_in, u_in + 1}, DataAction::Copy);
        out.send(to, c, UnitRange{u_out, u_out + 1});
      }
    }
}

}  // namespace

extern const Algorithm kAlltoallDirect{"direct", Collective::AllToAll,
                                       "NCCL alltoall: grouped sends and receives to and from all peers at once",
                                       pipelined_slices, emit};

}  // namespace collsim::collectives
