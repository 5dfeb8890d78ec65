// Generation speed of collective schedules (issue 5): a 4096-rank ring allreduce with 8
// channels and 1 GiB, emitted rank by rank.
//
//   counting:  the generator alone, into a sink that only counts (the full 4096 ranks;
//              the schedule itself would need ~18 GB at 27 B/op)
//   schedule:  into a ScheduleBuilder, i.e. a usable in-memory schedule (1024 ranks)
//   verify:    the symbolic verifier on a 64-rank, 8-channel allreduce
// COLLSIM_BENCH_RANKS overrides the 4096 (the smoke test uses a small value).
//
//   ./build/release/bench/collectives_gen_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cstdlib>

#include "collsim/collectives/generate.hpp"
#include "collsim/collectives/verifier.hpp"

namespace {

using namespace collsim;
using namespace collsim::collectives;

std::uint32_t bench_ranks() {
  const char* env = std::getenv("COLLSIM_BENCH_RANKS");
  return env != nullptr ? static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10)) : 4096u;
}

Plan ring_plan(std::uint32_t ranks, std::uint64_t bytes) {
  CollectiveSpec spec;
  spec.collective = Collective::Allreduce;
  spec.algorithm = "ring";
  spec.num_ranks = ranks;
  spec.bytes = bytes;
  spec.channels = 8;
  spec.protocol = Protocol::Simple;
  return make_plan(spec);
}

void BM_RingAllreduceCounting(benchmark::State& state) {
  const Plan plan = ring_plan(bench_ranks(), std::uint64_t{1} << 30);
  CountingSink sink;
  for (auto _ : state) {
    sink = CountingSink{};
    for (std::uint32_t r = 0; r < plan.n; ++r) {
      sink.next_rank();
      emit_member(plan, r, sink);
    }
    benchmark::DoNotOptimize(sink.ops);
  }
  state.counters["ranks"] = plan.n;
  state.counters["ops"] = static_cast<double>(sink.ops);
  state.counters["edges"] = static_cast<double>(sink.edges);
  state.counters["ops_per_s"] = benchmark::Counter(static_cast<double>(sink.ops), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_RingAllreduceCounting)->Unit(benchmark::kSecond)->Iterations(1);

void BM_RingAllreduceSchedule(benchmark::State& state) {
  const Plan plan = ring_plan(std::min(bench_ranks(), 1024u), std::uint64_t{1} << 30);
  std::uint64_t ops = 0, memory = 0;
  for (auto _ : state) {
    const goal::Schedule s = generate(plan);
    ops = s.num_ops();
    memory = s.memory_bytes();
  }
  state.counters["ranks"] = plan.n;
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["bytes_per_op"] = static_cast<double>(memory) / static_cast<double>(ops);
  state.counters["ops_per_s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_RingAllreduceSchedule)->Unit(benchmark::kSecond)->Iterations(1);

void BM_VerifyRingAllreduce(benchmark::State& state) {
  const Plan plan = ring_plan(std::min(bench_ranks(), 64u), std::uint64_t{64} << 20);
  const AnnotatedSchedule a = generate_annotated(plan);
  for (auto _ : state) {
    const VerifyReport r = verify(a);
    if (!r.ok) state.SkipWithError(r.error.c_str());
  }
  state.counters["ops"] = static_cast<double>(a.schedule.num_ops());
  state.counters["ops_per_s"] =
      benchmark::Counter(static_cast<double>(a.schedule.num_ops()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_VerifyRingAllreduce)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
