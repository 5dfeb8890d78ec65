#pragma once
// Collectives timed once and then reused. A blocking collective whose group lies inside one
// scale-up domain (a server's NVLink), repeated through a step thousands of times with the
// same group and size, is simulated once alone; each member's part is then lowered to a
// dissemination barrier over the group, which waits for the last member to arrive, and a calc
// for the rest of the time the member took alone. From an aligned start on links nobody else
// uses this gives the member the end it had alone (to the nanosecond of the calc); what it
// leaves out is a skewed start and other traffic on the same links, which the README's
// accuracy table measures.

#include <cstdint>
#include <span>

#include "collsim/collectives/spec.hpp"

namespace collsim::workload {

class CollectiveReuse {
 public:
  virtual ~CollectiveReuse() = default;
  // Per member of `whole`'s group, in ns: what the member took from an aligned start with
  // `whole` alone on the network, less what `barrier` (over the same group) took it alone.
  // Empty when the collective must run as itself (a member takes less than the barrier).
  // The spans stay valid as long as this object.
  virtual std::span<const std::uint64_t> after_barrier_ns(const collectives::Plan& whole, const collectives::Plan& barrier) = 0;
};

}  // namespace collsim::workload
