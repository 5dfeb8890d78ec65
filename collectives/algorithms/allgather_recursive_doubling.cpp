// Recursive doubling allgather: in round k every rank swaps all it holds with the rank 2^k
// away, doubling what it holds, so that log2(n) messages carry S(n-1)/n per rank. Other n:
// the fold (gather_scatter_fold.hpp); an extra rank sends its block to its core rank and
// receives all other blocks from it at the end.

#include <vector>

#include "algorithms/gather_scatter_fold.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// Not pipelined: as in MPI, each round is one message per channel, up to S/2.
std::uint64_t slices(const Plan& plan) { return plan.channels; }

// The blocks of slice `slice` except `block`.
std::vector<UnitRange> all_but(std::uint64_t slice, std::uint32_t n, std::uint32_t block) {
  const std::uint64_t base = slice * n;
  std::vector<UnitRange> units;
  if (block > 0) units.push_back({base, base + block});
  if (block + 1 < n) units.push_back({base + block + 1, base + n});
  return units;
}

void emit(RankEmitter& out) {
  const std::uint32_t n = out.n(), me = out.me();
  if (n == 1) return;
  const GatherScatterFold fold(n);
  for (std::uint32_t c = 0; c < out.plan().channels; ++c) {
    const std::uint64_t base = std::uint64_t{c} * n;
    if (fold.is_extra(me)) {
      out.send(fold.pair(me), c, UnitRange{base + me, base + me + 1});
      out.recv(fold.pair(me), c, all_but(c, n, me), DataAction::Copy);
      continue;
    }
    // Receptions may complete in any order, and every send forwards all of them.
    std::vector<goal::LocalOp> received;
    if (fold.has_extra(me)) {
      const std::uint64_t extra_unit = base + fold.pair(me);
      received.push_back(out.recv(fold.pair(me), c, UnitRange{extra_unit, extra_unit + 1}, DataAction::Copy));
    }
    for (std::uint32_t k = 0; k < fold.rounds(); ++k) {
      const std::uint32_t span = 1u << k, peer = me ^ span;
      const std::uint32_t mine = me & ~(span - 1), theirs = mine ^ span;  // first core rank of each half
      out.send(peer, c, fold.blocks_of(mine, mine + span, c), received);
      received.push_back(out.recv(peer, c, fold.blocks_of(theirs, theirs + span, c), DataAction::Copy));
    }
    if (fold.has_extra(me)) out.send(fold.pair(me), c, all_but(c, n, fold.pair(me)), received);
  }
}

}  // namespace

extern const Algorithm kAllgatherRecursiveDoubling{
    "recursive_doubling", Collective::Allgather,
    "recursive doubling: log2(n) exchanges of doubling size with rank ^ 2^k; other n fold extra ranks in", slices,
    emit};

}  // namespace collsim::collectives
