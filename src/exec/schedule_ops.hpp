#pragma once
// The ops of a whole schedule in memory, as the host executor reads them (the op store of
// HostExecutor): what each op is, read from the schedule's columns, and the dependency state
// of the ranks this simulator rank runs, with each op's start and end when recording.

#include <cstdint>
#include <string>
#include <vector>

#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/goal/schedule.hpp"
#include "op_info.hpp"

namespace collsim::exec {

class ScheduleOps {
 public:
  ScheduleOps(const goal::Schedule& schedule, bool record_times)
      : schedule_(schedule), c_(schedule.columns()), record_(record_times), held_(schedule.num_ranks(), kNotHeld) {}

  // Rank r runs here: keep its dependency state (and times).
  void hold(goal::RankId r) {
    held_[r] = static_cast<std::uint32_t>(ranks_.size());
    Held& h = ranks_.emplace_back(schedule_.rank(r));
    if (record_) {
      h.start.assign(h.deps.num_ops(), -1);
      h.end.assign(h.deps.num_ops(), -1);
    }
  }

  OpInfo op(goal::RankId r, goal::LocalOp i) const {
    const std::uint64_t g = c_.op_begin[r] + i;
    return {c_.size[g], c_.peer[g], c_.kind[g], c_.cpu[g], c_.nic[g], 0};
  }
  std::uint32_t tag(goal::RankId r, goal::LocalOp i) const { return c_.tag[c_.op_begin[r] + i]; }

  template <typename F>
  void initially_ready(goal::RankId r, F&& ready) {
    held(r).deps.for_initially_ready(ready);
  }
  template <typename F>
  void start(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    Held& h = held(r);
    if (record_) h.start[i] = static_cast<std::int64_t>(t);
    h.deps.start(i, ready);
  }
  template <typename F>
  void finish(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    Held& h = held(r);
    if (record_) h.end[i] = static_cast<std::int64_t>(t);
    h.deps.finish(i, ready);
  }

  template <typename F, typename G>
  void for_each_dependent(goal::RankId r, goal::LocalOp i, F&& finished, G&& started) const {
    held(r).deps.for_each_dependent(i, finished, started);
  }
  // Whether ops not yet seen may come to depend on op i: never, the schedule is whole.
  template <typename Open>
  bool may_gain_open_dependents(goal::RankId, goal::LocalOp, Open&&) const {
    return false;
  }

  // After the run.
  bool complete(goal::RankId r) const { return held(r).deps.unfinished() == 0; }
  // Calls f(i, op, state) for each op of rank r that never finished, in index order.
  template <typename F>
  void for_each_unfinished(goal::RankId r, F&& f) const {
    const DependencyTracker& deps = held(r).deps;
    if (deps.unfinished() == 0) return;
    const goal::RankOps ops = schedule_.rank(r);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i)
      if (deps.state(i) != OpState::Finished) f(i, ops.op(i), deps.state(i));
  }
  // What a waiting op waits for: "waits for op 3 to finish, op 4 to start".
  std::string waiting_for(goal::RankId r, goal::LocalOp i) const;
  // Ops of rank r the run never saw: none, the schedule is whole.
  std::uint64_t never_reached(goal::RankId) { return 0; }
  // Rank r's ops' start and end times, by op (-1: never), when recording.
  const std::vector<std::int64_t>& start_times(goal::RankId r) const { return held(r).start; }
  const std::vector<std::int64_t>& end_times(goal::RankId r) const { return held(r).end; }

 private:
  static constexpr std::uint32_t kNotHeld = 0xFFFFFFFFu;
  struct Held {
    explicit Held(const goal::RankOps& ops) : deps(ops) {}
    DependencyTracker deps;
    std::vector<std::int64_t> start, end;
  };
  Held& held(goal::RankId r) { return ranks_[held_[r]]; }
  const Held& held(goal::RankId r) const { return ranks_[held_[r]]; }

  const goal::Schedule& schedule_;
  const goal::ScheduleColumns& c_;
  bool record_;
  std::vector<std::uint32_t> held_;  // by rank: index in ranks_
  std::vector<Held> ranks_;
};

}  // namespace collsim::exec
