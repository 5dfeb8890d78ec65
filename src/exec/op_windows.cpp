#include "op_windows.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::exec {

using goal::LocalOp;
using goal::OpKind;
using goal::RankId;

void OpWindows::Window::resize(std::size_t size) {
  std::vector<LiveOp> moved(size);
  for (LocalOp i = base; i != end; ++i) moved[i & (size - 1)] = at(i);
  ring = std::move(moved);
}

void OpWindows::Window::reserve(std::size_t live) {
  if (live <= ring.size()) return;
  std::size_t size = std::max<std::size_t>(ring.size(), 64);
  while (size < live) size *= 2;
  resize(size);
}

void OpWindows::Window::shrink_if_sparse() {
  if (ring.size() > 64 && 4 * (std::size_t{end - base} + last_piece_ops) <= ring.size()) resize(ring.size() / 2);
}

std::uint32_t OpWindows::new_chunk(LocalOp d) {
  std::uint32_t chunk;
  if (!free_chunks_.empty()) {
    chunk = free_chunks_.back();
    free_chunks_.pop_back();
  } else {
    if (chunks_.size() >= kEndOfList) throw std::invalid_argument("schedule stream: too many live dependencies");
    chunk = static_cast<std::uint32_t>(chunks_.size());
    chunks_.push_back({});
  }
  Chunk& c = chunks_[chunk];
  c.ops[0] = d;
  c.count = 1;
  c.next = kEndOfList;
  return chunk;
}

void OpWindows::fetch(RankId r) {
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
    w.later_known = stream_.later_peers(r, w.later_peers);
    w.later_open = -1;
    return;
  }
}

void OpWindows::commit(RankId r, Window& w) {
  const LocalOp first = w.end;
  const std::uint64_t n = piece_.ops.size();
  auto where = [&] { return "schedule stream: rank " + std::to_string(r) + " piece " + std::to_string(w.pieces) + ": "; };
  if (first + n >= 0x80000000u) throw std::invalid_argument(where() + "the rank has 2^31 ops or more");
  if (piece_.labels.size() != n && !piece_.labels.empty())
    throw std::invalid_argument(where() + "labels do not match the ops");
  w.reserve(w.end - w.base + n);
  w.last_piece_ops = static_cast<std::uint32_t>(n);
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
    ++dependent.pending;
    if (on_start) {
      append(prerequisite.start_dependents, d);
    } else {
      append(prerequisite.finish_dependents, d);
    }
  };
  // Each list stays ascending by appending: the piece's dependents come after every op
  // already in the window, and among themselves in order once the edges are (producers
  // usually give them so).
  const auto by_dependent = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (auto* edges : {&piece_.requires_edges, &piece_.irequires_edges})
    if (!std::is_sorted(edges->begin(), edges->end(), by_dependent))
      std::stable_sort(edges->begin(), edges->end(), by_dependent);
  for (const auto& [d, p] : piece_.requires_edges) edge(d, p, false);
  for (const auto& [d, p] : piece_.irequires_edges) edge(d, p, true);
  if (w.pieces > 0)
    for (LocalOp i = first; i < end; ++i)
      if (w.at(i).pending == 0)
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

std::uint64_t OpWindows::skip_rest(RankId r) {
  Window& w = windows_[r];
  std::uint64_t skipped = 0;
  while (!w.exhausted) {
    piece_.clear();
    if (!stream_.next_piece(r, piece_)) break;
    skipped += piece_.ops.size();
  }
  w.exhausted = true;
  ops_total_ += skipped;
  return skipped;
}

}  // namespace collsim::exec
