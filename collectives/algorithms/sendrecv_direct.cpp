// nccl-tests sendrecv: every rank sends its buffer to r+1 and receives r-1's, in chunks
// spread over the channels. A single rank has no one to talk to and sends nothing.

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n(), me = out.me();
  if (n == 1) return;
  const std::uint32_t next = (me + 1) % n, prev = (me + n - 1) % n;
  const std::uint64_t steps = plan.block_pipeline_steps();
  for (std::uint32_t c = 0; c < plan.channels; ++c)
    for (std::uint64_t s = 0; s < steps; ++s) {
      const std::uint64_t slice = std::uint64_t{c} * steps + s;
      const std::uint64_t u_out = out.layout().unit(slice, me), u_in = out.layout().unit(slice, prev);
      out.send(next, c, UnitRange{u_out, u_out + 1});
      out.recv(prev, c, UnitRange{u_in, u_in + 1}, DataAction::Copy);
    }
}

}  // namespace

extern const Algorithm kSendrecvDirect{"direct", Collective::SendRecv,
                                       "nccl-tests sendrecv: send to r+1, receive from r-1, pipelined in chunks",
                                       pipelined_slices, emit};

}  // namespace collsim::collectives
