#pragma once
// A host (a GPU or server) with its NIC port(s) and the transport above them: messages
// ("flows") become MTU packets; the receiver acknowledges them (cumulative ACKs, echoing
// send times and ECN marks, CNPs for DCQCN, NACKs in lossy mode); the sender obeys its
// congestion control and retransmits after a timeout or a NACK (go-back-N). On each port,
// control packets go first, then active flows take turns packet by packet, except that
// flows of one queue pair leave one after the other.
//
// What runs above the transport (the flow driver, later the GOAL executor) is a HostApp in
// the same LP: it starts flows, sets timers, and hears when flows are delivered and acked.

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "collsim/common/flat_map.hpp"
#include "collsim/net/congestion_control.hpp"
#include "collsim/net/device.hpp"
#include "collsim/net/flow_domain.hpp"
#include "collsim/net/message.hpp"
#include "collsim/net/receiver_table.hpp"

namespace collsim::net {

class Host;

// Names a sequence of flows that leave in the order they were started, as the messages of
// one RDMA queue pair (or NCCL connection) do: a flow waits until the flow started before it
// on the same queue pair has sent all its packets. The default names none: such a flow takes
// turns with every other flow from the start.
struct QueuePair {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  bool operator==(const QueuePair&) const = default;
  bool none() const { return hi == 0 && lo == 0; }
};
// For common::FlatMap: a queue pair's two words folded into one.
inline std::uint64_t key_bits(const QueuePair& q) { return q.hi * 0x9E3779B97F4A7C15ull ^ q.lo; }

struct FlowEnd {
  HostIndex src = 0;
  HostIndex dst = 0;
  FlowId flow = 0;        // the sender's number for it (0, 1, ... per sender)
  std::uint64_t bytes = 0;
  SimTime start;    // sender: start_flow(); receiver: first packet's arrival
  SimTime end;      // receiver: last byte arrived; sender: last byte acknowledged
  std::uint64_t retransmits = 0;  // sender only
  MessageHeader header;           // what the sender attached to the flow
};

// What runs above the network on a host: it sends messages (Host::start_flow) and sets timers
// (Host::set_timer), and hears of them here.
class HostApp {
 public:
  virtual ~HostApp() = default;
  virtual void start(Host&) {}
  // `timer`: the number the application gave it in Host::set_timer.
  virtual void on_timer(Host&, std::uint64_t /*timer*/) {}
  virtual void on_delivered(Host&, const FlowEnd&) {}  // at the receiver: the last byte arrived
  virtual void on_acked(Host&, const FlowEnd&) {}      // at the sender: the last byte was acknowledged
  // For a parallel run's promises (pdes::LogicalProcess::state_output_bound): the earliest time
  // the application could start a message that Host::sealed_toward() does not keep inside
  // this rank, given that the host handles no event before `floor` from now on (timers and
  // messages included). Anything at least `cap` may be answered for "not before cap". The
  // default knows nothing of what comes next: `floor`.
  virtual SimTime earliest_open_send(const Host&, SimTime floor, SimTime /*cap*/) const { return floor; }
};

struct HostStats {
  std::uint64_t flows_started = 0;
  std::uint64_t flows_acked = 0;
  std::uint64_t flows_delivered = 0;
  std::uint64_t bytes_delivered = 0;  // payload of complete flows received
  std::uint64_t data_packets = 0;     // sent, retransmissions included
  std::uint64_t packets_in_trains = 0;  // of those, sent inside trains (FabricParams::train_bytes)
  std::uint64_t retransmits = 0;      // data packets sent more than once
  std::uint64_t flows_resent = 0;     // flows that sent a packet more than once
  std::uint64_t timeouts = 0;
  std::uint64_t acks = 0;
  std::uint64_t nacks = 0;
  std::uint64_t cnps = 0;
  std::uint64_t ecn_marked_received = 0;
  std::uint64_t flows_given_up = 0;   // destination cut off for good (see LinkFault)
};

// Payloads of the host's events.
struct FlowTimer {
  std::uint32_t flow;
  std::uint32_t generation;
  std::uint8_t kind;  // 0: retransmission timeout, 1: congestion control
};
struct AppTimer {
  std::uint64_t timer;
};

namespace detail {

// A flow at its sender.
struct Sender {
  FlowId id = 0;
  HostIndex dst = 0;
  std::uint64_t bytes = 0;
  std::uint32_t packets = 0;
  std::uint32_t next_seq = 0;      // next packet to send
  std::uint32_t acked = 0;         // every packet below this was acknowledged
  std::uint32_t highest_sent = 0;  // packets below this were sent at least once
  std::uint32_t settle_seq = 0;    // trains may start from this packet on (see FabricParams::train_bytes)
  std::uint32_t turns_owed = 0;    // its port's turns it passes on, having sent a train
  std::uint16_t port = 0;
  std::uint8_t priority = 0;
  bool active = false;             // in its port's turn list
  bool queued = false;             // waits for the flow before it on its queue pair
  bool done = false;
  bool fluid = false;              // carried by a flow domain, not as packets
  bool windowed = false;           // its congestion control bounds the bytes in flight
  bool adapts = false;             // its congestion control paces it or moves its window
  FlowId behind = 0xFFFFFFFFu;     // the next flow of its queue pair, if any
  MessageHeader header;
  std::uint32_t entropy = 0;
  SimTime start;
  SimTime next_send;         // pacing
  SimTime last_progress;     // last time `acked` advanced (or the flow started)
  std::uint32_t rto_generation = 0;
  bool rto_pending = false;
  std::uint32_t cc_generation = 0;
  SimTime cc_timer_at = SimTime::infinity();
  std::uint64_t retransmits = 0;
  QueuePair queue_pair;
  std::unique_ptr<CongestionControl> cc;  // released once done
};

// A flow at its receiver.
struct Receiver {
  std::vector<std::uint64_t> got;  // packets received at or beyond `expected` (a bitmap by seq)
  std::uint32_t expected = 0;      // first packet not yet received
  std::uint32_t total = 0;         // packets in the flow, known once the last one arrived
  std::uint32_t count = 0;         // distinct packets received
  std::uint32_t since_ack = 0;
  bool marked_since_ack = false;   // an ECN mark the next (coalesced) ACK must echo
  bool queued_since_ack = false;   // a packet that waited at a switch (kQueued), to echo
  std::uint32_t nacked = 0xFFFFFFFFu;  // `expected` at the last NACK
  std::uint64_t bytes = 0;
  MessageHeader header;
  SimTime first;
  SimTime last_cnp = SimTime::ps(-1);
  bool delivered = false;
  // The port its ACKs, NACKs and CNPs leave by, chosen once per routes epoch (every control
  // packet of a flow hashes alike).
  std::uint32_t control_epoch = 0xFFFFFFFFu;
  std::uint16_t control_port = 0;

  // Whether packet `seq` is the next in order with nothing held beyond it: it extends the
  // prefix, which needs no bit.
  bool extends_prefix(std::uint32_t seq) const { return seq == expected && count == expected; }
  // The next `packets` in order arrived (extends_prefix held for the first).
  void extend_prefix(std::uint32_t packets, std::uint64_t payload) {
    count += packets;
    expected += packets;
    bytes += payload;
  }
  bool holds(std::uint32_t seq) const {
    return seq < expected || (seq / 64 < got.size() && ((got[seq / 64] >> (seq % 64)) & 1) != 0);
  }
};

}  // namespace detail

class Host final : public Device {
 public:
  Host(const FabricContext& ctx, topo::NodeId node, std::unique_ptr<HostApp> app);
  ~Host() override;

  // For the application.
  HostIndex index() const { return index_; }
  SimTime time() const { return now(); }
  // `nic`: which of the host's ports that lead toward `dst` to use (modulo their number), or
  // kAnyNic to let the routing hash choose. A GPU's NVLink port leads only to its own server
  // and its NIC only to the others, so a GOAL op's `nic` can never send a message astray.
  static constexpr std::uint32_t kAnyNic = 0xFFFFFFFFu;
  FlowId start_flow(HostIndex dst, std::uint64_t bytes, std::uint8_t priority = 0, MessageHeader header = {},
                    std::uint32_t nic = kAnyNic, QueuePair queue_pair = {});
  std::size_t num_nics() const { return ports_.size(); }
  // The application hears `timer` back in HostApp::on_timer after `delay`.
  void set_timer(SimTime delay, std::uint64_t timer);
  HostApp& app() { return *app_; }
  // Whether a message to `dst` stays inside this rank's part of the fabric, whatever port it
  // takes (see SealedIslands): false when nothing is known to (one rank, links that fail).
  bool sealed_toward(HostIndex dst) const;
  // Whether the run has several ranks, so that sealed_toward() and the promises matter.
  bool promises_matter() const { return !distance_to_other_ranks().is_infinite(); }

  // A parallel run's promises: events on sealed ports, and the application's timers, answer
  // infinity here; the application's earliest_open_send() covers what they lead to.
  SimTime output_bound(const pdes::EventBody& event, SimTime at) const override;
  SimTime state_output_bound(SimTime floor, SimTime cap) const override;
  bool has_state_output() const override { return ctx_.sealed != nullptr; }

  const HostStats& stats() const { return stats_; }
  // Flows whose data is not all acknowledged.
  std::uint64_t open_flows() const { return stats_.flows_started - stats_.flows_acked; }
  // Flow states held (senders and receivers): what a long run's memory grows with.
  std::size_t flow_states() const { return senders_.size() + receivers_.size(); }

  void start() override;
  void on_packet(const Packet& p);
  // Takes a data packet before its time when that changes nothing (see pdes::TakesEarly): in
  // order, in the middle of its flow, unmarked, not due an ACK. Routing that keeps a flow on
  // one path brings all its packets over this one wire, in order, so nothing but the next
  // packet behind it can read what it changes.
  bool take_early(const Packet& p);
  void on_port_free(const PortWakeup& w);
  void on_flow_timer(const FlowTimer& t);
  void on_app_timer(const AppTimer& t);
  // A flow domain carried a message of this host's to its receiver, or one to this host.
  void on_fluid_acked(const FluidAcked& a);
  void on_fluid_delivered(const FluidDelivered& d);

  // One of the host's links changes speed (FabricOptions::link_changes).
  void on_port_speed(const PortSpeed& s) { set_port_speed(s); }
  // One of the host's links goes down (its control frames waiting there are lost) or comes back.
  void on_link_state(const PortState& s);
  void on_routes(const RoutesChange& c) { set_routes(c); }
  // Messages this host gave up sending: their destination was cut off for good.
  const std::vector<FlowEnd>& given_up() const { return given_up_; }

  using Handlers = pdes::Handlers<&Host::on_packet, &Host::on_port_free, &Host::on_flow_timer, &Host::on_app_timer,
                                  &Host::on_fluid_acked, &Host::on_fluid_delivered, &Host::on_port_speed,
                                  &Host::on_link_state, &Host::on_routes>;

 private:
  using Sender = detail::Sender;
  using Receiver = detail::Receiver;
  struct NicQueues {
    RingQueue<Packet> control;
    // Flows with packets to send, in turn order. senders_ is a deque: a flow stays where it is
    // while flows start behind it and leave before it.
    std::vector<Sender*> active;
    std::size_t turn = 0;
    SimTime wakeup_at = SimTime::infinity();
  };

  std::uint16_t port_toward(HostIndex dst, std::uint64_t salt, std::uint32_t nic = kAnyNic) const;
  // Whether every route toward `dst` leaves by a port into a sealed island (not yet checking
  // that port's own island the strict way: see port_sealed_).
  bool routes_sealed(HostIndex dst) const;
  void find_sealed_ports();
  // Hands flow `f` (just started, leaving on a flow link) to its domain; `after` is the flow
  // before it on its queue pair.
  void start_fluid(Sender& f, std::uint32_t domain, FlowId after);
  void activate(std::uint32_t flow);
  // Lets the flow queued behind `f` (which has sent its last packet) take its turns.
  void release_next(Sender& f);
  void try_transmit(std::uint16_t port);
  void send_data(Sender& f);
  // Sends control packet `p` of the flow `r` receives from host `to`. `count`: control frames
  // it stands for (ACKs a train drew), sent back to back as one.
  void send_control(Receiver& r, HostIndex to, Packet p, std::uint32_t count = 1);
  // Acknowledges every packet of `data`'s flow (received in `r`) below `cumulative`.
  // `queued`: echo kQueued (a packet it covers waited at a switch).
  void send_ack(Receiver& r, const Packet& data, std::uint32_t cumulative, bool ecn_echo, std::uint32_t count = 1,
                bool queued = false);
  void receive_data(const Packet& p);
  void receive_ack(const Packet& p);
  void receive_nack(const Packet& p);
  void receive_cnp(const Packet& p);
  void arm_rto(std::uint32_t flow);
  void arm_cc_timer(Sender& f);
  void wake_at(std::uint16_t port, SimTime when);
  std::uint64_t in_flight_bytes(const Sender& f) const;
  // Whether `f` has a window and it is full.
  bool window_full(const Sender& f) const;
  // Whether `f` has settled and has more than a train left to send.
  bool may_train(const Sender& f) const;
  // MTU packets the next data packet of `f` carries: a train once the flow and every other
  // flow of its port have settled.
  std::uint32_t next_train(const Sender& f) const;
  // The flow's sending changed: it sends packet by packet until it has settled again.
  void unsettle(Sender& f) const { f.settle_seq = f.next_seq + ctx_.params.settle_packets; }
  // Runs a congestion-control callback and unsettles the flow if it slowed it down.
  template <typename Update>
  void update_cc(Sender& f, Update&& update);

  HostIndex index_;
  std::unique_ptr<HostApp> app_;
  // By port: it leads into a sealed island, and every route toward the island's hosts leaves
  // by such a port, so that nothing arriving on it comes from, or answers to, anywhere else.
  std::vector<bool> port_sealed_;
  mutable common::FlatMap<bool> sealed_toward_;  // by destination host, as found
  std::vector<NicQueues> nic_;
  // Flows by id from senders_base_ on; a run of done flows at the front leaves (a long run
  // starts millions of flows per host). A deque keeps references as flows come and go.
  std::deque<Sender> senders_;
  FlowId senders_base_ = 0;
  bool holds_sender(FlowId id) const { return id >= senders_base_ && id - senders_base_ < senders_.size(); }
  Sender* sender(FlowId id) { return holds_sender(id) ? &senders_[id - senders_base_] : nullptr; }
  const Sender* sender(FlowId id) const { return holds_sender(id) ? &senders_[id - senders_base_] : nullptr; }
  void retire_done_flows();
  // Takes `f` out of its port's turns.
  void deactivate(Sender& f);
  // `f`'s port is down: it goes on from another of the host's ports toward its destination
  // that the routes in force offer and that is up, if there is one (a NIC's failover).
  void move_to_live_port(Sender& f);
  // Whether `f`'s destination is out of reach and no fault or route change is to come.
  bool cut_off(const Sender& f) const;
  void give_up(Sender& f);
  std::vector<FlowEnd> given_up_;
  // A flow's receiver leaves once delivered when the fabric is lossless (nothing of it can
  // come again); otherwise it stays to acknowledge late duplicates.
  detail::ReceiverTable<Receiver> receivers_;
  // Packets of one flow come in runs: the receiver of the last data packet, looked up once.
  std::uint64_t last_receiver_key_ = ~std::uint64_t{0};
  Receiver* last_receiver_ = nullptr;
  Receiver& receiver_of(const Packet& p);
  common::FlatMap<FlowId, QueuePair> queue_tail_;  // the last flow started on each
  HostStats stats_;
  bool one_wire_in_;  // every flow's packets reach this host over one wire (per-flow routing, or one port)
  std::uint32_t train_packets_;  // packets in a full train; 1: trains off
  // A flow's last packets go one by one, as they would without trains: the last train leaves
  // at least this many after it (kTrainTailPackets, or fewer if trains are shorter). Through
  // queues, where a flow's end is no longer exact anyway, only its last packet.
  static constexpr std::uint32_t kTrainTailPackets = 15;
  std::uint32_t tail_packets_;
  // Nothing is ever lost (PFC, no failing links): no timeouts, no NACKs, and a receiver
  // leaves once its flow is delivered.
  bool lossless_transport_;
  SimTime rto_;  // the fabric's, lossy or lossless
};

}  // namespace collsim::net
