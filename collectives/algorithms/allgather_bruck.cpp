// Bruck allgather: in round k every rank sends the 2^k blocks it holds (its own and the
// ones after it, fewer in the last round) to rank me - 2^k and receives as many from
// me + 2^k, so any n takes ceil(log2 n) messages carrying S(n-1)/n per rank. Units name
// blocks by their place in the result, so Bruck's final local rotation is not needed.

#include <algorithm>
#include <vector>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// Not pipelined: as in MPI, each round is one message per channel.
std::uint64_t slices(const Plan& plan) { return plan.channels; }

// Blocks first, first + 1, ..., first + count - 1 modulo n of slice `slice`, in that order.
std::vector<UnitRange> blocks_from(std::uint64_t slice, std::uint64_t n, std::uint64_t first, std::uint64_t count) {
  const std::uint64_t base = slice * n;
  first %= n;
  if (first + count <= n) return {{base + first, base + first + count}};
  return {{base + first, base + n}, {base, base + first + count - n}};
}

void emit(RankEmitter& out) {
  const std::uint64_t n = out.n(), me = out.me();
  for (std::uint32_t c = 0; c < out.plan().channels; ++c) {
    // Receptions may complete in any order, and later sends forward them.
    std::vector<goal::LocalOp> received;
    for (std::uint64_t distance = 1; distance < n; distance *= 2) {
      const std::uint64_t count = std::min(distance, n - distance);
      const auto to = static_cast<std::uint32_t>((me + n - distance) % n);
      const auto from = static_cast<std::uint32_t>((me + distance) % n);
      out.send(to, c, blocks_from(c, n, me, count), received);
      received.push_back(out.recv(from, c, blocks_from(c, n, me + distance, count), DataAction::Copy));
    }
  }
}

}  // namespace

extern const Algorithm kAllgatherBruck{
    "bruck", Collective::Allgather,
    "Bruck: ceil(log2 n) rounds sending all held blocks to rank - 2^k; any n without folding", slices, emit};

}  // namespace collsim::collectives
