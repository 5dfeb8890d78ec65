#pragma once
// A packet switch: output-queued, store-and-forward, with a shared (or per-port) buffer,
// strict-priority classes, ECN marking at enqueue (Kmin/Kmax/Pmax), and either PFC toward
// the upstream port of each ingress (lossless) or tail drop (lossy). Its forwarding latency
// is added to the latency of the links that lead into it.
//
// An egress scheduler picks the next packet before the frame on the wire has ended, so that
// frames leave back to back: a packet that finds its port's queue empty and the frame on the
// wire with at most `arbitration_lead_bytes` (two control frames) left is committed at once,
// to start when the wire frees. A pause or a higher-priority packet that arrives in those
// last few ns then takes effect after it, well within the response time PFC allows. This
// spares the "transmitter free" event of most packets of a line-rate stream that ACKs have
// shifted by a few ns.

#include <array>
#include <cstdint>
#include <vector>

#include "collsim/net/device.hpp"

namespace collsim::net {

struct SwitchStats {
  std::uint64_t packets = 0;            // forwarded
  std::uint64_t drops = 0;
  std::uint64_t drops_despite_pfc = 0;  // lossless mode ran out of buffer: PFC thresholds too high
  std::uint64_t ecn_marks = 0;
  std::uint64_t pauses_sent = 0;
  std::uint64_t max_buffered_bytes = 0;
  std::uint64_t unroutable = 0;         // packets with no live way toward their destination (see LinkFault)
};

class Switch final : public Device {
 public:
  Switch(const FabricContext& ctx, topo::NodeId node);

  void on_packet(const Packet& p);
  void on_port_free(const PortWakeup& w);

  const SwitchStats& stats() const { return stats_; }
  std::uint64_t buffered_bytes() const { return buffered_; }
  // Ingress port and class whose upstream is paused by this switch.
  bool pausing(std::uint16_t port, std::uint8_t priority) const { return upstream_paused_[port][priority]; }
  // For every ingress port still pausing its upstream: the output ports holding packets that
  // came in through it and cannot leave because they are paused themselves.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> blocked_ingress() const;

  void start() override {
    plan_link_changes<&Switch::on_port_speed>();
    plan_faults<&Switch::on_link_state, &Switch::on_routes>(*this);
  }
  // One of the switch's links changes speed (FabricOptions::link_changes).
  void on_port_speed(const PortSpeed& s) { set_port_speed(s); }
  // One of the switch's links goes down (what is queued for it is lost) or comes back.
  void on_link_state(const PortState& s);
  void on_routes(const RoutesChange& c) { set_routes(c); }
  // A parallel run's promises: a switch of a sealed island only carries packets between hosts
  // of this rank, whose schedules cover what they lead to (see SealedIslands).
  SimTime output_bound(const pdes::EventBody& event, SimTime at) const override;

  using Handlers = pdes::Handlers<&Switch::on_packet, &Switch::on_port_free, &Switch::on_port_speed,
                                  &Switch::on_link_state, &Switch::on_routes>;

 private:
  bool admit(const OutputPort& out, std::uint32_t wire_bytes) const;
  // A packet arriving for `o` would wait behind more than control frames.
  bool waits_behind_data(const OutputPort& o) const;
  bool ecn_mark(const OutputPort& out, std::uint8_t priority);
  void try_transmit(std::uint16_t port);
  // The next packet of `o`'s queues (there is one), out of the buffer and ingress accounting.
  Packet take_next(OutputPort& o);
  // Takes `p`, which left its queue, out of the buffer and its ingress's accounting.
  void release(const Packet& p);
  // The port `p` leaves on while links are down: the routes' choice or, when that port's
  // link is dead, another shortest-path port (an ECMP group drops dead members at once);
  // kNoPort when no live port leads toward its destination.
  std::uint32_t live_port(Packet& p);

  const topo::SwitchParams& params_;
  std::uint64_t buffered_ = 0;
  std::uint64_t per_port_buffer_ = 0;
  std::vector<std::array<std::uint64_t, kMaxClasses>> ingress_bytes_;  // per ingress port and class
  // Trains are on and a wait unsettles a flow (FabricParams::trains_through_queues off): mark
  // data packets that wait (kQueued).
  bool marks_waits_;
  std::vector<std::array<bool, kMaxClasses>> upstream_paused_;
  std::vector<SimTime> arbitration_lead_;  // per port: arbitration_lead_bytes on its wire
  SwitchStats stats_;
};

}  // namespace collsim::net
