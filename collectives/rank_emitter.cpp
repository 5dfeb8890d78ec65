#include "collsim/collectives/rank_emitter.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::collectives {
namespace {

// A GOAL calc holds whole nanoseconds: a fraction of one rounds up, so that a latency below
// 1 ns still costs the cpu something rather than vanishing.
std::uint64_t goal_ns(SimTime duration) { return static_cast<std::uint64_t>((duration.picoseconds() + 999) / 1000); }

}  // namespace

std::string_view to_string(DataAction a) {
  switch (a) {
    case DataAction::None: return "none";
    case DataAction::Copy: return "copy";
    case DataAction::Reduce: return "reduce";
    case DataAction::Merge: return "merge";
  }
  return "?";
}

bool Deps::empty() const {
  for (goal::LocalOp op : ops_)
    if (op != kNoOp) return false;
  return true;
}

RankEmitter::RankEmitter(const Plan& plan, std::uint32_t me, RankSink& sink, std::span<const goal::LocalOp> entry)
    : plan_(plan), layout_(plan), me_(me), sink_(sink), entry_(entry), launch_(plan.channels, kNoOp) {}

void RankEmitter::depend(goal::LocalOp dependent, goal::LocalOp prerequisite) {
  sink_.add_requires(dependent, prerequisite);
  if (first_ != kNoOp && prerequisite >= first_) has_dependent_[prerequisite - first_] = 1;
}

goal::LocalOp RankEmitter::launch(std::uint32_t channel) {
  goal::LocalOp& op = launch_[channel];
  // A helper is a switch: it launches no kernel.
  if (op != kNoOp || (plan_.launch == SimTime::zero() && entry_.empty()) || plan_.is_helper(me_)) return op;
  op = sink_.add(goal::Op::calc(goal_ns(plan_.launch), static_cast<std::uint8_t>(plan_.first_cpu + channel)), Payload{});
  if (first_ == kNoOp) first_ = op;
  has_dependent_.push_back(0);
  for (goal::LocalOp e : entry_) sink_.add_requires(op, e);
  return op;
}

goal::LocalOp RankEmitter::add(const goal::Op& op, const Payload& payload, std::uint32_t channel, Deps after,
                               Deps after_start) {
  const goal::LocalOp start = after.empty() && after_start.empty() ? launch(channel) : kNoOp;
  const goal::LocalOp index = sink_.add(op, payload);
  if (first_ == kNoOp) first_ = index;
  has_dependent_.push_back(0);
  if (start != kNoOp) depend(index, start);
  for (goal::LocalOp dep : after)
    if (dep != kNoOp) depend(index, dep);
  for (goal::LocalOp dep : after_start)
    if (dep != kNoOp) sink_.add_irequires(index, dep);
  return index;
}

RankEmitter::Connection& RankEmitter::connection(goal::OpKind kind, std::uint32_t peer, std::uint32_t channel) {
  const std::uint64_t key =
      (static_cast<std::uint64_t>(kind) << 56) | (static_cast<std::uint64_t>(channel) << 32) | peer;
  return connections_[key];
}

std::uint32_t RankEmitter::nic(std::uint32_t channel) const {
  if (!plan_.nic_of_rank) return channel / plan_.channels_per_nic % plan_.nics;
  const std::uint64_t g = plan_.node_size(), local = me_ % g;
  if (!plan_.rank_nics.empty()) {
    const std::vector<std::uint32_t>& mine = plan_.rank_nics[local % plan_.rank_nics.size()];
    return mine[channel % mine.size()];
  }
  const std::uint32_t per_rank = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(plan_.nics / g));
  return static_cast<std::uint32_t>((local * plan_.nics / g + channel % per_rank) % plan_.nics);
}

goal::Op RankEmitter::message(goal::OpKind kind, std::uint32_t peer, std::uint32_t channel,
                              std::uint64_t data_bytes) const {
  goal::Op op;
  op.kind = kind;
  op.peer = plan_.rank_of(peer);
  op.tag = plan_.tag + channel;
  op.size = wire_bytes(plan_.protocol, data_bytes);
  op.cpu = static_cast<std::uint8_t>(plan_.first_cpu + channel);
  op.nic = static_cast<std::uint8_t>(nic(channel));
  return op;
}

goal::LocalOp RankEmitter::send(std::uint32_t to, std::uint32_t channel, std::span<const UnitRange> units, Deps after) {
  std::uint64_t data = 0;
  for (const UnitRange& r : units) data += layout_.bytes(r);
  const bool across_nodes = plan_.node_of(me_) != plan_.node_of(to);
  // A GPU's step cost is its kernel's; a helper (a switch) forwards at its link's rate.
  const SimTime step = plan_.is_helper(me_) ? SimTime::zero() : across_nodes ? plan_.network_step : plan_.step;
  goal::LocalOp ready = kNoOp;
  if (step > SimTime::zero()) ready = calc(step, channel, after);
  Connection& conn = connection(goal::OpKind::Send, to, channel);
  const Deps deps = ready == kNoOp ? after : Deps(ready);
  const goal::LocalOp op = add(message(goal::OpKind::Send, to, channel, data), Payload{DataAction::None, units}, channel, deps);
  // Start in order on the connection; wait for the send max_in_flight back to finish.
  if (conn.last != kNoOp) sink_.add_irequires(op, conn.last);
  const std::uint32_t window =
      across_nodes ? std::max<std::uint32_t>(1, plan_.max_in_flight / plan_.steps_per_network_message)
                   : plan_.max_in_flight;
  if (conn.window.empty()) conn.window.assign(window, kNoOp);
  goal::LocalOp& slot = conn.window[conn.count % window];
  if (slot != kNoOp) depend(op, slot);
  slot = op;
  ++conn.count;
  conn.last = op;
  return op;
}

goal::LocalOp RankEmitter::send(std::uint32_t to, std::uint32_t channel, UnitRange units, Deps after) {
  return send(to, channel, std::span<const UnitRange>(&units, 1), after);
}

goal::LocalOp RankEmitter::recv(std::uint32_t from, std::uint32_t channel, std::span<const UnitRange> units,
                                DataAction action, Deps after, Deps after_start) {
  std::uint64_t data = 0;
  for (const UnitRange& r : units) data += layout_.bytes(r);
  Connection& conn = connection(goal::OpKind::Recv, from, channel);
  const goal::LocalOp op =
      add(message(goal::OpKind::Recv, from, channel, data), Payload{action, units}, channel, after, after_start);
  if (conn.last != kNoOp) sink_.add_irequires(op, conn.last);
  conn.last = op;
  // A helper reduces in the switch, at its link's rate.
  if (action != DataAction::Reduce || plan_.reduce_bytes_per_ns <= 0.0 || plan_.is_helper(me_)) return op;
  const auto ns = static_cast<std::int64_t>(std::ceil(static_cast<double>(data) / plan_.reduce_bytes_per_ns));
  return calc(SimTime::ns(ns), channel, op);
}

goal::LocalOp RankEmitter::recv(std::uint32_t from, std::uint32_t channel, UnitRange units, DataAction action,
                                Deps after, Deps after_start) {
  return recv(from, channel, std::span<const UnitRange>(&units, 1), action, after, after_start);
}

goal::LocalOp RankEmitter::calc(SimTime duration, std::uint32_t channel, Deps after) {
  return add(goal::Op::calc(goal_ns(duration), static_cast<std::uint8_t>(plan_.first_cpu + channel)),
             Payload{}, channel, after);
}

std::vector<goal::LocalOp> RankEmitter::finish() {
  std::vector<goal::LocalOp> exits;
  if (first_ == kNoOp) {
    exits.assign(entry_.begin(), entry_.end());
    return exits;
  }
  for (std::size_t i = 0; i < has_dependent_.size(); ++i)
    if (has_dependent_[i] == 0) exits.push_back(first_ + static_cast<goal::LocalOp>(i));
  return exits;
}

}  // namespace collsim::collectives
