#pragma once
// The symbolic verifier: runs an annotated schedule without time and checks the
// collective's postcondition on the data, contribution by contribution.
//
// State: for every rank and unit, whether the rank holds it and the set of group members
// whose contribution it contains. Sends read the sender's units when they start; receives
// apply Copy / Reduce / Merge when they complete. Messages match MPI-style: the k-th send
// from s to d with tag t meets the k-th receive at d from s with tag t, which is the only
// possible matching because consecutive ops of one (peer, tag) must be ordered by
// dependencies (the verifier checks that too).

#include <cstdint>
#include <string>

#include "collsim/collectives/generate.hpp"

namespace collsim::collectives {

struct VerifyReport {
  bool ok = false;
  std::string error;                  // the first problem found, naming rank, op and chunk
  std::uint64_t messages = 0;         // sends in the schedule
  std::uint64_t bytes_total = 0;      // bytes sent by all ranks
  std::uint64_t messages_per_rank_max = 0;
  std::uint64_t bytes_per_rank_max = 0;  // most bytes sent by one rank
  std::uint64_t ops = 0;
};

struct VerifyLimits {
  std::uint64_t max_state_bytes = std::uint64_t{4} << 30;  // refuse larger abstract states
};

VerifyReport verify(const AnnotatedSchedule& annotated, const VerifyLimits& limits = {});

// Only the traffic fields (messages, bytes, ops), without running anything.
VerifyReport count_traffic(const goal::Schedule& schedule);

}  // namespace collsim::collectives
