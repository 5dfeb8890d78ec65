#pragma once
// A named stretch of one rank's ops, such as its part of one collective: what produced a
// schedule knows these; the schedule itself does not keep them.

#include <cstdint>

#include "collsim/goal/op.hpp"

namespace collsim::goal {

struct OpSpan {
  RankId rank = 0;
  std::uint32_t name = 0;  // index into a list of names kept beside the spans
  LocalOp first = 0;       // ops [first, end) of the rank
  LocalOp end = 0;
};

}  // namespace collsim::goal
