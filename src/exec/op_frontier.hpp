#pragma once
// The ops of one rank that may start or have started and not finished, with what is known of
// when each ends: what a parallel run's promise reasons from (HostExecutor's
// earliest_open_send). The executor keeps it only when the run has several ranks.

#include <cstdint>
#include <span>
#include <vector>

#include "collsim/common/flat_map.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::exec {

class OpFrontier {
 public:
  enum class Stage : std::uint8_t {
    Ready,    // may start at any moment
    Running,  // holds its cpu until `done_ps` (a calc; a send's or a receive's overhead)
    Waiting,  // started, waits on the network (a send on its way, a receive posted)
  };
  struct Entry {
    goal::LocalOp op;
    Stage stage;
    std::int64_t done_ps;  // Running: when its cpu is free again
  };

  void add(goal::LocalOp op) {
    if (at_.try_emplace(op, static_cast<std::uint32_t>(entries_.size())).second) entries_.push_back({op, Stage::Ready, 0});
  }
  void set(goal::LocalOp op, Stage stage, std::int64_t done_ps = 0) {
    if (const std::uint32_t* i = at_.find(op)) entries_[*i] = {op, stage, done_ps};
  }
  void remove(goal::LocalOp op) {
    const std::uint32_t* found = at_.find(op);
    if (found == nullptr) return;
    const std::uint32_t i = *found;
    at_.erase(op);
    if (i + 1 != entries_.size()) {
      entries_[i] = entries_.back();
      at_.set(entries_[i].op, i);
    }
    entries_.pop_back();
  }
  std::span<const Entry> entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  common::FlatMap<std::uint32_t> at_{16};  // by op: its place in entries_
};

}  // namespace collsim::exec
