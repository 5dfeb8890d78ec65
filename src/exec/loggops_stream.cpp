#include "collsim/exec/loggops_stream.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "collsim/log/log.hpp"
#include "loggops_run.hpp"

namespace collsim::exec {
namespace {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;
using loggops::OpInfo;

constexpr std::uint32_t kEndOfList = 0xFFFFFFFFu;

// One op while it is in its rank's window: what the event loop reads, and the dependency
// state a DependencyTracker keeps, with its dependents as linked lists (pieces add to them
// after the op arrived).
struct LiveOp {
  OpInfo info;
  std::uint64_t start = 0;  // ns, once started
  std::uint32_t tag = 0;
  std::uint32_t pending_requires = 0;
  std::uint32_t pending_irequires = 0;
  std::uint32_t finish_dependents = kEndOfList;  // ops that require it, ascending
  std::uint32_t start_dependents = kEndOfList;   // ops that irequire it, ascending
  OpState state = OpState::Waiting;
  bool in_flight = false;  // a send whose message has not reached its receiver yet
};

// A rank's live ops [base, end) in a ring whose size is a power of two: op i sits at
// i & mask, so that nothing moves as ops come and go.
struct Window {
  std::vector<LiveOp> ring;
  LocalOp base = 0, end = 0;
  LocalOp newest_piece = 0;  // first op of the newest piece
  std::uint32_t pieces = 0;
  bool exhausted = false;     // the stream has no more for this rank
  bool wants_piece = false;   // an op of the newest piece became ready

  LiveOp& at(LocalOp i) { return ring[i & (ring.size() - 1)]; }
  const LiveOp& at(LocalOp i) const { return ring[i & (ring.size() - 1)]; }
  void reserve(std::size_t live) {
    if (live <= ring.size()) return;
    std::size_t size = std::max<std::size_t>(ring.size(), 64);
    while (size < live) size *= 2;
    std::vector<LiveOp> grown(size);
    for (LocalOp i = base; i != end; ++i) grown[i & (size - 1)] = at(i);
    ring = std::move(grown);
  }
};

class StreamStore {
 public:
  StreamStore(goal::ScheduleStream& stream, const LogGOPSStreamOptions& options)
      : stream_(stream), options_(options), windows_(stream.num_ranks()) {}

  RankId num_ranks() const { return static_cast<RankId>(windows_.size()); }
  // Any cpu or NIC index an op may name: pieces come later than the run's set-up.
  unsigned num_cpus() const { return 256; }
  unsigned num_nics() const { return 256; }
  const OpInfo& op(RankId r, LocalOp i) const { return windows_[r].at(i).info; }
  std::uint32_t tag(RankId r, LocalOp i) const { return windows_[r].at(i).tag; }
  // Ops that left the window had finished.
  OpState state(RankId r, LocalOp i) const {
    const Window& w = windows_[r];
    return i < w.base ? OpState::Finished : w.at(i).state;
  }
  std::uint64_t completed() const { return completed_; }
  std::uint64_t ops_total() const { return ops_total_; }
  std::uint64_t peak_live() const { return peak_live_; }

  template <typename F>
  void initially_ready(RankId r, F&& ready) {
    Window& w = windows_[r];
    fetch(r);
    for (LocalOp i = w.base; i < w.end; ++i) {
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
  void start(RankId r, LocalOp i, std::uint64_t t, F&& ready) {
    Window& w = windows_[r];
    LiveOp& o = w.at(i);
    o.state = OpState::Started;
    o.start = t;
    o.in_flight = o.info.kind == OpKind::Send;
    release_dependents(w, o.start_dependents, &LiveOp::pending_irequires, ready);
    if (w.wants_piece) fetch(r);
  }

  template <typename F>
  void finish(RankId r, LocalOp i, std::uint64_t t, F&& ready) {
    Window& w = windows_[r];
    LiveOp& o = w.at(i);
    o.state = OpState::Finished;
    ++completed_;
    if (options_.on_finished) options_.on_finished(r, o.info.label, o.start, t);
    release_dependents(w, o.finish_dependents, &LiveOp::pending_requires, ready);
    retire(w);
    if (w.wants_piece) fetch(r);
  }

  void message_taken(RankId r, LocalOp send) {
    Window& w = windows_[r];
    w.at(send).in_flight = false;
    retire(w);
  }

  void report_blocked(LogGOPSResult& res, std::size_t max_reported);

 private:
  struct Link {
    LocalOp op;
    std::uint32_t next;
  };

  template <typename F>
  static void release(Window& w, LiveOp& x, LocalOp d, F& ready) {
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
      const LocalOp d = links_[link].op;
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

  // Adds d to a list kept in ascending order (after equal entries: a duplicate edge counts
  // twice, as in the whole schedule).
  void insert(std::uint32_t& head, LocalOp d) {
    std::uint32_t node;
    if (free_links_ != kEndOfList) {
      node = free_links_;
      free_links_ = links_[node].next;
    } else {
      if (links_.size() >= kEndOfList) throw std::invalid_argument("LogGOPS stream: too many live dependencies");
      node = static_cast<std::uint32_t>(links_.size());
      links_.push_back({});
    }
    std::uint32_t* at = &head;
    while (*at != kEndOfList && links_[*at].op <= d) at = &links_[*at].next;
    links_[node] = {d, *at};
    *at = node;
  }

  void retire(Window& w) {
    while (w.base != w.end) {
      const LiveOp& o = w.at(w.base);
      if (o.state != OpState::Finished || o.in_flight) break;
      ++w.base;
      --live_;
    }
  }

  // Brings rank r's next non-empty piece into its window (nothing when the stream is done).
  void fetch(RankId r) {
    Window& w = windows_[r];
    w.wants_piece = false;
    while (!w.exhausted) {
      piece_.clear();
      if (!stream_.next_piece(r, piece_)) {
        w.exhausted = true;
        return;
      }
      if (piece_.ops.empty()) continue;
      commit(r, w);
      return;
    }
  }

  void commit(RankId r, Window& w);

  goal::ScheduleStream& stream_;
  const LogGOPSStreamOptions& options_;
  std::vector<Window> windows_;
  std::vector<Link> links_;
  std::uint32_t free_links_ = kEndOfList;
  goal::SchedulePiece piece_;
  std::uint64_t completed_ = 0, ops_total_ = 0, live_ = 0, peak_live_ = 0;
};

void StreamStore::commit(RankId r, Window& w) {
  const LocalOp first = w.end;
  const std::uint64_t n = piece_.ops.size();
  auto where = [&] { return "LogGOPS stream: rank " + std::to_string(r) + " piece " + std::to_string(w.pieces) + ": "; };
  if (first + n >= loggops::kMessageBit) throw std::invalid_argument(where() + "the rank has 2^31 ops or more");
  if (piece_.labels.size() != n && !piece_.labels.empty())
    throw std::invalid_argument(where() + "labels do not match the ops");
  w.reserve(w.end - w.base + n);
  for (std::uint64_t k = 0; k < n; ++k) {
    const goal::Op& op = piece_.ops[k];
    if ((op.kind == OpKind::Send && op.peer >= num_ranks()) ||
        (op.kind == OpKind::Recv && op.peer >= num_ranks() && op.peer != goal::kAnySource))
      throw std::invalid_argument(where() + "op " + std::to_string(first + k) + " names rank " + std::to_string(op.peer) +
                                  " of " + std::to_string(num_ranks()));
    LiveOp& o = w.at(static_cast<LocalOp>(first + k));
    o = LiveOp{};
    o.info = {op.size, op.peer, op.kind, op.cpu, op.nic, piece_.labels.empty() ? std::uint8_t{0} : piece_.labels[k]};
    o.tag = op.tag;
  }
  const LocalOp end = static_cast<LocalOp>(first + n);
  auto edge = [&](LocalOp d, LocalOp p, bool on_start) {
    if (d < first || d >= end || p >= end)
      throw std::invalid_argument(where() + "a dependency of op " + std::to_string(d) + " on op " + std::to_string(p) +
                                  " does not start in this piece or points past it");
    if (p < first) {
      // Already in the window, or gone from it (then finished).
      const OpState s = p < w.base ? OpState::Finished : w.at(p).state;
      if (s == OpState::Finished || (on_start && s == OpState::Started)) return;
    }
    LiveOp& dependent = w.at(d);
    LiveOp& prerequisite = w.at(p);
    if (on_start) {
      ++dependent.pending_irequires;
      insert(prerequisite.start_dependents, d);
    } else {
      ++dependent.pending_requires;
      insert(prerequisite.finish_dependents, d);
    }
  };
  for (const auto& [d, p] : piece_.requires_edges) edge(d, p, false);
  for (const auto& [d, p] : piece_.irequires_edges) edge(d, p, true);
  if (w.pieces > 0)
    for (LocalOp i = first; i < end; ++i)
      if (w.at(i).pending_requires == 0 && w.at(i).pending_irequires == 0)
        throw StreamOrderError(where() + "op " + std::to_string(i) +
                               " waits for nothing not yet started when its piece arrives, so it cannot start when it "
                               "would in the whole schedule (every op of a later piece must depend on an op of its "
                               "own piece or of the piece before)");
  w.newest_piece = first;
  w.end = end;
  ++w.pieces;
  ops_total_ += n;
  live_ += n;
  peak_live_ = std::max(peak_live_, live_);
}

void StreamStore::report_blocked(LogGOPSResult& res, std::size_t max_reported) {
  for (RankId r = 0; r < num_ranks(); ++r) {
    Window& w = windows_[r];
    for (LocalOp i = w.base; i < w.end; ++i) {
      const LiveOp& o = w.at(i);
      if (o.state == OpState::Finished) continue;
      ++res.num_blocked;
      if (res.blocked.size() >= max_reported) continue;
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
    }
    // What the stream still had for this rank never ran either.
    while (!w.exhausted) {
      piece_.clear();
      if (!stream_.next_piece(r, piece_)) break;
      res.num_blocked += piece_.ops.size();
      ops_total_ += piece_.ops.size();
    }
    w.exhausted = true;
  }
}

}  // namespace

LogGOPSStreamResult simulate_loggops_stream(goal::ScheduleStream& stream, const LogGOPSParams& params,
                                            const LogGOPSStreamOptions& options) {
  spdlog::logger& log = logging::logger("exec");
  log.debug("LogGOPS: executing a stream of {} rank(s)", stream.num_ranks());
  StreamStore store(stream, options);
  LogGOPSOptions run_options;
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
