#pragma once
// The flow model of one flow domain (see fidelity.hpp), as one LP in the place of the domain's
// home switch: every message whose first link is in the domain is a fluid that crosses its
// path at its max-min fair share of the links (MaxMinRates), re-rated whenever the set of
// messages on a connected part of the domain changes. Events per message, not per packet.
//
// Timing, for a message of N packets from its sender's start t0 (each packet carries the
// fabric's header, as in packet mode):
//   - the domain hears of it one first-link latency after t0 (the sender's LP may be on
//     another rank), and from then it takes its share;
//   - alone on its path, its last byte reaches the receiver exactly when it would as packets:
//     the train of its packets through the slowest link, plus what the other links and the
//     latencies add to it (the first packets filling the pipeline, the last one draining it),
//     computed packet by packet for the path's store-and-forward hops; under contention the
//     train runs at the message's share instead, with the same addition;
//   - the sender hears that its message was acknowledged when an ACK would: one control
//     frame back over the same links, serialised and delayed at each; the ACK holds the
//     receiver's link for its serialisation, so a message the receiver starts then (a
//     clear-to-send, the data answering one) leaves after it;
//   - messages of one queue pair take their shares one after the other: the next one starts
//     when the one before has crossed its slowest link.
// What it leaves out on purpose: queues (no queueing delay, no ECN, PFC or drops), congestion
// control and transport dynamics, and packet interleaving below a message. Routing is the
// message's ECMP (or rail, or dimension-order) path, one path per message.

#include <cstdint>
#include <queue>
#include <tuple>
#include <vector>

#include "collsim/common/flat_map.hpp"
#include "collsim/net/fabric_context.hpp"
#include "collsim/net/fidelity.hpp"
#include "collsim/net/max_min_rates.hpp"
#include "collsim/net/message.hpp"
#include "collsim/pdes/logical_process.hpp"

namespace collsim::net {

// Payloads of the flow model's events.
struct FluidStart {         // sender -> domain
  SimTime start;      // when the sender started it
  std::uint64_t bytes;
  MessageHeader header;
  FlowId flow;
  HostIndex src;
  HostIndex dst;
  FlowId after;             // the message before it on its queue pair, or kNoFlow
  std::uint32_t entropy;    // its routing hash
  std::uint16_t port;       // the sender's port it leaves on
};
struct FluidDelivered {     // domain -> receiver
  SimTime first;      // when its first byte arrived
  std::uint64_t bytes;
  MessageHeader header;
  HostIndex src;
  FlowId flow;
};
struct FluidAcked {         // domain -> sender
  FlowId flow;
};
inline constexpr FlowId kNoFlow = 0xFFFFFFFFu;

struct FlowDomainStats {
  std::uint64_t messages = 0;       // carried to their receivers
  std::uint64_t rate_changes = 0;   // messages re-rated by a change of the set of messages
  std::uint64_t solves = 0;         // times the rates were recomputed
};

class FlowDomain final : public pdes::LogicalProcess {
 public:
  FlowDomain(const FabricContext& ctx, std::uint32_t domain);

  void on_start(const FluidStart& s);
  void on_settle();
  void on_wakeup();

  const FlowDomainStats& stats() const { return stats_; }
  // A parallel run's promises: a sealed domain carries messages between hosts of this rank
  // only, whose schedules cover what they lead to (see SealedIslands).
  SimTime output_bound(const pdes::EventBody& event, SimTime at) const override;
  // Wire bytes that crossed each of the domain's link directions (direction_slot, bytes).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> link_bytes() const;

  using Handlers = pdes::Handlers<&FlowDomain::on_start, &FlowDomain::on_settle, &FlowDomain::on_wakeup>;

 private:
  using Ref = std::uint32_t;
  static constexpr Ref kNone = 0xFFFFFFFFu;
  struct Hop {
    std::uint32_t link;        // the domain's index of the link direction
    std::uint32_t reverse;     // and of the other direction
    Bandwidth bandwidth;
    SimTime latency;     // propagation, plus the next switch's latency
    SimTime back;        // the same link the other way
  };
  struct Message {
    HostIndex src = 0, dst = 0;
    FlowId id = 0;
    MessageHeader header;
    std::uint64_t bytes = 0;
    std::uint32_t packets = 1;
    std::uint32_t full_wire = 0, last_wire = 0;  // wire bytes of a full packet and of the last
    std::vector<std::uint32_t> path;              // link directions, the domain's indices
    std::uint32_t ack_link = 0;                   // the direction its ACK leaves the receiver on
    std::int64_t deliver_after_ps = 0;  // from the end of its train to its last byte at the receiver
    std::int64_t min_deliver_after_ps = 0;  // the last link's latency: no sooner than that
    std::int64_t ack_after_ps = 0;      // from the end of its train to the sender hearing the ACK
    std::int64_t first_after_ps = 0;    // from the start of its train to its first byte at the receiver
    MaxMinRates::FlowIndex fluid = 0;
    bool running = false;
    double rate = 0;             // bits per second
    double left = 1;             // share of its train still to cross
    SimTime since;         // when `left` was last brought up to date
    SimTime started;       // when its train started
    SimTime done_at;
    std::uint32_t version = 0;   // of done_at: older completions in the heap are stale
    Ref behind = kNone;          // the next message of its queue pair, waiting for it
  };
  struct LinkDirection {
    std::uint64_t slot;          // direction_slot
    std::uint64_t bytes = 0;
    // A host's link: when the ACK it sends last occupies it. A message the host starts
    // meanwhile leaves after it, as a packet would wait behind it.
    SimTime ack_from, ack_until;
    Bandwidth bandwidth;
  };

  // The message's path from the sender's port to its receiver, with its hops' rates and
  // latencies; throws if it leaves the domain.
  void route(const FluidStart& s, std::vector<Hop>& hops) const;
  std::uint32_t direction_index(topo::LinkId link, topo::NodeId from) const;
  void time_it(Message& m, const std::vector<Hop>& hops) const;
  // Ps its train takes at `rate` bits per second.
  double train_ps(const Message& m, double rate) const;
  void begin(Ref r);
  void end(Ref r);
  void rerate();
  void arm();
  void stagger();

  const FabricContext& ctx_;
  std::uint32_t domain_;
  std::vector<LinkDirection> directions_;
  MaxMinRates rates_;
  std::vector<Message> messages_;
  std::vector<Ref> free_;
  std::vector<Ref> of_fluid_;   // by MaxMinRates flow index: the message
  // Messages not yet through their train, by (sender, id): what a queue pair waits for.
  common::FlatMap<Ref> crossing_;
  using Due = std::tuple<std::int64_t, HostIndex, FlowId, Ref, std::uint32_t>;  // time, src, id, message, version
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  SimTime wakeup_ = SimTime::infinity();  // the earliest wakeup pending
  std::vector<Ref> ending_;  // messages whose trains end now
  bool settle_pending_ = false;  // messages started now wait for one rating
  std::vector<Hop> hops_;        // scratch of on_start()
  FlowDomainStats stats_;
};

}  // namespace collsim::net
