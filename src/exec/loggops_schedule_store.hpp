#pragma once
// The whole schedule as the LogGOPS loop reads it (see loggops_run.hpp for what a store
// provides): every op in one 24-byte record with what an event reads of it (kind, size,
// peer, tag, cpu, nic) and its dependency state, and its dependents in one array beside.
//
// A run of a large schedule is bound by cache misses, not by instructions: the ranks of a
// collective advance together, so that every event touches a different rank's ops, and no
// hardware prefetcher follows thousands of streams. One record per op means one miss where
// columns and a separate tracker cost three or four. The records are most of the memory a
// run touches for the first time, and on a virtual machine that is dear (the kernel zeroes
// each page, the host may back it anew): sizes of 2^32 - 1 and up and more than 254
// dependents released at an op's start, both rare, are kept beside the records, by op.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collsim/common/huge_page_array.hpp"
#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/loggops_event_queue.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/goal/schedule.hpp"
#include "op_info.hpp"

namespace collsim::exec::loggops {

class ScheduleStore {
 public:
  ScheduleStore(const goal::Schedule& schedule, bool record_times);

  goal::RankId num_ranks() const { return schedule_.num_ranks(); }
  unsigned num_cpus() const { return num_cpus_; }
  unsigned num_nics() const { return num_nics_; }
  OpInfo op(goal::RankId r, goal::LocalOp i) const {
    const Record& o = record(r, i);
    const std::uint64_t size = o.size != kSizeBeside ? o.size : size_beside(r, i);
    return {size, o.peer, o.kind(), o.cpu, o.nic, 0};
  }
  std::uint32_t tag(goal::RankId r, goal::LocalOp i) const { return record(r, i).tag; }
  OpState state(goal::RankId r, goal::LocalOp i) const { return record(r, i).state(); }
  void prefetch(goal::RankId r, goal::LocalOp i) const { __builtin_prefetch(&record(r, i)); }
  std::uint64_t completed() const { return completed_; }

  template <typename F>
  void initially_ready(goal::RankId r, F&& ready) {
    Record* rank = ranks_[r].records;
    const goal::LocalOp n = static_cast<goal::LocalOp>(ranks_[r + 1].records - rank - 1);
    for (goal::LocalOp i = 0; i < n; ++i) {
      Record& o = rank[i];
      if (o.pending == 0) {
        o.set_state(OpState::Ready);
        ready(i);
      }
    }
  }

  // Calls ready(j) for each dependent of op i that starting it makes ready, in the order of
  // the schedule's edges (by dependent index), as DependencyTracker does.
  template <typename F>
  void start(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    const RankView& v = ranks_[r];
    Record& o = v.records[i];
    o.set_state(OpState::Started);
    const std::uint32_t end = v.records[i + 1].first_dependent;
    release(v, end - start_dependents(r, i, o), end, ready);
    if (!start_.empty()) start_[global(r, i)] = t;
  }

  template <typename F>
  void finish(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    const RankView& v = ranks_[r];
    // A rank's ops finish roughly in order: ask for the lines of its next ops and their
    // dependents ahead of time (both arrays end in padding for this).
    __builtin_prefetch(v.records + i + kPrefetchRecords);
    Record& o = v.records[i];
    __builtin_prefetch(v.dependents + o.first_dependent + kPrefetchDependents);
    o.set_state(OpState::Finished);
    ++completed_;
    release(v, o.first_dependent, v.records[i + 1].first_dependent - start_dependents(r, i, o), ready);
    if (!end_.empty()) end_[global(r, i)] = t;
  }
  void message_taken(goal::RankId, goal::LocalOp) {}

  void report_blocked(LogGOPSResult& res, std::size_t max_reported) const;
  void take_times(LogGOPSResult& res) {
    res.op_start = std::move(start_);
    res.op_end = std::move(end_);
  }

 private:
  // Op i of a rank is its records_[first_record(r) + i]; a last record per rank closes the
  // dependents of its last op. Its dependents are dependents_[dependent_base(r) +
  // [first_dependent, next record's first_dependent)]: first those that require it (released
  // when it finishes), then the last start_dependents that irequire it (released when it
  // starts). `pending` counts both kinds of prerequisite not yet met: an op is ready when it
  // is 0.
  struct Record {
    std::uint32_t size = 0;  // kSizeBeside: in sizes_beside_
    std::uint32_t peer = 0;
    std::uint32_t tag = 0;
    std::uint32_t pending = 0;
    std::uint32_t first_dependent = 0;
    std::uint8_t kind_and_state = 0;  // the kind in bits 0-1, the state in bits 2-3
    std::uint8_t start_dependents = 0;  // kStartDependentsBeside: in start_dependents_beside_
    std::uint8_t cpu = 0;
    std::uint8_t nic = 0;

    goal::OpKind kind() const { return static_cast<goal::OpKind>(kind_and_state & 3u); }
    OpState state() const { return static_cast<OpState>(kind_and_state >> 2); }
    void set_kind(goal::OpKind k) { kind_and_state = static_cast<std::uint8_t>((kind_and_state & ~3u) | static_cast<unsigned>(k)); }
    void set_state(OpState s) { kind_and_state = static_cast<std::uint8_t>((kind_and_state & 3u) | (static_cast<unsigned>(s) << 2)); }
  };
  static_assert(sizeof(Record) == 24);
  static_assert(static_cast<unsigned>(goal::OpKind::Calc) < 4 && static_cast<unsigned>(OpState::Finished) < 4);
  static constexpr std::uint32_t kSizeBeside = 0xFFFFFFFFu;
  static constexpr std::uint8_t kStartDependentsBeside = 0xFF;

  // The rare values kept beside the records, by global op (sorted: filled in op order).
  struct Beside {
    std::uint64_t op;
    std::uint64_t value;
  };
  static std::uint64_t beside(const std::vector<Beside>& values, std::uint64_t op) {
    return std::lower_bound(values.begin(), values.end(), op, [](const Beside& b, std::uint64_t g) { return b.op < g; })->value;
  }
  std::uint64_t size_beside(goal::RankId r, goal::LocalOp i) const { return beside(sizes_beside_, global(r, i)); }
  std::uint32_t start_dependents(goal::RankId r, goal::LocalOp i, const Record& o) const {
    if (o.start_dependents != kStartDependentsBeside) [[likely]] return o.start_dependents;
    return static_cast<std::uint32_t>(beside(start_dependents_beside_, global(r, i)));
  }

  const Record& record(goal::RankId r, goal::LocalOp i) const { return ranks_[r].records[i]; }
  // The schedule's own layout: a rank's records sit where its CSR offsets do (one more per
  // rank than it has ops), and its dependents where its requires and irequires edges begin.
  std::uint64_t first_record(goal::RankId r) const { return c_.op_begin[r] + r; }
  std::uint64_t dependent_base(goal::RankId r) const { return c_.requires_begin[r] + c_.irequires_begin[r]; }
  std::uint64_t global(goal::RankId r, goal::LocalOp i) const { return c_.op_begin[r] + i; }

  // Where a rank's records and dependents begin: one load where the schedule's offsets
  // take three.
  struct RankView {
    Record* records;
    const std::uint32_t* dependents;
  };

  template <typename F>
  void release(const RankView& v, std::uint32_t begin, std::uint32_t end, F& ready) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const goal::LocalOp d = v.dependents[k];
      Record& dependent = v.records[d];
      if (--dependent.pending == 0) {
        dependent.set_state(OpState::Ready);
        ready(d);
      }
    }
  }

  static constexpr std::uint64_t kDropEvery = 1u << 14;  // ops
  static constexpr std::size_t kPrefetchRecords = 4, kPrefetchDependents = 16;

  const goal::Schedule& schedule_;
  const goal::ScheduleColumns c_;  // a copy of the views: one load less per op looked up
  HugePageArray<Record> records_;
  HugePageArray<std::uint32_t> dependents_;   // rank-local op indices
  std::vector<RankView> ranks_;               // one per rank, and one past the last
  unsigned num_cpus_ = 1, num_nics_ = 1;
  std::uint64_t completed_ = 0;
  std::vector<Beside> sizes_beside_, start_dependents_beside_;
  std::vector<std::uint64_t> start_, end_;  // by global op, when recording
};

}  // namespace collsim::exec::loggops
