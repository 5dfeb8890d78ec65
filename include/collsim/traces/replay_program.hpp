#pragma once
// What a trace says each rank did, independent of the trace format: per rank, a list of
// tasks (compute, point-to-point message, part of a collective) in an order where every
// task comes after the tasks it depends on. Both readers (Chakra ET, NCCL logs) produce it;
// replay_lowering turns it into GOAL.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/collectives/collective.hpp"
#include "collsim/common/input_error.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::traces {

// Where a call or node came from: a line of a text log, or a byte offset of a binary trace.
struct TraceOrigin {
  std::string file;
  std::uint64_t line = 0;   // text: 1-based; 0 for binary input
  std::uint64_t byte = 0;   // binary: offset of the node
  std::string what;         // "node id 3 'allreduce'", "AllReduce opCount 0x1f"

  std::string text() const;                           // "file:12: what" or "file: byte 40: what"
  InputError error(const std::string& detail) const;  // at that place: "what: detail"
};

// One collective as every member called it.
struct CollectiveCall {
  collectives::Collective collective = collectives::Collective::Allreduce;
  std::uint64_t bytes = 0;              // the nccl-tests size (allgather: the output)
  std::uint32_t root = 0;               // group index (broadcast, reduce)
  std::vector<goal::RankId> group;      // member i is rank group[i]
  TraceOrigin origin;                   // one member's call (the first rank's)
};

// A point-to-point message both of whose ends the trace names (NCCL Send/Recv pairs), so that
// the replay can report it like a collective.
struct Transfer {
  goal::RankId from = 0;
  goal::RankId to = 0;
  std::uint64_t bytes = 0;
  TraceOrigin origin;
};

inline constexpr std::uint32_t kNoIndex = 0xFFFFFFFFu;

struct ReplayTask {
  enum class Kind : std::uint8_t { Compute, Send, Recv, Collective };
  Kind kind = Kind::Compute;
  std::uint64_t ns = 0;                 // compute
  goal::RankId peer = 0;                // send: destination; recv: source
  std::uint64_t bytes = 0;              // send, recv
  std::uint32_t tag = 0;                // send, recv: the trace's own tag
  std::uint32_t collective = kNoIndex;  // collective: index into ReplayProgram::collectives
  std::uint32_t transfer = kNoIndex;    // send, recv: index into ReplayProgram::transfers, if any
  std::vector<std::uint32_t> after;        // earlier tasks of this rank that must have finished
  std::vector<std::uint32_t> after_start;  // earlier tasks of this rank that must have started
};

struct ReplayProgram {
  std::uint32_t num_ranks = 0;
  std::vector<std::vector<ReplayTask>> ranks;  // dependencies point to earlier tasks only
  std::vector<CollectiveCall> collectives;
  std::vector<Transfer> transfers;
  std::uint32_t max_tag = 0;                   // the largest tag a send or recv task uses
  std::string description;                     // "chakra ET, 8 ranks (dir/all_reduce.*.et)"
};

}  // namespace collsim::traces
