#pragma once
// A replay program as GOAL: compute becomes calc on cpu 0 (the GPU's compute stream), messages
// and collectives run on cpus 1.. (communication). Each collective goes through the
// collectives module (make_plan, then emit_member per rank after the ops it depends on), with
// tags of its own so that consecutive collectives on one group cannot match each other's
// messages.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/collectives/spec.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/traces/replay_program.hpp"

namespace collsim::traces {

inline constexpr std::uint8_t kComputeCpu = 0;
inline constexpr std::uint8_t kCommunicationCpu = 1;

// The ops [begin, end) of one rank.
struct OpSpan {
  goal::RankId rank = 0;
  goal::LocalOp begin = 0;
  goal::LocalOp end = 0;
};

// A collective (or a named point-to-point transfer) and the ops that carry it out.
struct LoweredCollective {
  std::string kind;                 // "allreduce", ..., or "send" for a transfer
  std::string algorithm;            // the algorithm it was lowered with ("" for a transfer)
  std::uint64_t bytes = 0;
  std::vector<goal::RankId> ranks;
  std::string origin;
  std::vector<OpSpan> ops;
};

struct LoweredReplay {
  goal::Schedule schedule;
  std::vector<LoweredCollective> collectives;  // program's collectives, then its transfers
};

// `shape`: how collectives are lowered (algorithm, protocol, channels, chunk, costs); its
// collective, group, bytes, root, num_ranks, first_cpu and tag are set per call. Throws
// InputError naming the call when the collectives module refuses it.
LoweredReplay lower_replay(const ReplayProgram& program, const collectives::CollectiveSpec& shape = {});

}  // namespace collsim::traces
