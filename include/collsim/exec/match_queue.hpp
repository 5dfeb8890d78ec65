#pragma once
// MPI matching for one receiving rank: a message matches the earliest-posted receive with
// equal (source, tag), wildcards allowed; a message nobody waits for joins the unexpected
// queue, which a new receive searches first, earliest arrival first.
//
// Exact (source, tag) pairs are hashed; wildcard receives (rare in practice) are scanned.
// A pair leaves the table when its queue empties: schedules that give every collective its
// own tags (the workload lowering) would otherwise keep an empty queue (~600 bytes) for every
// pair they ever used.
// Non-overtaking between a sender and a receiver is the caller's job: messages must be
// offered in the order they were sent (see PairSequencer).

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

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
      auto it = unexpected_.find(key(source, tag));
      if (it != unexpected_.end() && !it->second.empty()) return take_front(it);
      posted_[key(source, tag)].push_back({seq, recv});
      ++posted_count_;
      return std::nullopt;
    }
    // Wildcard: the earliest-arrived unexpected message that matches.
    auto best = unexpected_.end();
    for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
      if (it->second.empty() || !matches(source, tag, it->first)) continue;
      if (best == unexpected_.end() || it->second.front().seq < best->second.front().seq) best = it;
    }
    if (best != unexpected_.end()) return take_front(best);
    wildcard_.push_back({source, tag, seq, recv});
    ++posted_count_;
    return std::nullopt;
  }

  // A message from `source` with `tag` arrives: the receive it matches, or nothing (it is
  // then kept as unexpected).
  std::optional<Recv> arrive(std::uint32_t source, std::uint32_t tag, Msg msg) {
    const std::uint64_t seq = next_seq_++;
    auto exact = posted_.find(key(source, tag));
    const bool has_exact = exact != posted_.end() && !exact->second.empty();
    std::size_t wild = wildcard_.size();
    for (std::size_t k = 0; k < wildcard_.size(); ++k)
      if ((wildcard_[k].source == goal::kAnySource || wildcard_[k].source == source) &&
          (wildcard_[k].tag == goal::kAnyTag || wildcard_[k].tag == tag)) {
        wild = k;
        break;
      }
    if (wild < wildcard_.size() && (!has_exact || wildcard_[wild].seq < exact->second.front().seq)) {
      const Recv r = wildcard_[wild].recv;
      wildcard_.erase(wildcard_.begin() + static_cast<std::ptrdiff_t>(wild));
      --posted_count_;
      return r;
    }
    if (has_exact) {
      const Recv r = exact->second.front().item;
      exact->second.pop_front();
      if (exact->second.empty()) posted_.erase(exact);
      --posted_count_;
      return r;
    }
    unexpected_[key(source, tag)].push_back({seq, msg});
    ++unexpected_count_;
    return std::nullopt;
  }

  std::size_t posted_count() const { return posted_count_; }
  std::size_t unexpected_count() const { return unexpected_count_; }

  // For reports at the end: every receive still posted / message still unexpected.
  template <typename F>
  void for_each_posted(F&& f) const {
    for (const auto& [k, q] : posted_)
      for (const auto& e : q) f(static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k), e.item);
    for (const auto& w : wildcard_) f(w.source, w.tag, w.recv);
  }
  template <typename F>
  void for_each_unexpected(F&& f) const {
    for (const auto& [k, q] : unexpected_)
      for (const auto& e : q) f(static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k), e.item);
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
  template <typename It>
  Msg take_front(It it) {
    Msg m = it->second.front().item;
    it->second.pop_front();
    if (it->second.empty()) unexpected_.erase(it);
    --unexpected_count_;
    return m;
  }

  std::unordered_map<std::uint64_t, std::deque<Entry<Recv>>> posted_;
  std::vector<Wildcard> wildcard_;
  std::unordered_map<std::uint64_t, std::deque<Entry<Msg>>> unexpected_;
  std::uint64_t next_seq_ = 0;
  std::size_t posted_count_ = 0;
  std::size_t unexpected_count_ = 0;
};

}  // namespace collsim::exec
