#pragma once
// The GOAL executor inside one host LP: the ranks placed on the host, their cpus and matching
// queues, and their messages, over an op store (ScheduleOps: a whole schedule; StreamedOps: one
// that arrives in pieces), the same code and so the same results for both.
//
// It talks to the network through its typed interface only: it sends messages with a header
// (net::MessageHeader) and hears them delivered at the receiver and acknowledged at the sender,
// whatever model carries them; its own timers are typed records (HostTimer) kept under the
// number the network hands back. A receiver learns from a message's header the sender's slot,
// its own slot and the tag; a rendezvous is named by its request's number at the sender, which
// the clear-to-send and the data echo.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/common/flat_map.hpp"
#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/execution.hpp"
#include "collsim/exec/match_queue.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/net/host_device.hpp"
#include "host_resources.hpp"
#include "op_frontier.hpp"
#include "op_info.hpp"
#include "timer_table.hpp"

namespace collsim::exec {

struct RankSummary {
  goal::RankId rank;
  std::uint32_t complete;  // 1 when every op finished
  std::int64_t finish_ps;
  std::uint64_t ops_done;
  std::uint64_t messages;
  std::uint64_t bytes;
};

// The two halves of a MessageFlow, each seen by one host: joined on (src_host, flow) after
// the run.
struct FlowStart {
  std::uint32_t src_host;
  std::uint32_t dst_host;
  std::uint64_t flow;
  std::uint64_t bytes;
  std::int64_t start_ps;
};
struct FlowArrival {
  std::uint32_t src_host;
  std::uint64_t flow;
  std::int64_t end_ps;
};

// An executor's timer: a cpu's op is done, or a step of a scale-up message (see ScaleUpPort).
struct HostTimer {
  enum class Kind : std::uint8_t { Cpu, NoticeStart, SendDone, DataIn };
  Kind kind;
  std::uint32_t slot;
  goal::LocalOp op;
  net::FlowId request = 0;  // NoticeStart: the rendezvous the notice belongs to
};

template <typename Store>
class HostExecutor final : public net::HostApp {
 public:
  // Throws std::invalid_argument when the host runs more ranks than a header can name.
  HostExecutor(Store& store, const Placement& placement, const PacketHostParams& params, std::uint32_t host,
               bool record_flows = false);

  void start(net::Host& host) override;
  void on_timer(net::Host& host, std::uint64_t timer) override;
  void on_delivered(net::Host& host, const net::FlowEnd& end) override;
  void on_acked(net::Host& host, const net::FlowEnd& end) override;
  // From each rank's ops that may start or run: the earliest any op that talks to another
  // simulator rank's part of the fabric could start (Dijkstra over the dependents, counting
  // only the calcs' durations as time that must pass), or an op of a piece that later pieces
  // may follow.
  SimTime earliest_open_send(const net::Host& host, SimTime floor, SimTime cap) const override;

  // After the run.
  void summarise(std::vector<RankSummary>& out) const;
  // Ops that never finished, and messages nobody received, one line each.
  void report_leftovers(std::vector<std::string>& blocked, std::vector<std::string>& unmatched);
  const std::vector<FlowStart>& flow_starts() const { return flow_starts_; }
  const std::vector<FlowArrival>& flow_arrivals() const { return flow_arrivals_; }
  // Ops finished so far on this host, for progress.
  std::uint64_t ops_done() const;

 private:
  using Kind = net::MessageKind;
  struct Arrival {
    goal::RankId sender;
    Kind kind;
    std::uint32_t tag;       // the send's
    std::uint64_t bytes;     // eager: the message's size
    std::uint32_t src_host;  // request: with `flow`, what the clear-to-send names
    net::FlowId flow;
  };
  struct RankRuntime {
    goal::RankId rank;
    MatchQueue<goal::LocalOp, Arrival> match;
    RankCpus cpus;
    common::FlatMap<std::uint64_t> recv_bytes{8};  // matched receives (by op): the message's size
    std::int64_t finish_ps = 0;
    std::uint64_t ops_done = 0, messages = 0, bytes = 0;
    std::uint64_t calcs = 0;  // calcs run so far (for params_.compute's draws)
  };
  struct OpRef {
    std::uint32_t slot;
    goal::LocalOp op;
  };
  // A rendezvous as its receiver knows it: the sender's host and its request's number.
  static std::uint64_t request_key(std::uint32_t host, net::FlowId flow) { return (std::uint64_t{host} << 32) | flow; }

  net::MessageHeader header(Kind kind, std::uint32_t tag, std::uint32_t from_slot, std::uint32_t to_slot) const {
    net::MessageHeader h;
    h.tag = tag;
    h.kind = kind;
    h.sender_slot = from_slot;
    h.receiver_slot = to_slot;
    return h;
  }
  void set_timer(net::Host& host, std::int64_t delay_ps, const HostTimer& t) {
    host.set_timer(SimTime::ps(delay_ps), timers_.add(t));
  }
  void send_data(net::Host& host, std::uint32_t slot, goal::LocalOp op, std::uint32_t dst_host, net::FlowId request);
  void scale_up_timer(net::Host& host, const HostTimer& t);
  void became_ready(std::uint32_t slot, goal::LocalOp op) {
    ready_.push_back({slot, op});
    if (track_) frontier_[slot].add(op);
  }
  void track(std::uint32_t slot, goal::LocalOp op, OpFrontier::Stage stage, std::int64_t done_ps = 0) {
    if (track_) frontier_[slot].set(op, stage, done_ps);
  }
  // Whether `peer` runs on a host beyond this simulator rank's sealed part of the fabric, and
  // whether op `info` of a rank talks to such a host (a receive from anyone may).
  bool beyond(const net::Host& host, goal::RankId peer) const;
  bool open(const net::Host& host, const OpInfo& info) const;
  void drain(net::Host& host);
  void run_ready(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void want_cpu(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void use_cpu(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void start_op(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void finish_op(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void transmit(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void arrive(net::Host& host, std::uint32_t slot, const Arrival& a);
  void matched(net::Host& host, std::uint32_t slot, goal::LocalOp recv, const Arrival& a);
  std::string why_unfinished(const RankRuntime& rt, goal::LocalOp i, const goal::Op& op, OpState state) const;

  Store& store_;
  const Placement& placement_;
  const PacketHostParams& params_;
  std::uint32_t host_;
  bool record_flows_;
  std::vector<FlowStart> flow_starts_;
  std::vector<FlowArrival> flow_arrivals_;
  std::vector<RankRuntime> ranks_;  // by slot
  bool track_ = false;                // the run has several ranks: keep frontier_
  std::vector<OpFrontier> frontier_;  // by slot
  std::vector<OpRef> ready_;
  bool draining_ = false;
  TimerTable<HostTimer> timers_;
  // A send is named by its messages: its request until cleared to send, its eager or data
  // message until acknowledged.
  common::FlatMap<OpRef> requests_;
  common::FlatMap<OpRef> sending_;
  common::FlatMap<OpRef> awaiting_data_;  // rendezvous (request_key) -> our receive
  ScaleUpPort scale_up_;
};

class ScheduleOps;
class StreamedOps;
extern template class HostExecutor<ScheduleOps>;
extern template class HostExecutor<StreamedOps>;

}  // namespace collsim::exec
