#pragma once
// MPI matching for one receiving rank: a message matches the earliest-posted receive with
// equal (source, tag), wildcards allowed; a message nobody waits for joins the unexpected
// queue, which a new receive searches first, earliest arrival first.
//
// Exact (source, tag) pairs are hashed (FifoTable: a pair leaves the table when its queue
// empties, and nothing is allocated per message); wildcard receives (rare in practice) are
// scanned.
// Non-overtaking between a sender and a receiver is the caller's job: messages must be
// offered in the order they were sent (see PairSequencer).

#include <cstdint>
#include <optional>
#include <vector>

#include "collsim/exec/fifo_table.hpp"
#include "collsim/goal/op.hpp"

namespace collsim::exec {

template <typename Recv, typename Msg>
class MatchQueue {
 public:
  // A new receive from `source` (or kAnySource) with `tag` (or kAnyTag): the unexpected
  // message it takes, or nothing (it is then posted).
  std::optional<Msg> post(std::uint32_t source, std::uint32_t tag, Recv recv) {
    const std::uint64_t seq = next_seq_++;
    if (source != goal::kAnySource && tag != goal::kAnyTag) {
      const std::uint64_t k = key(source, tag);
      if (auto m = unexpected_.try_pop(k)) {
        --unexpected_count_;
        return m->item;
      }
      posted_.push(k, {seq, recv});
      ++posted_count_;
      return std::nullopt;
    }
    // Wildcard: the earliest-arrived unexpected message that matches.
    std::optional<std::uint64_t> best;
    std::uint64_t best_seq = 0;
    unexpected_.for_each_front([&](std::uint64_t k, const Entry<Msg>& e) {
      if (!matches(source, tag, k) || (best && e.seq >= best_seq)) return;
      best = k;
      best_seq = e.seq;
    });
    if (best) return take_unexpected(*best);
    wildcard_.push_back({source, tag, seq, recv});
    ++posted_count_;
    return std::nullopt;
  }

  // A message from `source` with `tag` arrives: the receive it matches, or nothing (it is
  // then kept as unexpected).
  std::optional<Recv> arrive(std::uint32_t source, std::uint32_t tag, Msg msg) {
    const std::uint64_t seq = next_seq_++;
    const std::uint64_t k = key(source, tag);
    if (wildcard_.empty()) {
      // Only exact receives are posted: one lookup.
      if (auto r = posted_.try_pop(k)) {
        --posted_count_;
        return r->item;
      }
      unexpected_.push(k, {seq, msg});
      ++unexpected_count_;
      return std::nullopt;
    }
    const bool has_exact = posted_.contains(k);
    std::size_t wild = wildcard_.size();
    for (std::size_t w = 0; w < wildcard_.size(); ++w)
      if ((wildcard_[w].source == goal::kAnySource || wildcard_[w].source == source) &&
          (wildcard_[w].tag == goal::kAnyTag || wildcard_[w].tag == tag)) {
        wild = w;
        break;
      }
    if (wild < wildcard_.size() && (!has_exact || wildcard_[wild].seq < posted_.front(k).seq)) {
      const Recv r = wildcard_[wild].recv;
      wildcard_.erase(wildcard_.begin() + static_cast<std::ptrdiff_t>(wild));
      --posted_count_;
      return r;
    }
    if (has_exact) {
      --posted_count_;
      return posted_.pop(k).item;
    }
    unexpected_.push(k, {seq, msg});
    ++unexpected_count_;
    return std::nullopt;
  }

  std::size_t posted_count() const { return posted_count_; }
  std::size_t unexpected_count() const { return unexpected_count_; }

  // For reports at the end: every receive still posted / message still unexpected.
  template <typename F>
  void for_each_posted(F&& f) const {
    posted_.for_each([&](std::uint64_t k, const Entry<Recv>& e) {
      f(static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k), e.item);
    });
    for (const auto& w : wildcard_) f(w.source, w.tag, w.recv);
  }
  template <typename F>
  void for_each_unexpected(F&& f) const {
    unexpected_.for_each([&](std::uint64_t k, const Entry<Msg>& e) {
      f(static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k), e.item);
    });
  }

 private:
  template <typename T>
  struct Entry {
    std::uint64_t seq;
    T item;
  };
  struct Wildcard {
    std::uint32_t source, tag;
    std::uint64_t seq;
    Recv recv;
  };
  static std::uint64_t key(std::uint32_t source, std::uint32_t tag) {
    return (static_cast<std::uint64_t>(source) << 32) | tag;
  }
  static bool matches(std::uint32_t source, std::uint32_t tag, std::uint64_t k) {
    return (source == goal::kAnySource || source == static_cast<std::uint32_t>(k >> 32)) &&
           (tag == goal::kAnyTag || tag == static_cast<std::uint32_t>(k));
  }
  Msg take_unexpected(std::uint64_t k) {
    --unexpected_count_;
    return unexpected_.pop(k).item;
  }

  FifoTable<Entry<Recv>> posted_;
  std::vector<Wildcard> wildcard_;
  FifoTable<Entry<Msg>> unexpected_;
  std::uint64_t next_seq_ = 0;
  std::size_t posted_count_ = 0;
  std::size_t unexpected_count_ = 0;
};

}  // namespace collsim::exec
