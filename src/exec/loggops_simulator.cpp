#include "collsim/exec/loggops_simulator.hpp"

#include <algorithm>
#include <stdexcept>

#include "collsim/log/log.hpp"
#include "loggops_run.hpp"

namespace collsim::exec {
namespace {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

// The whole schedule in memory: its ops copied into 16-byte records (see OpInfo) and one
// DependencyTracker per rank.
class ScheduleStore {
 public:
  ScheduleStore(const goal::Schedule& schedule, bool record_times) : schedule_(schedule), c_(schedule.columns()) {
    std::uint8_t max_cpu = 0, max_nic = 0;
    ops_.resize(schedule.num_ops());
    for (std::uint64_t g = 0; g < ops_.size(); ++g) {
      ops_[g] = {c_.size[g], c_.peer[g], c_.kind[g], c_.cpu[g], c_.nic[g], 0};
      max_cpu = std::max(max_cpu, c_.cpu[g]);
      max_nic = std::max(max_nic, c_.nic[g]);
    }
    num_cpus_ = max_cpu + 1u;
    num_nics_ = max_nic + 1u;
    trackers_.reserve(schedule.num_ranks());
    for (RankId r = 0; r < schedule.num_ranks(); ++r) {
      if (schedule.rank(r).num_ops() >= loggops::kMessageBit)
        throw std::invalid_argument("LogGOPS mode: rank " + std::to_string(r) + " has 2^31 ops or more");
      trackers_.emplace_back(schedule.rank(r));
    }
    if (record_times) {
      start_.assign(schedule.num_ops(), kNever);
      end_.assign(schedule.num_ops(), kNever);
    }
  }

  RankId num_ranks() const { return schedule_.num_ranks(); }
  unsigned num_cpus() const { return num_cpus_; }
  unsigned num_nics() const { return num_nics_; }
  const OpInfo& op(RankId r, LocalOp i) const { return ops_[global(r, i)]; }
  std::uint32_t tag(RankId r, LocalOp i) const { return c_.tag[global(r, i)]; }
  OpState state(RankId r, LocalOp i) const { return trackers_[r].state(i); }
  std::uint64_t completed() const { return completed_; }

  template <typename F>
  void initially_ready(RankId r, F&& ready) {
    trackers_[r].for_initially_ready(ready);
  }
  template <typename F>
  void start(RankId r, LocalOp i, std::uint64_t t, F&& ready) {
    trackers_[r].start(i, ready);
    if (!start_.empty()) start_[global(r, i)] = t;
  }
  template <typename F>
  void finish(RankId r, LocalOp i, std::uint64_t t, F&& ready) {
    trackers_[r].finish(i, ready);
    ++completed_;
    if (!end_.empty()) end_[global(r, i)] = t;
  }
  void message_taken(RankId, LocalOp) {}

  void report_blocked(LogGOPSResult& res, std::size_t max_reported);
  void take_times(LogGOPSResult& res) {
    res.op_start = std::move(start_);
    res.op_end = std::move(end_);
  }

 private:
  std::uint64_t global(RankId r, LocalOp i) const { return c_.op_begin[r] + i; }

  const goal::Schedule& schedule_;
  const goal::ScheduleColumns& c_;
  std::vector<OpInfo> ops_;  // by global op
  unsigned num_cpus_ = 1, num_nics_ = 1;
  std::vector<DependencyTracker> trackers_;
  std::uint64_t completed_ = 0;
  std::vector<std::uint64_t> start_, end_;  // by global op, when recording
};

void ScheduleStore::report_blocked(LogGOPSResult& res, std::size_t max_reported) {
  for (RankId r = 0; r < num_ranks(); ++r) {
    const DependencyTracker& t = trackers_[r];
    if (t.unfinished() == 0) continue;
    const goal::RankOps ops = schedule_.rank(r);
    for (LocalOp i = 0; i < t.num_ops(); ++i) {
      if (t.state(i) == OpState::Finished) continue;
      ++res.num_blocked;
      if (res.blocked.size() >= max_reported) continue;
      BlockedOp b;
      b.rank = r;
      b.op = i;
      b.kind = ops.kind(i);
      b.peer = ops.peer(i);
      b.tag = ops.tag(i);
      b.size = ops.size(i);
      if (t.state(i) == OpState::Started) {
        b.reason = b.kind == OpKind::Recv ? BlockReason::NoMatchingSend : BlockReason::NoMatchingRecv;
      } else {
        b.reason = BlockReason::Prerequisites;
        for (LocalOp p : ops.requires_of(i))
          if (t.state(p) != OpState::Finished) b.unfinished_requires.push_back(p);
        for (LocalOp p : ops.irequires_of(i))
          if (t.state(p) != OpState::Started && t.state(p) != OpState::Finished) b.unstarted_irequires.push_back(p);
      }
      res.blocked.push_back(std::move(b));
    }
  }
}

std::string op_name(goal::OpKind kind, std::uint32_t peer, std::uint32_t tag, std::uint64_t size) {
  auto who = [](std::uint32_t v) { return v == goal::kAnySource ? std::string("any") : std::to_string(v); };
  switch (kind) {
    case OpKind::Calc: return "calc " + std::to_string(size);
    case OpKind::Send: return "send " + std::to_string(size) + "b to " + std::to_string(peer) + " tag " + who(tag);
    case OpKind::Recv: return "recv " + std::to_string(size) + "b from " + who(peer) + " tag " + who(tag);
  }
  return "?";
}

std::string list(const std::vector<LocalOp>& ops) {
  std::string out;
  for (LocalOp op : ops) out += (out.empty() ? "" : ", ") + std::to_string(op);
  return out;
}

}  // namespace

std::string_view to_string(BlockReason reason) {
  switch (reason) {
    case BlockReason::Prerequisites: return "waits for prerequisites";
    case BlockReason::NoMatchingSend: return "no matching send";
    case BlockReason::NoMatchingRecv: return "no receive completed this rendezvous send";
  }
  return "?";
}

LogGOPSResult simulate_loggops(const goal::Schedule& schedule, const LogGOPSParams& params,
                               const LogGOPSOptions& options) {
  spdlog::logger& log = logging::logger("exec");
  log.debug("LogGOPS: executing {} op(s) of {} rank(s)", schedule.num_ops(), schedule.num_ranks());
  ScheduleStore store(schedule, options.record_op_times);
  LogGOPSResult result = loggops::Run<ScheduleStore>(store, params, options).run();
  store.take_times(result);
  log.debug("LogGOPS: {} op(s) complete, makespan {} ns, {} events", result.ops_completed, result.makespan, result.events);
  return result;
}

std::string describe_unfinished(const LogGOPSResult& result, std::size_t max_items) {
  std::string out;
  if (result.complete) return out;
  if (result.num_blocked > 0)
    out += std::to_string(result.num_blocked) + " op(s) never finished:\n";
  std::size_t shown = 0;
  for (const BlockedOp& b : result.blocked) {
    if (shown++ == max_items) break;
    out += "  rank " + std::to_string(b.rank) + " op " + std::to_string(b.op) + " (" +
           op_name(b.kind, b.peer, b.tag, b.size) + "): " + std::string(to_string(b.reason));
    if (!b.unfinished_requires.empty()) out += "; requires unfinished ops " + list(b.unfinished_requires);
    if (!b.unstarted_irequires.empty()) out += "; irequires unstarted ops " + list(b.unstarted_irequires);
    out += '\n';
  }
  if (result.num_blocked > std::min<std::uint64_t>(max_items, result.blocked.size()))
    out += "  ... and " + std::to_string(result.num_blocked - std::min<std::uint64_t>(max_items, result.blocked.size())) +
           " more\n";
  if (!result.unmatched.empty())
    out += std::to_string(result.unmatched.size()) + " message(s) left unexpected (no receive matched them):\n";
  shown = 0;
  for (const UnmatchedMessage& m : result.unmatched) {
    if (shown++ == max_items) {
      out += "  ... and " + std::to_string(result.unmatched.size() - max_items) + " more\n";
      break;
    }
    out += "  rank " + std::to_string(m.to) + " holds " + std::to_string(m.size) + "b from rank " +
           std::to_string(m.from) + " tag " + std::to_string(m.tag) + " (its op " + std::to_string(m.send) +
           "), arrived at " + std::to_string(m.arrival) + " ns\n";
  }
  return out;
}

}  // namespace collsim::exec
