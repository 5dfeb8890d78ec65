#include "collsim/exec/loggops_simulator.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <tuple>

#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/match_queue.hpp"
#include "collsim/log/log.hpp"
#include "collsim/pdes/four_ary_heap.hpp"

namespace collsim::exec {
namespace {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

// An event is an op that waits to run, or a message on its way: the op field of a message
// is its send's index with this bit set (ranks have fewer than 2^31 ops).
constexpr std::uint32_t kMessageBit = 0x80000000u;

struct Event {
  std::uint64_t time;
  std::uint64_t seq;   // when it was first queued: breaks ties in time; a retry keeps it
  std::uint32_t rank;  // the op's rank; for a message, the sender's
  std::uint32_t op;
};

// Without branches: with event times all over the place a branch predictor guesses wrong
// half the time, which costs more than evaluating both halves.
inline bool before(const Event& a, const Event& b) {
  return (a.time < b.time) | ((a.time == b.time) & (a.seq < b.seq));
}

struct EventBefore {
  bool operator()(const Event& a, const Event& b) const { return before(a, b); }
};

// Events by (time, seq). (time, seq) is unique, so any heap pops the same sequence
// LogGOPSim's std::priority_queue does.
class EventHeap {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void push(const Event& e) { heap_.push(e); }
  Event pop() {
    const Event top = heap_.top();
    heap_.pop();
    return top;
  }

 private:
  pdes::FourAryHeap<Event, EventBefore> heap_;
};

// What a receiver keeps of a message that arrived before its receive was posted.
struct Message {
  RankId sender;
  LocalOp send;
  std::uint64_t arrival;
};

// The fields of an op that every event reads, in one 16-byte record instead of five
// columns: at scale the run is bound by cache misses, and this saves four per op touched
// (for 16 bytes per op of memory during the run).
struct OpInfo {
  std::uint64_t size;
  std::uint32_t peer;
  OpKind kind;
  std::uint8_t cpu;
  std::uint8_t nic;
};
static_assert(sizeof(OpInfo) == 16);

// (size - 1) * per_byte in LogGOPSim's unsigned 64-bit arithmetic: for a 0-byte message it
// wraps to -per_byte, and LogGOPSim charges that as is (g - G on the NIC, for instance).
inline std::uint64_t after_first_byte(std::uint64_t size, std::uint64_t per_byte) { return (size - 1) * per_byte; }

class LogGOPSRun {
 public:
  LogGOPSRun(const goal::Schedule& schedule, const LogGOPSParams& params, const LogGOPSOptions& options)
      : schedule_(schedule), c_(schedule.columns()), p_(params), options_(options), num_ranks_(schedule.num_ranks()) {
    validate(params);
    std::uint8_t max_cpu = 0, max_nic = 0;
    ops_.resize(schedule.num_ops());
    for (std::uint64_t g = 0; g < ops_.size(); ++g) {
      ops_[g] = {c_.size[g], c_.peer[g], c_.kind[g], c_.cpu[g], c_.nic[g]};
      max_cpu = std::max(max_cpu, c_.cpu[g]);
      max_nic = std::max(max_nic, c_.nic[g]);
    }
    num_cpus_ = max_cpu + 1u;
    num_nics_ = max_nic + 1u;
    per_rank_ = num_cpus_ + 2 * num_nics_;
    free_at_.assign(std::size_t{num_ranks_} * per_rank_, 0);
    trackers_.reserve(num_ranks_);
    for (RankId r = 0; r < num_ranks_; ++r) {
      if (schedule.rank(r).num_ops() >= kMessageBit)
        throw std::invalid_argument("LogGOPS mode: rank " + std::to_string(r) + " has 2^31 ops or more");
      trackers_.emplace_back(schedule.rank(r));
    }
    matchers_.resize(num_ranks_);
    if (options.record_op_times) {
      result_.op_start.assign(schedule.num_ops(), kNever);
      result_.op_end.assign(schedule.num_ops(), kNever);
    }
  }

  LogGOPSResult run() {
    // Every op without prerequisites is queued at time 0, rank by rank.
    for (RankId r = 0; r < num_ranks_; ++r) trackers_[r].for_initially_ready(Ready{this, r});
    queue_ready();
    const auto started = std::chrono::steady_clock::now();
    std::uint64_t next_report = options_.monitor ? kReportEvery : ~0ull;
    while (!events_.empty()) {
      const Event e = events_.pop();
      ++result_.events;
      if (result_.events >= next_report) {
        next_report += kReportEvery;
        options_.monitor->on_progress(progress(e.time, started));
      }
      if ((e.op & kMessageBit) != 0) {
        take_message(e);
      } else {
        switch (kind(e.rank, e.op)) {
          case OpKind::Calc: run_calc(e); break;
          case OpKind::Send: start_send(e); break;
          case OpKind::Recv: post_recv(e); break;
        }
      }
      queue_ready();
    }
    LogGOPSResult out = report();
    if (options_.monitor) options_.monitor->on_finish(progress(out.makespan, started));
    return out;
  }

 private:
  // Collects the ops a DependencyTracker releases; queue_ready() queues them after the event.
  struct Ready {
    LogGOPSRun* run;
    RankId rank;
    void operator()(LocalOp op) const { run->released_.push_back({rank, op}); }
  };
  struct Released {
    RankId rank;
    LocalOp op;
  };

  std::uint64_t global(RankId r, LocalOp i) const { return c_.op_begin[r] + i; }
  const OpInfo& op(RankId r, LocalOp i) const { return ops_[global(r, i)]; }
  OpKind kind(RankId r, LocalOp i) const { return op(r, i).kind; }
  // A rank's cpus, then its NICs' send sides, then their receive sides, side by side.
  std::uint64_t& cpu_free(RankId r, std::uint8_t cpu) { return free_at_[std::size_t{r} * per_rank_ + cpu]; }
  std::uint64_t& send_free(RankId r, std::uint8_t nic) {
    return free_at_[std::size_t{r} * per_rank_ + num_cpus_ + nic];
  }
  std::uint64_t& recv_free(RankId r, std::uint8_t nic) {
    return free_at_[std::size_t{r} * per_rank_ + num_cpus_ + num_nics_ + nic];
  }

  bool same_node(RankId a, RankId b) const { return p_.ranks_per_node != 0 && a / p_.ranks_per_node == b / p_.ranks_per_node; }
  std::uint64_t latency(RankId from, RankId to) const { return same_node(from, to) ? p_.L_intra : p_.L; }
  // G per byte after the first, with the sub-nanosecond extensions rounded up to whole ns.
  std::uint64_t wire_gap(std::uint64_t size, RankId from, RankId to) const {
    if (same_node(from, to)) return size == 0 ? 0 : (after_first_byte(size, p_.G_intra_ps) + 999) / 1000;
    const std::uint64_t loggopsim = after_first_byte(size, p_.G);  // wraps like LogGOPSim's for size 0
    return p_.G_ps == 0 || size == 0 ? loggopsim : loggopsim + (after_first_byte(size, p_.G_ps) + 999) / 1000;
  }

  void retry(const Event& e, std::uint64_t at) { events_.push({at, e.seq, e.rank, e.op}); }

  void started(RankId r, LocalOp i, std::uint64_t t) {
    trackers_[r].start(i, Ready{this, r});
    if (options_.record_op_times) result_.op_start[global(r, i)] = t;
  }
  void finished(RankId r, LocalOp i, std::uint64_t t) {
    trackers_[r].finish(i, Ready{this, r});
    ++result_.ops_completed;
    if (options_.record_op_times) result_.op_end[global(r, i)] = t;
  }

  void run_calc(const Event& e) {
    const OpInfo& calc = op(e.rank, e.op);
    std::uint64_t& cpu = cpu_free(e.rank, calc.cpu);
    if (cpu > e.time) return retry(e, cpu);
    const std::uint64_t duration = calc.size;
    cpu = e.time + duration;
    // LogGOPSim releases a calc's dependents when it starts; they wait for the cpu anyway.
    started(e.rank, e.op, e.time);
    finished(e.rank, e.op, e.time + duration);
  }

  void start_send(const Event& e) {
    const OpInfo& send = op(e.rank, e.op);
    std::uint64_t& cpu = cpu_free(e.rank, send.cpu);
    std::uint64_t& nic = send_free(e.rank, send.nic);
    const std::uint64_t free = std::max(cpu, nic);
    if (free > e.time) return retry(e, free);
    const std::uint64_t s = send.size;
    cpu = e.time + p_.o + after_first_byte(s, p_.O);
    nic = e.time + p_.g + wire_gap(s, e.rank, send.peer);
    started(e.rank, e.op, e.time);
    // The first byte arrives after o and L; the receiver charges G as it takes the message.
    events_.push({e.time + p_.o + latency(e.rank, send.peer), seq_++, e.rank, e.op | kMessageBit});
    ++result_.messages;
    result_.bytes += s;
    if (s <= p_.S) finished(e.rank, e.op, e.time);  // eager: done once handed over
  }

  // A posted receive costs nothing itself: the receiver's o and G were (or will be)
  // charged when the message is taken in.
  void post_recv(const Event& e) {
    const OpInfo& recv = op(e.rank, e.op);
    started(e.rank, e.op, e.time);
    if (const auto m = matchers_[e.rank].post(recv.peer, c_.tag[global(e.rank, e.op)], e.op)) {
      // LogGOPSim decides rendezvous here by the receive's size, not the message's.
      if (recv.size > p_.S) complete_rendezvous(m->sender, m->send, recv.cpu, recv.nic, e.time);
      finished(e.rank, e.op, e.time);
    }
  }

  // The message of send e.op of rank e.rank reaches its receiver, on the receiver's cpu and
  // nic with the send's indices.
  void take_message(const Event& e) {
    const LocalOp send = e.op & ~kMessageBit;
    const OpInfo& msg = op(e.rank, send);
    const RankId to = msg.peer;
    const std::uint8_t cpu_index = msg.cpu, nic_index = msg.nic;
    std::uint64_t& cpu = cpu_free(to, cpu_index);
    std::uint64_t& nic = recv_free(to, nic_index);
    const std::uint64_t free = std::max(cpu, nic);
    if (free > e.time) return retry(e, free);
    const std::uint64_t s = msg.size;
    const std::uint64_t gap = wire_gap(s, e.rank, to);
    cpu = e.time + p_.o + std::max(after_first_byte(s, p_.O), gap);
    nic = e.time + p_.g + gap;
    if (const auto recv = matchers_[to].arrive(e.rank, c_.tag[global(e.rank, send)], Message{e.rank, send, e.time})) {
      if (s > p_.S) complete_rendezvous(e.rank, send, cpu_index, nic_index, e.time);
      finished(to, *recv, e.time);
    }
  }

  // The receiver matched a rendezvous message at t: the send finishes, and the sender's
  // cpu and NIC (with the indices LogGOPSim uses: the matching side's op's) are busy until
  // at least t, so that what the send released cannot run before.
  void complete_rendezvous(RankId sender, LocalOp send, std::uint8_t cpu_index, std::uint8_t nic_index,
                           std::uint64_t t) {
    // A mismatch of sizes across S can bring an eager send here; it finished already.
    if (trackers_[sender].state(send) != OpState::Finished) finished(sender, send, t);
    std::uint64_t& cpu = cpu_free(sender, cpu_index);
    std::uint64_t& nic = send_free(sender, nic_index);
    cpu = std::max(cpu, t);
    nic = std::max(nic, t);
  }

  // Queues what the last event released: ranks in ascending order, and in each rank sends,
  // then receives, then calcs, each at the time its resources are next free.
  void queue_ready() {
    const std::size_t n = released_.size();
    if (n == 0) return;
    Released* list = released_.data();
    // Group by rank, keeping the order of release within a rank: an insertion sort, as an
    // event releases ops of at most two ranks (and the first call all ranks in order).
    for (std::size_t i = 1; i < n; ++i) {
      const Released x = list[i];
      std::size_t j = i;
      for (; j > 0 && list[j - 1].rank > x.rank; --j) list[j] = list[j - 1];
      list[j] = x;
    }
    for (std::size_t first = 0; first < n;) {
      const RankId r = list[first].rank;
      std::size_t last = first + 1;
      while (last < n && list[last].rank == r) ++last;
      // The same comparison on the same sequence as LogGOPSim's, so that the same std::sort
      // leaves ops of equal kind in the same order.
      if (last - first > 1)
        std::sort(list + first, list + last, [&](const Released& a, const Released& b) {
          return kind(r, a.op) < kind(r, b.op);
        });
      for (std::size_t k = first; k < last; ++k) events_.push({ready_time(r, list[k].op), seq_++, r, list[k].op});
      first = last;
    }
    released_.clear();
  }

  std::uint64_t ready_time(RankId r, LocalOp i) {
    const OpInfo& o = op(r, i);
    const std::uint64_t cpu = cpu_free(r, o.cpu);
    return o.kind == OpKind::Send ? std::max(cpu, send_free(r, o.nic)) : cpu;
  }

  LogGOPSResult report();

  const goal::Schedule& schedule_;
  const goal::ScheduleColumns& c_;
  const LogGOPSParams p_;
  // Progress: simulated ns shown as ps, ops completed as the work done.
  static constexpr std::uint64_t kReportEvery = 1u << 16;
  pdes::RunProgress progress(std::uint64_t time_ns, std::chrono::steady_clock::time_point started) const {
    pdes::RunProgress p;
    p.sim_time = pdes::SimTime::ns(static_cast<std::int64_t>(time_ns));
    p.events = result_.events;
    p.work_done = result_.ops_completed;
    p.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return p;
  }

  const LogGOPSOptions options_;
  const RankId num_ranks_;
  unsigned num_cpus_ = 1, num_nics_ = 1;
  std::vector<OpInfo> ops_;  // by global op
  // When each rank's cpus, NIC send sides and NIC receive sides are next free.
  unsigned per_rank_ = 3;
  std::vector<std::uint64_t> free_at_;
  std::vector<DependencyTracker> trackers_;
  std::vector<MatchQueue<LocalOp, Message>> matchers_;
  std::vector<Released> released_;  // by the current event, in order of release
  EventHeap events_;
  std::uint64_t seq_ = 0;
  LogGOPSResult result_;
};

LogGOPSResult LogGOPSRun::report() {
  LogGOPSResult& res = result_;
  res.loggopsim_events = seq_;
  res.rank_finish.assign(num_ranks_, 0);
  for (RankId r = 0; r < num_ranks_; ++r) {
    for (unsigned c = 0; c < num_cpus_; ++c)
      res.rank_finish[r] = std::max(res.rank_finish[r], cpu_free(r, static_cast<std::uint8_t>(c)));
    if (res.rank_finish[r] > res.makespan) {
      res.makespan = res.rank_finish[r];
      res.makespan_rank = r;
    }
  }

  for (RankId r = 0; r < num_ranks_; ++r) {
    const DependencyTracker& t = trackers_[r];
    if (t.unfinished() == 0) continue;
    const goal::RankOps ops = schedule_.rank(r);
    for (LocalOp i = 0; i < t.num_ops(); ++i) {
      if (t.state(i) == OpState::Finished) continue;
      ++res.num_blocked;
      if (res.blocked.size() >= options_.max_reported_blocked) continue;
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

  for (RankId r = 0; r < num_ranks_; ++r) {
    const std::size_t first = res.unmatched.size();
    matchers_[r].for_each_unexpected([&](std::uint32_t source, std::uint32_t tag, const Message& m) {
      res.unmatched.push_back({source, r, m.send, tag, c_.size[global(source, m.send)], m.arrival});
    });
    // The queue's own order is that of a hash table: report by arrival.
    std::sort(res.unmatched.begin() + static_cast<std::ptrdiff_t>(first), res.unmatched.end(),
              [](const UnmatchedMessage& a, const UnmatchedMessage& b) {
                return std::tie(a.arrival, a.from, a.send) < std::tie(b.arrival, b.from, b.send);
              });
  }
  res.complete = res.num_blocked == 0 && res.unmatched.empty();
  return std::move(res);
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
  LogGOPSResult result = LogGOPSRun(schedule, params, options).run();
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
