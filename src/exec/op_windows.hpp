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

  // An op's dependents (pieces add to them after the op arrived): the first kNear in the op
  // itself, which most ops never pass, the rest in a list of chunks of up to kChunk. Releasing
  // an op then touches nothing but the op and its dependents, where a list of one link per
  // dependent, allocated when the dependent arrived, cost a miss to memory per dependent.
  template <std::uint32_t Near>
  struct DependentList {
    static constexpr std::uint32_t kNear = Near;
    goal::LocalOp near[Near] = {};
    std::uint32_t count = 0;
    std::uint32_t first = kEndOfList;  // chunks, from the (Near + 1)th dependent on
    std::uint32_t last = kEndOfList;
  };

  // One op while it is in its rank's window: what the executor reads, and the dependency
  // state.
  struct LiveOp {
    OpInfo info;
    std::uint64_t start = 0;  // once started
    std::uint32_t tag = 0;
    // Prerequisites not yet met: ops it requires that have not finished, and ops it
    // irequires that have not started. It is ready at 0.
    std::uint32_t pending = 0;
    DependentList<2> finish_dependents;  // ops that require it, ascending
    DependentList<1> start_dependents;   // ops that irequire it (rarer), ascending
    OpState state = OpState::Waiting;
    bool in_flight = false;  // a send whose message has not been taken yet
  };
  static_assert(sizeof(LiveOp) <= 72);

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
      if (o.pending == 0) {
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
    release_dependents(w, o.start_dependents, ready);
    if (w.wants_piece) fetch(r);
  }

  template <typename F>
  void finish(goal::RankId r, goal::LocalOp i, std::uint64_t t, F&& ready) {
    Window& w = windows_[r];
    LiveOp& o = w.at(i);
    o.state = OpState::Finished;
    ++completed_;
    if (on_finished_) on_finished_(r, o.info.label, o.start, t);
    release_dependents(w, o.finish_dependents, ready);
    retire(w);
    if (w.wants_piece) fetch(r);
  }

  void message_taken(goal::RankId r, goal::LocalOp send) {
    Window& w = windows_[r];
    w.at(send).in_flight = false;
    retire(w);
  }

  // Calls finished(d) for each op d of the window that requires op i (in the window), then
  // started(d) for each that irequires it; changes nothing.
  template <typename F, typename G>
  void for_each_dependent(goal::RankId r, goal::LocalOp i, F&& finished, G&& started) const {
    const LiveOp& o = windows_[r].at(i);
    visit(o.finish_dependents, finished);
    visit(o.start_dependents, started);
  }
  // Whether ops of pieces still to come that name a peer for which open(peer) holds may
  // depend on op i: the stream's promise (see schedule_stream.hpp) ties each op still to come
  // to an op of the newest piece, so an op of any other piece gains no dependents that would
  // not wait for the newest piece's; and the stream may say which peers are still to come.
  template <typename Open>
  bool may_gain_open_dependents(goal::RankId r, goal::LocalOp i, Open&& open) const {
    const Window& w = windows_[r];
    if (w.exhausted || i < w.newest_piece) return false;
    if (!w.later_known) return true;
    if (w.later_open < 0) w.later_open = std::any_of(w.later_peers.begin(), w.later_peers.end(), open) ? 1 : 0;
    return w.later_open > 0;
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
    std::uint32_t last_piece_ops = 0;
    bool exhausted = false;    // the stream has no more for this rank
    bool wants_piece = false;  // an op of the newest piece became ready
    // What the stream said of the peers of the pieces after the newest, if it could tell,
    // and whether one of them is open (may_gain_open_dependents; -1: not yet asked).
    bool later_known = false;
    std::vector<goal::RankId> later_peers;
    mutable std::int8_t later_open = -1;

    LiveOp& at(goal::LocalOp i) { return ring[i & (ring.size() - 1)]; }
    const LiveOp& at(goal::LocalOp i) const { return ring[i & (ring.size() - 1)]; }
    void reserve(std::size_t live);
    // Halves the ring while a quarter of it would hold the live ops and a piece like the
    // last one: a rank's peak (the pipeline stage's backward passes and its DP reduction)
    // passes, and the ranks of a step peak at different times, so rings kept at their peak
    // size hold several times the ops in flight at any moment. Counting the next piece keeps
    // a ring from halving as ops retire and doubling again at the next commit.
    void shrink_if_sparse();
    // A ring of `size` slots (a power of two) holding the live ops.
    void resize(std::size_t size);
  };
  static constexpr std::uint32_t kChunk = 6;
  struct Chunk {
    goal::LocalOp ops[kChunk];
    std::uint32_t count;
    std::uint32_t next;
  };

  template <typename F>
  static void release(Window& w, LiveOp& x, goal::LocalOp d, F& ready) {
    x.state = OpState::Ready;
    ready(d);
    if (d >= w.newest_piece) w.wants_piece = true;
  }

  // Empties a dependents list, counting down each dependent's pending prerequisites; those
  // left waiting for nothing become ready.
  template <typename List, typename F>
  void release_dependents(Window& w, List& list, F& ready) {
    const List l = list;
    list = List{};
    auto count_down = [&](goal::LocalOp d) {
      LiveOp& x = w.at(d);
      if (--x.pending == 0) release(w, x, d, ready);
    };
    for (std::uint32_t k = 0; k < std::min(l.count, List::kNear); ++k) count_down(l.near[k]);
    for (std::uint32_t chunk = l.first; chunk != kEndOfList;) {
      const Chunk c = chunks_[chunk];  // a copy: a ready callback may add chunks
      for (std::uint32_t k = 0; k < c.count; ++k) count_down(c.ops[k]);
      free_chunks_.push_back(chunk);
      chunk = c.next;
    }
  }

  template <typename List, typename F>
  void visit(const List& list, F& f) const {
    for (std::uint32_t k = 0; k < std::min(list.count, List::kNear); ++k) f(list.near[k]);
    for (std::uint32_t chunk = list.first; chunk != kEndOfList; chunk = chunks_[chunk].next)
      for (std::uint32_t k = 0; k < chunks_[chunk].count; ++k) f(chunks_[chunk].ops[k]);
  }
  // Appends d, which is at least every dependent already listed (see commit()).
  template <typename List>
  void append(List& list, goal::LocalOp d) {
    if (list.count < List::kNear) {
      list.near[list.count++] = d;
      return;
    }
    ++list.count;
    if (list.last != kEndOfList && chunks_[list.last].count < kChunk) {
      Chunk& c = chunks_[list.last];
      c.ops[c.count++] = d;
      return;
    }
    const std::uint32_t chunk = new_chunk(d);
    if (list.last == kEndOfList) {
      list.first = chunk;
    } else {
      chunks_[list.last].next = chunk;
    }
    list.last = chunk;
  }
  // A chunk holding d alone.
  std::uint32_t new_chunk(goal::LocalOp d);
  void retire(Window& w) {
    const goal::LocalOp base = w.base;
    while (w.base != w.end) {
      const LiveOp& o = w.at(w.base);
      if (o.state != OpState::Finished || o.in_flight) break;
      ++w.base;
      --live_;
    }
    if (w.base != base) w.shrink_if_sparse();
  }
  // Brings rank r's next non-empty piece into its window (nothing when the stream is done).
  void fetch(goal::RankId r);
  void commit(goal::RankId r, Window& w);

  goal::ScheduleStream& stream_;
  WindowOpFinished on_finished_;
  bool hold_sends_;
  std::vector<Window> windows_;
  std::vector<Chunk> chunks_;
  // A stack, not a list through the chunks: taking a chunk then reads nothing of it, where
  // following a list of chunks freed long ago costs a miss to memory each.
  std::vector<std::uint32_t> free_chunks_;
  goal::SchedulePiece piece_;
  std::uint64_t completed_ = 0, ops_total_ = 0, live_ = 0, peak_live_ = 0;
};

}  // namespace collsim::exec
