#pragma once
// The in-memory GOAL schedule: every rank's ops and dependency edges, column-wise.
//
// Layout (chosen to hold 10^8 ops in a few GB):
//   per op:   kind, cpu, nic (1 B each), peer, tag (4 B each), size (8 B),
//             one 4-byte CSR offset for `requires` and one for `irequires`   = 27 B/op
//   per edge: the rank-local index of the op depended upon                   =  4 B/edge
//   per rank: where its ops and edges begin                                  = 24 B/rank
// Ops of rank r are global indices [op_begin[r], op_begin[r+1]). Each rank has its own
// CSR rows with rank-local 32-bit offsets: rank r's offsets occupy
// requires_offset[op_begin[r] + r ... op_begin[r+1] + r] (num_ops + 1 entries).
// Each op's dependency list is sorted by the index of the op depended upon, so the same
// schedule has exactly one representation whatever order its dependency lines came in.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collsim/goal/op.hpp"

namespace collsim::goal {

// The raw columns. Any value of this struct can be checked with validate(); a Schedule
// only ever holds arrays that pass.
struct ScheduleArrays {
  std::uint32_t num_ranks = 0;
  std::vector<std::uint64_t> op_begin;         // num_ranks + 1
  std::vector<std::uint64_t> requires_begin;   // num_ranks + 1, into requires_target
  std::vector<std::uint64_t> irequires_begin;  // num_ranks + 1, into irequires_target
  std::vector<OpKind> kind;
  std::vector<std::uint8_t> cpu;
  std::vector<std::uint8_t> nic;
  std::vector<std::uint32_t> peer;
  std::vector<std::uint32_t> tag;
  std::vector<std::uint64_t> size;
  std::vector<std::uint32_t> requires_offset;   // num_ops + num_ranks
  std::vector<std::uint32_t> irequires_offset;  // num_ops + num_ranks
  std::vector<std::uint32_t> requires_target;   // rank-local op index
  std::vector<std::uint32_t> irequires_target;

  bool operator==(const ScheduleArrays&) const = default;
};

// Returns a description of the first inconsistency, or nothing when the arrays form a
// valid schedule. Linear time; does not look for dependency cycles.
std::optional<std::string> validate(const ScheduleArrays& arrays);

// Read-only view of one rank's ops.
class RankOps {
 public:
  RankId rank() const { return rank_; }
  std::uint32_t num_ops() const { return num_ops_; }
  std::uint64_t first_global_op() const { return first_; }

  OpKind kind(LocalOp i) const { return a_->kind[first_ + i]; }
  std::uint32_t peer(LocalOp i) const { return a_->peer[first_ + i]; }
  std::uint32_t tag(LocalOp i) const { return a_->tag[first_ + i]; }
  std::uint64_t size(LocalOp i) const { return a_->size[first_ + i]; }
  std::uint8_t cpu(LocalOp i) const { return a_->cpu[first_ + i]; }
  std::uint8_t nic(LocalOp i) const { return a_->nic[first_ + i]; }
  Op op(LocalOp i) const;

  // Ops that must finish before op i starts.
  std::span<const std::uint32_t> requires_of(LocalOp i) const {
    return row(a_->requires_offset, a_->requires_target, a_->requires_begin[rank_], i);
  }
  // Ops that must have started before op i starts.
  std::span<const std::uint32_t> irequires_of(LocalOp i) const {
    return row(a_->irequires_offset, a_->irequires_target, a_->irequires_begin[rank_], i);
  }
  std::uint64_t num_requires() const { return a_->requires_begin[rank_ + 1] - a_->requires_begin[rank_]; }
  std::uint64_t num_irequires() const {
    return a_->irequires_begin[rank_ + 1] - a_->irequires_begin[rank_];
  }

 private:
  friend class Schedule;
  friend class ScheduleBuilder;
  RankOps(const ScheduleArrays* a, RankId rank)
      : a_(a), rank_(rank), first_(a->op_begin[rank]),
        num_ops_(static_cast<std::uint32_t>(a->op_begin[rank + 1] - a->op_begin[rank])) {}
  std::span<const std::uint32_t> row(const std::vector<std::uint32_t>& offset,
                                     const std::vector<std::uint32_t>& target, std::uint64_t base,
                                     LocalOp i) const {
    const std::uint64_t at = first_ + rank_ + i;
    return {target.data() + base + offset[at], offset[at + 1] - offset[at]};
  }
  const ScheduleArrays* a_;
  RankId rank_;
  std::uint64_t first_;
  std::uint32_t num_ops_;
};

class Schedule {
 public:
  Schedule() = default;
  // Throws std::invalid_argument with validate()'s description when the arrays are not valid.
  static Schedule from_arrays(ScheduleArrays arrays);

  std::uint32_t num_ranks() const { return a_.num_ranks; }
  std::uint64_t num_ops() const { return a_.kind.size(); }
  std::uint64_t num_requires() const { return a_.requires_target.size(); }
  std::uint64_t num_irequires() const { return a_.irequires_target.size(); }
  RankOps rank(RankId r) const { return RankOps(&a_, r); }
  const ScheduleArrays& arrays() const { return a_; }

  // Bytes held by the columns (sizes, not capacities).
  std::size_t memory_bytes() const;

  bool operator==(const Schedule&) const = default;

 private:
  friend class ScheduleBuilder;
  explicit Schedule(ScheduleArrays arrays) : a_(std::move(arrays)) {}
  ScheduleArrays a_;
};

}  // namespace collsim::goal
