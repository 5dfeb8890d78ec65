#pragma once
// The ops of a schedule that arrives in pieces (OpWindows), as the host executor reads them:
// the op store of HostExecutor for a streamed run. Ops leave the windows once done, so what is
// reported of a blocked op is what its window still knows.

#include <cstdint>
#include <string>

#include "op_windows.hpp"

namespace collsim::exec {

class StreamedOps {
 public:
  explicit StreamedOps(OpWindows& windows) : w_(windows) {}

  void hold(goal::RankId) {}
  // A copy: starting or finishing an op may bring a piece in, which can move the window.
  OpInfo op(goal::RankId r, goal::LocalOp i) const { return w_.op(r, i); }
  std::uint32_t tag(goal::RankId r, goal::LocalOp i) const { return w_.tag(r, i); }

  template <typename F>
  void initially_ready(goal::RankId r, F&& ready) {
    w_.initially_ready(r, ready);
  }
  template <typename F>
  void start(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    w_.start(r, i, t, ready);
  }
  template <typename F>
  void finish(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    w_.finish(r, i, t, ready);
  }

  template <typename F, typename G>
  void for_each_dependent(goal::RankId r, goal::LocalOp i, F&& finished, G&& started) const {
    w_.for_each_dependent(r, i, finished, started);
  }
  template <typename Open>
  bool may_gain_open_dependents(goal::RankId r, goal::LocalOp i, Open&& open) const {
    return w_.may_gain_open_dependents(r, i, open);
  }

  bool complete(goal::RankId r) const { return w_.drained(r); }
  template <typename F>
  void for_each_unfinished(goal::RankId r, F&& f) const {
    w_.for_each_unfinished(r, [&](goal::LocalOp i, const OpWindows::LiveOp& o) {
      f(i, goal::Op{o.info.kind, o.info.peer, o.tag, o.info.size, o.info.cpu, o.info.nic}, o.state);
    });
  }
  std::string waiting_for(goal::RankId, goal::LocalOp) const { return "waits for its prerequisites"; }
  // Asks the stream for what it still has for rank r: the ops the run never reached.
  std::uint64_t never_reached(goal::RankId r) { return w_.skip_rest(r); }

 private:
  OpWindows& w_;
};

}  // namespace collsim::exec
