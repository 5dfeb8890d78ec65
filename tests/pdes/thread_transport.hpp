#pragma once
// Several ranks in one process, one thread each, for tests of what a parallel run does
// without MPI: every call is collective over the ranks, as with MPI, and meets at a barrier.

#include <algorithm>
#include <atomic>
#include <exception>
#include <barrier>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "collsim/pdes/transport.hpp"

namespace collsim::pdes::testing {

class ThreadRanks {
 public:
  explicit ThreadRanks(std::uint32_t ranks)
      : size_(ranks), sync_(ranks), mine_(ranks), boxes_(ranks * ranks), sums_(ranks), doubles_(ranks), ints_(ranks),
        bytes_(ranks), outputs_(ranks) {
    for (std::uint32_t r = 0; r < ranks; ++r) transports_.push_back(std::make_unique<Rank>(*this, r));
  }
  std::uint32_t size() const { return size_; }
  Transport& transport(std::uint32_t r) { return *transports_[r]; }
  // Runs body(rank, transport) on every rank at once and waits for all; rethrows what one
  // threw (the others stop at their next collective call rather than wait for it).
  void run(const std::function<void(std::uint32_t, Transport&)>& body) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(size_);
    for (std::uint32_t r = 0; r < size_; ++r)
      threads.emplace_back([&, r] {
        try {
          body(r, transport(r));
        } catch (...) {
          errors[r] = std::current_exception();
          failed_ = true;
          sync_.arrive_and_drop();
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e && !is_stop(e)) std::rethrow_exception(e);
  }

 private:
  struct Stopped {};  // what the ranks that did not fail throw
  static bool is_stop(const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const Stopped&) {
      return true;
    } catch (...) {
      return false;
    }
  }
  void meet() {
    sync_.arrive_and_wait();
    if (failed_) throw Stopped{};
  }

  class Rank final : public Transport {
   public:
    Rank(ThreadRanks& all, std::uint32_t rank) : all_(all), rank_(rank) {}
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return all_.size_; }
    WindowSummary exchange(std::vector<std::vector<RemoteEvent>>& outbox, WindowSummary mine,
                           std::vector<RemoteEvent>& inbox, std::span<std::uint64_t> sums,
                           std::span<SimTime> outputs) override {
      const std::uint32_t n = all_.size_;
      for (std::uint32_t q = 0; q < n; ++q) {
        all_.boxes_[q * n + rank_] = std::move(outbox[q]);
        outbox[q].clear();
      }
      all_.mine_[rank_] = mine;
      all_.sums_[rank_].assign(sums.begin(), sums.end());
      all_.meet();
      WindowSummary agreed{SimTime::infinity(), 0, SimTime::infinity(), SimTime::infinity()};
      for (std::uint32_t q = 0; q < n; ++q) {
        const WindowSummary& s = all_.mine_[q];
        agreed.next = std::min(agreed.next, s.next);
        agreed.events = std::max(agreed.events, s.events);
        agreed.sent = std::min(agreed.sent, s.sent);
        if (q < outputs.size()) outputs[q] = s.output;
        const auto& box = all_.boxes_[rank_ * n + q];
        inbox.insert(inbox.end(), box.begin(), box.end());
      }
      for (std::size_t i = 0; i < sums.size(); ++i) {
        std::uint64_t total = 0;
        for (std::uint32_t q = 0; q < n; ++q) total += all_.sums_[q][i];
        sums[i] = total;
      }
      all_.meet();
      return agreed;
    }
    std::vector<std::byte> gather(std::span<const std::byte> mine) override {
      all_.bytes_[rank_].assign(mine.begin(), mine.end());
      all_.meet();
      std::vector<std::byte> all;
      if (rank_ == 0)
        for (const auto& b : all_.bytes_) all.insert(all.end(), b.begin(), b.end());
      all_.meet();
      return all;
    }
    void max_all(std::span<double> values) override {
      reduce(values, all_.doubles_, [](double a, double b) { return std::max(a, b); });
    }
    void sum_all(std::span<double> values) override {
      reduce(values, all_.doubles_, [](double a, double b) { return a + b; });
    }
    void max_integers(std::span<std::int64_t> values) override {
      reduce(values, all_.ints_, [](std::int64_t a, std::int64_t b) { return std::max(a, b); });
    }
    void sum_integers(std::span<std::uint64_t> values) override {
      std::vector<std::int64_t> as(values.begin(), values.end());
      reduce(std::span<std::int64_t>(as), all_.ints_, [](std::int64_t a, std::int64_t b) { return a + b; });
      std::copy(as.begin(), as.end(), values.begin());
    }

   private:
    template <typename T, typename Op>
    void reduce(std::span<T> values, std::vector<std::vector<T>>& slots, Op op) {
      slots[rank_].assign(values.begin(), values.end());
      all_.meet();
      for (std::size_t i = 0; i < values.size(); ++i) {
        T v = slots[0][i];
        for (std::uint32_t q = 1; q < all_.size_; ++q) v = op(v, slots[q][i]);
        values[i] = v;
      }
      all_.meet();
    }
    ThreadRanks& all_;
    std::uint32_t rank_;
  };

  std::uint32_t size_;
  std::barrier<> sync_;
  std::atomic<bool> failed_{false};
  std::vector<WindowSummary> mine_;
  std::vector<std::vector<RemoteEvent>> boxes_;  // [to * size + from]
  std::vector<std::vector<std::uint64_t>> sums_;
  std::vector<std::vector<double>> doubles_;
  std::vector<std::vector<std::int64_t>> ints_;
  std::vector<std::vector<std::byte>> bytes_;
  std::vector<SimTime> outputs_;
  std::vector<std::unique_ptr<Rank>> transports_;
};

}  // namespace collsim::pdes::testing
