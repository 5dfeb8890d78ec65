#pragma once
// The executor inside one host LP for a schedule that arrives in pieces (see
// run_stream_on_fabric): GoalHostApp's model, op for op, over a window of the ops in flight
// (OpWindows) instead of the whole schedule. A simulator rank holds only its own ranks'
// ops, so what a receiver needs to know of a message travels in the flow's label: the
// tag, the sender's and the receiver's slots on their hosts; a rendezvous is named by its
// request's flow number, which the clear-to-send and the data echo.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collsim/exec/execution.hpp"
#include "collsim/exec/fabric_executor.hpp"
#include "collsim/exec/match_queue.hpp"
#include "collsim/exec/placement.hpp"
#include "collsim/net/host_device.hpp"
#include "goal_host_app.hpp"
#include "host_resources.hpp"
#include "op_windows.hpp"

namespace collsim::exec {

class StreamHostApp final : public net::HostApp {
 public:
  static constexpr std::uint32_t kMaxRanksPerHost = kMaxStreamedRanksPerHost;  // 7 bits of the label

  StreamHostApp(OpWindows& windows, const Placement& placement, const PacketHostParams& params, std::uint32_t host);

  void start(net::Host& host) override;
  void on_timer(net::Host& host, std::uint64_t cookie) override;
  void on_delivered(net::Host& host, const net::FlowEnd& end) override;
  void on_acked(net::Host& host, const net::FlowEnd& end) override;

  // After the run.
  void summarise(std::vector<RankSummary>& out) const;
  // Blocked ops are those left in the windows, and what the stream never handed over.
  void report_leftovers(std::vector<std::string>& blocked, std::vector<std::string>& unmatched);
  std::uint64_t ops_done() const;

 private:
  enum class Message : std::uint16_t { Eager = 0, Request = 1, ClearToSend = 2, Data = 3 };
  struct Arrival {
    goal::RankId sender;
    Message kind;
    std::uint64_t bytes;     // eager: the message's size
    std::uint32_t src_host;  // request: with `flow`, what the clear-to-send names
    net::FlowId flow;
  };
  struct RankRuntime {
    goal::RankId rank;
    MatchQueue<goal::LocalOp, Arrival> match;
    RankCpus cpus;
    std::unordered_map<goal::LocalOp, std::uint64_t> recv_bytes;  // matched receives: the message's size
    std::int64_t finish_ps = 0;
    std::uint64_t ops_done = 0, messages = 0, bytes = 0;
  };
  struct SendRef {
    std::uint32_t slot;
    goal::LocalOp op;
  };

  // Eager and request: the tag, and kind | sender slot | receiver slot.
  static net::FlowLabel message_label(std::uint32_t tag, Message kind, std::uint32_t from_slot, std::uint32_t to_slot) {
    return {tag, static_cast<std::uint16_t>((static_cast<std::uint16_t>(kind) << 14) | (from_slot << 7) | to_slot)};
  }
  // Clear-to-send and data: the request's flow number (the sender's).
  static net::FlowLabel rendezvous_label(net::FlowId request, Message kind) {
    return {request, static_cast<std::uint16_t>(static_cast<std::uint16_t>(kind) << 14)};
  }
  const OpInfo& op_info(std::uint32_t slot, goal::LocalOp op) const { return windows_.op(ranks_[slot].rank, op); }
  void send_data(net::Host& host, std::uint32_t slot, goal::LocalOp op, std::uint32_t dst_host, net::FlowId request);
  void scale_up_timer(net::Host& host, HostTimer t, std::uint32_t slot, goal::LocalOp op);
  void became_ready(std::uint32_t slot, goal::LocalOp op) { ready_.push_back({slot, op}); }
  void drain(net::Host& host);
  void run_ready(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void want_cpu(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void use_cpu(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void start_op(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void finish_op(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void transmit(net::Host& host, std::uint32_t slot, goal::LocalOp op);
  void arrive(net::Host& host, std::uint32_t slot, goal::RankId sender, std::uint32_t tag, const Arrival& a);
  void matched(net::Host& host, std::uint32_t slot, goal::LocalOp recv, const Arrival& a);

  OpWindows& windows_;
  const Placement& placement_;
  const PacketHostParams& params_;
  std::uint32_t host_;
  std::vector<RankRuntime> ranks_;  // by slot
  struct Ready {
    std::uint32_t slot;
    goal::LocalOp op;
  };
  std::vector<Ready> ready_;
  bool draining_ = false;
  // A send is named by its flows: its request until cleared to send, its eager or data flow
  // until acknowledged, and (scale-up) by itself until its notice leaves.
  std::unordered_map<net::FlowId, SendRef> requests_;
  std::unordered_map<net::FlowId, SendRef> sending_;
  std::unordered_map<std::uint64_t, net::FlowId> notices_;    // (slot, send) -> request
  std::unordered_map<std::uint64_t, SendRef> awaiting_data_;  // (sender host, request) -> our receive
  ScaleUpPort scale_up_;
};

}  // namespace collsim::exec
