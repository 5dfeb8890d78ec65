#include "collsim/net/host_device.hpp"

#include <algorithm>
#include <stdexcept>

#include "collsim/net/fidelity.hpp"
#include "collsim/net/sealed_islands.hpp"

namespace collsim::net {

namespace {
constexpr std::uint8_t kRtoTimer = 0;
constexpr std::uint8_t kCcTimer = 1;
constexpr std::uint8_t kControlPriority = 0;
std::uint64_t receiver_key(HostIndex src, FlowId flow) { return (std::uint64_t{src} << 32) | flow; }
}  // namespace

Host::Host(const FabricContext& ctx, topo::NodeId node, std::unique_ptr<HostApp> app)
    : Device(ctx, node),
      index_(ctx.topology.node(node).index),
      app_(std::move(app)),
      one_wire_in_(ctx.params.routing == RoutingMode::Ecmp || ctx.params.routing == RoutingMode::Minimal ||
                   ctx.params.routing == RoutingMode::DimensionOrder || ctx.topology.ports(node).size() == 1),
      train_packets_(max_train_packets(ctx.params)),
      tail_packets_(ctx.params.trains_through_queues ? 1 : std::min(train_packets_, kTrainTailPackets)),
      lossless_transport_(ctx.params.lossless && !ctx.faults),
      rto_(ctx.params.lossless ? ctx.params.rto_lossless : ctx.params.rto) {
  nic_.resize(ports_.size());
}

Host::~Host() = default;

void Host::start() {
  find_sealed_ports();
  plan_link_changes<&Host::on_port_speed>();
  plan_faults<&Host::on_link_state, &Host::on_routes>(*this);
  if (app_) app_->start(*this);
}

bool Host::routes_sealed(HostIndex dst) const {
  const auto candidates = routing().next_ports(node_, dst);
  if (candidates.empty()) return false;
  for (const topo::PortIndex c : candidates)
    if (!ctx_.sealed->link_sealed(ctx_.topology, *ctx_.domains, ctx_.topology.ports(node_)[c].link, node_)) return false;
  return true;
}

void Host::find_sealed_ports() {
  port_sealed_.assign(ports_.size(), false);
  // Routes that change with faults are not worth the reasoning.
  if (!ctx_.sealed || ctx_.faults || !promises_matter()) return;
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const topo::LinkId link = ctx_.topology.ports(node_)[i].link;
    if (!ctx_.sealed->link_sealed(ctx_.topology, *ctx_.domains, link, node_)) continue;
    bool sealed = true;
    for (const topo::NodeId h : ctx_.sealed->hosts_behind(ctx_.topology, *ctx_.domains, link, node_))
      if (h != node_ && !routes_sealed(ctx_.topology.node(h).index)) sealed = false;
    port_sealed_[i] = sealed;
  }
}

bool Host::sealed_toward(HostIndex dst) const {
  if (port_sealed_.empty() || !promises_matter()) return false;
  if (const bool* known = sealed_toward_.find(dst)) return *known;
  bool sealed = !routing().next_ports(node_, dst).empty();
  for (const topo::PortIndex c : routing().next_ports(node_, dst)) sealed = sealed && port_sealed_[c];
  sealed_toward_.set(dst, sealed);
  return sealed;
}

SimTime Host::output_bound(const pdes::EventBody& event, SimTime at) const {
  const SimTime open = LogicalProcess::output_bound(event, at);
  if (port_sealed_.empty()) return open;
  const auto flow_port_sealed = [&](FlowId flow) {
    const Sender* f = sender(flow);
    return f != nullptr && port_sealed_[f->port];
  };
  if (pdes::calls<&Host::on_packet>(event))
    return port_sealed_[pdes::payload_of<&Host::on_packet>(event).in_port] ? SimTime::infinity() : open;
  if (pdes::calls<&Host::on_port_free>(event))
    return port_sealed_[pdes::payload_of<&Host::on_port_free>(event).port] ? SimTime::infinity() : open;
  if (pdes::calls<&Host::on_flow_timer>(event))
    return flow_port_sealed(pdes::payload_of<&Host::on_flow_timer>(event).flow) ? SimTime::infinity() : open;
  if (pdes::calls<&Host::on_fluid_acked>(event))
    return flow_port_sealed(pdes::payload_of<&Host::on_fluid_acked>(event).flow) ? SimTime::infinity() : open;
  if (pdes::calls<&Host::on_fluid_delivered>(event))
    return sealed_toward(pdes::payload_of<&Host::on_fluid_delivered>(event).src) ? SimTime::infinity() : open;
  if (pdes::calls<&Host::on_app_timer>(event)) return SimTime::infinity();
  return open;
}

SimTime Host::state_output_bound(SimTime floor, SimTime cap) const {
  const SimTime distance = distance_to_other_ranks();
  if (!app_) return cap;
  const SimTime start = app_->earliest_open_send(*this, floor, cap < distance ? floor : cap - distance);
  return start.saturating_add(distance);
}

std::uint16_t Host::port_toward(HostIndex dst, std::uint64_t salt, std::uint32_t nic) const {
  if (ports_.size() == 1) return 0;
  const auto candidates = routing().next_ports(node_, dst);
  if (candidates.empty() && ctx_.faults) return 0;  // cut off: what it sends is lost until routes come back
  if (candidates.empty())
    throw std::runtime_error("host " + std::to_string(index_) + " has no route to host " + std::to_string(dst));
  if (nic != kAnyNic) return candidates[nic % candidates.size()];
  return candidates[mix(mix(ctx_.params.seed, salt), dst) % candidates.size()];
}

FlowId Host::start_flow(HostIndex dst, std::uint64_t bytes, std::uint8_t priority, MessageHeader header,
                        std::uint32_t nic, QueuePair queue_pair) {
  if (dst == index_) throw std::invalid_argument("host " + std::to_string(index_) + " cannot send a flow to itself");
  if (dst >= ctx_.topology.num_hosts())
    throw std::invalid_argument("flow to host " + std::to_string(dst) + ", but the topology has " +
                                std::to_string(ctx_.topology.num_hosts()) + " hosts");
  if (priority >= ctx_.params.priorities)
    throw std::invalid_argument("flow priority " + std::to_string(priority) + " but the fabric has " +
                                std::to_string(ctx_.params.priorities) + " classes");
  const auto id = static_cast<FlowId>(senders_base_ + senders_.size());
  Sender& f = senders_.emplace_back();
  f.id = id;
  f.dst = dst;
  f.bytes = bytes;
  const std::uint64_t mtu = ctx_.params.mtu_bytes;
  f.packets = static_cast<std::uint32_t>(bytes == 0 ? 1 : (bytes + mtu - 1) / mtu);
  f.priority = priority;
  // Under rail routing a flow bound to a NIC carries that NIC's index, which picks its rail.
  f.entropy = ctx_.params.routing == RoutingMode::Rail && nic != kAnyNic
                  ? nic
                  : static_cast<std::uint32_t>(mix(mix(ctx_.params.seed, index_), id));
  f.port = port_toward(dst, f.entropy, nic);
  f.header = header;
  f.start = now();
  f.next_send = now();
  f.last_progress = now();
  f.settle_seq = ctx_.params.settle_packets;
  ++stats_.flows_started;
  f.queue_pair = queue_pair;
  const std::uint32_t domain =
      ctx_.domains ? ctx_.domains->domain_of_link[ctx_.topology.ports(node_)[f.port].link] : kNoDomain;
  FlowId before = kNoFlow;
  if (!queue_pair.none()) {
    const auto [tail, fresh] = queue_tail_.try_emplace(queue_pair, id);
    if (!fresh) {
      before = *tail;
      // A flow that left was done: it sent everything.
      Sender* earlier = sender(before);
      if (domain == kNoDomain && earlier && (earlier->queued || earlier->highest_sent < earlier->packets)) {
        earlier->behind = id;
        f.queued = true;
      }
      *tail = id;
    }
  }
  if (domain != kNoDomain) {
    start_fluid(f, domain, before);
    return id;
  }
  f.cc = make_congestion_control(ctx_.params, ports_[f.port].wire().bandwidth, now());
  f.windowed = f.cc->window_bytes() != UINT64_MAX;
  f.adapts = f.cc->adapts();
  activate(id);
  try_transmit(f.port);
  return id;
}

void Host::start_fluid(Sender& f, std::uint32_t domain, FlowId after) {
  f.fluid = true;
  f.highest_sent = f.packets;  // nothing of it goes as packets
  const FluidStart s{now(), f.bytes, f.header, f.id, index_, f.dst, after, f.entropy, f.port};
  schedule<&FlowDomain::on_start>(ctx_.domains->home[domain], ports_[f.port].wire().latency, s);
}

void Host::on_fluid_acked(const FluidAcked& a) {
  Sender* found = sender(a.flow);
  if (!found || found->done)
    throw std::logic_error("host " + std::to_string(index_) + ": flow " + std::to_string(a.flow) +
                           " acknowledged by its flow domain, but it is not one this host has waiting");
  Sender& f = *found;
  f.done = true;
  ++stats_.flows_acked;
  const FlowEnd end{index_, f.dst, f.id, f.bytes, f.start, now(), 0, f.header};
  if (app_) app_->on_acked(*this, end);
  retire_done_flows();
}

void Host::on_fluid_delivered(const FluidDelivered& d) {
  ++stats_.flows_delivered;
  stats_.bytes_delivered += d.bytes;
  const FlowEnd end{d.src, index_, d.flow, d.bytes, d.first, now(), 0, d.header};
  if (app_) app_->on_delivered(*this, end);
}

void Host::set_timer(SimTime delay, std::uint64_t timer) { schedule<&Host::on_app_timer>(id(), delay, AppTimer{timer}); }

void Host::on_app_timer(const AppTimer& t) { app_->on_timer(*this, t.timer); }

void Host::activate(std::uint32_t flow) {
  Sender& f = *sender(flow);
  if (f.active || f.queued || f.done || f.next_seq >= f.packets) return;
  f.active = true;
  nic_[f.port].active.push_back(&f);
}

void Host::release_next(Sender& f) {
  if (f.behind == 0xFFFFFFFFu) return;
  Sender& next = *sender(f.behind);
  next.queued = false;
  activate(next.id);
  // On its own port it takes its turn when this one's packet has left; elsewhere, now.
  if (next.port != f.port) try_transmit(next.port);
}

std::uint64_t Host::in_flight_bytes(const Sender& f) const {
  const std::uint64_t mtu = ctx_.params.mtu_bytes;
  const std::uint64_t sent = std::min<std::uint64_t>(std::uint64_t{f.next_seq} * mtu, f.bytes);
  const std::uint64_t acked = std::min<std::uint64_t>(std::uint64_t{f.acked} * mtu, f.bytes);
  return sent > acked ? sent - acked : 0;
}

bool Host::window_full(const Sender& f) const {
  // Without a window (the common case) neither the bytes in flight nor the congestion
  // control (elsewhere in memory) need be read.
  return f.windowed && in_flight_bytes(f) >= f.cc->window_bytes();
}

void Host::wake_at(std::uint16_t port, SimTime when) {
  NicQueues& q = nic_[port];
  if (when >= q.wakeup_at && q.wakeup_at > now()) return;  // an earlier wakeup is coming
  q.wakeup_at = when;
  schedule<&Host::on_port_free>(id(), when - now(), PortWakeup{port});
}

void Host::on_port_free(const PortWakeup& w) {
  if (nic_[w.port].wakeup_at == now()) nic_[w.port].wakeup_at = SimTime::infinity();
  try_transmit(w.port);
}

void Host::try_transmit(std::uint16_t port) {
  OutputPort& o = ports_[port];
  NicQueues& q = nic_[port];
  if (!o.idle(now())) {
    while (!q.control.empty() && !o.paused(kControlPriority) && o.mid_train(now())) {
      put_into_train(port, q.control.front());
      q.control.pop_front();
    }
    if (!q.control.empty() || !q.active.empty()) wake_at(port, o.busy_until());
    return;
  }
  if (!q.control.empty() && !o.paused(kControlPriority)) {
    Packet p = q.control.front();
    q.control.pop_front();
    put_on_wire(port, p);
    if (!q.control.empty() || !q.active.empty()) wake_at(port, o.busy_until());
    return;
  }
  SimTime earliest = SimTime::infinity();
  const std::size_t n = q.active.size();
  // Flows take turns, packet by packet. A flow that sent a train of k packets passes on its
  // next k - 1 turns, so that flows sharing the port keep pace as they would packet by packet
  // (and in the same order: without trains nobody owes a turn). The rounds in which every flow
  // that may send passes are taken at once: each passes as many turns as the least owed.
  const auto may_send = [&](Sender& f) {
    if (o.paused(f.priority) || window_full(f)) return false;  // an ACK or a resume will wake it
    if (f.next_send > now()) {
      earliest = std::min(earliest, f.next_send);
      return false;
    }
    return true;
  };
  // The first round as it comes; if everyone who may send passed, the rounds in which all of
  // them pass again are taken at once (as many as the least owed), then the round that chooses.
  std::size_t chosen = n;
  std::uint32_t least_owed = UINT32_MAX;
  for (std::size_t k = 0, at = q.turn; k < n && chosen == n; ++k, at = at + 1 == n ? 0 : at + 1) {
    Sender& f = *q.active[at];
    if (!may_send(f)) continue;
    if (f.turns_owed == 0) {
      chosen = at;
    } else {
      least_owed = std::min(least_owed, --f.turns_owed);
    }
  }
  if (chosen == n && least_owed != UINT32_MAX && train_packets_ > 1) {
    const std::uint32_t passed = std::min(least_owed, train_packets_ - 1);
    for (std::size_t k = 0, at = q.turn; k < n; ++k, at = at + 1 == n ? 0 : at + 1) {
      Sender& f = *q.active[at];
      if (!may_send(f)) continue;
      f.turns_owed -= passed;
      if (chosen < n || passed == train_packets_ - 1) continue;
      if (f.turns_owed == 0) {
        chosen = at;
      } else {
        --f.turns_owed;
      }
    }
  }
  if (chosen < n) {
    const std::size_t at = chosen;
    Sender& f = *q.active[at];
    const std::uint32_t before = f.next_seq;
    send_data(f);
    f.turns_owed = f.next_seq - before - 1;
    if (f.next_seq >= f.packets) {
      f.active = false;
      q.active.erase(q.active.begin() + static_cast<std::ptrdiff_t>(at));
      q.turn = q.active.empty() ? 0 : at % q.active.size();
    } else {
      q.turn = (at + 1) % n;
    }
    if (!q.control.empty() || !q.active.empty()) wake_at(port, o.busy_until());
    return;
  }
  if (!earliest.is_infinite()) wake_at(port, earliest);
}

bool Host::may_train(const Sender& f) const {
  // Resent packets, an unsettled flow and the last train's worth of packets go one by one:
  // the flow's end stays as in exact packet mode.
  const std::uint32_t seq = f.next_seq;
  return train_packets_ > 1 && seq >= f.highest_sent && seq >= f.settle_seq && f.packets - seq >= tail_packets_ + 2;
}

std::uint32_t Host::next_train(const Sender& f) const {
  const std::uint32_t seq = f.next_seq;
  if (!may_train(f)) return 1;
  // Flows of a port take turns: a flow that sent a train passes its next turns (see
  // try_transmit), so one sending packets beside it keeps its share. Trains of flows alone on
  // their paths still wait until every flow of the port may send them, so that their turns
  // interleave packet by packet as without trains; through queues, turns go by trains.
  if (!ctx_.params.trains_through_queues)
    for (const Sender* other : nic_[f.port].active)
      if (other != &f && !may_train(*other)) return 1;
  std::uint32_t k = std::min(train_packets_, f.packets - tail_packets_ - seq);
  if (f.windowed) {
    const std::uint64_t room = (f.cc->window_bytes() - in_flight_bytes(f)) / ctx_.params.mtu_bytes;
    k = static_cast<std::uint32_t>(std::min<std::uint64_t>(k, room));
  }
  return std::max<std::uint32_t>(k, 1);
}

void Host::send_data(Sender& f) {
  const FabricParams& fp = ctx_.params;
  const std::uint32_t seq = f.next_seq;
  const std::uint32_t count = next_train(f);
  f.next_seq += count;
  Packet p;
  p.kind = PacketKind::Data;
  p.flow = f.id;
  p.src = index_;
  p.dst = f.dst;
  p.seq = seq;
  const std::uint64_t offset = std::uint64_t{seq} * fp.mtu_bytes;
  // A train holds only full packets (never the flow's last).
  p.bytes = static_cast<std::uint32_t>(
      count > 1 ? count * fp.mtu_bytes : std::min<std::uint64_t>(fp.mtu_bytes, f.bytes - std::min(offset, f.bytes)));
  p.wire_bytes = p.bytes + count * fp.header_bytes;
  p.header = f.header;
  p.priority = f.priority;
  p.entropy = fp.routing == RoutingMode::Spray ? static_cast<std::uint32_t>(mix(f.entropy, seq)) : f.entropy;
  if (fp.ecn) p.flags |= packet_flag::kEcnCapable;
  if (seq + 1 == f.packets) p.flags |= packet_flag::kLast;
  if (fp.ack_every > 1 && window_full(f)) p.flags |= packet_flag::kAckRequest;
  if (fp.trains_through_queues && !f.adapts && !f.windowed && lossless_transport_) p.flags |= packet_flag::kAckLastOnly;
  p.sent = now();
  if (seq < f.highest_sent) {
    if (f.retransmits == 0) ++stats_.flows_resent;
    ++f.retransmits;
    ++stats_.retransmits;
  } else {
    f.highest_sent = seq + count;
    if (f.highest_sent == f.packets) release_next(f);
  }
  stats_.data_packets += count;
  if (count > 1) stats_.packets_in_trains += count;
  put_on_wire(f.port, p);
  if (f.adapts) {
    f.next_send = now() + f.cc->gap(p.wire_bytes);
    f.cc->on_sent(now(), p.wire_bytes);
    arm_cc_timer(f);
  } else {
    f.next_send = now();
  }
  if (!lossless_transport_) arm_rto(f.id);
}

template <typename Update>
void Host::update_cc(Sender& f, Update&& update) {
  if (!f.adapts) return;
  if (train_packets_ < 2) {
    update();
    return;
  }
  const double rate = f.cc->rate_gbps();
  const std::uint64_t window = f.cc->window_bytes();
  update();
  if (f.cc->rate_gbps() != rate || f.cc->window_bytes() < window) unsettle(f);
}

void Host::send_control(Receiver& r, HostIndex to, Packet p, std::uint32_t count) {
  p.src = index_;
  p.dst = to;
  p.priority = kControlPriority;
  p.wire_bytes = count * ctx_.params.ack_bytes;
  p.entropy = static_cast<std::uint32_t>(mix(ctx_.params.seed ^ 0xac, receiver_key(to, p.flow)));
  if (r.control_epoch != epoch_) {
    r.control_port = port_toward(to, p.entropy);
    r.control_epoch = epoch_;
  }
  const std::uint16_t port = r.control_port;
  nic_[port].control.push_back(p);
  try_transmit(port);
}

void Host::send_ack(Receiver& r, const Packet& data, std::uint32_t cumulative, bool ecn_echo, std::uint32_t count,
                    bool queued) {
  Packet ack;
  ack.kind = PacketKind::Ack;
  ack.flow = data.flow;
  ack.seq = cumulative;
  ack.sent = data.sent;  // for the sender's RTT
  if (ecn_echo) ack.flags |= packet_flag::kEcnEcho;
  if (queued) ack.flags |= packet_flag::kQueuedEcho;
  stats_.acks += count;
  send_control(r, data.src, ack, count);
}

void Host::on_packet(const Packet& p) {
  if (ctx_.faults && lost_on_arrival(p.in_port)) return;
  switch (p.kind) {
    case PacketKind::Pause:
      ports_[p.in_port].set_paused(p.priority, p.seq == 1);
      ++ports_[p.in_port].stats().pauses_received;
      if (p.seq == 1 && train_packets_ > 1 && !ctx_.params.trains_through_queues)
        for (Sender* f : nic_[p.in_port].active)
          if (f->priority == p.priority) unsettle(*f);
      if (p.seq == 0) try_transmit(p.in_port);
      return;
    case PacketKind::Data: receive_data(p); return;
    case PacketKind::Ack: receive_ack(p); return;
    case PacketKind::Nack: receive_nack(p); return;
    case PacketKind::Cnp: receive_cnp(p); return;
  }
}

bool Host::take_early(const Packet& p) {
  // A link that fails loses what is on its wire: each packet must be taken at its own time.
  if (!one_wire_in_ || ctx_.faults || p.kind != PacketKind::Data || p.bytes > ctx_.params.mtu_bytes) return false;
  if (p.flags & (packet_flag::kLast | packet_flag::kEcnMarked | packet_flag::kAckRequest)) return false;
  if (receiver_key(p.src, p.flow) != last_receiver_key_) return false;
  Receiver& r = *last_receiver_;
  // What receive_data does at the packet's own time with `now()` or toward others (the first
  // packet, a gap on a lossy fabric, a duplicate, completion, an ACK, a CNP) rules it out;
  // what is left is bookkeeping.
  const bool bookkeeping = p.seq == r.expected || (ctx_.params.lossless && p.seq > r.expected && !r.holds(p.seq));
  if (r.delivered || r.count == 0 || !bookkeeping || r.total != 0 || r.since_ack + 1 >= ctx_.params.ack_every)
    return false;
  if (r.extends_prefix(p.seq)) {
    // The next packet in order, nothing held beyond it: all receive_data would do.
    if (p.flags & packet_flag::kQueued) r.queued_since_ack = true;
    r.extend_prefix(1, p.bytes);
    ++r.since_ack;
    return true;
  }
  receive_data(p);
  return true;
}

detail::Receiver& Host::receiver_of(const Packet& p) {
  const std::uint64_t key = receiver_key(p.src, p.flow);
  if (key != last_receiver_key_) {
    last_receiver_key_ = key;
    last_receiver_ = &receivers_[key];
  }
  return *last_receiver_;
}

void Host::receive_data(const Packet& p) {
  const FabricParams& fp = ctx_.params;
  Receiver& r = receiver_of(p);
  if (r.delivered) {
    send_ack(r, p, r.total, (p.flags & packet_flag::kEcnMarked) != 0);  // a late duplicate of a complete flow: acknowledge it all again
    return;
  }
  if (r.count == 0 && r.got.empty()) {
    r.first = now();
    r.header = p.header;
  }
  if (p.flags & packet_flag::kEcnMarked) {
    ++stats_.ecn_marked_received;
    r.marked_since_ack = true;
  }
  if (p.flags & packet_flag::kQueued) r.queued_since_ack = true;
  if (p.flags & packet_flag::kLast) r.total = p.seq + 1;
  // A train (bytes above one MTU) carries packets seq, seq + 1, ...: full ones only.
  const std::uint32_t count = p.bytes > fp.mtu_bytes ? p.bytes / fp.mtu_bytes : 1;
  const bool in_order = p.seq == r.expected;
  bool duplicate = false;
  if (r.extends_prefix(p.seq)) {
    // Everything below `expected` has come and nothing beyond it: the packets extend that
    // prefix, which the bitmap leaves out (Receiver::holds).
    r.extend_prefix(count, p.bytes);
  } else {
    const std::size_t last_word = (p.seq + count - 1) / 64;
    if (last_word >= r.got.size()) r.got.resize(last_word + 1, 0);
    for (std::uint32_t seq = p.seq; seq < p.seq + count; ++seq) {
      if (r.holds(seq)) {
        duplicate = true;
        continue;
      }
      r.got[seq / 64] |= std::uint64_t{1} << (seq % 64);
      ++r.count;
    }
    if (!duplicate) {
      r.bytes += p.bytes;
      while (r.holds(r.expected)) ++r.expected;
    }
  }
  const bool complete = r.total != 0 && r.count == r.total;
  // Acknowledge every ack_every-th packet, the last, one that fills its sender's window, and
  // anything unusual. A coalesced ACK echoes a mark on any packet it covers, as the sender
  // would have seen per-packet ACKs.
  const bool requested = (p.flags & packet_flag::kAckRequest) != 0;
  r.since_ack += count;
  // Out of order says a packet was lost only when the fabric drops: a lossless fabric
  // reorders only by spreading a flow over paths, and there an ACK per packet would tell
  // the sender nothing (a cumulative ACK has nothing new to say) at twice the events.
  const bool gap = !in_order && !lossless_transport_;
  const bool due = !(p.flags & packet_flag::kAckLastOnly) && r.since_ack >= fp.ack_every;
  if (due || complete || duplicate || gap || requested) {
    // The ACKs the packets of a train would have drawn go back as one unit of their size
    // (they take the reverse wire's time as they would); what is left over counts on.
    std::uint32_t acks = 1;
    if (due) {
      acks = r.since_ack / fp.ack_every;
      r.since_ack %= fp.ack_every;
      if (complete || duplicate || gap || requested) r.since_ack = 0;
    } else {
      r.since_ack = 0;
    }
    send_ack(r, p, r.expected, r.marked_since_ack, acks, r.queued_since_ack);
    r.queued_since_ack = false;
    r.marked_since_ack = false;
  }
  if (!lossless_transport_ && p.seq > r.expected && r.nacked != r.expected && fp.routing != RoutingMode::Spray) {
    r.nacked = r.expected;
    Packet nack;
    nack.kind = PacketKind::Nack;
    nack.flow = p.flow;
    nack.seq = r.expected;
    nack.sent = p.sent;
    ++stats_.nacks;
    send_control(r, p.src, nack);
  }
  if (fp.cc == CongestionControlKind::Dcqcn && (p.flags & packet_flag::kEcnMarked) &&
      now() - r.last_cnp >= fp.dcqcn_cnp_interval) {
    r.last_cnp = now();
    Packet cnp;
    cnp.kind = PacketKind::Cnp;
    cnp.flow = p.flow;
    ++stats_.cnps;
    send_control(r, p.src, cnp);
  }
  if (complete && !r.delivered) {
    r.delivered = true;
    ++stats_.flows_delivered;
    stats_.bytes_delivered += r.bytes;
    const FlowEnd end{p.src, index_, p.flow, r.bytes, r.first, now(), 0, r.header};
    if (lossless_transport_) {
      receivers_.erase(receiver_key(p.src, p.flow));
      last_receiver_key_ = ~std::uint64_t{0};
      last_receiver_ = nullptr;
    } else {
      r.got.clear();
      r.got.shrink_to_fit();
    }
    if (app_) app_->on_delivered(*this, end);
  }
}

void Host::receive_ack(const Packet& p) {
  Sender* found = sender(p.flow);
  if (!found || found->done) return;
  Sender& f = *found;
  const std::uint64_t before = in_flight_bytes(f);
  std::uint64_t newly = 0;
  if (p.seq > f.acked) {
    f.acked = std::min(p.seq, f.packets);
    // go-back-N may have rewound next_seq below what the receiver already has
    f.next_seq = std::max(f.next_seq, f.acked);
    f.last_progress = now();
    newly = before - in_flight_bytes(f);
  }
  update_cc(f, [&] { f.cc->on_ack(now(), now() - p.sent, (p.flags & packet_flag::kEcnEcho) != 0, newly); });
  // A marked packet crossed a queue past ecn_kmin_bytes: the path is congested, and what
  // trains would change there (how queues fill, when PFC pauses) matters.
  // Or one of its packets waited behind another flow's at a switch: it is not alone on its
  // path, and how trains would meet others' packets there (in turns of a train, not of a
  // packet) changes who goes first.
  // With trains_through_queues, trains take turns at shared queues instead.
  if ((p.flags & (packet_flag::kEcnEcho | packet_flag::kQueuedEcho)) && !ctx_.params.trains_through_queues) {
    unsettle(f);
    // The port's other flows went out interleaved with it by trains too.
    for (Sender* other : nic_[f.port].active) unsettle(*other);
  }
  arm_cc_timer(f);
  if (f.acked >= f.packets) {
    f.done = true;
    ++f.rto_generation;
    ++f.cc_generation;
    ++stats_.flows_acked;
    // Acknowledged in full while go-back-N had it resending: nothing is left to send.
    deactivate(f);
    f.cc.reset();
    const FlowEnd end{index_, f.dst, f.id, f.bytes, f.start, now(), f.retransmits, f.header};
    if (app_) app_->on_acked(*this, end);
    retire_done_flows();
    return;
  }
  activate(f.id);
  try_transmit(f.port);
}

void Host::deactivate(Sender& f) {
  if (!f.active) return;
  NicQueues& q = nic_[f.port];
  const auto at = std::find(q.active.begin(), q.active.end(), &f);
  const auto k = static_cast<std::size_t>(at - q.active.begin());
  q.active.erase(at);
  if (q.turn > k) --q.turn;
  if (q.turn >= q.active.size()) q.turn = 0;
  f.active = false;
}

void Host::retire_done_flows() {
  while (!senders_.empty() && senders_.front().done && !senders_.front().active) {
    const Sender& f = senders_.front();
    if (!f.queue_pair.none()) {
      const FlowId* tail = queue_tail_.find(f.queue_pair);
      if (tail != nullptr && *tail == f.id) queue_tail_.erase(f.queue_pair);
    }
    senders_.pop_front();
    ++senders_base_;
  }
}

void Host::receive_nack(const Packet& p) {
  Sender* found = sender(p.flow);
  if (!found) return;
  Sender& f = *found;
  if (f.done || p.seq < f.acked || p.seq >= f.next_seq) return;
  f.acked = std::max(f.acked, p.seq);
  f.next_seq = p.seq;
  f.last_progress = now();
  activate(f.id);
  try_transmit(f.port);
}

void Host::receive_cnp(const Packet& p) {
  Sender* found = sender(p.flow);
  if (!found || found->done) return;
  Sender& f = *found;
  update_cc(f, [&] { f.cc->on_cnp(now()); });
  arm_cc_timer(f);
}

void Host::arm_rto(std::uint32_t flow) {
  Sender& f = *sender(flow);
  if (f.rto_pending || f.done) return;
  f.rto_pending = true;
  const SimTime due = std::max(now(), f.last_progress + rto_);
  schedule<&Host::on_flow_timer>(id(), due - now(), FlowTimer{flow, f.rto_generation, kRtoTimer});
}

void Host::arm_cc_timer(Sender& f) {
  if (f.done || !f.adapts) return;
  const SimTime due = f.cc->next_timer();
  if (due == f.cc_timer_at) return;
  f.cc_timer_at = due;
  ++f.cc_generation;
  if (due.is_infinite()) return;
  schedule<&Host::on_flow_timer>(id(), std::max(due, now()) - now(), FlowTimer{f.id, f.cc_generation, kCcTimer});
}

void Host::on_flow_timer(const FlowTimer& t) {
  Sender* found = sender(t.flow);
  if (!found || found->done) return;  // a timer of a flow that has finished (and perhaps left)
  Sender& f = *found;
  if (t.kind == kCcTimer) {
    if (t.generation != f.cc_generation) return;
    f.cc_timer_at = SimTime::infinity();
    update_cc(f, [&] { f.cc->on_timer(now()); });
    arm_cc_timer(f);
    try_transmit(f.port);
    return;
  }
  if (t.generation != f.rto_generation) return;
  f.rto_pending = false;
  if (now() - f.last_progress < rto_) {
    arm_rto(t.flow);
    return;
  }
  ++stats_.timeouts;
  if (ctx_.faults && ports_[f.port].down()) move_to_live_port(f);
  if (cut_off(f)) {
    give_up(f);
    return;
  }
  // Nothing acknowledged for a whole timeout: resend from the first unacknowledged packet.
  f.next_seq = f.acked;
  f.last_progress = now();
  f.cc->on_timeout(now());
  activate(t.flow);
  try_transmit(f.port);
  arm_rto(t.flow);
}

bool Host::cut_off(const Sender& f) const {
  if (!ctx_.faults) return false;
  // Routes may still change: a link may come back, or routes may reconverge around it.
  if (epoch_ + 1 < ctx_.faults->epochs().size()) return false;
  const auto& changes = ctx_.faults->changes();
  if (!changes.empty() && changes.back().at > now()) return false;
  return ports_[f.port].down() || !(*ctx_.routes)[epoch_].reach->reaches(index_, f.dst);
}

void Host::move_to_live_port(Sender& f) {
  const std::uint32_t live = live_port_among(routing().next_ports(node_, f.dst), f.entropy);
  if (live == kNoPort) return;
  deactivate(f);
  f.port = static_cast<std::uint16_t>(live);
}

void Host::give_up(Sender& f) {
  ++f.rto_generation;
  ++f.cc_generation;
  deactivate(f);
  ++stats_.flows_given_up;
  given_up_.push_back({index_, f.dst, f.id, f.bytes, f.start, now(), f.retransmits, f.header});
}

void Host::on_link_state(const PortState& s) {
  OutputPort& o = ports_[s.port];
  o.set_down(s.down);
  if (!s.down) return;
  RingQueue<Packet>& control = nic_[s.port].control;
  o.stats().lost += control.size();
  while (!control.empty()) control.pop_front();
}

}  // namespace collsim::net
