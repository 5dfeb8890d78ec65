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
// The columns are spans, so that a .goalb file can be used in place once mapped.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "collsim/common/mapped_file.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::goal {

// The columns as built, owned. Builders and readers fill these; a Schedule takes them over.
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
};

// The same columns as read-only views: into a Schedule's own arrays, or straight into a
// mapped .goalb file (which is why the file holds exactly these columns).
struct ScheduleColumns {
  std::uint32_t num_ranks = 0;
  std::span<const std::uint64_t> op_begin;
  std::span<const std::uint64_t> requires_begin;
  std::span<const std::uint64_t> irequires_begin;
  std::span<const OpKind> kind;
  std::span<const std::uint8_t> cpu;
  std::span<const std::uint8_t> nic;
  std::span<const std::uint32_t> peer;
  std::span<const std::uint32_t> tag;
  std::span<const std::uint64_t> size;
  std::span<const std::uint32_t> requires_offset;
  std::span<const std::uint32_t> irequires_offset;
  std::span<const std::uint32_t> requires_target;
  std::span<const std::uint32_t> irequires_target;

  std::uint64_t num_ops() const { return kind.size(); }
  // Element-wise: equal columns, wherever they live.
  bool operator==(const ScheduleColumns& other) const;
};

// Calls visit(a.column, b.column) for each of the 13 columns of two ScheduleArrays or
// ScheduleColumns (which name their columns alike), in the order of the .goalb sections.
template <typename A, typename B, typename Visit>
void for_each_column_pair(A& a, B& b, Visit&& visit) {
  visit(a.op_begin, b.op_begin);
  visit(a.requires_begin, b.requires_begin);
  visit(a.irequires_begin, b.irequires_begin);
  visit(a.kind, b.kind);
  visit(a.cpu, b.cpu);
  visit(a.nic, b.nic);
  visit(a.peer, b.peer);
  visit(a.tag, b.tag);
  visit(a.size, b.size);
  visit(a.requires_offset, b.requires_offset);
  visit(a.irequires_offset, b.irequires_offset);
  visit(a.requires_target, b.requires_target);
  visit(a.irequires_target, b.irequires_target);
}

template <typename Columns, typename Visit>
void for_each_column(Columns& c, Visit&& visit) {
  for_each_column_pair(c, c, [&](auto& column, auto&) { visit(column); });
}

ScheduleColumns columns_of(const ScheduleArrays& arrays);
// An owned copy of the columns.
ScheduleArrays copy_columns(const ScheduleColumns& columns);

// Returns a description of the first inconsistency, or nothing when the columns form a
// valid schedule. Linear time; does not look for dependency cycles.
std::optional<std::string> validate(const ScheduleColumns& columns);
// The same, calling checked(first, end) as ranks [first, end) have been checked, a few
// hundred KB of ops at a time, in order (a reader of a mapped file sums them meanwhile).
std::optional<std::string> validate(const ScheduleColumns& columns,
                                    const std::function<void(std::uint32_t first, std::uint32_t end)>& checked);
inline std::optional<std::string> validate(const ScheduleArrays& arrays) { return validate(columns_of(arrays)); }

// Read-only view of one rank's ops.
class RankOps {
 public:
  RankId rank() const { return rank_; }
  std::uint32_t num_ops() const { return num_ops_; }
  std::uint64_t first_global_op() const { return first_; }

  OpKind kind(LocalOp i) const { return c_->kind[first_ + i]; }
  std::uint32_t peer(LocalOp i) const { return c_->peer[first_ + i]; }
  std::uint32_t tag(LocalOp i) const { return c_->tag[first_ + i]; }
  std::uint64_t size(LocalOp i) const { return c_->size[first_ + i]; }
  std::uint8_t cpu(LocalOp i) const { return c_->cpu[first_ + i]; }
  std::uint8_t nic(LocalOp i) const { return c_->nic[first_ + i]; }
  Op op(LocalOp i) const;

  // Ops that must finish before op i starts.
  std::span<const std::uint32_t> requires_of(LocalOp i) const {
    return row(c_->requires_offset, c_->requires_target, c_->requires_begin[rank_], i);
  }
  // Ops that must have started before op i starts.
  std::span<const std::uint32_t> irequires_of(LocalOp i) const {
    return row(c_->irequires_offset, c_->irequires_target, c_->irequires_begin[rank_], i);
  }
  // The rank's CSR rows whole (see the layout above): num_ops + 1 offsets, from 0, into
  // rank-local targets; for loops over every edge.
  struct Rows {
    const std::uint32_t* offset;
    const std::uint32_t* target;
  };
  Rows requires_rows() const {
    return {c_->requires_offset.data() + first_ + rank_, c_->requires_target.data() + c_->requires_begin[rank_]};
  }
  Rows irequires_rows() const {
    return {c_->irequires_offset.data() + first_ + rank_, c_->irequires_target.data() + c_->irequires_begin[rank_]};
  }
  std::uint64_t num_requires() const { return c_->requires_begin[rank_ + 1] - c_->requires_begin[rank_]; }
  std::uint64_t num_irequires() const {
    return c_->irequires_begin[rank_ + 1] - c_->irequires_begin[rank_];
  }

 private:
  friend class Schedule;
  friend class ScheduleBuilder;
  RankOps(const ScheduleColumns* c, RankId rank)
      : c_(c), rank_(rank), first_(c->op_begin[rank]),
        num_ops_(static_cast<std::uint32_t>(c->op_begin[rank + 1] - c->op_begin[rank])) {}
  std::span<const std::uint32_t> row(std::span<const std::uint32_t> offset, std::span<const std::uint32_t> target,
                                     std::uint64_t base, LocalOp i) const {
    const std::uint64_t at = first_ + rank_ + i;
    return {target.data() + base + offset[at], offset[at + 1] - offset[at]};
  }
  const ScheduleColumns* c_;
  RankId rank_;
  std::uint64_t first_;
  std::uint32_t num_ops_;
};

// An immutable schedule. Copies share the same storage.
class Schedule {
 public:
  Schedule() = default;
  // Throw std::invalid_argument with validate()'s description when the columns are not valid.
  static Schedule from_arrays(ScheduleArrays arrays);
  // Columns that live in memory kept alive by `owner` (e.g. a mapped file).
  static Schedule from_columns(const ScheduleColumns& columns, std::shared_ptr<const void> owner);
  // The same, with validate()'s description returned instead of thrown, so that a reader can
  // report it in its own terms (file and position); the schedule is validated once.
  static std::variant<Schedule, std::string> checked(ScheduleArrays arrays);
  static std::variant<Schedule, std::string> checked(const ScheduleColumns& columns, std::shared_ptr<const void> owner);
  // Columns read in place from a mapped file (see drop_resident), calling checked(first,
  // end) as the check passes ranks [first, end), a few hundred KB of them at a time, while
  // their bytes are still in cache (a reader summing the file as it is checked).
  static std::variant<Schedule, std::string> checked(const ScheduleColumns& columns,
                                                     std::shared_ptr<const MappedFile> file,
                                                     const std::function<void(RankId first, RankId end)>& checked);

  std::uint32_t num_ranks() const { return c_.num_ranks; }
  std::uint64_t num_ops() const { return c_.kind.size(); }
  std::uint64_t num_requires() const { return c_.requires_target.size(); }
  std::uint64_t num_irequires() const { return c_.irequires_target.size(); }
  RankOps rank(RankId r) const { return RankOps(&c_, r); }
  const ScheduleColumns& columns() const { return c_; }

  // Bytes held by the columns.
  std::size_t memory_bytes() const;

  // A reader that has copied what it needs of ranks [first, end) (a simulator building its
  // own records) gives back the memory of their ops' and edges' columns when they are read
  // in place from a mapped file: touched again, they are read from the file. Nothing for
  // columns in memory.
  void drop_resident(RankId first, RankId end) const;

  bool operator==(const Schedule& other) const { return c_ == other.c_; }

 private:
  friend class ScheduleBuilder;
  Schedule(const ScheduleColumns& columns, std::shared_ptr<const void> owner)
      : c_(columns), owner_(std::move(owner)) {}
  static Schedule adopt(ScheduleArrays arrays);  // no validation: the caller guarantees it
  ScheduleColumns c_;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<const MappedFile> file_;  // when the columns are in a mapped file
};

}  // namespace collsim::goal
