#include "collsim/net/device.hpp"

#include <algorithm>

#include "collsim/net/host_device.hpp"
#include "collsim/net/switch_device.hpp"

namespace collsim::net {

Device::Device(const FabricContext& ctx, topo::NodeId node) : ctx_(ctx), node_(node) {
  const auto& t = ctx.topology;
  const auto& ports = t.ports(node);
  ports_.resize(ports.size());
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const topo::Link& link = t.link(ports[i].link);
    const topo::Node& peer = t.node(ports[i].peer);
    OutputPort::Wire w;
    w.peer = ports[i].peer;  // LP id = node id
    w.peer_port = ports[i].peer_port;
    w.peer_is_host = peer.kind == topo::NodeKind::Host;
    w.bandwidth = link.bandwidth;
    w.latency = link.latency + (w.peer_is_host ? SimTime::zero() : peer.params.latency);
    ports_[i].connect(w);
  }
  wires_.resize(ports_.size());
}

namespace {
template <auto Handler, typename IsLocal>
void send_on(std::unique_ptr<pdes::ChannelBase>& wire, pdes::LogicalProcess& from, IsLocal&& is_local,
             pdes::LpId peer, SimTime delay, const Packet& p) {
  if (!wire) {
    auto channel = std::make_unique<pdes::Channel<Handler>>();
    channel->connect(peer, is_local(peer));
    wire = std::move(channel);
  }
  static_cast<pdes::Channel<Handler>*>(wire.get())->send(from, delay, p);
}
}  // namespace

void Device::put_on_wire(std::uint16_t port, Packet& p, SimTime start) {
  OutputPort& o = ports_[port];
  const OutputPort::Wire& w = o.wire();
  SimTime delay;
  if (p.bytes > ctx_.params.mtu_bytes) {
    delay = put_train_on_wire(o, p, start) - now() + w.latency;
  } else {
    delay = o.transmit(start, p.wire_bytes) - now() + w.latency;
  }
  if (o.down()) {
    ++o.stats().lost;  // the transmitter sends into a dead link
    return;
  }
  p.in_port = w.peer_port;
  ++p.hops;
  const auto local = [this](pdes::LpId peer) { return is_local(peer); };
  if (w.peer_is_host) {
    send_on<&Host::on_packet>(wires_[port], *this, local, w.peer, delay, p);
  } else {
    send_on<&Switch::on_packet>(wires_[port], *this, local, w.peer, delay, p);
  }
}

SimTime Device::put_train_on_wire(OutputPort& o, const Packet& p, SimTime start) {
  const std::uint32_t packets = p.bytes / ctx_.params.mtu_bytes;
  const std::uint32_t packet_wire = p.wire_bytes / packets;
  SimTime packet_time = SimTime::ps(o.wire().bandwidth.serialization_ps(packet_wire));
  // A train that came over a slower link leaves no faster than its packets arrive.
  if (p.hops > 0) {
    const auto in = SimTime::ps(ports_[p.in_port].wire().bandwidth.serialization_ps(packet_wire));
    packet_time = std::max(packet_time, in);
  }
  const SimTime last_bit = o.transmit_train(start, packet_wire, packets, packet_time);
  // A switch forwards each packet of the train once that packet is in (cut-through between
  // packets, store-and-forward within one): the train is there for it when its first packet
  // is. A host has the train's bytes when its last packet is.
  return o.wire().peer_is_host ? last_bit : start + packet_time;
}

void Device::put_into_train(std::uint16_t port, Packet p) {
  OutputPort& o = ports_[port];
  const OutputPort::Wire& w = o.wire();
  const SimTime delay = o.insert_into_train(now(), p.wire_bytes) - now() + w.latency;
  if (o.down()) {
    ++o.stats().lost;
    return;
  }
  p.in_port = w.peer_port;
  ++p.hops;
  // Not through the wire's channel: it overtakes the train's tail, which a host receives at
  // its last bit.
  deliver_to_peer(w, delay, p);
}

void Device::send_pfc(std::uint16_t port, std::uint8_t priority, bool pause) {
  if (ports_[port].down()) return;  // nobody is left upstream to pause or resume
  const OutputPort::Wire& w = ports_[port].wire();
  Packet p;
  p.kind = PacketKind::Pause;
  p.priority = priority;
  p.seq = pause ? 1 : 0;
  p.wire_bytes = ctx_.params.ack_bytes;
  p.in_port = w.peer_port;
  p.sent = now();
  deliver_to_peer(w, SimTime::ps(w.bandwidth.serialization_ps(p.wire_bytes)) + w.latency, p);
}

void Device::deliver_to_peer(const OutputPort::Wire& w, SimTime delay, const Packet& p) {
  if (w.peer_is_host) {
    schedule<&Host::on_packet>(w.peer, delay, p);
  } else {
    schedule<&Switch::on_packet>(w.peer, delay, p);
  }
}

}  // namespace collsim::net
