#include "collsim/goal/schedule_builder.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim::goal {

ScheduleBuilder::ScheduleBuilder(std::uint32_t num_ranks) {
  if (num_ranks == 0) throw std::invalid_argument("a schedule needs at least one rank");
  a_.num_ranks = num_ranks;
  a_.op_begin.push_back(0);
  a_.requires_begin.push_back(0);
  a_.irequires_begin.push_back(0);
}

void ScheduleBuilder::reserve(std::uint64_t ops, std::uint64_t edges) {
  a_.kind.reserve(ops);
  a_.cpu.reserve(ops);
  a_.nic.reserve(ops);
  a_.peer.reserve(ops);
  a_.tag.reserve(ops);
  a_.size.reserve(ops);
  // Ranks without ops are rare; don't let a huge num_ranks reserve gigabytes up front.
  const std::uint64_t offsets = ops + std::min<std::uint64_t>(a_.num_ranks, ops + 1);
  a_.requires_offset.reserve(offsets);
  a_.irequires_offset.reserve(offsets);
  a_.requires_target.reserve(edges);
}

void ScheduleBuilder::begin_rank(RankId rank) {
  if (in_rank_) throw std::logic_error("begin_rank(" + std::to_string(rank) + ") while rank " +
                                       std::to_string(current_) + " is open");
  if (rank != ranks_done_ || rank >= a_.num_ranks)
    throw std::invalid_argument("rank " + std::to_string(rank) + " out of order: expected rank " +
                                std::to_string(ranks_done_) + " of " + std::to_string(a_.num_ranks));
  current_ = rank;
  in_rank_ = true;
  ops_in_rank_ = 0;
}

LocalOp ScheduleBuilder::add(const Op& op) {
  if (!in_rank_) throw std::logic_error("add() outside begin_rank()/end_rank()");
  if (ops_in_rank_ == 0xFFFFFFFFu)
    throw std::invalid_argument("rank " + std::to_string(current_) + " has more than 2^32-1 ops");
  if (op.size > kMaxSize) throw std::invalid_argument("op size " + std::to_string(op.size) + " above 2^63-1");
  switch (op.kind) {
    case OpKind::Send:
      if (op.peer >= a_.num_ranks)
        throw std::invalid_argument("send to rank " + std::to_string(op.peer) + " but num_ranks is " +
                                    std::to_string(a_.num_ranks));
      break;
    case OpKind::Recv:
      if (op.peer >= a_.num_ranks && op.peer != kAnySource)
        throw std::invalid_argument("recv from rank " + std::to_string(op.peer) + " but num_ranks is " +
                                    std::to_string(a_.num_ranks));
      break;
    case OpKind::Calc:
      if (op.peer != 0 || op.tag != 0 || op.nic != 0)
        throw std::invalid_argument("calc takes no peer, tag or nic");
      if (op.size > kMaxCalcNs)
        throw std::invalid_argument("calc of " + std::to_string(op.size) + " ns is past the end of simulated time (" +
                                    std::to_string(kMaxCalcNs) + " ns, 106 days)");
      break;
    default:
      throw std::invalid_argument("unknown op kind " + std::to_string(static_cast<unsigned>(op.kind)));
  }
  a_.kind.push_back(op.kind);
  a_.cpu.push_back(op.cpu);
  a_.nic.push_back(op.nic);
  a_.peer.push_back(op.peer);
  a_.tag.push_back(op.tag);
  a_.size.push_back(op.size);
  return ops_in_rank_++;
}

void ScheduleBuilder::check_edge(LocalOp dependent, LocalOp prerequisite) const {
  if (!in_rank_) throw std::logic_error("dependency outside begin_rank()/end_rank()");
  if (dependent >= ops_in_rank_ || prerequisite >= ops_in_rank_)
    throw std::invalid_argument("dependency between ops " + std::to_string(dependent) + " and " +
                                std::to_string(prerequisite) + " but rank " + std::to_string(current_) +
                                " has " + std::to_string(ops_in_rank_) + " ops so far");
}

void ScheduleBuilder::add_requires(LocalOp dependent, LocalOp prerequisite) {
  check_edge(dependent, prerequisite);
  requires_edges_.emplace_back(dependent, prerequisite);
}

void ScheduleBuilder::add_irequires(LocalOp dependent, LocalOp prerequisite) {
  check_edge(dependent, prerequisite);
  irequires_edges_.emplace_back(dependent, prerequisite);
}

// Counting sort of the rank's edges by dependent, then each row sorted by prerequisite.
void ScheduleBuilder::append_rows(std::vector<Edge>& edges, std::uint32_t num_ops,
                                  std::vector<std::uint32_t>& offset, std::vector<std::uint32_t>& target,
                                  std::vector<std::uint64_t>& begin) {
  if (edges.size() > 0xFFFFFFFFull) throw std::invalid_argument("a rank has more than 2^32-1 dependencies");
  const std::size_t off_base = offset.size();
  offset.resize(off_base + num_ops + 1, 0);
  std::uint32_t* off = offset.data() + off_base;
  for (const Edge& e : edges) ++off[e.first + 1];
  for (std::uint32_t i = 1; i <= num_ops; ++i) off[i] += off[i - 1];
  const std::size_t target_base = target.size();
  target.resize(target_base + edges.size());
  std::uint32_t* out = target.data() + target_base;
  for (const Edge& e : edges) out[off[e.first]++] = e.second;
  // off[d] now holds the end of row d; shift back to starts.
  for (std::uint32_t i = num_ops; i > 0; --i) off[i] = off[i - 1];
  off[0] = 0;
  for (std::uint32_t i = 0; i < num_ops; ++i)
    if (off[i + 1] - off[i] > 1) std::sort(out + off[i], out + off[i + 1]);
  begin.push_back(target.size());
  edges.clear();
}

void ScheduleBuilder::end_rank() {
  if (!in_rank_) throw std::logic_error("end_rank() without begin_rank()");
  append_rows(requires_edges_, ops_in_rank_, a_.requires_offset, a_.requires_target, a_.requires_begin);
  append_rows(irequires_edges_, ops_in_rank_, a_.irequires_offset, a_.irequires_target, a_.irequires_begin);
  a_.op_begin.push_back(a_.kind.size());
  in_rank_ = false;
  ++ranks_done_;
}

RankOps ScheduleBuilder::last_rank() {
  if (ranks_done_ == 0 || in_rank_) throw std::logic_error("last_rank() needs a closed rank");
  last_columns_ = columns_of(a_);
  return RankOps(&last_columns_, ranks_done_ - 1);
}

Schedule ScheduleBuilder::finish() {
  if (in_rank_ || ranks_done_ != a_.num_ranks)
    throw std::logic_error("finish() after " + std::to_string(ranks_done_) + " of " +
                           std::to_string(a_.num_ranks) + " ranks");
#ifndef NDEBUG
  if (auto e = validate(a_)) throw std::logic_error("builder produced an invalid schedule: " + *e);
#endif
  return Schedule::adopt(std::move(a_));
}

}  // namespace collsim::goal
