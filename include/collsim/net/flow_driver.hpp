#pragma once
// Exercises the fabric alone: a list of flows (src, dst, bytes, start) from a CSV file or a
// traffic pattern, each started at its time by an application on its source host; reports
// per-flow completion times (FCT: from its start to the arrival of its last byte).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collsim/net/fabric.hpp"

namespace collsim::net {

struct FlowSpec {
  HostIndex src = 0;
  HostIndex dst = 0;
  std::uint64_t bytes = 0;
  SimTime start;
  std::uint32_t nic = Host::kAnyNic;  // the NIC (and under rail routing, the rail) to send through
};

enum class FlowPattern { Permutation, Incast, AllToAll, Random };
std::optional<FlowPattern> flow_pattern_from_name(std::string_view name);

// permutation: every host sends to a distinct other host (a random derangement);
// incast: `fan_in` hosts (1..fan_in) send to host 0; alltoall: every ordered pair;
// random: every host sends to a uniformly random other host. All start at time 0.
std::vector<FlowSpec> make_flow_pattern(FlowPattern pattern, std::uint32_t hosts, std::uint64_t bytes,
                                        std::uint64_t seed, std::uint32_t fan_in);

// "src,dst,bytes,start" per line (a header line of those words is allowed, '#' starts a
// comment); bytes may carry a unit ("2MiB"), start is a duration ("0", "10us"). Throws
// collsim::InputError naming the file, line and column.
std::vector<FlowSpec> read_flow_csv(const std::string& path, std::uint32_t hosts);
std::vector<FlowSpec> parse_flow_csv(const std::string& text, const std::string& file_name, std::uint32_t hosts);

struct FlowOutcome {
  FlowSpec spec;
  SimTime delivered = SimTime::infinity();  // last byte at the receiver
  SimTime acked = SimTime::infinity();      // last byte acknowledged at the sender
  std::uint64_t retransmits = 0;
  SimTime fct() const { return delivered.is_infinite() ? delivered : delivered - spec.start; }
};

struct FlowRun {
  std::vector<FlowOutcome> flows;  // on rank 0, in input order
  pdes::RunStats stats;
  FabricTotals totals;
  std::vector<std::uint64_t> link_bytes;  // on rank 0: see Fabric::link_bytes()
  LinkSamples link_samples;               // on rank 0, when FabricOptions::sample_interval is set
  std::string pfc_deadlock;               // on rank 0: see Fabric::pfc_deadlock()
  std::vector<FlowEnd> given_up;          // on rank 0: see Fabric::given_up()
};

// Collective over the transport's ranks.
FlowRun run_flows(const topo::Topology& topology, const FabricParams& params, pdes::Transport& transport,
                  const FabricOptions& options, const std::vector<FlowSpec>& flows);

}  // namespace collsim::net
