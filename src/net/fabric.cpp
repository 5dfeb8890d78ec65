#include "collsim/net/fabric.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "collsim/logging/logging.hpp"

namespace collsim::net {

pdes::LpGraph lp_graph_of(const topo::Topology& t, const std::vector<bool>& busy_hosts, const FlowDomains* domains,
                          const std::vector<std::uint32_t>& busy_together) {
  pdes::LpGraph g;
  g.num_lps = static_cast<std::uint32_t>(t.nodes().size());
  g.weight.resize(g.num_lps);
  if (!busy_together.empty()) {
    g.busy_together.assign(g.num_lps, 0);
    for (topo::NodeId n = 0; n < g.num_lps; ++n) {
      const topo::Node& node = t.node(n);
      if (node.kind == topo::NodeKind::Host && node.index < busy_together.size()) g.busy_together[n] = busy_together[node.index];
    }
  }
  auto busy = [&](topo::NodeId n) {
    const topo::Node& node = t.node(n);
    return node.kind == topo::NodeKind::Host && (node.index >= busy_hosts.size() || busy_hosts[node.index]);
  };
  const bool all_busy = std::find(busy_hosts.begin(), busy_hosts.end(), false) == busy_hosts.end();
  for (topo::NodeId n = 0; n < g.num_lps; ++n) {
    std::size_t load = t.ports(n).size();  // load grows with the packets a device handles
    if (!all_busy) {
      // Part of a cluster: only busy hosts and the switch ports that face them count (×1024,
      // as an idle device still weighs 1), so that the busy part is what gets split, and the
      // idle hundreds of a large cluster weigh less than one busy server.
      std::size_t facing = 0;
      if (t.node(n).kind != topo::NodeKind::Host) {
        for (const topo::Port& p : t.ports(n)) facing += busy(p.peer) ? 1 : 0;
      } else if (busy(n)) {
        facing = load;
      }
      load = 1024 * facing;
    }
    g.weight[n] = static_cast<std::uint32_t>(std::max<std::size_t>(1, load));
  }
  for (const topo::Link& l : t.links()) g.edges.push_back({l.a, l.b, l.latency});
  if (domains)
    for (topo::LinkId id = 0; id < t.links().size(); ++id) {
      const std::uint32_t d = domains->domain_of_link[id];
      if (d == kNoDomain) continue;
      const topo::Link& l = t.link(id);
      for (topo::NodeId end : {l.a, l.b})
        if (t.node(end).kind == topo::NodeKind::Host && end != domains->home[d])
          g.edges.push_back({end, domains->home[d], l.latency});
    }
  return g;
}

Fabric::Fabric(const topo::Topology& topology, const FabricParams& params, pdes::Transport& transport,
               const FabricOptions& options, const HostAppFactory& make_app)
    : topology_(topology), params_(params), transport_(transport) {
  validate(params_);
  // A switch whose buffer (or a port's share of it) cannot hold one full packet drops every
  // one: lossless runs end with drops PFC cannot prevent, lossy ones resend for ever. A train
  // is one unit in a buffer.
  const std::uint64_t packet = std::uint64_t{max_train_packets(params_)} * (params_.mtu_bytes + params_.header_bytes);
  for (topo::NodeId id = 0; id < topology.nodes().size(); ++id) {
    const topo::Node& node = topology.node(id);
    if (node.kind == topo::NodeKind::Host || topology.ports(id).empty()) continue;
    const std::uint64_t room = node.params.shared_buffer ? node.params.buffer_bytes
                                                         : node.params.buffer_bytes / topology.ports(id).size();
    if (room < packet)
      throw std::invalid_argument("switch '" + node.name + "': a buffer of " + std::to_string(node.params.buffer_bytes) +
                                  " bytes" + (node.params.shared_buffer ? "" : " over " + std::to_string(topology.ports(id).size()) + " ports") +
                                  " cannot hold one packet of " + std::to_string(packet) + " bytes (mtu_bytes + header_bytes" +
                                  (params_.train_bytes ? ", times the packets of a train of train_bytes" : "") + ")");
  }
  if (!options.busy_hosts.empty() && options.busy_hosts.size() != topology.num_hosts())
    throw std::invalid_argument("busy_hosts names " + std::to_string(options.busy_hosts.size()) + " hosts, the topology has " +
                                std::to_string(topology.num_hosts()));
  domains_ = flow_domains(topology, options.fidelity);
  if (!domains_.empty() && options.fidelity.network == LinkModel::Flow &&
      (params_.routing == RoutingMode::Spray || params_.routing == RoutingMode::Adaptive ||
       params_.routing == RoutingMode::Valiant || params_.routing == RoutingMode::Ugal))
    throw std::invalid_argument("routing " + std::string(to_string(params_.routing)) +
                                " chooses per packet or by queue, which the flow model has neither of: give the "
                                "network links packets (network=packet), or route them by ecmp, minimal or rail");
  if (!options.busy_together.empty() && options.busy_together.size() != topology.num_hosts())
    throw std::invalid_argument("busy_together names " + std::to_string(options.busy_together.size()) +
                                " hosts, the topology has " + std::to_string(topology.num_hosts()));
  const pdes::LpGraph graph = lp_graph_of(topology, options.busy_hosts, &domains_, options.busy_together);
  const pdes::Partition partition = pdes::make_partition(graph, transport.size(), options.partition, params_.seed);
  if (transport.size() > 1) sealed_ = sealed_islands(topology, domains_, partition);
  std::vector<bool> owned(graph.num_lps);
  for (topo::NodeId n = 0; n < graph.num_lps; ++n) owned[n] = partition.owner[n] == transport.rank();
  // A domain routes its messages at every switch of it.
  std::vector<bool> routed = owned;
  for (topo::LinkId id = 0; id < topology.links().size(); ++id) {
    const std::uint32_t d = domains_.domain_of_link[id];
    if (d == kNoDomain || !owned[domains_.home[d]]) continue;
    routed[topology.link(id).a] = true;
    routed[topology.link(id).b] = true;
  }
  faults_ = FaultSchedule(options.link_faults, options.reconvergence, topology.links().size());
  for (const LinkFault& f : faults_.faults())
    for (const topo::LinkId l : f.links)
      if (domains_.domain_of_link[l] != kNoDomain)
        throw std::invalid_argument(f.what + " runs as flows, which cannot fail (see --fidelity): give its links packets");
  // One routing epoch without faults; with them, who reaches whom in each (a run that
  // cannot fail asks nobody).
  for (const RoutingEpoch& e : faults_.epochs()) {
    const std::vector<bool>* down = faults_.empty() ? nullptr : &e.link_down;
    tables_.push_back(std::make_unique<RoutingTable>(topology, routed, down));
    choosers_.push_back(std::make_unique<PortChooser>(topology, params_, *tables_.back()));
    if (faults_.empty()) break;
    reach_.push_back(std::make_unique<Reachability>(topology, e.link_down));
    routes_.push_back({tables_.back().get(), choosers_.back().get(), reach_.back().get()});
  }
  link_changes_ = options.link_changes;
  for (const LinkChange& c : link_changes_) {
    if (c.link >= topology.links().size()) throw std::invalid_argument("a link change names link " + std::to_string(c.link) + ", which the topology lacks");
    if (domains_.domain_of_link[c.link] != kNoDomain) {
      const topo::Link& l = topology.link(c.link);
      throw std::invalid_argument("the link " + topology.node(l.a).name + ":" + topology.node(l.b).name +
                                  " runs as flows: its speed can change only as packets (see --fidelity)");
    }
  }
  context_ = std::make_unique<FabricContext>(FabricContext{topology, params_, *tables_.front(), *choosers_.front(), &domains_,
                                                          link_changes_.empty() ? nullptr : &link_changes_,
                                                          faults_.empty() ? nullptr : &faults_,
                                                          faults_.empty() ? nullptr : &routes_,
                                                          transport.size() > 1 ? &sealed_ : nullptr});
  pdes::EngineOptions engine_options{params_.seed, options.end_time, options.queue};
  engine_options.monitor = options.monitor;
  if (!options.sample_interval.is_infinite()) {
    sampler_ = std::make_unique<LinkSampler>(topology, options.sample_interval, options.max_samples);
    engine_options.sampler = sampler_.get();
    engine_options.first_sample = options.sample_interval;
  }
  monitor_ = options.monitor;
  if (monitor_) monitor_->set_link_meter([this] { return link_bytes(); });
  engine_ = std::make_unique<pdes::Engine>(graph, partition, transport, engine_options);
  for (pdes::LpId id : engine_->local_lps()) {
    const topo::Node& node = topology.node(id);
    const auto home = std::find(domains_.home.begin(), domains_.home.end(), id);
    if (node.kind == topo::NodeKind::Host) {
      hosts_.push_back(&engine_->emplace<Host>(id, *context_, id, make_app ? make_app(node.index) : nullptr));
    } else if (home != domains_.home.end()) {
      const auto domain = static_cast<std::uint32_t>(home - domains_.home.begin());
      flow_domains_.push_back(&engine_->emplace<FlowDomain>(id, *context_, domain));
    } else {
      switches_.push_back(&engine_->emplace<Switch>(id, *context_, id));
    }
  }
  if (sampler_) {
    for (const Host* h : hosts_) sampler_->add(*h);
    for (const Switch* s : switches_) sampler_->add(*s);
  }
  logging::logger("net").debug("fabric on '{}' built: {} host(s) and {} switch(es) on this rank, {} in all",
                               topology.name(), hosts_.size(), switches_.size(), graph.num_lps);
}

Fabric::~Fabric() {
  // The meter reads this fabric's ports.
  if (monitor_) monitor_->set_link_meter({});
}

pdes::RunStats Fabric::run() { return engine_->run(); }

FabricTotals Fabric::totals() {
  FabricTotals t;
  for (const Host* h : hosts_) {
    const HostStats& s = h->stats();
    t.flows_started += s.flows_started;
    t.flows_delivered += s.flows_delivered;
    t.flows_acked += s.flows_acked;
    t.bytes_delivered += s.bytes_delivered;
    t.data_packets += s.data_packets;
    t.packets_in_trains += s.packets_in_trains;
    t.retransmits += s.retransmits;
    t.flows_resent += s.flows_resent;
    t.timeouts += s.timeouts;
    t.acks += s.acks;
    t.nacks += s.nacks;
    t.cnps += s.cnps;
    t.flows_given_up += s.flows_given_up;
  }
  const auto add_lost = [&t](const Device& d) {
    for (const OutputPort& o : d.ports()) t.packets_lost += o.stats().lost;
  };
  for (const Host* h : hosts_) add_lost(*h);
  for (const Switch* sw : switches_) {
    const SwitchStats& s = sw->stats();
    t.packets_forwarded += s.packets;
    t.drops += s.drops;
    t.drops_despite_pfc += s.drops_despite_pfc;
    t.ecn_marks += s.ecn_marks;
    t.pfc_pauses += s.pauses_sent;
    t.max_switch_buffer_bytes = std::max(t.max_switch_buffer_bytes, s.max_buffered_bytes);
    t.packets_lost += s.unroutable;
    add_lost(*sw);
  }
  for (const FlowDomain* d : flow_domains_) {
    t.flow_messages += d->stats().messages;
    t.flow_rate_changes += d->stats().rate_changes;
  }
  std::uint64_t* counts[] = {&t.flows_started, &t.flows_delivered, &t.flows_acked, &t.bytes_delivered,
                             &t.data_packets,  &t.retransmits,     &t.timeouts,     &t.acks,
                             &t.nacks,         &t.cnps,            &t.packets_forwarded, &t.drops,
                             &t.drops_despite_pfc, &t.ecn_marks,   &t.pfc_pauses, &t.flow_messages,
                             &t.flow_rate_changes, &t.packets_in_trains, &t.packets_lost, &t.flows_given_up, &t.flows_resent};
  std::vector<std::uint64_t> sums;
  for (const std::uint64_t* c : counts) sums.push_back(*c);
  transport_.sum_integers(std::span(sums));
  for (std::size_t i = 0; i < sums.size(); ++i) *counts[i] = sums[i];
  std::int64_t largest[] = {static_cast<std::int64_t>(t.max_switch_buffer_bytes)};
  transport_.max_integers(std::span(largest));
  t.max_switch_buffer_bytes = static_cast<std::uint64_t>(largest[0]);
  return t;
}

std::string Fabric::pfc_deadlock() {
  // Edges between output ports, named (node, port): the upstream port feeding a blocked
  // ingress waits for each paused output port holding that ingress's packets.
  struct Edge {
    std::uint32_t from_node, from_port, to_node, to_port;
  };
  std::vector<Edge> mine;
  for (const Switch* sw : switches_) {
    const auto& ports = topology_.ports(sw->node());
    for (const auto& [in, out] : sw->blocked_ingress())
      mine.push_back({ports[in].peer, ports[in].peer_port, sw->node(), out});
  }
  const std::vector<Edge> edges = pdes::gather_values(transport_, mine);
  if (transport_.rank() != 0) return {};
  // Depth-first search for a cycle over (node, port) vertices.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::pair<std::uint32_t, std::uint32_t>>> next;
  for (const Edge& e : edges) next[{e.from_node, e.from_port}].push_back({e.to_node, e.to_port});
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> state;  // 1 on the path, 2 done
  std::vector<std::pair<std::uint32_t, std::uint32_t>> path;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cycle;
  std::function<bool(std::pair<std::uint32_t, std::uint32_t>)> visit = [&](auto v) {
    state[v] = 1;
    path.push_back(v);
    for (const auto& w : next[v]) {
      if (state[w] == 1) {
        cycle.assign(std::find(path.begin(), path.end(), w), path.end());
        return true;
      }
      if (state[w] == 0 && visit(w)) return true;
    }
    state[v] = 2;
    path.pop_back();
    return false;
  };
  for (const auto& [v, unused] : next)
    if (state[v] == 0 && visit(v)) break;
  if (cycle.empty()) return {};
  std::string text;
  for (const auto& [node, port] : cycle) text += topology_.node(node).name + " port " + std::to_string(port) + " -> ";
  text += topology_.node(cycle.front().first).name + " port " + std::to_string(cycle.front().second);
  // No log line here: the caller reports it once, with the run that stalled on it.
  return text;
}

std::vector<FlowEnd> Fabric::given_up() {
  std::vector<FlowEnd> mine;
  for (const Host* h : hosts_) mine.insert(mine.end(), h->given_up().begin(), h->given_up().end());
  std::vector<FlowEnd> all = pdes::gather_values(transport_, mine);
  std::sort(all.begin(), all.end(), [](const FlowEnd& a, const FlowEnd& b) {
    return a.src != b.src ? a.src < b.src : a.flow < b.flow;
  });
  return all;
}

LinkSamples Fabric::link_samples() {
  if (!sampler_) return {};
  return sampler_->gather(transport_);
}

std::vector<std::uint64_t> Fabric::link_bytes() {
  struct Entry {
    std::uint64_t slot;
    std::uint64_t bytes;
  };
  std::vector<Entry> mine;
  auto add = [&](const Device& d) {
    const auto& ports = topology_.ports(d.node());
    for (std::size_t i = 0; i < ports.size(); ++i)
      mine.push_back({direction_slot(topology_, ports[i].link, d.node()), d.ports()[i].stats().bytes});
  };
  for (const Host* h : hosts_) add(*h);
  for (const Switch* s : switches_) add(*s);
  for (const FlowDomain* d : flow_domains_)
    for (const auto& [slot, bytes] : d->link_bytes()) mine.push_back({slot, bytes});
  const std::vector<Entry> all = pdes::gather_values(transport_, mine);
  std::vector<std::uint64_t> out;
  if (transport_.rank() != 0) return out;
  out.assign(2 * topology_.links().size(), 0);
  for (const Entry& e : all) out[e.slot] += e.bytes;
  return out;
}

}  // namespace collsim::net
