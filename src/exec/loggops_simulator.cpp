#include "collsim/exec/loggops_simulator.hpp"

#include <algorithm>
#include <stdexcept>

#include "collsim/logging/logging.hpp"
#include "loggops_run.hpp"
#include "loggops_schedule_store.hpp"

namespace collsim::exec {
namespace {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

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
  loggops::ScheduleStore store(schedule, options.record_op_times);
  LogGOPSResult result = loggops::Run<loggops::ScheduleStore>(store, params, options).run();
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
