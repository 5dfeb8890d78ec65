#pragma once
// Collectives as GOAL: the library call that `collsim gen`, the workload lowering and trace
// replay use.

#include <cstdint>
#include <span>
#include <vector>

#include "collsim/collectives/rank_emitter.hpp"
#include "collsim/collectives/spec.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/goal/schedule_builder.hpp"

namespace collsim::collectives {

// Emits group member `me`'s part of the planned collective into `sink`, after `entry`.
// Returns the ops later work must wait for (empty when the member has nothing to do).
std::vector<goal::LocalOp> emit_member(const Plan& plan, std::uint32_t me, RankSink& sink,
                                       std::span<const goal::LocalOp> entry = {});

// Forwards to a ScheduleBuilder whose current rank is open.
class BuilderSink final : public RankSink {
 public:
  explicit BuilderSink(goal::ScheduleBuilder& builder) : builder_(builder) {}
  goal::LocalOp add(const goal::Op& op, const Payload&) override { return builder_.add(op); }
  void add_requires(goal::LocalOp d, goal::LocalOp p) override { builder_.add_requires(d, p); }
  void add_irequires(goal::LocalOp d, goal::LocalOp p) override { builder_.add_irequires(d, p); }

 private:
  goal::ScheduleBuilder& builder_;
};

// What each op of a schedule carries, for the verifier: indexed by global op.
struct Annotations {
  std::vector<DataAction> action;
  std::vector<std::uint64_t> units_begin{0};  // op i's ranges: units[units_begin[i], units_begin[i+1])
  std::vector<UnitRange> units;

  std::span<const UnitRange> units_of(std::uint64_t op) const {
    return {units.data() + units_begin[op], units.data() + units_begin[op + 1]};
  }
};

// Forwards to a ScheduleBuilder and records every op's payload.
class RecordingSink final : public RankSink {
 public:
  RecordingSink(goal::ScheduleBuilder& builder, Annotations& annotations)
      : builder_(builder), annotations_(annotations) {}
  goal::LocalOp add(const goal::Op& op, const Payload& payload) override;
  void add_requires(goal::LocalOp d, goal::LocalOp p) override { builder_.add_requires(d, p); }
  void add_irequires(goal::LocalOp d, goal::LocalOp p) override { builder_.add_irequires(d, p); }

 private:
  goal::ScheduleBuilder& builder_;
  Annotations& annotations_;
};

// Counts what would be emitted without keeping it (generation speed, dry runs).
class CountingSink final : public RankSink {
 public:
  goal::LocalOp add(const goal::Op& op, const Payload&) override;
  void add_requires(goal::LocalOp, goal::LocalOp) override { ++edges; }
  void add_irequires(goal::LocalOp, goal::LocalOp) override { ++edges; }
  void next_rank() { ops_in_rank_ = 0; }

  std::uint64_t ops = 0, sends = 0, recvs = 0, calcs = 0, edges = 0, bytes_sent = 0;

 private:
  goal::LocalOp ops_in_rank_ = 0;
};

// The whole schedule of one collective: num_ranks ranks, the members' ops in their ranks.
goal::Schedule generate(const Plan& plan);
inline goal::Schedule generate(const CollectiveSpec& spec) { return generate(make_plan(spec)); }

struct AnnotatedSchedule {
  Plan plan;
  goal::Schedule schedule;
  Annotations annotations;
};
AnnotatedSchedule generate_annotated(const Plan& plan);
inline AnnotatedSchedule generate_annotated(const CollectiveSpec& spec) { return generate_annotated(make_plan(spec)); }

}  // namespace collsim::collectives
