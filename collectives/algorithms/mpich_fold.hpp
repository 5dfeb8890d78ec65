#pragma once
// MPICH's fold for allreduce on n not a power of two: of the first 2*extra ranks, each even
// one hands its data to its odd neighbour, sits the power-of-two rounds out, and gets the
// result back at the end. The pow2 = bit_floor(n) ranks that stay are numbered 0..pow2-1.

#include <bit>
#include <cstdint>

namespace collsim::collectives {

struct MpichFold {
  MpichFold(std::uint32_t n, std::uint32_t me)
      : pow2(std::bit_floor(n)),
        extra(n - pow2),
        folded(me < 2 * extra),
        sits_out(folded && me % 2 == 0),
        virtual_me(folded ? me / 2 : me - extra) {}

  // The member that plays virtual rank v.
  std::uint32_t real(std::uint32_t v) const { return v < extra ? 2 * v + 1 : v + extra; }

  std::uint32_t pow2;
  std::uint32_t extra;
  bool folded;      // one of the first 2*extra ranks
  bool sits_out;    // the even one of a folded pair
  std::uint32_t virtual_me;
};

}  // namespace collsim::collectives
