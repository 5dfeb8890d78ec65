#include "collsim/net/switch_device.hpp"

#include "collsim/net/port_chooser.hpp"
#include "collsim/net/sealed_islands.hpp"

#include <algorithm>

namespace collsim::net {

SimTime Switch::output_bound(const pdes::EventBody& event, SimTime at) const {
  if (ctx_.sealed && !ctx_.faults && ctx_.sealed->node[node_]) return SimTime::infinity();
  return LogicalProcess::output_bound(event, at);
}

Switch::Switch(const FabricContext& ctx, topo::NodeId node)
    : Device(ctx, node), params_(ctx.topology.node(node).params), marks_waits_(ctx.params.train_bytes != 0 && !ctx.params.trains_through_queues) {
  ingress_bytes_.assign(ports_.size(), {});
  upstream_paused_.assign(ports_.size(), {});
  per_port_buffer_ = ports_.empty() ? 0 : params_.buffer_bytes / ports_.size();
  arbitration_lead_.reserve(ports_.size());
  for (const OutputPort& o : ports_)
    arbitration_lead_.push_back(SimTime::ps(o.wire().bandwidth.serialization_ps(ctx.params.arbitration_lead_bytes)));
}

void Switch::on_packet(const Packet& arriving) {
  if (ctx_.faults && lost_on_arrival(arriving.in_port)) return;
  if (arriving.kind == PacketKind::Pause) {
    OutputPort& o = ports_[arriving.in_port];
    o.set_paused(arriving.priority, arriving.seq == 1);
    ++o.stats().pauses_received;
    if (arriving.seq == 0) try_transmit(arriving.in_port);
    return;
  }
  Packet p = arriving;
  const std::uint16_t in = p.in_port;
  std::uint16_t out = 0;
  if (ctx_.faults) {
    const std::uint32_t live = live_port(p);
    if (live == kNoPort) {
      ++stats_.unroutable;
      return;
    }
    out = static_cast<std::uint16_t>(live);
  } else {
    out = chooser().choose(node_, p, ports_, random());
  }
  OutputPort& o = ports_[out];
  const FabricParams& fp = ctx_.params;
  if (!admit(o, p.wire_bytes)) {
    ++stats_.drops;
    ++o.stats().drops;
    if (fp.lossless) ++stats_.drops_despite_pfc;
    return;
  }
  if (fp.ecn && (p.flags & packet_flag::kEcnCapable) && ecn_mark(o, p.priority)) {
    p.flags |= packet_flag::kEcnMarked;
    ++stats_.ecn_marks;
    ++o.stats().ecn_marks;
  }
  if (marks_waits_ && p.kind == PacketKind::Data && waits_behind_data(o)) p.flags |= packet_flag::kQueued;
  buffered_ += p.wire_bytes;
  stats_.max_buffered_bytes = std::max(stats_.max_buffered_bytes, buffered_);
  auto& ingress = ingress_bytes_[in][p.priority];
  ingress += p.wire_bytes;
  if (fp.lossless && ingress >= fp.pfc_xoff_bytes && !upstream_paused_[in][p.priority]) {
    upstream_paused_[in][p.priority] = true;
    ++stats_.pauses_sent;
    ++ports_[in].stats().pauses_sent;
    send_pfc(in, p.priority, true);
  }
  p.in_port = in;  // kept while queued, for the ingress accounting at departure
  ++stats_.packets;
  if (o.empty() && !o.paused(p.priority)) {
    // What queueing it and transmitting at once (try_transmit) would do, without the round
    // trip through the queue: the common case of a port that nothing else is using, idle or
    // with its last packet close enough to its end to be arbitrated ahead.
    SimTime start = now();
    const bool ahead = !o.idle(start);
    if (!ahead || (!o.wakeup_pending() && o.busy_until() - start <= arbitration_lead_[out] &&
                   (p.kind == PacketKind::Data || !o.mid_train(start)))) {
      if (ahead) start = o.busy_until();
      o.pass_through(p.wire_bytes);
      release(p);
      put_on_wire(out, p, start);
      return;
    }
  }
  o.enqueue(p);
  try_transmit(out);
}

void Switch::on_port_free(const PortWakeup& w) {
  ports_[w.port].set_wakeup_pending(false);
  try_transmit(w.port);
}

void Switch::try_transmit(std::uint16_t port) {
  OutputPort& o = ports_[port];
  SimTime start = now();
  if (!o.idle(start)) {
    // A control frame at the head of its class goes between two packets of a train.
    while (o.has_sendable() && o.mid_train(start) && o.front().kind != PacketKind::Data)
      put_into_train(port, take_next(o));
    // With a wakeup pending, packets were queued before this one and wait their turn.
    if (o.wakeup_pending() || !o.has_sendable()) return;
    if (o.busy_until() - start > arbitration_lead_[port]) {
      wake_when_free<&Switch::on_port_free>(port);
      return;
    }
    start = o.busy_until();
  }
  if (!o.has_sendable()) return;
  Packet next = take_next(o);
  put_on_wire(port, next, start);
  if (o.has_sendable()) {
    o.prefetch_front();
    wake_when_free<&Switch::on_port_free>(port);
  }
}

Packet Switch::take_next(OutputPort& o) {
  Packet p;
  o.dequeue(p);
  release(p);
  return p;
}

void Switch::release(const Packet& p) {
  buffered_ -= p.wire_bytes;
  auto& ingress = ingress_bytes_[p.in_port][p.priority];
  ingress -= p.wire_bytes;
  if (upstream_paused_[p.in_port][p.priority] && ingress <= ctx_.params.pfc_xon_bytes) {
    upstream_paused_[p.in_port][p.priority] = false;
    send_pfc(p.in_port, p.priority, false);
  }
}

void Switch::on_link_state(const PortState& s) {
  OutputPort& o = ports_[s.port];
  o.set_down(s.down);
  if (!s.down) return;
  upstream_paused_[s.port] = {};  // nobody is left upstream to resume
  o.drain([&](const Packet& p) {
    ++o.stats().lost;
    release(p);
  });
}

std::uint32_t Switch::live_port(Packet& p) {
  if (p.hops == 0xFF) return kNoPort;  // going round in circles between reroutes
  const auto minimal = routing().next_ports(node_, p.dst);
  if (minimal.empty()) return kNoPort;
  const std::uint16_t chosen = chooser().choose(node_, p, ports_, random());
  if (!ports_[chosen].down()) return chosen;
  p.via = 0;  // a detour whose next hop is dead is given up: minimal from here
  return live_port_among(minimal, mix(mix(mix(mix(ctx_.params.seed, node_), p.src), p.dst), p.entropy));
}

bool Switch::waits_behind_data(const OutputPort& o) const {
  // Control frames (ACKs, a few dozen bytes) pass quickly; half a full packet does not.
  const std::int64_t on_wire = o.idle(now()) ? 0 : (o.busy_until() - now()).picoseconds();
  const std::int64_t queued = o.wire().bandwidth.serialization_ps(o.queued_bytes());
  return 2 * (on_wire + queued) > o.wire().bandwidth.serialization_ps(ctx_.params.mtu_bytes);
}

bool Switch::admit(const OutputPort& out, std::uint32_t wire_bytes) const {
  if (params_.shared_buffer) return buffered_ + wire_bytes <= params_.buffer_bytes;
  return out.queued_bytes() + wire_bytes <= per_port_buffer_;
}

bool Switch::ecn_mark(const OutputPort& out, std::uint8_t priority) {
  const FabricParams& fp = ctx_.params;
  const std::uint64_t q = out.class_bytes(priority);
  if (q <= fp.ecn_kmin_bytes) return false;
  if (q >= fp.ecn_kmax_bytes) return true;
  const double p = fp.ecn_pmax * static_cast<double>(q - fp.ecn_kmin_bytes) /
                   static_cast<double>(fp.ecn_kmax_bytes - fp.ecn_kmin_bytes);
  return random().uniform() < p;
}

std::vector<std::pair<std::uint16_t, std::uint16_t>> Switch::blocked_ingress() const {
  std::vector<std::pair<std::uint16_t, std::uint16_t>> edges;
  for (std::uint16_t out = 0; out < ports_.size(); ++out) {
    const OutputPort& o = ports_[out];
    for (std::uint8_t c = 0; c < kMaxClasses; ++c) {
      if (!o.paused(c)) continue;
      const auto& q = o.queue(c);
      for (std::size_t i = 0; i < q.size(); ++i) {
        const std::uint16_t in = q[i].in_port;
        if (upstream_paused_[in][c]) edges.emplace_back(in, out);
      }
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace collsim::net
