#include "collsim/exec/loggops_stream.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "collsim/logging/logging.hpp"
#include "loggops_run.hpp"
#include "op_windows.hpp"

namespace collsim::exec {
namespace {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

// The window store, with what the LogGOPS loop asks of a store besides.
class StreamStore : public OpWindows {
 public:
  StreamStore(goal::ScheduleStream& stream, const LogGOPSStreamOptions& options)
      : OpWindows(stream, options.on_finished, /*hold_sends=*/true) {}

  // Any cpu or NIC index an op may name: pieces come later than the run's set-up.
  unsigned num_cpus() const { return 256; }
  unsigned num_nics() const { return 256; }

  void report_blocked(LogGOPSResult& res, std::size_t max_reported) {
    for (RankId r = 0; r < num_ranks(); ++r) {
      for_each_unfinished(r, [&](LocalOp i, const LiveOp& o) {
        ++res.num_blocked;
        if (res.blocked.size() >= max_reported) return;
        BlockedOp b;
        b.rank = r;
        b.op = i;
        b.kind = o.info.kind;
        b.peer = o.info.peer;
        b.tag = o.tag;
        b.size = o.info.size;
        b.reason = o.state != OpState::Started ? BlockReason::Prerequisites
                   : b.kind == OpKind::Recv    ? BlockReason::NoMatchingSend
                                               : BlockReason::NoMatchingRecv;
        res.blocked.push_back(std::move(b));
      });
      // What the stream still had for this rank never ran either.
      res.num_blocked += skip_rest(r);
    }
  }
};

}  // namespace

LogGOPSStreamResult simulate_loggops_stream(goal::ScheduleStream& stream, const LogGOPSParams& params,
                                            const LogGOPSStreamOptions& options) {
  spdlog::logger& log = logging::logger("exec");
  log.debug("LogGOPS: executing a stream of {} rank(s)", stream.num_ranks());
  StreamStore store(stream, options);
  LogGOPSOptions run_options;
  run_options.compute = options.compute;
  run_options.max_reported_blocked = options.max_reported_blocked;
  run_options.monitor = options.monitor;
  LogGOPSStreamResult out;
  out.run = loggops::Run<StreamStore>(store, params, run_options).run();
  out.ops_total = store.ops_total();
  out.peak_live_ops = store.peak_live();
  log.debug("LogGOPS: {} of {} op(s) complete, makespan {} ns, {} events, at most {} op(s) live", out.run.ops_completed,
            out.ops_total, out.run.makespan, out.run.events, out.peak_live_ops);
  return out;
}

}  // namespace collsim::exec
