// Speed of the LogGOPS mode: GOAL ops and events per second on a ring allreduce of
// COLLSIM_BENCH_RANKS ranks (default 1024; the smoke test uses a small value), 256 MiB in
// one channel, generated once by collsim::collectives::generate and simulated per iteration with
// LogGOPSim's default parameters. LogGOPSim itself claims more than 10^6 events/s.
//
//   ./build/release/bench/loggops_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cstdlib>

#include "collsim/collectives/generate.hpp"
#include "collsim/exec/loggops_simulator.hpp"

namespace {

using namespace collsim;

std::uint32_t bench_ranks() {
  const char* env = std::getenv("COLLSIM_BENCH_RANKS");
  return env != nullptr ? static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10)) : 1024u;
}

const goal::Schedule& ring_allreduce() {
  static const goal::Schedule schedule = [] {
    collectives::CollectiveSpec spec;
    spec.collective = collectives::Collective::Allreduce;
    spec.algorithm = "ring";
    spec.num_ranks = bench_ranks();
    spec.bytes = std::uint64_t{256} << 20;
    spec.channels = 1;
    spec.protocol = collectives::Protocol::Simple;
    return collectives::generate(spec);
  }();
  return schedule;
}

void BM_LogGOPSRingAllreduce(benchmark::State& state) {
  const goal::Schedule& s = ring_allreduce();
  exec::LogGOPSResult r;
  for (auto _ : state) {
    r = exec::simulate_loggops(s, {});
    if (!r.complete) state.SkipWithError("the ring allreduce did not complete");
  }
  state.counters["ranks"] = s.num_ranks();
  state.counters["ops"] = static_cast<double>(s.num_ops());
  state.counters["events"] = static_cast<double>(r.events);
  state.counters["makespan_us"] = static_cast<double>(r.makespan) / 1e3;
  state.counters["ops_per_s"] =
      benchmark::Counter(static_cast<double>(s.num_ops()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(r.events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_LogGOPSRingAllreduce)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
