// GOAL I/O benchmark: text parsing, binary loading and memory per op on a generated
// schedule of COLLSIM_BENCH_OPS ops (default 10^7).
//
// The schedule is a ring allreduce's shape, as Schedgen and NCCL lowerings emit it: per step
// each rank receives a chunk from its left neighbour, reduces it (calc) and sends it on; the
// calc requires the recv, the send requires the calc, the next recv requires the send.
// Targets (issue 2): text >= 100 MB/s, binary >= 1 GB/s, <= 32 B/op + 4 B/edge.
//
//   ./build/release/bench/goal_io_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "collsim/common/mapped_file.hpp"
#include "collsim/goal/binary_formats.hpp"
#include "collsim/goal/schedule_builder.hpp"
#include "collsim/goal/text_format.hpp"

namespace {

using namespace collsim;
using namespace collsim::goal;

std::uint64_t target_ops() {
  const char* env = std::getenv("COLLSIM_BENCH_OPS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 10'000'000ull;
}

Schedule ring_schedule(std::uint64_t ops) {
  const std::uint32_t ranks = 256;
  const std::uint64_t steps = std::max<std::uint64_t>(1, ops / (3ull * ranks));
  ScheduleBuilder b(ranks);
  b.reserve(3 * steps * ranks, 3 * steps * ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    LocalOp prev_send = 0;
    for (std::uint64_t s = 0; s < steps; ++s) {
      const LocalOp recv = b.add(Op::recv(262144, (r + ranks - 1) % ranks, static_cast<std::uint32_t>(s)));
      const LocalOp calc = b.add(Op::calc(1750));
      const LocalOp send = b.add(Op::send(262144, (r + 1) % ranks, static_cast<std::uint32_t>(s)));
      b.add_requires(calc, recv);
      b.add_requires(send, calc);
      if (s > 0) b.add_requires(recv, prev_send);
      prev_send = send;
    }
    b.end_rank();
  }
  return b.finish();
}

// The generated files, made once per process.
struct Inputs {
  std::filesystem::path dir;
  std::string text, bin, goalb;
  std::uint64_t ops = 0, edges = 0;

  Inputs() {
    dir = std::filesystem::temp_directory_path() / ("collsim_goal_bench_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const Schedule s = ring_schedule(target_ops());
    ops = s.num_ops();
    edges = s.num_requires() + s.num_irequires();
    text = (dir / "ring.goal").string();
    bin = (dir / "ring.bin").string();
    goalb = (dir / "ring.goalb").string();
    write_goal_text_file(s, text);
    write_loggopsim_binary_file(s, bin);
    write_goalb_file(s, goalb);
  }
  ~Inputs() { std::filesystem::remove_all(dir); }
};

Inputs& inputs() {
  static Inputs in;
  return in;
}

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

template <typename Load>
void run_load(benchmark::State& state, const std::string& path, Load&& load) {
  const Inputs& in = inputs();
  const auto file_bytes = std::filesystem::file_size(path);
  std::uint64_t memory = 0, rss_growth = 0;
  for (auto _ : state) {
    const std::uint64_t rss_before = resident_bytes();
    Schedule s = load(path);
    rss_growth = resident_bytes() - rss_before;
    memory = s.memory_bytes();
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_bytes));
  state.counters["ops"] = static_cast<double>(in.ops);
  state.counters["file_MB"] = static_cast<double>(file_bytes) / 1e6;
  state.counters["B_per_op"] = static_cast<double>(memory) / static_cast<double>(in.ops);
  // What the ops cost once the 4 bytes of every dependency edge are set aside.
  state.counters["B_per_op_excl_edges"] = static_cast<double>(memory - 4 * in.edges) / static_cast<double>(in.ops);
  state.counters["rss_B_per_op"] = static_cast<double>(rss_growth) / static_cast<double>(in.ops);
}

void BM_ParseText(benchmark::State& state) { run_load(state, inputs().text, read_goal_text_file); }
void BM_LoadGoalb(benchmark::State& state) { run_load(state, inputs().goalb, read_goalb_file); }
void BM_LoadLogGOPSimBinary(benchmark::State& state) { run_load(state, inputs().bin, read_loggopsim_binary_file); }

void BM_WriteText(benchmark::State& state) {
  const Schedule s = read_goalb_file(inputs().goalb);
  const std::string out = (inputs().dir / "rewrite.goal").string();
  for (auto _ : state) write_goal_text_file(s, out);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * std::filesystem::file_size(out)));
}

BENCHMARK(BM_ParseText)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadGoalb)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadLogGOPSimBinary)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WriteText)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
