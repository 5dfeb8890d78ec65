#pragma once
// The ops of a schedule that arrives in pieces (goal::ScheduleStream), each rank's held in a
// window while they are in flight, with the dependency state a DependencyTracker keeps: the
// store of the streamed LogGOPS run and of the streamed packet run. A rank's next piece is
// asked for when an op of its newest piece becomes ready, and ops leave the window once they
// and every op before them have finished (and a send's message has been taken, if the
// executor says so).
//
// Why the results are the same as on the whole schedule: an op is released by the last of
// its prerequisites to finish (or start), and the stream's promise (see schedule_stream.hpp)
// means that, when its piece arrives, some prerequisite has not yet started; so it is
// registered with every prerequisite it still waits for before any of them can release it,
// in the same order among that prerequisite's dependents (by op index) as in the whole
// schedule.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collsim/exec/dependency_tracker.hpp"
#include "collsim/exec/stream_order_error.hpp"
#include "collsim/goal/schedule_stream.hpp"
#include "op_info.hpp"

namespace collsim::exec {

// Hears each op as it finishes: its rank, its piece's label, when it started and ended (in
// the executor's unit of time).
using WindowOpFinished = std::function<void(goal::RankId rank, std::uint8_t label, std::uint64_t start, std::uint64_t end)>;

class OpWindows {
 public:
  static constexpr std::uint32_t kEndOfList = 0xFFFFFFFFu;

  // One op while it is in its rank's window: what the executor reads, and the dependency
  // state, with its dependents as linked lists (pieces add to them after the op arrived).
  struct LiveOp {
    OpInfo info;
    std::uint64_t start = 0;  // once started
    std::uint32_t tag = 0;
    std::uint32_t pending_requires = 0;
    std::uint32_t pending_irequires = 0;
    std::uint32_t finish_dependents = kEndOfList;  // ops that require it, ascending
    std::uint32_t start_dependents = kEndOfList;   // ops that irequire it, ascending
    OpState state = OpState::Waiting;
    bool in_flight = false;  // a send whose message has not been taken yet
  };

  // `hold_sends`: a started send stays in the window until message_taken().
  OpWindows(goal::ScheduleStream& stream, WindowOpFinished on_finished, bool hold_sends)
      : stream_(stream), on_finished_(std::move(on_finished)), hold_sends_(hold_sends), windows_(stream.num_ranks()) {}

  goal::RankId num_ranks() const { return static_cast<goal::RankId>(windows_.size()); }
  const OpInfo& op(goal::RankId r, goal::LocalOp i) const { return windows_[r].at(i).info; }
  std::uint32_t tag(goal::RankId r, goal::LocalOp i) const { return windows_[r].at(i).tag; }
  // Ops that left the window had finished.
  OpState state(goal::RankId r, goal::LocalOp i) const {
    const Window& w = windows_[r];
    return i < w.base ? OpState::Finished : w.at(i).state;
  }
  // A hint that op i of rank r (in its window) will be read soon.
  void prefetch(goal::RankId r, goal::LocalOp i) const { __builtin_prefetch(&windows_[r].at(i)); }
  std::uint64_t completed() const { return completed_; }
  std::uint64_t ops_total() const { return ops_total_; }
  std::uint64_t peak_live() const { return peak_live_; }

  // Fetches rank r's first piece and calls ready(i) for its ops without prerequisites, in
  // index order.
  template <typename F>
  void initially_ready(goal::RankId r, F&& ready) {
    Window& w = windows_[r];
    fetch(r);
    for (goal::LocalOp i = w.base; i < w.end; ++i) {
      LiveOp& o = w.at(i);
      if (o.pending_requires == 0 && o.pending_irequires == 0) {
        o.state = OpState::Ready;
        ready(i);
        w.wants_piece = true;
      }
    }
    if (w.wants_piece) fetch(r);
  }

  template <typename F>
  void start(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    Window& w = windows_[r];
    LiveOp& o = w.at(i);
    o.state = OpState::Started;
    o.start = t;
    o.in_flight = hold_sends_ && o.info.kind == goal::OpKind::Send;
    release_dependents(w, o.start_dependents, &LiveOp::pending_irequires, ready);
    if (w.wants_piece) fetch(r);
  }

  template <typename F>
  void finish(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    Window& w = windows_[r];
    LiveOp& o = w.at(i);
    o.state = OpState::Finished;
    ++completed_;
    if (on_finished_) on_finished_(r, o.info.label, o.start, t);
    release_dependents(w, o.finish_dependents, &LiveOp::pending_requires, ready);
    retire(w);
    if (w.wants_piece) fetch(r);
  }

  void message_taken(goal::RankId r, goal::LocalOp send) {
    Window& w = windows_[r];
    w.at(send).in_flight = false;
    retire(w);
  }

  // Calls f(i, op) for each op of rank r's window that has not finished, in index order.
  template <typename F>
  void for_each_unfinished(goal::RankId r, F&& f) const {
    const Window& w = windows_[r];
    for (goal::LocalOp i = w.base; i < w.end; ++i)
      if (w.at(i).state != OpState::Finished) f(i, w.at(i));
  }
  // Rank r's stream has ended and every op it handed over has left the window.
  bool drained(goal::RankId r) const { return windows_[r].exhausted && windows_[r].base == windows_[r].end; }
  // Asks for what the stream still has for rank r, without keeping it: the number of ops
  // that never reached the window (counted in ops_total()).
  std::uint64_t skip_rest(goal::RankId r);

 private:
  // A rank's live ops [base, end) in a ring whose size is a power of two: op i sits at
  // i & mask, so that nothing moves as ops come and go.
  struct Window {
    std::vector<LiveOp> ring;
    goal::LocalOp base = 0, end = 0;
    goal::LocalOp newest_piece = 0;  // first op of the newest piece
    std::uint32_t pieces = 0;
    bool exhausted = false;    // the stream has no more for this rank
    bool wants_piece = false;  // an op of the newest piece became ready

    LiveOp& at(goal::LocalOp i) { return ring[i & (ring.size() - 1)]; }
    const LiveOp& at(goal::LocalOp i) const { return ring[i & (ring.size() - 1)]; }
    void reserve(std::size_t live);
  };
  struct Link {
    goal::LocalOp op;
    std::uint32_t next;
  };

  template <typename F>
  static void release(Window& w, LiveOp& x, goal::LocalOp d, F& ready) {
    x.state = OpState::Ready;
    ready(d);
    if (d >= w.newest_piece) w.wants_piece = true;
  }

  // Empties a dependents list, counting down `pending` (requires or irequires) in each
  // dependent; those left waiting for nothing become ready.
  template <typename F>
  void release_dependents(Window& w, std::uint32_t& list, std::uint32_t LiveOp::*pending, F& ready) {
    std::uint32_t link = list;
    list = kEndOfList;
    while (link != kEndOfList) {
      const goal::LocalOp d = links_[link].op;
      LiveOp& x = w.at(d);
      if (--(x.*pending) == 0 && x.pending_requires == 0 && x.pending_irequires == 0) release(w, x, d, ready);
      link = free_link(link);
    }
  }

  std::uint32_t free_link(std::uint32_t link) {
    const std::uint32_t next = links_[link].next;
    links_[link].next = free_links_;
    free_links_ = link;
    return next;
  }

  void insert(std::uint32_t& head, goal::LocalOp d);
  void retire(Window& w) {
    while (w.base != w.end) {
      const LiveOp& o = w.at(w.base);
      if (o.state != OpState::Finished || o.in_flight) break;
      ++w.base;
      --live_;
    }
  }
  // Brings rank r's next non-empty piece into its window (nothing when the stream is done).
  void fetch(goal::RankId r);
  void commit(goal::RankId r, Window& w);

  goal::ScheduleStream& stream_;
  WindowOpFinished on_finished_;
  bool hold_sends_;
  std::vector<Window> windows_;
  std::vector<Link> links_;
  std::uint32_t free_links_ = kEndOfList;
  goal::SchedulePiece piece_;
  std::uint64_t completed_ = 0, ops_total_ = 0, live_ = 0, peak_live_ = 0;
};

}  // namespace collsim::exec
