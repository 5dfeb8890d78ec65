#pragma once
// Collectives timed alone, on the network a run uses, once per distinct collective: what the
// workload lowering asks when it reuses a collective's timing (workload::CollectiveReuse).
//
// A collective runs from time zero with the run's parameters, fidelity and host costs and
// nothing else on the network, on this process alone (every simulator rank of a parallel run
// builds the same table). Where its members' hosts reach each other over NVLink, it runs on
// that NVLink island alone (the hosts and switches NVLink joins them to, as a topology of
// their own), and is named by its plan without its tag and group and by the island's shape:
// the 128 servers of a cluster share one timing. Otherwise (or with --scale-up message, whose
// notices cross the network) it runs on the whole topology, named by its group too.
// In the LogGOPS model a group's placement matters only through which members share a node
// (L and G between them are the intra-node ones): a group inside one node runs as ranks
// 0..n-1 of one node, and all such groups share a timing.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
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
  // `setup` is a fabric's (its placement is copied, the topology must outlive the table;
  // std::invalid_argument without them) or LogGOPS's.
  explicit AloneTimingTable(const exec::NetworkSetup& setup);
  ~AloneTimingTable() override;

  std::span<const std::uint64_t> after_barrier_ns(const collectives::Plan& whole, const collectives::Plan& barrier) override;

  // Each member's end (ps from an aligned start at 0) with `plan` alone on the network.
  const std::vector<std::int64_t>& alone_ps(const collectives::Plan& plan);

  std::uint64_t collectives_timed() const { return timed_; }
  double seconds_timing() const { return seconds_; }

 private:
  struct Island;
  // The plan's island (nothing when its hosts are not joined by NVLink), and its key.
  std::optional<Island> island_of(const collectives::Plan& plan) const;
  static std::string plan_key(const collectives::Plan& plan, bool with_group);
  // LogGOPS: the plan over ranks 0..n-1 when its members share one node (or nodes are not
  // modelled), else nothing.
  std::optional<collectives::Plan> on_one_node(const collectives::Plan& plan) const;

  exec::Placement placement_;
  exec::NetworkSetup setup_;
  std::unique_ptr<pdes::Transport> local_;
  std::map<std::string, std::vector<std::int64_t>> alone_;  // per member, by plan key
  std::map<std::string, std::vector<std::uint64_t>> after_barrier_;
  std::uint64_t timed_ = 0;
  double seconds_ = 0;
};

}  // namespace collsim::reuse
