// Observers of a run: the sampler sees the state at each sampling instant, the monitor hears
// progress with growing counts and a final total, and a collective point happens when asked.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "collsim/pdes/engine.hpp"
#include "collsim/pdes/simulation_error.hpp"
#include "pdes_test_util.hpp"

namespace collsim::pdes {
namespace {

// Ticks at 1 ns, 2 ns, ... up to `ticks` times.
class Ticker final : public LogicalProcess {
 public:
  explicit Ticker(std::uint64_t ticks) : left_(ticks) {}
  void start() override { schedule<&Ticker::tick>(id(), SimTime::ns(1), Empty{}); }
  struct Empty {};
  void tick(const Empty&) {
    ++count;
    if (--left_ > 0) schedule<&Ticker::tick>(id(), SimTime::ns(1), Empty{});
  }
  std::uint64_t count = 0;
  using Handlers = pdes::Handlers<&Ticker::tick>;

 private:
  std::uint64_t left_;
};

struct Sample {
  SimTime at;
  std::uint64_t ticks;
};

// Samples every `period`; a zero period asks for the same instant again (an error).
class TickSampler final : public TimeSampler {
 public:
  const Ticker* ticker = nullptr;
  SimTime period = SimTime::ps(2500);
  std::vector<Sample> samples;
  SimTime sample(SimTime at) override {
    samples.push_back({at, ticker->count});
    return at + period;
  }
};

class CountingMonitor final : public RunMonitor {
 public:
  const Ticker* ticker = nullptr;
  std::vector<RunProgress> progress;
  RunProgress finish;
  int wishes = 1;  // how many collective points to ask for
  int collective_points = 0;
  std::uint64_t work_done() const override { return ticker->count / 10; }
  void on_progress(const RunProgress& p) override { progress.push_back(p); }
  bool wants_collective_point() override { return wishes > 0; }
  void on_collective_point() override {
    --wishes;
    ++collective_points;
  }
  void on_finish(const RunProgress& p) override { finish = p; }
};

LpGraph one_lp() {
  LpGraph g;
  g.num_lps = 1;
  return g;
}

TEST(TimeSampler, SeesTheStateBeforeEveryEventAtOrAfterTheSamplingInstant) {
  auto transport = make_local_transport();
  TickSampler sampler;
  EngineOptions options;
  options.sampler = &sampler;
  options.first_sample = SimTime::ps(2500);
  Engine engine(one_lp(), {1, {0}}, *transport, options);
  sampler.ticker = &engine.emplace<Ticker>(0, 10);
  engine.run();
  // Ticks at 1..10 ns. The sample at 2.5 ns has seen the ticks at 1 and 2; at 5 ns the tick
  // at 5 ns has not happened yet (4); 7.5 → 7; 10 → 9; the last sample, at 12.5 ns, closes
  // the interval [10, 12.5) holding the last tick (10).
  ASSERT_EQ(sampler.samples.size(), 5u);
  const std::int64_t at[] = {2500, 5000, 7500, 10000, 12500};
  const std::uint64_t ticks[] = {2, 4, 7, 9, 10};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(sampler.samples[i].at, SimTime::ps(at[i])) << i;
    EXPECT_EQ(sampler.samples[i].ticks, ticks[i]) << i;
  }
}

TEST(TimeSampler, NeedsAPositiveFirstInstantAndInstantsThatMoveOn) {
  auto transport = make_local_transport();
  TickSampler sampler;
  EngineOptions options;
  options.sampler = &sampler;
  options.first_sample = SimTime::zero();
  {
    Engine engine(one_lp(), {1, {0}}, *transport, options);
    sampler.ticker = &engine.emplace<Ticker>(0, 10);
    testing::expect_error<std::invalid_argument>([&] { engine.run(); }, {"first sampling instant must be positive"});
  }
  options.first_sample = SimTime::ns(3);
  sampler.period = SimTime::zero();
  Engine engine(one_lp(), {1, {0}}, *transport, options);
  sampler.ticker = &engine.emplace<Ticker>(0, 10);
  testing::expect_error<SimulationError>([&] { engine.run(); }, {"asked to sample next at t=3ns", "not later"});
}

TEST(RunMonitor, HearsGrowingProgressAndTheFinalTotals) {
  auto transport = make_local_transport();
  CountingMonitor monitor;
  EngineOptions options;
  options.monitor = &monitor;
  Engine engine(one_lp(), {1, {0}}, *transport, options);
  const std::uint64_t ticks = 200000;
  monitor.ticker = &engine.emplace<Ticker>(0, ticks);
  const RunStats stats = engine.run();
  // One report per 2^15 events: 200000 / 32768 = 6 full periods.
  ASSERT_EQ(monitor.progress.size(), 6u);
  for (std::size_t i = 0; i < monitor.progress.size(); ++i) {
    const RunProgress& p = monitor.progress[i];
    EXPECT_EQ(p.events, (i + 1) * 32768);
    // Event k is the tick at k ns.
    EXPECT_EQ(p.sim_time, SimTime::ns(static_cast<std::int64_t>(p.events)));
    EXPECT_EQ(p.work_done, p.events / 10);
  }
  EXPECT_EQ(monitor.finish.events, ticks);
  EXPECT_EQ(monitor.finish.work_done, ticks / 10);
  EXPECT_EQ(monitor.finish.sim_time, SimTime::ns(ticks));
  EXPECT_EQ(stats.events, ticks);
  // Asked once, granted once.
  EXPECT_EQ(monitor.collective_points, 1);
}

}  // namespace
}  // namespace collsim::pdes
