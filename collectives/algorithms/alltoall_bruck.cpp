// Bruck's alltoall: ceil(log2 n) steps for any n (no fold needed). A block travelling
// from s to d has offset i = (d - s) mod n and moves 2^k ranks ahead at every step k whose
// bit is set in i, so at step k rank r sends to r + 2^k (and receives from r - 2^k) every
// block it holds whose offset has bit k set: about n/2 blocks per message, gathered from
// several sources. Messages name the blocks by their canonical (s, d) ids, so the local
// rotations of the textbook version (which only renumber blocks) need no ops.

#include <algorithm>
#include <bit>
#include <vector>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

std::uint32_t rounds(std::uint32_t n) { return static_cast<std::uint32_t>(std::bit_width(n - 1)); }

// No offset below n has bit k set more than n/2 times, so messages stay within a chunk.
std::uint64_t pipeline_steps(const Plan& plan) { return plan.pipeline_steps(plan.block_bytes() * (plan.n / 2)); }

std::uint64_t slices(const Plan& plan) { return std::uint64_t{plan.channels} * pipeline_steps(plan); }

// The units `holder` passes on at step k, in offset order. Before step k the block of
// offset i held by `holder` has already moved by the low k bits of i, which names its source.
std::vector<UnitRange> moving_blocks(const UnitLayout& layout, std::uint64_t slice, std::uint32_t n,
                                     std::uint32_t holder, std::uint32_t k) {
  std::vector<UnitRange> units;
  const std::uint32_t low_mask = (std::uint32_t{1} << k) - 1;
  for (std::uint32_t i = 1; i < n; ++i) {
    if ((i >> k & 1) == 0) continue;
    const std::uint32_t source = (holder + n - (i & low_mask)) % n;
    const std::uint32_t dest = (source + i) % n;
    const std::uint64_t u = layout.unit(slice, std::uint64_t{source} * n + dest);
    if (!units.empty() && units.back().end == u) {
      ++units.back().end;
    } else {
      units.push_back(UnitRange{u, u + 1});
    }
  }
  return units;
}

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n(), me = out.me();
  const std::uint32_t steps = rounds(n);
  const std::uint64_t chunks = pipeline_steps(plan);
  std::vector<goal::LocalOp> received(steps);  // per step: the receive of the current chunk
  std::vector<goal::LocalOp> forwarded;
  for (std::uint32_t c = 0; c < plan.channels; ++c)
    for (std::uint64_t s = 0; s < chunks; ++s) {
      const std::uint64_t slice = std::uint64_t{c} * chunks + s;
      for (std::uint32_t k = 0; k < steps; ++k) {
        const std::uint32_t hop = std::uint32_t{1} << k;
        const std::uint32_t to = (me + hop) % n, from = (me + n - hop) % n;
        // A block that moved before arrived with the step of the highest bit it moved by.
        forwarded.clear();
        for (std::uint32_t i = hop; i < n; ++i) {
          const std::uint32_t moved = i & (hop - 1);
          if ((i & hop) == 0 || moved == 0) continue;
          const goal::LocalOp arrival = received[static_cast<std::size_t>(std::bit_width(moved) - 1)];
          if (std::find(forwarded.begin(), forwarded.end(), arrival) == forwarded.end()) forwarded.push_back(arrival);
        }
        out.send(to, c, moving_blocks(out.layout(), slice, n, me, k), forwarded);
        received[k] = out.recv(from, c, moving_blocks(out.layout(), slice, n, from, k), DataAction::Copy);
      }
    }
}

}  // namespace

extern const Algorithm kAlltoallBruck{"bruck", Collective::AllToAll,
                                      "Bruck: ceil(log2 n) steps, each forwarding the blocks whose offset has bit k set",
                                      slices, emit};

}  // namespace collsim::collectives
