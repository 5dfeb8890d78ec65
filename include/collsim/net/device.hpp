#pragma once
// What hosts and switches have in common: ports, and putting packets on wires.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "collsim/net/fabric_context.hpp"
#include "collsim/net/output_port.hpp"
#include "collsim/pdes/channel.hpp"
#include "collsim/pdes/logical_process.hpp"

namespace collsim::net {

// Payload of a device's "transmitter free" event.
struct PortWakeup {
  std::uint16_t port;
};

// Payload of a link's speed change at one of the device's ports.
struct PortSpeed {
  std::uint16_t port;
  Bandwidth bandwidth;
};

// Payload of a link going down or coming back up at one of the device's ports.
struct PortState {
  std::uint16_t port;
  bool down;
};

// Payload of the routes changing (FaultSchedule::epochs).
struct RoutesChange {
  std::uint32_t epoch;
};

class Device : public pdes::LogicalProcess {
 public:
  topo::NodeId node() const { return node_; }
  const std::vector<OutputPort>& ports() const { return ports_; }
  // The routes in force at this device now.
  const RoutingTable& routing() const { return ctx_.routes ? *(*ctx_.routes)[epoch_].table : ctx_.routing; }
  const PortChooser& chooser() const { return ctx_.routes ? *(*ctx_.routes)[epoch_].chooser : ctx_.chooser; }

 protected:
  Device(const FabricContext& ctx, topo::NodeId node);

  // Starts sending `p` on `port` at `start` (now unless given), when the transmitter must be
  // free. Schedules the packet's arrival at the other end: when its last bit is there. `p`
  // is stamped in place with its hop (in_port, hops): it goes as it is, without a copy.
  void put_on_wire(std::uint16_t port, Packet& p) { put_on_wire(port, p, now()); }
  void put_on_wire(std::uint16_t port, Packet& p, SimTime start);
  // A control frame (ACK, NACK, CNP) on `port` while a train is on its wire: it goes out at
  // the train's next packet boundary (see OutputPort::mid_train).
  void put_into_train(std::uint16_t port, Packet p);
  // A PFC frame goes out at once, ahead of queued data.
  void send_pfc(std::uint16_t port, std::uint8_t priority, bool pause);
  // `p` reaches the device at the other end of `w` after `delay`, bypassing the wire's channel.
  void deliver_to_peer(const OutputPort::Wire& w, SimTime delay, const Packet& p);
  // Plans the speed changes of the device's links (FabricContext::link_changes) as events
  // of `Handler` (the device class's set_port_speed); those at time 0 apply at once.
  template <auto Handler>
  void plan_link_changes() {
    if (!ctx_.link_changes) return;
    const auto& ports = ctx_.topology.ports(node_);
    for (const LinkChange& c : *ctx_.link_changes)
      for (std::size_t i = 0; i < ports.size(); ++i) {
        if (ports[i].link != c.link) continue;
        const PortSpeed s{static_cast<std::uint16_t>(i), c.bandwidth};
        if (c.at == SimTime::zero()) set_port_speed(s);
        else schedule<Handler>(id(), c.at - now(), s);
      }
  }
  void set_port_speed(const PortSpeed& s) { ports_[s.port].set_bandwidth(s.bandwidth); }
  // Plans the failures and repairs of the device's links and the changes of routes
  // (FabricContext::faults) as events of `LinkHandler` and `RoutesHandler` of `self` (this
  // device); those at time 0 apply at once.
  template <auto LinkHandler, auto RoutesHandler, typename Self>
  void plan_faults(Self& self) {
    if (!ctx_.faults) return;
    const auto& ports = ctx_.topology.ports(node_);
    for (const LinkStateChange& c : ctx_.faults->changes())
      for (std::size_t i = 0; i < ports.size(); ++i) {
        if (ports[i].link != c.link) continue;
        const PortState s{static_cast<std::uint16_t>(i), c.down};
        if (c.at == SimTime::zero()) (self.*LinkHandler)(s);
        else schedule<LinkHandler>(id(), c.at - now(), s);
      }
    const auto& epochs = ctx_.faults->epochs();
    for (std::uint32_t e = 1; e < epochs.size(); ++e) {
      if (epochs[e].from.is_infinite()) continue;
      if (epochs[e].from == SimTime::zero()) epoch_ = e;
      else schedule<RoutesHandler>(id(), epochs[e].from - now(), RoutesChange{e});
    }
  }
  void set_routes(const RoutesChange& c) { epoch_ = c.epoch; }
  // The `pick`-th (modulo their number) of `candidates` whose link is up, or kNoPort if none.
  static constexpr std::uint32_t kNoPort = 0xFFFFFFFFu;
  std::uint32_t live_port_among(std::span<const topo::PortIndex> candidates, std::uint64_t pick) const {
    std::uint32_t live = 0;
    for (const topo::PortIndex c : candidates) live += ports_[c].down() ? 0 : 1;
    if (live == 0) return kNoPort;
    pick %= live;
    for (const topo::PortIndex c : candidates)
      if (!ports_[c].down() && pick-- == 0) return c;
    return kNoPort;
  }
  // Whether a packet that arrived on `port` was lost on the way: its link is down.
  bool lost_on_arrival(std::uint16_t port) {
    if (!ports_[port].down()) return false;
    ++ports_[port].stats().lost;
    return true;
  }
  // Schedules this device's wakeup handler for when `port`'s transmitter frees, once.
  template <auto Wakeup>
  void wake_when_free(std::uint16_t port) {
    OutputPort& o = ports_[port];
    if (o.wakeup_pending()) return;
    o.set_wakeup_pending(true);
    schedule<Wakeup>(id(), o.busy_until() - now(), PortWakeup{port});
  }

  const FabricContext& ctx_;
  topo::NodeId node_;
  std::vector<OutputPort> ports_;
  std::uint32_t epoch_ = 0;  // of ctx_.routes

 private:
  // Transmits a train (a data packet carrying several MTU packets, see FabricParams::
  // train_bytes); returns when the next device has it.
  SimTime put_train_on_wire(OutputPort& o, const Packet& p, SimTime start);
  // The wire of each port as a channel to the peer's packet handler: a link keeps its
  // in-flight packets itself, and only the first is an event. Made on first use, when the
  // peer's rank is known.
  std::vector<std::unique_ptr<pdes::ChannelBase>> wires_;
};

}  // namespace collsim::net
