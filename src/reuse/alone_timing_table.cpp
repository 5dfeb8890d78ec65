#include "collsim/reuse/alone_timing_table.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>

#include "collsim/collectives/collective.hpp"
#include "collsim/collectives/generate.hpp"
#include "collsim/logging/logging.hpp"

namespace collsim::reuse {

AloneTimingTable::AloneTimingTable(const exec::NetworkSetup& setup) : setup_(setup), local_(pdes::make_local_transport()) {
  if (setup.backend == exec::Backend::LogGOPS) {
    setup_.loggops_monitor = nullptr;
    return;
  }
  if (setup.topology == nullptr || setup.placement == nullptr)
    throw std::invalid_argument("reusing collectives' timing on a fabric needs its topology and placement");
  placement_ = *setup.placement;
  setup_.placement = &placement_;
  // Alone: no progress, samples, end or load balance of the run it stands in for.
  setup_.options.monitor = nullptr;
  setup_.options.end_time = SimTime::infinity();
  setup_.options.sample_interval = SimTime::infinity();
  setup_.options.busy_hosts.clear();
}

AloneTimingTable::~AloneTimingTable() = default;

struct AloneTimingTable::Island {
  topo::Topology topology;
  exec::Placement placement;  // member i is rank i
  collectives::Plan plan;            // over ranks 0..n-1
  std::string shape;
};

namespace {

// Whole nanoseconds, as keys have always written latencies; a fraction of one is kept (in
// picoseconds) so that plans that differ by less than a nanosecond never share a key.
std::string key_ns(SimTime t) {
  const std::int64_t ps = t.picoseconds();
  std::string text = std::to_string(ps / 1000);
  if (ps % 1000 != 0) text += '+' + std::to_string(ps % 1000) + "ps";
  return text;
}

}  // namespace

// One table serves one run, whose plans share their system model: it is left out.
std::string AloneTimingTable::plan_key(const collectives::Plan& p, bool with_group) {
  std::ostringstream k;
  k << collectives::to_string(p.collective) << ' ' << p.algorithm << ' ' << p.n << ' ' << p.bytes << ' ' << p.root << ' '
    << p.channels << ' ' << p.chunk_bytes << ' ' << p.max_in_flight << ' ' << p.steps_per_network_message << ' '
    << collectives::to_string(p.protocol) << ' ' << p.reduce_bytes_per_ns << ' ' << key_ns(p.launch) << ' '
    << key_ns(p.step) << ' ' << key_ns(p.network_step) << ' ' << p.ranks_per_node << ' ' << p.nics << ' ' << p.nic_of_rank << ' '
    << p.channels_per_nic << ' ' << int{p.first_cpu} << ' ' << p.slices;
  for (const auto& nics : p.rank_nics) {
    k << " /";
    for (std::uint32_t nic : nics) k << ' ' << nic;
  }
  if (with_group) {
    k << " | " << p.num_ranks << ':';
    for (goal::RankId r : p.group) k << ' ' << r;
  }
  return k.str();
}

namespace {

// From `source`, each node's hop count and number of shortest paths (capped), over the links
// `usable` allows.
struct Reach {
  std::vector<std::uint32_t> hops;
  std::vector<std::uint64_t> paths;
};
template <typename Usable>
Reach shortest_paths(const topo::Topology& t, topo::NodeId source, Usable usable) {
  constexpr std::uint32_t kUnreached = 0xFFFFFFFFu;
  constexpr std::uint64_t kMany = 1ull << 40;
  Reach r{std::vector<std::uint32_t>(t.nodes().size(), kUnreached), std::vector<std::uint64_t>(t.nodes().size(), 0)};
  r.hops[source] = 0;
  r.paths[source] = 1;
  std::vector<topo::NodeId> frontier{source};
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    const topo::NodeId n = frontier[i];
    // Paths go through switches only: a host forwards nothing.
    if (n != source && t.node(n).kind == topo::NodeKind::Host) continue;
    for (const topo::Port& port : t.ports(n)) {
      if (!usable(t.link(port.link))) continue;
      if (r.hops[port.peer] == kUnreached) {
        r.hops[port.peer] = r.hops[n] + 1;
        frontier.push_back(port.peer);
      }
      if (r.hops[port.peer] == r.hops[n] + 1) r.paths[port.peer] = std::min(kMany, r.paths[port.peer] + r.paths[n]);
    }
  }
  return r;
}

}  // namespace

std::optional<AloneTimingTable::Island> AloneTimingTable::island_of(const collectives::Plan& plan) const {
  if (setup_.host.scale_up.enabled()) return std::nullopt;
  const topo::Topology& t = *setup_.topology;
  // The members' hosts first, in the group's order; then what NVLink reaches from the first.
  std::vector<topo::NodeId> order;
  std::map<topo::NodeId, std::uint32_t> local;
  std::vector<std::uint32_t> host_of;
  for (goal::RankId r : plan.group) {
    const topo::NodeId node = t.host(placement_.host_of.at(r));
    const auto [it, added] = local.emplace(node, static_cast<std::uint32_t>(order.size()));
    if (added) order.push_back(node);
    host_of.push_back(it->second);
  }
  const std::size_t members = order.size();
  std::vector<topo::NodeId> reached{order.front()};
  std::map<topo::NodeId, bool> seen{{order.front(), true}};
  for (std::size_t i = 0; i < reached.size(); ++i)
    for (const topo::Port& port : t.ports(reached[i]))
      if (t.link(port.link).medium == topo::LinkMedium::NvLink && seen.emplace(port.peer, true).second)
        reached.push_back(port.peer);
  for (std::size_t i = 1; i < members; ++i)
    if (!seen.contains(order[i])) return std::nullopt;
  // The island stands for the cluster only if every shortest path between members (what the
  // routing spreads messages over) stays on NVLink.
  for (std::size_t i = 0; i < members; ++i) {
    const Reach all = shortest_paths(t, order[i], [](const topo::Link&) { return true; });
    const Reach nvlink = shortest_paths(t, order[i], [](const topo::Link& l) { return l.medium == topo::LinkMedium::NvLink; });
    for (std::size_t j = 0; j < members; ++j)
      if (all.hops[order[j]] != nvlink.hops[order[j]] || all.paths[order[j]] != nvlink.paths[order[j]]) return std::nullopt;
  }
  for (topo::NodeId n : reached)
    if (!local.contains(n)) {
      local.emplace(n, static_cast<std::uint32_t>(order.size()));
      order.push_back(n);
    }
  Island island;
  std::ostringstream shape;
  shape << members << " members, ranks on";
  for (std::uint32_t h : host_of) shape << ' ' << h;
  shape << "; nodes";
  for (topo::NodeId n : order) {
    const topo::Node& node = t.node(n);
    island.topology.add_node(node.name, node.kind, node.params, 0);
    shape << ' ' << topo::to_string(node.kind);
    if (node.kind != topo::NodeKind::Host)
      shape << '(' << node.params.latency.picoseconds() << ',' << node.params.buffer_bytes << ','
            << node.params.shared_buffer << ')';
  }
  shape << "; links";
  for (const topo::Link& l : t.links()) {
    if (l.medium != topo::LinkMedium::NvLink || !local.contains(l.a) || !local.contains(l.b)) continue;
    const std::uint32_t a = local.at(l.a), b = local.at(l.b);
    island.topology.add_link(a, b, l.bandwidth, l.latency, l.medium);
    shape << ' ' << a << '-' << b << ':' << l.bandwidth.bps() << ',' << l.latency.picoseconds();
  }
  island.placement = exec::placement_from_hosts(std::move(host_of), island.topology.num_hosts());
  island.plan = plan;
  island.plan.num_ranks = plan.n;
  for (std::uint32_t i = 0; i < plan.n; ++i) island.plan.group[i] = i;
  island.shape = shape.str();
  return island;
}

std::optional<collectives::Plan> AloneTimingTable::on_one_node(const collectives::Plan& plan) const {
  const std::uint64_t per_node = setup_.loggops.ranks_per_node;
  if (per_node != 0) {
    if (plan.n > per_node) return std::nullopt;
    for (goal::RankId r : plan.group)
      if (r / per_node != plan.group.front() / per_node) return std::nullopt;
  }
  collectives::Plan renumbered = plan;
  renumbered.num_ranks = plan.n;
  for (std::uint32_t i = 0; i < plan.n; ++i) renumbered.group[i] = i;
  return renumbered;
}

const std::vector<std::int64_t>& AloneTimingTable::alone_ps(const collectives::Plan& plan) {
  const bool loggops = setup_.backend == exec::Backend::LogGOPS;
  std::optional<Island> island = loggops ? std::nullopt : island_of(plan);
  const std::optional<collectives::Plan> one_node = loggops ? on_one_node(plan) : std::nullopt;
  const std::string key = island     ? plan_key(plan, false) + " | " + island->shape
                          : one_node ? plan_key(plan, false) + " | one node"
                                     : plan_key(plan, true);
  if (auto it = alone_.find(key); it != alone_.end()) return it->second;
  const auto t0 = std::chrono::steady_clock::now();
  exec::NetworkSetup setup = setup_;
  if (island) {
    setup.topology = &island->topology;
    setup.placement = &island->placement;
  }
  const collectives::Plan& alone = island ? island->plan : one_node ? *one_node : plan;
  const exec::SimulationRun run = exec::simulate(collectives::generate(alone), setup, *local_);
  if (!run.result.complete)
    throw std::runtime_error("the " + std::string(collectives::to_string(plan.collective)) + " of " +
                             std::to_string(plan.bytes) + " bytes on " + std::to_string(plan.n) +
                             " ranks did not complete when simulated alone");
  std::vector<std::int64_t> ends;
  ends.reserve(alone.group.size());
  for (goal::RankId r : alone.group) ends.push_back(run.result.rank_finish.at(r).picoseconds());
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++timed_;
  logging::logger("reuse").debug("timed alone{}: {} ({} events)",
                                 island ? " on its NVLink island" : one_node ? " as ranks of one node" : "", key,
                                 run.result.events);
  return alone_.emplace(key, std::move(ends)).first->second;
}

std::span<const std::uint64_t> AloneTimingTable::after_barrier_ns(const collectives::Plan& whole, const collectives::Plan& barrier) {
  const std::string key = plan_key(whole, true);
  if (auto it = after_barrier_.find(key); it != after_barrier_.end()) return it->second;
  if (barrier.group != whole.group) throw std::invalid_argument("reuse: a barrier over another group than the collective's");
  const std::vector<std::int64_t>& full = alone_ps(whole);  // a map's entries stay put as it grows
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
