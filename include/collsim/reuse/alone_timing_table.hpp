#pragma once
// Collectives timed alone, on the network a run uses, once per distinct collective: what the
// workload lowering asks when it reuses a collective's timing (workload::CollectiveReuse).
//
// A collective is named by its plan without its tag (kind, algorithm, group, size, channels,
// chunking, protocol, costs); it runs from time zero on the same topology, parameters,
// fidelity, placement and host costs as the run, with nothing else on the network, on this
// process alone (every simulator rank of a parallel run builds the same table).

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collsim/exec/placement.hpp"
#include "collsim/exec/simulation.hpp"
#include "collsim/pdes/transport.hpp"
#include "collsim/workload/collective_reuse.hpp"

namespace collsim::reuse {

class AloneTimingTable final : public workload::CollectiveReuse {
 public:
  // `setup` must be a fabric's; its placement is copied, the topology must outlive the table.
  // Throws std::invalid_argument for another backend.
  explicit AloneTimingTable(const exec::NetworkSetup& setup);
  ~AloneTimingTable() override;

  std::span<const std::uint64_t> after_barrier_ns(const coll::Plan& whole, const coll::Plan& barrier) override;

  // Each member's end (ps from an aligned start at 0) with `plan` alone on the network.
  const std::vector<std::int64_t>& alone_ps(const coll::Plan& plan);

  std::uint64_t collectives_timed() const { return timed_; }
  double seconds_timing() const { return seconds_; }

 private:
  static std::string key_of(const coll::Plan& plan);

  exec::Placement placement_;
  exec::NetworkSetup setup_;
  std::unique_ptr<pdes::Transport> local_;
  std::map<std::string, std::vector<std::int64_t>> alone_;
  std::map<std::string, std::vector<std::uint64_t>> after_barrier_;
  std::uint64_t timed_ = 0;
  double seconds_ = 0;
};

}  // namespace collsim::reuse
