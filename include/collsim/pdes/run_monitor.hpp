#pragma once
// Watching a run from inside the engine loop without slowing it: a monitor hears about
// progress every few thousand events (one rank) or at window boundaries (several ranks, with
// totals over all ranks that travel in the window's own synchronisation message), and a
// sampler is called at regular simulated times.

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "collsim/common/sim_time.hpp"

namespace collsim::pdes {

struct RunProgress {
  SimTime sim_time;             // simulated time reached
  std::uint64_t events = 0;     // processed so far, on all ranks
  std::uint64_t work_done = 0;  // the model's own count (RunMonitor::work_done)
  double wall_s = 0;            // since run() started
};

class RunMonitor {
 public:
  virtual ~RunMonitor() = default;
  // This rank's count of what the model finished (GOAL ops, flows), for progress: by default
  // what the counter installed by the model says.
  virtual std::uint64_t work_done() const { return count_work_ ? count_work_() : 0; }
  void set_work_counter(std::function<std::uint64_t()> count) { count_work_ = std::move(count); }
  // Installed by a network model: wire bytes sent so far per link direction, complete on
  // rank 0. Collective: call it only from on_collective_point(). Empty if none installed.
  void set_link_meter(std::function<std::vector<std::uint64_t>()> meter) { link_meter_ = std::move(meter); }
  std::vector<std::uint64_t> measure_links() const { return link_meter_ ? link_meter_() : std::vector<std::uint64_t>(); }
  // On every rank, from the simulation thread. Keep it cheap: it may come every few ms.
  virtual void on_progress(const RunProgress& progress) = 0;
  // Asked on every rank at each window boundary (one rank: with each progress call). When any
  // rank says yes, every rank calls on_collective_point() at the next boundary together, so
  // it may use the transport collectively there (for example to gather link counters).
  virtual bool wants_collective_point() { return false; }
  virtual void on_collective_point() {}
  // Once on every rank after the last event, before run() returns.
  virtual void on_finish(const RunProgress&) {}

 private:
  std::function<std::uint64_t()> count_work_;
  std::function<std::vector<std::uint64_t>()> link_meter_;
};

// Called on every rank at EngineOptions::first_sample and then at whatever instant each call
// returns (later than `at`), each time before any event at or after that instant, so that it
// sees the state at the instant. After the last event one more call closes the interval
// holding it.
class TimeSampler {
 public:
  virtual ~TimeSampler() = default;
  virtual SimTime sample(SimTime at) = 0;
};

}  // namespace collsim::pdes
