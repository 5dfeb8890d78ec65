// Rabenseifner's allreduce (Thakur, Rabenseifner and Gropp 2005): a reduce-scatter by
// recursive halving (each round sends half of the range still being reduced to the partner
// and reduces the other half) followed by an allgather by recursive doubling that retraces
// the rounds. Each (channel, pipeline step) instance is cut into as many slices as the
// largest power of two pow2 <= n, so every halving splits whole slices; with n a power of
// two every rank sends 2 log2(n) messages and 2 S (n-1)/n bytes.

#include <bit>
#include <cstdint>

#include "algorithms/mpich_fold.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

std::uint64_t slices(const Plan& plan) {
  return std::uint64_t{plan.channels} * plan.block_pipeline_steps() * std::bit_floor(plan.n);
}

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n(), me = out.me();
  if (n == 1) return;
  const MpichFold fold(n, me);
  const std::uint32_t pow2 = fold.pow2, virtual_me = fold.virtual_me;

  const std::uint64_t steps = plan.block_pipeline_steps();
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t base = (std::uint64_t{c} * steps + s) * pow2;
      auto blocks = [base](std::uint64_t first, std::uint64_t count) {
        return UnitRange{base + first, base + first + count};
      };
      const UnitRange all = blocks(0, pow2);
      if (fold.sits_out) {
        out.send(me + 1, c, all);
        out.recv(me + 1, c, all, DataAction::Copy);
        continue;
      }
      goal::LocalOp have = fold.folded ? out.recv(me - 1, c, all, DataAction::Reduce) : kNoOp;
      // Halving from the far partner down leaves virtual rank v with block v.
      std::uint32_t low = 0;
      for (std::uint32_t half = pow2 / 2; half >= 1; half /= 2) {
        const std::uint32_t partner = fold.real(virtual_me ^ half);
        const bool keep_lower = (virtual_me & half) == 0;
        const std::uint32_t kept = keep_lower ? low : low + half, given = keep_lower ? low + half : low;
        out.send(partner, c, blocks(given, half), have);
        have = out.recv(partner, c, blocks(kept, half), DataAction::Reduce, have);
        low = kept;
      }
      for (std::uint32_t span = 1; span < pow2; span *= 2) {
        const std::uint32_t partner = fold.real(virtual_me ^ span);
        const std::uint32_t mine = virtual_me & ~(span - 1), theirs = mine ^ span;
        out.send(partner, c, blocks(mine, span), have);
        have = out.recv(partner, c, blocks(theirs, span), DataAction::Copy, have);
      }
      if (fold.folded) out.send(me - 1, c, all, have);
    }
}

}  // namespace

extern const Algorithm kAllreduceRabenseifner{
    "rabenseifner", Collective::Allreduce,
    "Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling (MPICH fold for other n)",
    slices, emit};

}  // namespace collsim::collectives
