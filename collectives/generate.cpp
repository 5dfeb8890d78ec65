#include "collsim/collectives/generate.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "collsim/collectives/algorithm.hpp"
#include "collsim/logging/logging.hpp"

namespace collsim::collectives {

std::vector<goal::LocalOp> emit_member(const Plan& plan, std::uint32_t me, RankSink& sink,
                                       std::span<const goal::LocalOp> entry) {
  const Algorithm* algorithm = find_algorithm(plan.collective, plan.algorithm);
  if (algorithm == nullptr) throw std::invalid_argument("no algorithm '" + plan.algorithm + "'");
  RankEmitter out(plan, me, sink, entry);
  algorithm->emit(out);
  return out.finish();
}

goal::LocalOp RecordingSink::add(const goal::Op& op, const Payload& payload) {
  const goal::LocalOp index = builder_.add(op);
  annotations_.action.push_back(payload.action);
  annotations_.units.insert(annotations_.units.end(), payload.units.begin(), payload.units.end());
  annotations_.units_begin.push_back(annotations_.units.size());
  return index;
}

goal::LocalOp CountingSink::add(const goal::Op& op, const Payload&) {
  ++ops;
  switch (op.kind) {
    case goal::OpKind::Send:
      ++sends;
      bytes_sent += op.size;
      break;
    case goal::OpKind::Recv: ++recvs; break;
    case goal::OpKind::Calc: ++calcs; break;
  }
  return ops_in_rank_++;
}

namespace {

// Schedule rank -> participant (group index, then helpers), or npos for ranks outside them.
std::vector<std::uint32_t> member_index(const Plan& plan) {
  std::vector<std::uint32_t> index(plan.num_ranks, std::numeric_limits<std::uint32_t>::max());
  for (std::uint32_t i = 0; i < plan.participants(); ++i) index[plan.rank_of(i)] = i;
  return index;
}

goal::Schedule build(const Plan& plan, goal::ScheduleBuilder& builder, RankSink& sink) {
  const std::vector<std::uint32_t> index = member_index(plan);
  for (goal::RankId r = 0; r < plan.num_ranks; ++r) {
    builder.begin_rank(r);
    if (index[r] != std::numeric_limits<std::uint32_t>::max()) emit_member(plan, index[r], sink);
    builder.end_rank();
  }
  return builder.finish();
}

}  // namespace

goal::Schedule generate(const Plan& plan) {
  goal::ScheduleBuilder builder(plan.num_ranks);
  BuilderSink sink(builder);
  goal::Schedule schedule = build(plan, builder, sink);
  logging::logger("collectives").debug("generated {} {} over {} of {} rank(s): {} op(s)", to_string(plan.collective),
                                plan.algorithm, plan.n, plan.num_ranks, schedule.num_ops());
  return schedule;
}

AnnotatedSchedule generate_annotated(const Plan& plan) {
  AnnotatedSchedule out{plan, {}, {}};
  goal::ScheduleBuilder builder(plan.num_ranks);
  RecordingSink sink(builder, out.annotations);
  out.schedule = build(plan, builder, sink);
  return out;
}

}  // namespace collsim::collectives
