// Event-queue "hold" benchmark: with n events pending, repeatedly pop the earliest and push
// one at its time plus an exponential increment (mean 1 us), the access pattern of PHOLD.
// Compares the timing wheel (the engine's default), the radix heap, the 4-ary heap, the
// calendar queue and std::priority_queue (binary heap) as a baseline, all with the engine's
// exact order (EntryOrder).
//
//   ./build/release/bench/pdes_queue_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <functional>
#include <queue>
#include <vector>

#include "collsim/pdes/calendar_queue.hpp"
#include "collsim/pdes/quaternary_heap.hpp"
#include "collsim/pdes/radix_queue.hpp"
#include "collsim/pdes/timing_wheel.hpp"
#include "collsim/pdes/random_stream.hpp"

namespace {

using namespace collsim::pdes;
using collsim::SimTime;

// std::priority_queue behind the same interface.
class BinaryHeap final : public EventQueue {
 public:
  explicit BinaryHeap(const std::vector<EventKey>* keys) : heap_(After{EntryOrder(keys)}) {}
  void push(const QueueEntry& e) override { heap_.push(e); }
  const QueueEntry& top() const override { return heap_.top(); }
  void pop() override { heap_.pop(); }
  std::size_t size() const override { return heap_.size(); }
  std::string_view name() const override { return "binary heap"; }
  bool visit(const std::function<bool(const QueueEntry&)>&) const override { return true; }  // never asked here

 private:
  struct After {
    EntryOrder before;
    bool operator()(const QueueEntry& a, const QueueEntry& b) const { return before(b, a); }
  };
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, After> heap_;
};

template <typename Queue>
void BM_Hold(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  std::vector<EventKey> keys(n);
  Queue queue(&keys);
  RandomStream random(1, 2);
  auto increment = [&] { return SimTime::ps(1 + static_cast<std::int64_t>(random.exponential(1e6))); };
  for (std::uint32_t i = 0; i < n; ++i) {
    keys[i] = {increment(), EventKey::make_origin(0, i), 0};
    queue.push({keys[i].time, QueueEntry::hint_of(keys[i]), i});
  }
  for (auto _ : state) {
    const QueueEntry e = queue.top();
    queue.pop();
    EventKey& k = keys[e.ref];
    k.time = e.time + increment();
    ++k.sequence;
    queue.push({k.time, QueueEntry::hint_of(k), e.ref});
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_Hold<TimingWheel>)->Name("hold/timing wheel")->RangeMultiplier(16)->Range(256, 1 << 20);
BENCHMARK(BM_Hold<RadixQueue>)->Name("hold/radix heap")->RangeMultiplier(16)->Range(256, 1 << 20);
BENCHMARK(BM_Hold<QuaternaryHeap>)->Name("hold/4-ary heap")->RangeMultiplier(16)->Range(256, 1 << 20);
BENCHMARK(BM_Hold<CalendarQueue>)->Name("hold/calendar queue")->RangeMultiplier(16)->Range(256, 1 << 20);
BENCHMARK(BM_Hold<BinaryHeap>)->Name("hold/std::priority_queue")->RangeMultiplier(16)->Range(256, 1 << 20);

}  // namespace

BENCHMARK_MAIN();
