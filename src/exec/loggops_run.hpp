#pragma once
// The LogGOPS event loop (see loggops_simulator.hpp for the model), over a store of ops: a
// whole goal::Schedule, or a stream whose ops come and go (loggops_stream.cpp). The store
// answers what an op is and tracks its dependencies; everything that decides times is here,
// once, so that both give the same results for the same ops.
//
// A store provides:
//   RankId num_ranks() const;  unsigned num_cpus() const;  unsigned num_nics() const;
//   OpInfo op(RankId, LocalOp) const;  std::uint32_t tag(RankId, LocalOp) const;
//   OpState state(RankId, LocalOp) const;
//   void prefetch(RankId, LocalOp) const;           a hint: the op will be read soon
//   void initially_ready(RankId, Ready);            ops without prerequisites, in index order
//   void start(RankId, LocalOp, std::uint64_t t, Ready), finish(...): the tracker's, with the time
//   void message_taken(RankId sender, LocalOp send);   its message reached the receiver
//   std::uint64_t completed() const; and report_blocked(LogGOPSResult&, std::size_t max).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <tuple>
#include <vector>

#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/match_queue.hpp"
#include "collsim/exec/loggops_event_queue.hpp"
#include "op_info.hpp"

namespace collsim::exec::loggops {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

// What a receiver keeps of a message that arrived before its receive was posted (its size
// too, for the report: the send may be gone from a streamed run's window by then).
struct Message {
  RankId sender;
  LocalOp send;
  std::uint64_t arrival;
  std::uint64_t size;
};

// (size - 1) * per_byte in LogGOPSim's unsigned 64-bit arithmetic: for a 0-byte message it
// wraps to -per_byte, and LogGOPSim charges that as is (g - G on the NIC, for instance).
inline std::uint64_t after_first_byte(std::uint64_t size, std::uint64_t per_byte) { return (size - 1) * per_byte; }

template <typename Store>
class Run {
 public:
  Run(Store& store, const LogGOPSParams& params, const LogGOPSOptions& options)
      : store_(store), p_(params), options_(options), num_ranks_(store.num_ranks()) {
    validate(params);
    num_cpus_ = store.num_cpus();
    num_nics_ = store.num_nics();
    per_rank_ = num_cpus_ + 2 * num_nics_ + (p_.intra_nic != 0 ? 2 : 0);
    free_at_.assign(std::size_t{num_ranks_} * per_rank_, 0);
    matchers_.resize(num_ranks_);
    if (options_.compute) calcs_.assign(num_ranks_, 0);
  }

  LogGOPSResult run() {
    // Every op without prerequisites is queued at time 0, rank by rank.
    for (RankId r = 0; r < num_ranks_; ++r) store_.initially_ready(r, Ready{this, r});
    queue_ready();
    const auto started = std::chrono::steady_clock::now();
    std::uint64_t next_report = options_.monitor ? kReportEvery : ~0ull;
    while (!events_.empty()) {
      const Event e = events_.pop();
      ++result_.events;
      // The events at one time are known: start fetching the op of one a few events ahead.
      if (const Event* soon = events_.upcoming(kPrefetchDistance)) store_.prefetch(soon->rank, soon->op & ~kMessageBit);
      if (result_.events >= next_report) {
        next_report += kReportEvery;
        options_.monitor->on_progress(progress(e.time, started));
      }
      if ((e.op & kMessageBit) != 0) {
        take_message(e);
      } else {
        // A copy: starting may bring a new piece into a streamed store, which can move its ops.
        const OpInfo o = op(e.rank, e.op);
        switch (o.kind) {
          case OpKind::Calc: run_calc(e, o); break;
          case OpKind::Send: start_send(e, o); break;
          case OpKind::Recv: post_recv(e, o); break;
        }
      }
      queue_ready();
    }
    LogGOPSResult out = report();
    if (options_.monitor) options_.monitor->on_finish(progress(out.makespan, started));
    return out;
  }

  // Collects the ops a store releases; queue_ready() queues them after the event.
  struct Ready {
    Run* run;
    RankId rank;
    void operator()(LocalOp op) const { run->released_.push_back({rank, op, run->release_at_}); }
  };

 private:
  struct Released {
    RankId rank;
    LocalOp op;
    std::uint64_t at;  // when the prerequisite that released it started or finished
  };

  OpInfo op(RankId r, LocalOp i) const { return store_.op(r, i); }
  // A rank's cpus, then its NICs' send sides, then their receive sides, side by side.
  std::uint64_t& cpu_free(RankId r, std::uint8_t cpu) { return free_at_[std::size_t{r} * per_rank_ + cpu]; }
  std::uint64_t& send_free(RankId r, std::uint8_t nic) {
    return free_at_[std::size_t{r} * per_rank_ + num_cpus_ + nic];
  }
  std::uint64_t& recv_free(RankId r, std::uint8_t nic) {
    return free_at_[std::size_t{r} * per_rank_ + num_cpus_ + num_nics_ + nic];
  }
  // The side a message between `r` and `peer` uses: with intra_nic, the node's own after the NICs.
  bool intra_side(RankId r, RankId peer) const { return p_.intra_nic != 0 && same_node(r, peer); }
  std::uint64_t& send_free(RankId r, std::uint8_t nic, RankId to) {
    return intra_side(r, to) ? free_at_[std::size_t{r} * per_rank_ + num_cpus_ + 2 * num_nics_] : send_free(r, nic);
  }
  std::uint64_t& recv_free(RankId r, std::uint8_t nic, RankId from) {
    return intra_side(r, from) ? free_at_[std::size_t{r} * per_rank_ + num_cpus_ + 2 * num_nics_ + 1] : recv_free(r, nic);
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
    release_at_ = t;
    store_.start(r, i, t, Ready{this, r});
  }
  void finished(RankId r, LocalOp i, std::uint64_t t) {
    release_at_ = t;
    store_.finish(r, i, t, Ready{this, r});
  }

  void run_calc(const Event& e, const OpInfo& calc) {
    std::uint64_t& cpu = cpu_free(e.rank, calc.cpu);
    if (cpu > e.time) return retry(e, cpu);
    std::uint64_t duration = calc.size;
    if (options_.compute) {
      const SimTime start = SimTime::ns(static_cast<std::int64_t>(e.time));
      const SimTime end = options_.compute->calc_end(e.rank, calcs_[e.rank]++, start,
                                                     SimTime::ns(static_cast<std::int64_t>(calc.size)));
      // LogGOPS keeps whole nanoseconds: a fraction of one rounds up.
      duration = static_cast<std::uint64_t>((end - start).picoseconds() + 999) / 1000;
    }
    cpu = e.time + duration;
    // LogGOPSim releases a calc's dependents when it starts; they wait for the cpu anyway.
    started(e.rank, e.op, e.time);
    finished(e.rank, e.op, e.time + duration);
  }

  void start_send(const Event& e, const OpInfo& send) {
    std::uint64_t& cpu = cpu_free(e.rank, send.cpu);
    std::uint64_t& nic = send_free(e.rank, send.nic, send.peer);
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
  void post_recv(const Event& e, const OpInfo& recv) {
    const std::uint32_t tag = store_.tag(e.rank, e.op);
    started(e.rank, e.op, e.time);
    if (const auto m = matchers_[e.rank].post(recv.peer, tag, e.op)) {
      // LogGOPSim decides rendezvous here by the receive's size, not the message's.
      if (recv.size > p_.S) complete_rendezvous(m->sender, m->send, e.rank, recv.cpu, recv.nic, e.time);
      finished(e.rank, e.op, e.time);
    }
  }

  // The message of send e.op of rank e.rank reaches its receiver, on the receiver's cpu and
  // nic with the send's indices.
  void take_message(const Event& e) {
    const LocalOp send = e.op & ~kMessageBit;
    const OpInfo msg = op(e.rank, send);
    const RankId to = msg.peer;
    const std::uint8_t cpu_index = msg.cpu, nic_index = msg.nic;
    std::uint64_t& cpu = cpu_free(to, cpu_index);
    std::uint64_t& nic = recv_free(to, nic_index, e.rank);
    const std::uint64_t free = std::max(cpu, nic);
    if (free > e.time) return retry(e, free);
    const std::uint64_t s = msg.size;
    const std::uint64_t gap = wire_gap(s, e.rank, to);
    cpu = e.time + p_.o + std::max(after_first_byte(s, p_.O), gap);
    nic = e.time + p_.g + gap;
    const std::uint32_t tag = store_.tag(e.rank, send);
    store_.message_taken(e.rank, send);
    if (const auto recv = matchers_[to].arrive(e.rank, tag, Message{e.rank, send, e.time, s})) {
      if (s > p_.S) complete_rendezvous(e.rank, send, to, cpu_index, nic_index, e.time);
      finished(to, *recv, e.time);
    }
  }

  // The receiver matched a rendezvous message at t: the send finishes, and the sender's
  // cpu and NIC (with the indices LogGOPSim uses: the matching side's op's) are busy until
  // at least t, so that what the send released cannot run before.
  void complete_rendezvous(RankId sender, LocalOp send, RankId receiver, std::uint8_t cpu_index, std::uint8_t nic_index,
                           std::uint64_t t) {
    // A mismatch of sizes across S can bring an eager send here; it finished already.
    if (store_.state(sender, send) != OpState::Finished) finished(sender, send, t);
    std::uint64_t& cpu = cpu_free(sender, cpu_index);
    std::uint64_t& nic = send_free(sender, nic_index, receiver);
    cpu = std::max(cpu, t);
    nic = std::max(nic, t);
  }

  // Queues what the last event released: ranks in ascending order, and in each rank sends,
  // then receives, then calcs, each at the time its resources are next free.
  void queue_ready() {
    const std::size_t n = released_.size();
    if (n == 0) return;
    if (n == 1) {
      queue(released_[0]);
      released_.clear();
      return;
    }
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
      // leaves ops of equal kind in the same order. Up to 16 elements libstdc++'s std::sort
      // is an insertion sort, which this is too, without the call.
      const auto before = [&](const Released& a, const Released& b) { return op(r, a.op).kind < op(r, b.op).kind; };
      if (last - first > 16) {
        std::sort(list + first, list + last, before);
      } else {
        for (std::size_t i = first + 1; i < last; ++i) {
          const Released x = list[i];
          std::size_t j = i;
          for (; j > first && before(x, list[j - 1]); --j) list[j] = list[j - 1];
          list[j] = x;
        }
      }
      for (std::size_t k = first; k < last; ++k) queue(list[k]);
      first = last;
    }
    released_.clear();
  }

  void queue(const Released& x) {
    const std::uint64_t ready = ready_time(x.rank, op(x.rank, x.op));
    events_.push({causal_ ? std::max(ready, x.at) : ready, seq_++, x.rank, x.op});
  }

  std::uint64_t ready_time(RankId r, const OpInfo& o) {
    const std::uint64_t cpu = cpu_free(r, o.cpu);
    return o.kind == OpKind::Send ? std::max(cpu, send_free(r, o.nic, o.peer)) : cpu;
  }

  LogGOPSResult report() {
    LogGOPSResult& res = result_;
    res.loggopsim_events = seq_;
    res.ops_completed = store_.completed();
    res.rank_finish.assign(num_ranks_, 0);
    for (RankId r = 0; r < num_ranks_; ++r) {
      for (unsigned c = 0; c < num_cpus_; ++c)
        res.rank_finish[r] = std::max(res.rank_finish[r], cpu_free(r, static_cast<std::uint8_t>(c)));
      if (res.rank_finish[r] > res.makespan) {
        res.makespan = res.rank_finish[r];
        res.makespan_rank = r;
      }
    }
    store_.report_blocked(res, options_.max_reported_blocked);
    for (RankId r = 0; r < num_ranks_; ++r) {
      const std::size_t first = res.unmatched.size();
      matchers_[r].for_each_unexpected([&](std::uint32_t source, std::uint32_t tag, const Message& m) {
        res.unmatched.push_back({source, r, m.send, tag, m.size, m.arrival});
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

  // Far enough ahead for a miss to memory to be over when the event comes (an event takes
  // some 50 ns), near enough for the line to be still in cache.
  static constexpr std::size_t kPrefetchDistance = 6;

  // Progress: simulated ns shown as ps, ops completed as the work done.
  static constexpr std::uint64_t kReportEvery = 1u << 16;
  pdes::RunProgress progress(std::uint64_t time_ns, std::chrono::steady_clock::time_point started) const {
    pdes::RunProgress p;
    p.sim_time = SimTime::ns(static_cast<std::int64_t>(time_ns));
    p.events = result_.events;
    p.work_done = store_.completed();
    p.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return p;
  }

  Store& store_;
  const LogGOPSParams p_;
  const LogGOPSOptions options_;
  const RankId num_ranks_;
  unsigned num_cpus_ = 1, num_nics_ = 1;
  // When each rank's cpus, NIC send sides and NIC receive sides are next free.
  unsigned per_rank_ = 3;
  std::vector<std::uint64_t> free_at_;
  std::vector<std::uint64_t> calcs_;  // per rank, calcs run so far (with options_.compute)
  std::vector<MatchQueue<LocalOp, Message>> matchers_;
  std::vector<Released> released_;  // by the current event, in order of release
  std::uint64_t release_at_ = 0;     // the time of the start or finish releasing ops now
  const bool causal_ = p_.causal != 0;
  EventQueue events_;
  std::uint64_t seq_ = 0;
  LogGOPSResult result_;
};

}  // namespace collsim::exec::loggops
