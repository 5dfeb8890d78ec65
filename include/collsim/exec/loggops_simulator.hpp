#pragma once
// The LogGOPS message-level execution mode: runs a GOAL schedule as LogGOPSim does and
// gives the same per-rank finish times for the same schedule and parameters.
//
// The model (LogGOPSim, Hoefler et al. 2010), per rank, per cpu c and per nic n, with times
// "next free" for each cpu (o-busy), each NIC's send side and its receive side:
//   calc of d ns        runs when its cpu is free:          cpu busy for d
//   send of s bytes     starts when its cpu and NIC's send side are free, at t:
//                       cpu busy until t + o + (s-1)O, NIC until t + g + (s-1)G;
//                       the message reaches the receiver at t + o + L
//   message arrival     is taken when the receiver's cpu (the send's cpu index) and its NIC's
//                       receive side (the send's nic index) are free, at t:
//                       cpu busy until t + o + max((s-1)O, (s-1)G), NIC until t + g + (s-1)G;
//                       then it matches the earliest posted receive, or waits as unexpected
//   recv                is posted when its cpu is free (costs nothing itself) and takes the
//                       earliest unexpected message that matches, if any
//   eager (s <= S)      the send finishes when it starts
//   rendezvous (s > S)  the send finishes when its message is matched, and the sender's
//                       cpu and NIC are then busy until at least that time
// LogGOPSim's particulars that this reproduces on purpose (they change results):
//   - an op that becomes ready is queued at the time its resources are next free, which
//     may be earlier than the event that made it ready (a dependent on another, idle cpu
//     starts "in the past"); a calc finishes, as far as `requires` is concerned, when it
//     starts. So `requires` and `irequires` on a calc or an eager send behave the same.
//     LogGOPSParams::causal = 1 departs from this on purpose: an op is then queued no
//     earlier than its releasing prerequisite finished (a calc: at its end) or started
//     (irequires), which a training step needs (its DP stream's cpu is otherwise idle).
//   - a rank's finish time is the latest time any of its cpus is busy until (NIC times
//     do not count), which is what LogGOPSim prints.
//   - sizes are unsigned: a 0-byte message charges (0-1)*G = -G, i.e. g - G on the NIC.
//   - ties: events at equal times run in the order they were first queued; ops that
//     become ready in one event are queued rank by rank (ascending), sends before
//     receives before calcs (with std::sort, as LogGOPSim: its exact order for more than
//     16 ops is that of the standard library's introsort).
// Where the result can differ from LogGOPSim's (none occurs in Schedgen's or our output):
//   - LogGOPSim releases a prerequisite's dependents in the order its dependency lines came
//     in; a Schedule keeps them by op index. Same result when those lines are in op order.
//   - a send with tag -1 matches any receive's tag in LogGOPSim (MPI forbids such sends);
//     MatchQueue matches it only to receives with tag -1.
//   - a receive of at most S bytes that takes an unexpected message of more than S leaves
//     the send unfinished, as in LogGOPSim; the reverse mismatch finishes an already
//     finished eager send a second time there, and is ignored here.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/exec/loggops_params.hpp"
#include "collsim/exec/compute_variation.hpp"
#include "collsim/goal/schedule.hpp"
#include "collsim/pdes/run_monitor.hpp"

namespace collsim::exec {

struct LogGOPSOptions {
  bool record_op_times = false;  // fill LogGOPSResult::op_start / op_end
  // Cap on the ops listed in LogGOPSResult::blocked (num_blocked always counts them all).
  std::size_t max_reported_blocked = std::numeric_limits<std::size_t>::max();
  // Hears progress every 2^16 events and once at the end (work = ops completed; simulated
  // times in ns as ps × 1000). Not owned.
  pdes::RunMonitor* monitor = nullptr;
  // How calcs depart from their scheduled times; null: exactly as scheduled. Not owned.
  const ComputeVariation* compute = nullptr;
};

// An op or message time that was never reached.
inline constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

enum class BlockReason : std::uint8_t {
  Prerequisites,   // waits for `requires` that never finished / `irequires` that never started
  NoMatchingSend,  // a posted receive that no message matched
  NoMatchingRecv,  // a rendezvous send whose message no receive completed
};
std::string_view to_string(BlockReason reason);

// An op that never finished.
struct BlockedOp {
  goal::RankId rank = 0;
  goal::LocalOp op = 0;
  goal::OpKind kind = goal::OpKind::Calc;
  std::uint32_t peer = 0;
  std::uint32_t tag = 0;
  std::uint64_t size = 0;
  BlockReason reason = BlockReason::Prerequisites;
  std::vector<goal::LocalOp> unfinished_requires;  // its `requires` that never finished
  std::vector<goal::LocalOp> unstarted_irequires;  // its `irequires` that never started
};

// A message left in a receiver's unexpected queue at the end.
struct UnmatchedMessage {
  goal::RankId from = 0;
  goal::RankId to = 0;
  goal::LocalOp send = 0;  // the sending op, on rank `from`
  std::uint32_t tag = 0;
  std::uint64_t size = 0;
  std::uint64_t arrival = 0;  // when the receiver took it in (ns)
};

struct LogGOPSResult {
  // Per rank: the latest time any of its cpus is busy until, in ns ("Host i: ..." in
  // LogGOPSim's output).
  std::vector<std::uint64_t> rank_finish;
  std::uint64_t makespan = 0;    // max of rank_finish
  goal::RankId makespan_rank = 0;  // the lowest rank that finishes at makespan

  std::uint64_t ops_completed = 0;
  std::uint64_t events = 0;            // events taken from the queue, retries included
  std::uint64_t loggopsim_events = 0;  // ops and messages queued: LogGOPSim's "Events"
  std::uint64_t messages = 0;          // sends started
  std::uint64_t bytes = 0;             // their sizes

  // Every op finished and no message is left unexpected.
  bool complete = true;
  std::uint64_t num_blocked = 0;
  std::vector<BlockedOp> blocked;            // by rank, then op (capped, see options)
  std::vector<UnmatchedMessage> unmatched;   // by receiving rank, then arrival

  // With LogGOPSOptions::record_op_times, indexed by global op (Schedule order); kNever if
  // not reached. start: when the op started (irequires released). end: when it finished
  // (requires released) -- for a calc, start + duration; for an eager send, its start; for
  // a rendezvous send, when its message was matched; for a recv, when it was matched.
  std::vector<std::uint64_t> op_start, op_end;
};

// Runs `schedule` to the end; never hangs: a schedule that deadlocks ends when no event
// is left, with the ops that could not finish in `blocked`. Throws std::invalid_argument
// for invalid parameters or a rank with 2^31 ops or more.
LogGOPSResult simulate_loggops(const goal::Schedule& schedule, const LogGOPSParams& params,
                               const LogGOPSOptions& options = {});

// A readable account of what did not finish: at most `max_items` blocked ops and as many
// unmatched messages, then a count of the rest. Empty when the run was complete.
std::string describe_unfinished(const LogGOPSResult& result, std::size_t max_items = 20);

}  // namespace collsim::exec
