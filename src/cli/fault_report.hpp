#pragma once
// What the failures of --link-down and --switch-down did to a run: what was lost and resent,
// the messages given up because their destination was cut off, and the cost to the run
// against the same run without them.

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/net/fabric.hpp"
#include "collsim/topo/topology.hpp"
#include "fabric_options.hpp"

namespace collsim::cli {

// {"faults": {...}}: the failures, what was lost and resent, the messages given up.
nlohmann::json fault_json(const FabricCliOptions& o, const topo::Topology& t, const net::FabricTotals& totals,
                          const std::vector<net::FlowEnd>& given_up);
// The same run without the failures took `without`: its makespan and the slowdown (none
// when the run with them did not complete).
nlohmann::json fault_cost_json(std::optional<SimTime> with, SimTime without);
// The "faults" lines of the human summary.
std::string fault_lines(const FabricCliOptions& o, const topo::Topology& t, const net::FabricTotals& totals);
// "without the faults ..." and what the failures cost.
std::string fault_cost_line(SimTime with, SimTime without);
// For a run that did not complete: the pairs of hosts that could not reach each other.
void report_given_up(std::ostream& out, const std::vector<net::FlowEnd>& given_up);

}  // namespace collsim::cli
