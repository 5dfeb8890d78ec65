#include "validation_simulator.hpp"

#include <string>

namespace collsim::cli {

std::optional<validation::SimulatedSchedule> PacketValidationSimulator::simulate(
    const topo::Topology& topology, const goal::Schedule& schedule, const validation::FabricSettings& fabric) {
  SimulationCliOptions o = base_;
  o.network = "packet";
  const auto set = [&](const char* name, std::uint64_t value) {
    o.fabric.set.push_back(std::string(name) + "=" + std::to_string(value));
  };
  set("mtu_bytes", fabric.mtu_bytes);
  set("header_bytes", fabric.header_bytes);
  set("pfc_xoff_bytes", fabric.pfc_xoff_bytes);
  set("pfc_xon_bytes", fabric.pfc_xon_bytes);
  set("ecn_kmin_bytes", fabric.ecn_kmin_bytes);
  set("ecn_kmax_bytes", fabric.ecn_kmax_bytes);
  // Each message keeps to its NIC's rail, as NCCL's connections do, unless --routing says.
  if (o.fabric.routing.empty()) o.fabric.routing = "rail";
  // NCCL's buffers are posted ahead: every message is eager.
  o.host_set.push_back("S=" + std::to_string(std::uint64_t{1} << 40));
  const std::optional<exec::SimulationRun> run = simulate_schedule(o, topology, schedule, parallel_);
  if (!run) return std::nullopt;
  validation::SimulatedSchedule out;
  out.complete = run->result.complete;
  out.makespan = run->result.makespan;
  out.events = run->stats.events;
  out.ops_completed = run->result.ops_completed;
  out.ops_total = run->result.ops_total;
  if (!out.complete) {
    std::string& why = out.why_incomplete;
    if (!run->result.pfc_deadlock.empty()) why += "; PFC deadlock: " + run->result.pfc_deadlock;
    if (run->totals.drops_despite_pfc > 0) why += "; " + drops_despite_pfc(run->totals.drops_despite_pfc);
    const auto first_of = [&](const std::vector<std::string>& lines, const char* what) {
      if (!lines.empty()) why += std::string("; ") + what + ": " + lines.front();
    };
    first_of(run->result.blocked, "first op that never finished");
    first_of(run->result.unmatched, "first message nobody received");
  }
  return out;
}

}  // namespace collsim::cli
