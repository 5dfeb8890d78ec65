#include "collsim/reuse/alone_timing_table.hpp"

#include <chrono>
#include <sstream>
#include <stdexcept>

#include "collsim/collectives/collective.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/log/log.hpp"

namespace collsim::reuse {

AloneTimingTable::AloneTimingTable(const exec::NetworkSetup& setup) : setup_(setup), local_(pdes::make_local_transport()) {
  if (setup.backend != exec::Backend::Fabric || setup.topology == nullptr || setup.placement == nullptr)
    throw std::invalid_argument("reusing collectives' timing needs a fabric network model (packet, flow or a mix)");
  placement_ = *setup.placement;
  setup_.placement = &placement_;
  // Alone: no progress, samples, end or load balance of the run it stands in for.
  setup_.options.monitor = nullptr;
  setup_.options.end_time = pdes::SimTime::infinity();
  setup_.options.sample_interval = pdes::SimTime::infinity();
  setup_.options.busy_hosts.clear();
}

AloneTimingTable::~AloneTimingTable() = default;

// One table serves one run, whose plans share their system model: it is left out.
std::string AloneTimingTable::key_of(const coll::Plan& p) {
  std::ostringstream k;
  k << coll::to_string(p.collective) << ' ' << p.algorithm << ' ' << p.num_ranks << ' ' << p.bytes << ' ' << p.root
    << ' ' << p.channels << ' ' << p.chunk_bytes << ' ' << p.max_in_flight << ' ' << p.steps_per_network_message
    << ' ' << coll::to_string(p.protocol) << ' ' << p.reduce_bytes_per_ns << ' ' << p.launch_ns << ' ' << p.step_ns
    << ' ' << p.network_step_ns << ' ' << p.ranks_per_node << ' ' << p.nics << ' ' << p.nic_of_rank << ' '
    << p.channels_per_nic << ' ' << int{p.first_cpu} << ' ' << p.slices << " |";
  for (goal::RankId r : p.group) k << ' ' << r;
  return k.str();
}

const std::vector<std::int64_t>& AloneTimingTable::alone_ps(const coll::Plan& plan) {
  const std::string key = key_of(plan);
  if (auto it = alone_.find(key); it != alone_.end()) return it->second;
  const auto t0 = std::chrono::steady_clock::now();
  const goal::Schedule schedule = coll::generate(plan);
  const exec::SimulationRun run = exec::simulate(schedule, setup_, *local_);
  if (!run.result.complete)
    throw std::runtime_error("the " + std::string(coll::to_string(plan.collective)) + " of " +
                             std::to_string(plan.bytes) + " bytes on " + std::to_string(plan.n) +
                             " ranks did not complete when simulated alone");
  std::vector<std::int64_t> ends;
  ends.reserve(plan.group.size());
  for (goal::RankId r : plan.group) ends.push_back(run.result.rank_finish_ps.at(r));
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++timed_;
  logging::logger("reuse").debug("timed alone: {} ({} events)", key, run.result.events);
  return alone_.emplace(key, std::move(ends)).first->second;
}

std::span<const std::uint64_t> AloneTimingTable::after_barrier_ns(const coll::Plan& whole, const coll::Plan& barrier) {
  const std::string key = key_of(whole);
  if (auto it = after_barrier_.find(key); it != after_barrier_.end()) return it->second;
  if (barrier.group != whole.group) throw std::invalid_argument("reuse: a barrier over another group than the collective's");
  const std::vector<std::int64_t> full = alone_ps(whole);  // a copy: the next call may grow the map
  const std::vector<std::int64_t>& met = alone_ps(barrier);
  std::vector<std::uint64_t> after;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i] < met[i]) {
      after.clear();
      break;
    }
    after.push_back(static_cast<std::uint64_t>((full[i] - met[i] + 500) / 1000));  // ps to the nearest ns
  }
  return after_barrier_.emplace(key, std::move(after)).first->second;
}

}  // namespace collsim::reuse
