#include "schedule_ops.hpp"

namespace collsim::exec {

std::string ScheduleOps::waiting_for(goal::RankId r, goal::LocalOp i) const {
  const DependencyTracker& deps = held(r).deps;
  const goal::RankOps ops = schedule_.rank(r);
  std::string text = "waits for";
  int shown = 0;
  for (std::uint32_t p : ops.requires_of(i))
    if (deps.state(p) != OpState::Finished && shown++ < 4) text += " op " + std::to_string(p) + " to finish,";
  for (std::uint32_t p : ops.irequires_of(i))
    if ((deps.state(p) == OpState::Waiting || deps.state(p) == OpState::Ready) && shown++ < 4)
      text += " op " + std::to_string(p) + " to start,";
  text.pop_back();
  return text;
}

}  // namespace collsim::exec
