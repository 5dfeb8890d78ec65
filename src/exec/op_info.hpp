#pragma once
// The fields of an op that every event reads, in one 16-byte record instead of five
// columns: at scale a run is bound by cache misses, and this saves four per op touched (for
// 16 bytes per op of memory during the run). `label` fills the padding: a streamed run's
// window keeps the producer's label there.

#include <cstdint>

#include "collsim/goal/op.hpp"

namespace collsim::exec {

struct OpInfo {
  std::uint64_t size;
  std::uint32_t peer;
  goal::OpKind kind;
  std::uint8_t cpu;
  std::uint8_t nic;
  std::uint8_t label;
};
static_assert(sizeof(OpInfo) == 16);

}  // namespace collsim::exec
