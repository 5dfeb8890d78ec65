#include "collsim/net/flow_domain.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collsim/net/host_device.hpp"
#include "collsim/net/link_sampler.hpp"
#include "collsim/net/port_chooser.hpp"
#include "collsim/net/sealed_islands.hpp"

namespace collsim::net {

SimTime FlowDomain::output_bound(const pdes::EventBody& event, SimTime at) const {
  if (ctx_.sealed && ctx_.sealed->domain[domain_]) return SimTime::infinity();
  return LogicalProcess::output_bound(event, at);
}
namespace {

std::uint64_t message_key(HostIndex src, FlowId id) { return (std::uint64_t{src} << 32) | id; }

// The wire latency of the direction of `link` leaving `from`: propagation, plus the latency of
// the switch it leads into (as OutputPort::Wire has it).
SimTime wire_latency(const topo::Topology& t, topo::LinkId link, topo::NodeId from) {
  const topo::Link& l = t.link(link);
  const topo::Node& peer = t.node(l.a == from ? l.b : l.a);
  return l.latency + (peer.kind == topo::NodeKind::Host ? SimTime::zero() : peer.params.latency);
}

std::vector<double> capacities(const FabricContext& ctx, std::uint32_t domain) {
  std::vector<double> c;
  for (topo::LinkId l = 0; l < ctx.topology.links().size(); ++l)
    if (ctx.domains->domain_of_link[l] == domain) {
      const double bps = static_cast<double>(ctx.topology.link(l).bandwidth.bps());
      c.push_back(bps);
      c.push_back(bps);
    }
  return c;
}

}  // namespace

FlowDomain::FlowDomain(const FabricContext& ctx, std::uint32_t domain)
    : ctx_(ctx), domain_(domain), rates_(capacities(ctx, domain)) {
  // In link order, both directions of each (as FlowDomains::index_in_domain counts them).
  for (topo::LinkId l = 0; l < ctx.topology.links().size(); ++l)
    if (ctx.domains->domain_of_link[l] == domain)
      for (std::uint64_t slot : {2ull * l, 2ull * l + 1}) {
        directions_.push_back({slot, 0, SimTime::zero(), SimTime::zero(), ctx.topology.link(l).bandwidth});
      }
}

std::uint32_t FlowDomain::direction_index(topo::LinkId link, topo::NodeId from) const {
  if (ctx_.domains->domain_of_link[link] != domain_)
    throw std::runtime_error("a flow-model message left its domain at '" + ctx_.topology.node(from).name +
                             "' (its path mixes flow and packet links)");
  return 2 * ctx_.domains->index_in_domain[link] + (ctx_.topology.link(link).a == from ? 0 : 1);
}

void FlowDomain::route(const FluidStart& s, std::vector<Hop>& hops) const {
  const topo::Topology& t = ctx_.topology;
  hops.clear();
  topo::NodeId node = t.host(s.src);
  std::uint16_t port = s.port;
  for (;;) {
    const topo::Port& p = t.ports(node)[port];
    const topo::Link& link = t.link(p.link);
    hops.push_back({direction_index(p.link, node), direction_index(p.link, p.peer), link.bandwidth,
                    wire_latency(t, p.link, node), wire_latency(t, p.link, p.peer)});
    node = p.peer;
    const topo::Node& here = t.node(node);
    if (here.kind == topo::NodeKind::Host) {
      if (here.index != s.dst)
        throw std::runtime_error("a flow-model message to host " + std::to_string(s.dst) + " reached host " +
                                 std::to_string(here.index));
      return;
    }
    if (hops.size() > t.nodes().size())
      throw std::runtime_error("a flow-model message to host " + std::to_string(s.dst) + " loops");
    port = ctx_.chooser.choose_for_flow(node, s.src, s.dst, s.entropy);
  }
}

void FlowDomain::time_it(Message& m, const std::vector<Hop>& hops) const {
  const FabricParams& fp = ctx_.params;
  const std::uint64_t mtu = fp.mtu_bytes;
  m.packets = static_cast<std::uint32_t>(m.bytes == 0 ? 1 : (m.bytes + mtu - 1) / mtu);
  m.full_wire = static_cast<std::uint32_t>(mtu + fp.header_bytes);
  m.last_wire = static_cast<std::uint32_t>(m.bytes - std::uint64_t{m.packets - 1} * mtu + fp.header_bytes);
  // Alone, packet by packet: packets 1..N-1 are alike, so packet n leaves hop h at
  // first(h) + (n - 1) × (the slowest serialisation up to h); the last one follows them.
  // first: packet 1 leaves hop h; before_last: packet N-1 does; last: packet N does.
  std::int64_t first = 0, slowest = 0, before_last = 0, last = 0;
  for (std::size_t h = 0; h < hops.size(); ++h) {
    const std::int64_t s = hops[h].bandwidth.serialization_ps(m.full_wire);
    const std::int64_t s_last = hops[h].bandwidth.serialization_ps(m.last_wire);
    const std::int64_t in = h == 0 ? 0 : hops[h - 1].latency.picoseconds();
    if (m.packets == 1) {
      last += in + s_last;
      continue;
    }
    first += in + s;
    slowest = std::max(slowest, s);
    before_last = first + std::int64_t{m.packets - 2} * slowest;
    last = (h == 0 ? before_last : std::max(before_last, last + in)) + s_last;
  }
  const std::int64_t to_receiver = hops.back().latency.picoseconds();
  const std::int64_t arrival = last + to_receiver;
  const std::int64_t first_arrival = (m.packets == 1 ? last : first) + to_receiver;
  double narrowest = 0;
  for (const Hop& h : hops)
    if (narrowest == 0 || static_cast<double>(h.bandwidth.bps()) < narrowest) narrowest = static_cast<double>(h.bandwidth.bps());
  const std::int64_t train = static_cast<std::int64_t>(train_ps(m, narrowest));
  const std::int64_t heard = hops.front().latency.picoseconds();  // when the domain hears of it
  m.deliver_after_ps = arrival - heard - train;
  m.min_deliver_after_ps = to_receiver;
  m.first_after_ps = first_arrival - heard;
  std::int64_t back = 0;
  for (const Hop& h : hops) back += h.bandwidth.serialization_ps(fp.ack_bytes) + h.back.picoseconds();
  m.ack_after_ps = m.deliver_after_ps + back;
}

double FlowDomain::train_ps(const Message& m, double rate) const {
  // At a link's own rate, packet by packet as the link serialises them.
  if (rate == std::floor(rate) && rate < 9.2e18) {
    const Bandwidth bw = Bandwidth::bits_per_second(static_cast<std::int64_t>(rate));
    return static_cast<double>(std::int64_t{m.packets - 1} * bw.serialization_ps(m.full_wire) +
                               bw.serialization_ps(m.last_wire));
  }
  return (m.packets - 1) * std::ceil(m.full_wire * 8e12 / rate) + std::ceil(m.last_wire * 8e12 / rate);
}

void FlowDomain::on_start(const FluidStart& s) {
  Ref r;
  if (!free_.empty()) {
    r = free_.back();
    free_.pop_back();
  } else {
    r = static_cast<Ref>(messages_.size());
    messages_.emplace_back();
  }
  Message& m = messages_[r];
  // A slot's version goes on counting across the messages that use it: a completion queued
  // for the message before must not match this one. Its path keeps its room.
  const std::uint32_t version = m.version;
  std::vector<std::uint32_t> path = std::move(m.path);
  m = Message{};
  m.version = version + 1;
  m.path = std::move(path);
  m.src = s.src;
  m.dst = s.dst;
  m.id = s.flow;
  m.header = s.header;
  m.bytes = s.bytes;
  route(s, hops_);
  m.path.clear();
  for (const Hop& h : hops_) m.path.push_back(h.link);
  m.ack_link = hops_.back().reverse;
  time_it(m, hops_);
  // Its first packet would wait for an ACK its sender is putting on the wire.
  const LinkDirection& out = directions_[m.path.front()];
  if (out.ack_from <= s.start && s.start < out.ack_until) {
    const std::int64_t wait = (out.ack_until - s.start).picoseconds();
    m.deliver_after_ps += wait;
    m.ack_after_ps += wait;
    m.first_after_ps += wait;
  }
  crossing_.set(message_key(s.src, s.flow), r);
  if (s.after != kNoFlow) {
    if (const Ref* before = crossing_.find(message_key(s.src, s.after))) {
      messages_[*before].behind = r;
      return;
    }
  }
  begin(r);
  // Messages that start together (a collective's) are rated together, once.
  if (!settle_pending_) {
    settle_pending_ = true;
    schedule<&FlowDomain::on_settle>(id(), SimTime::zero());
  }
}

void FlowDomain::on_settle() {
  settle_pending_ = false;
  rerate();
  arm();
}

void FlowDomain::begin(Ref r) {
  Message& m = messages_[r];
  m.running = true;
  m.started = now();
  m.since = now();
  m.left = 1;
  m.rate = 0;
  m.fluid = rates_.add(m.path);
  if (of_fluid_.size() <= m.fluid) of_fluid_.resize(m.fluid + 1, kNone);
  of_fluid_[m.fluid] = r;
}

// Brings every message whose share changed up to date and queues its new end.
void FlowDomain::rerate() {
  ++stats_.solves;
  rates_.solve([&](MaxMinRates::FlowIndex f) {
    Message& m = messages_[of_fluid_[f]];
    if (m.rate > 0) m.left = std::max(0.0, m.left - static_cast<double>((now() - m.since).picoseconds()) / train_ps(m, m.rate));
    m.since = now();
    m.rate = rates_.rate(f);
    const double left_ps = m.left * train_ps(m, m.rate);
    m.done_at = now() + SimTime::ps(static_cast<std::int64_t>(std::ceil(left_ps)));
    ++m.version;
    ++stats_.rate_changes;
    due_.emplace(m.done_at.picoseconds(), m.src, m.id, of_fluid_[f], m.version);
  });
}

void FlowDomain::arm() {
  while (!due_.empty()) {
    const auto& [at, src, id, r, version] = due_.top();
    if (messages_[r].version == version && messages_[r].running) break;
    due_.pop();  // stale
  }
  if (due_.empty()) return;
  const SimTime at = SimTime::ps(std::get<0>(due_.top()));
  if (at >= wakeup_ && wakeup_ >= now()) return;  // an earlier wakeup is coming
  wakeup_ = at;
  schedule<&FlowDomain::on_wakeup>(id(), at - now());
}

void FlowDomain::on_wakeup() {
  if (wakeup_ == now()) wakeup_ = SimTime::infinity();
  ending_.clear();
  while (!due_.empty()) {
    const auto [at, src, id, r, version] = due_.top();
    if (messages_[r].version != version || !messages_[r].running) {
      due_.pop();
      continue;
    }
    if (at > now().picoseconds()) break;
    due_.pop();
    ending_.push_back(r);
  }
  if (ending_.empty()) return arm();
  stagger();
  for (Ref r : ending_) end(r);
  rerate();
  arm();
}

// Messages that shared their sender's link from one instant on end together as a fluid; as
// packets taking turns they end one packet apart, in the order they took their first turns
// (the order they started): each ends that many packets before the last. This is what lets
// the channels of a collective drift apart as they do over packets, rather than run in step.
void FlowDomain::stagger() {
  std::stable_sort(ending_.begin(), ending_.end(), [&](Ref a, Ref b) {
    return std::tie(messages_[a].path.front(), messages_[a].src, messages_[a].id) <
           std::tie(messages_[b].path.front(), messages_[b].src, messages_[b].id);
  });
  for (std::size_t first = 0; first < ending_.size();) {
    std::size_t last = first + 1;
    while (last < ending_.size() && messages_[ending_[last]].path.front() == messages_[ending_[first]].path.front()) ++last;
    const std::size_t k = last - first;
    for (std::size_t j = 0; j + 1 < k; ++j) {
      Message& m = messages_[ending_[first + j]];
      const std::int64_t turn = directions_[m.path.front()].bandwidth.serialization_ps(m.full_wire);
      const std::int64_t ahead = std::min<std::int64_t>(static_cast<std::int64_t>(k - 1 - j) * turn,
                                                        m.deliver_after_ps - m.min_deliver_after_ps);
      m.deliver_after_ps -= ahead;
      m.ack_after_ps -= ahead;
    }
    first = last;
  }
}

// Its train has crossed: the receiver and the sender hear of it, and the next message of its
// queue pair starts.
void FlowDomain::end(Ref r) {
  Message& m = messages_[r];
  m.running = false;
  rates_.remove(m.fluid);
  of_fluid_[m.fluid] = kNone;
  const std::uint64_t wire = std::uint64_t{m.packets - 1} * m.full_wire + m.last_wire;
  for (std::uint32_t link : m.path) directions_[link].bytes += wire;
  ++stats_.messages;
  LinkDirection& ack = directions_[m.ack_link];
  const SimTime acked_at = now() + SimTime::ps(m.deliver_after_ps);
  ack.ack_from = std::max(ack.ack_until, acked_at);
  ack.ack_until = ack.ack_from + SimTime::ps(ack.bandwidth.serialization_ps(ctx_.params.ack_bytes));
  const topo::Topology& t = ctx_.topology;
  schedule<&Host::on_fluid_delivered>(t.host(m.dst), SimTime::ps(m.deliver_after_ps),
                                      FluidDelivered{m.started + SimTime::ps(m.first_after_ps), m.bytes, m.header,
                                                     m.src, m.id});
  schedule<&Host::on_fluid_acked>(t.host(m.src), SimTime::ps(m.ack_after_ps), FluidAcked{m.id});
  crossing_.erase(message_key(m.src, m.id));
  const Ref next = m.behind;
  m.path.clear();
  free_.push_back(r);
  if (next != kNone) begin(next);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> FlowDomain::link_bytes() const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const LinkDirection& d : directions_) out.emplace_back(d.slot, d.bytes);
  return out;
}

}  // namespace collsim::net
