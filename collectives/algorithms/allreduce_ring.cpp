// Ring allreduce as NCCL runs it: per channel and pipeline step the data is cut into n
// blocks; n-1 reduce-scatter steps (receive, reduce, pass on) then n-1 allgather steps
// (receive, keep, pass on). Every rank sends 2(n-1) messages of S/(n*channels*steps).

#include "algorithms/ring_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::coll {
namespace {

std::uint64_t slices(const Plan& plan) {
  return std::uint64_t{plan.channels} * ring_pipeline_steps(plan, plan.bytes) * plan.n;
}

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint64_t steps = ring_pipeline_steps(plan, plan.bytes);
  const std::uint32_t next = (out.me() + 1) % n, prev = (out.me() + n - 1) % n;
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t first_slice = (std::uint64_t{c} * steps + s) * n;
      goal::LocalOp have = kNoOp;  // the previous step's block, received and reduced
      for (std::uint32_t k = 0; k + 1 < 2 * n - 1; ++k) {
        const std::uint64_t send_block = (out.me() + 2 * n - k % n) % n;
        const std::uint64_t recv_block = (out.me() + 2 * n - k % n - 1) % n;
        const std::uint64_t u_send = first_slice + send_block, u_recv = first_slice + recv_block;
        out.send(next, c, UnitRange{u_send, u_send + 1}, have);
        have = out.recv(prev, c, UnitRange{u_recv, u_recv + 1}, k < n - 1 ? DataAction::Reduce : DataAction::Copy);
      }
    }
}

}  // namespace

extern const Algorithm kAllreduceRing{"ring", Collective::Allreduce,
                                      "NCCL ring: reduce-scatter then allgather around a ring, pipelined in chunks",
                                      slices, emit};

}  // namespace collsim::coll
