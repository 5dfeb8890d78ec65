// What the shared logs say about themselves: collective, ranks, nodes; and that their numbers
// agree with nccl-tests' formulas (INDEX.md lists which were checked by script).

#include <gtest/gtest.h>

#include "collsim/validation/run_facts.hpp"
#include "log_fixture.hpp"

namespace collsim::validation {
namespace {

using collectives::Collective;
using testing::read_log;

struct Expected {
  const char* log;
  Collective collective;
  std::uint32_t ranks, nodes, gpus_per_node;
};

TEST(RunFacts, EveryLog) {
  // From INDEX.md's table (ranks, nodes x GPUs/node); 0 where the log cannot tell.
  const Expected cases[] = {
      {"03", Collective::Allreduce, 16, 0, 0},     {"04", Collective::Allreduce, 16, 0, 0},
      {"05", Collective::AllToAll, 16, 2, 8},      {"06", Collective::Allgather, 8, 2, 4},
      {"09", Collective::Allreduce, 8, 1, 8},      {"10", Collective::SendRecv, 8, 1, 8},
      {"11", Collective::Allgather, 2, 2, 1},      {"12", Collective::Allreduce, 2, 1, 2},
      {"14", Collective::Allreduce, 1440, 0, 0},   {"16", Collective::Allreduce, 0, 0, 0},
      {"17", Collective::Allreduce, 8, 1, 8},      {"19", Collective::Allreduce, 80, 10, 8},
      {"22", Collective::Allreduce, 4, 1, 4},      {"23", Collective::Allgather, 4, 1, 4},
      {"24", Collective::ReduceScatter, 4, 1, 4},  {"25", Collective::Allreduce, 8, 2, 4},
      {"28", Collective::Allreduce, 8, 1, 8},      {"31", Collective::Allreduce, 128, 0, 0},
      {"33", Collective::Allreduce, 96, 0, 0},     {"34", Collective::Allreduce, 128, 0, 0},
      {"36", Collective::AllToAll, 16, 2, 8},      {"37", Collective::Allgather, 16, 2, 8},
      {"41", Collective::Allgather, 2, 1, 2},
  };
  for (const Expected& e : cases) {
    const LogFile f = read_log(e.log);
    const RunFacts facts = infer_run_facts(f.runs.at(0));
    EXPECT_EQ(facts.collective, e.collective) << e.log << " " << facts.collective_source;
    EXPECT_EQ(facts.ranks, e.ranks) << e.log << " " << facts.ranks_source;
    EXPECT_EQ(facts.nodes, e.nodes) << e.log;
    EXPECT_EQ(facts.gpus_per_node, e.gpus_per_node) << e.log;
  }
}

TEST(RunFacts, GpusPerThreadFromTheHeaderOrTheCommand) {
  // Header "nThread 1 nGpus 4" (22), "nGpus 8" (28), "nGpus 1" under MPI (05); log 10 prints
  // no header but its command "sendrecv_perf ... -g 8"; log 03 prints neither.
  const std::pair<const char*, std::uint32_t> cases[] = {{"22", 4}, {"28", 8}, {"05", 1}, {"10", 8}, {"03", 0}};
  for (const auto& [log, gpus] : cases)
    EXPECT_EQ(infer_run_facts(read_log(log).runs.at(0)).gpus_per_thread, gpus) << log;
  EXPECT_EQ(infer_run_facts(read_log("22").runs.at(0)).gpus_per_thread_source, "header nGpus");
  EXPECT_EQ(infer_run_facts(read_log("10").runs.at(0)).gpus_per_thread_source, "command line -g");
}

TEST(RunFacts, GpuNameFromDeviceLines) {
  EXPECT_EQ(infer_run_facts(read_log("17").runs.at(0)).gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(infer_run_facts(read_log("11").runs.at(1)).gpu, "NVIDIA GB10");
}

TEST(RunFacts, FiveTestsOfOneFileHaveTheirOwnCollective) {
  const LogFile f = read_log("19");
  const Collective want[] = {Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter,
                             Collective::AllToAll, Collective::SendRecv};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(infer_run_facts(f.runs.at(i)).collective, want[i]);
}

// Every log with full rows agrees with nccl-tests' formulas: algbw = size/time, busbw =
// algbw * factor, count from size, Avg = mean of every busbw printed.
TEST(Consistency, SharedLogsAgreeWithTheFormulas) {
  for (const char* n : {"03", "04", "05", "06", "10", "11", "12", "14", "16", "17", "19", "22", "23", "24", "25",
                        "28", "31", "33", "34", "36", "37", "41"}) {
    const LogFile f = read_log(n);
    for (const TestRun& run : f.runs) {
      const RunFacts facts = infer_run_facts(run);
      const std::uint32_t ranks = facts.ranks != 0 ? facts.ranks : 256;  // 16: 32x8 per INDEX.md
      for (const Finding& x : check_consistency(run, *facts.collective, ranks))
        ADD_FAILURE() << "log " << n << " line " << x.line << ": " << x.message;
    }
  }
}

TEST(Consistency, Log25AverageHoldsOnlyWithTheRejoinedRow) {
  // INDEX.md: a checker that cannot read the cut 2 MiB row gets a mean 0.2 off the printed Avg.
  LogFile f = read_log("25");
  TestRun run = f.runs.at(0);
  EXPECT_TRUE(check_consistency(run, Collective::Allreduce, 8).empty());
  run.rows.erase(run.rows.begin() + 18);
  const std::vector<Finding> x = check_consistency(run, Collective::Allreduce, 8);
  ASSERT_EQ(x.size(), 1u);
  EXPECT_NE(x[0].message.find("Avg bus bandwidth 48.8121"), std::string::npos) << x[0].message;
}

TEST(Consistency, WrongRankCountIsFound) {
  // Log 28 is 8 ranks: with 16 every busbw is off by 2*15/16 vs 2*7/8 and every count is fine.
  const LogFile f = read_log("28");
  const std::vector<Finding> x = check_consistency(f.runs.at(0), Collective::Allreduce, 16);
  EXPECT_GT(x.size(), 10u);
}

TEST(Consistency, TamperedValues) {
  LogFile f = parse_nccl_tests_log(
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "  1048576  262144  float  sum  -1  100.00  10.49  18.35  0  100.00  10.48  18.35  3\n"
      "# Avg bus bandwidth : 18.35\n",
      "t.log");
  // 1048576 B / 100 us = 10.486 GB/s: 10.49 is right, 10.48 is not; busbw = 10.486*2*7/8 = 18.35.
  const std::vector<Finding> x = check_consistency(f.runs.at(0), Collective::Allreduce, 8);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0].line, 2u);
  EXPECT_NE(x[0].message.find("in-place: 3 wrong element(s)"), std::string::npos) << x[0].message;
  EXPECT_NE(x[1].message.find("in-place algbw 10.48 but size/time = 10.49"), std::string::npos) << x[1].message;
}

}  // namespace
}  // namespace collsim::validation
