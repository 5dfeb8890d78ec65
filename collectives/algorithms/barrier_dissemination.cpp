// The dissemination barrier (Hensgen, Finkel and Manber): ceil(log2 n) rounds for any n.
// In round k rank r tells r + 2^k about every arrival it has heard of (its own and the
// 2^k - 1 before it) and hears from r - 2^k, so after round k it knows 2^(k+1) arrivals.
// A barrier carries no data, so extra channels would only add messages: it runs on channel 0.

#include <algorithm>
#include <bit>
#include <vector>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

std::uint64_t slices(const Plan&) { return 1; }

// The arrivals `rank` knows before round k: ranks rank, rank-1, ..., rank-2^k+1 (mod n),
// as at most two ranges in rank order.
std::vector<UnitRange> known_arrivals(std::uint32_t n, std::uint32_t rank, std::uint32_t k) {
  const std::uint32_t count = std::min<std::uint32_t>(n, std::uint32_t{1} << k);
  if (count <= rank + 1) return {UnitRange{rank + 1 - count, rank + 1}};
  return {UnitRange{0, rank + 1}, UnitRange{n - (count - rank - 1), n}};
}

void emit(RankEmitter& out) {
  const std::uint32_t n = out.n(), me = out.me();
  const auto rounds = static_cast<std::uint32_t>(std::bit_width(n - 1));
  goal::LocalOp heard = kNoOp;  // the previous round's receive
  for (std::uint32_t k = 0; k < rounds; ++k) {
    const std::uint32_t hop = std::uint32_t{1} << k;
    const std::uint32_t to = (me + hop) % n, from = (me + n - hop) % n;
    out.send(to, 0, known_arrivals(n, me, k), heard);
    heard = out.recv(from, 0, known_arrivals(n, from, k), DataAction::Merge, heard);
  }
}

}  // namespace

extern const Algorithm kBarrierDissemination{"dissemination", Collective::Barrier,
                                             "dissemination barrier: ceil(log2 n) rounds to r + 2^k",
                                             slices, emit};

}  // namespace collsim::collectives
