#pragma once
// The executor inside one host LP: the GOAL ranks placed on the host, their CPUs, their
// matching queues, and the messages between them and the transport.

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/execution.hpp"
#include "collsim/exec/match_queue.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/net/host_device.hpp"
#include "host_resources.hpp"

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

class GoalHostApp final : public net::HostApp {
 public:
  GoalHostApp(const goal::Schedule& schedule, const Placement& placement, const PacketHostParams& params,
              std::uint32_t host, bool record_op_times, bool record_flows = false);

  void start(net::Host& host) override;
  void on_timer(net::Host& host, std::uint64_t cookie) override;
  void on_delivered(net::Host& host, const net::FlowEnd& end) override;
  void on_acked(net::Host& host, const net::FlowEnd& end) override;

  // After the run.
  void summarise(std::vector<RankSummary>& out) const;
  void report_leftovers(std::vector<std::string>& blocked, std::vector<std::string>& unmatched) const;
  void append_op_times(std::vector<OpTime>& out) const;
  const std::vector<FlowStart>& flow_starts() const { return flow_starts_; }
  const std::vector<FlowArrival>& flow_arrivals() const { return flow_arrivals_; }
  // Ops finished so far on this host, for progress.
  std::uint64_t ops_done() const;

 private:
  // What a flow is, in the two bits above the sender's slot in its label.
  enum class Message : std::uint16_t { Eager = 0, Request = 1, ClearToSend = 2, Data = 3 };
  struct Arrival {
    goal::RankId sender;
    goal::LocalOp send_op;
    Message kind;
  };
  struct RankRuntime {
    RankRuntime(const goal::Schedule& s, goal::RankId r) : rank(r), ops(s.rank(r)), deps(ops) {}
    goal::RankId rank;
    goal::RankOps ops;
    DependencyTracker deps;
    MatchQueue<goal::LocalOp, Arrival> match;
    RankCpus cpus;
    std::unordered_map<std::uint64_t, goal::LocalOp> awaiting_data;  // (sender, send op) -> matched receive
    std::vector<std::uint8_t> matched;                               // receives: a message was matched
    std::vector<std::uint64_t> recv_bytes;                           // receives: the matched message's size
    std::vector<std::int64_t> start_ps, end_ps;                      // when recording
    std::int64_t finish_ps = 0;
    std::uint64_t ops_done = 0, messages = 0, bytes = 0;
  };

  static net::FlowLabel label(goal::LocalOp op, Message kind, std::uint32_t slot) {
    return {op, static_cast<std::uint16_t>((static_cast<std::uint16_t>(kind) << 14) | slot)};
  }
  void send_data(net::Host& host, std::uint32_t slot, goal::LocalOp op, std::uint32_t dst_host);
  void scale_up_timer(net::Host& host, HostTimer t, std::uint32_t slot, goal::LocalOp op);
  void became_ready(std::uint32_t slot, goal::LocalOp op) { ready_.push_back({slot, op}); }
  void drain(net::Host& host);
  void run_ready(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void want_cpu(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void use_cpu(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void start_op(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void finish_op(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void transmit(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void arrive(net::Host& host, std::uint32_t slot, const Arrival& a);
  void matched(net::Host& host, std::uint32_t slot, goal::LocalOp recv, const Arrival& a);
  std::string waits_for(const RankRuntime& rt, goal::LocalOp op) const;

  const goal::Schedule& schedule_;
  const Placement& placement_;
  const PacketHostParams& params_;
  std::uint32_t host_;
  bool record_;
  bool record_flows_;
  std::vector<FlowStart> flow_starts_;
  std::vector<FlowArrival> flow_arrivals_;
  std::vector<RankRuntime> ranks_;  // by slot
  struct Ready {
    std::uint32_t slot;
    goal::LocalOp op;
  };
  std::vector<Ready> ready_;
  bool draining_ = false;
  ScaleUpPort scale_up_;
};

}  // namespace collsim::exec
