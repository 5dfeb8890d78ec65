// The reader on every shared log: counts and first/last values read off the files by eye.

#include <gtest/gtest.h>

#include "collsim/common/input_error.hpp"
#include "log_fixture.hpp"

namespace collsim::validation {
namespace {

using testing::read_log;

TEST(NcclTestsParser, Log03TableOnlyWithSrunPrefix) {
  const LogFile f = read_log("03");
  ASSERT_EQ(f.runs.size(), 1u);
  const TestRun& r = f.runs[0];
  EXPECT_EQ(r.format, LogFormat::Modern);
  ASSERT_EQ(r.rows.size(), 29u);  // 8 B .. 2 GiB by factor 2: 2^3 .. 2^31
  EXPECT_EQ(r.rows[0].size, 8u);
  EXPECT_EQ(r.rows[0].count, 2u);
  EXPECT_EQ(r.rows[0].type, "float");
  EXPECT_EQ(r.rows[0].redop, "sum");
  EXPECT_EQ(r.rows[0].root, -1);
  EXPECT_DOUBLE_EQ(r.rows[0].out_of_place->time.microseconds(), 164.3);
  EXPECT_DOUBLE_EQ(r.rows[0].in_place->time.microseconds(), 163.3);
  EXPECT_EQ(r.rows[0].out_of_place->wrong, 0.0);
  EXPECT_EQ(r.rows.back().size, 2147483648u);
  EXPECT_DOUBLE_EQ(r.rows.back().out_of_place->busbw, 78.33);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_FALSE(r.footer.avg_busbw);
}

TEST(NcclTestsParser, Log04SixteenGiB) {
  const LogFile file_r = read_log("04");
  const TestRun& r = file_r.runs.at(0);
  ASSERT_EQ(r.rows.size(), 32u);  // 2^3 .. 2^34
  EXPECT_EQ(r.rows.back().size, 17179869184u);
  EXPECT_DOUBLE_EQ(r.rows.back().in_place->busbw, 487.26);
}

TEST(NcclTestsParser, Log05FullModernWithMpiNoiseAndNA) {
  const LogFile f = read_log("05");
  ASSERT_EQ(f.runs.size(), 1u);
  const TestRun& r = f.runs[0];
  EXPECT_EQ(r.header.tests_version, "2.18.3");
  EXPECT_EQ(r.header.nccl_headers, 23003);
  EXPECT_EQ(r.header.nccl_library, 23003);
  EXPECT_EQ(r.header.nccl_version, "2.30.3+cuda13.0");
  EXPECT_EQ(r.header.program, "alltoall_perf");
  EXPECT_EQ(r.header.threads, 1);
  EXPECT_EQ(r.header.gpus, 1);
  EXPECT_EQ(r.header.min_bytes, 1024u);
  EXPECT_EQ(r.header.max_bytes, 8589934592u);
  EXPECT_EQ(r.header.step, "2(factor)");
  EXPECT_EQ(r.header.warmup_iters, 1);
  EXPECT_EQ(r.header.iters, 20);
  EXPECT_EQ(r.header.agg_iters, 1);
  EXPECT_EQ(r.header.validation, 1);
  EXPECT_EQ(r.header.graph, 0);
  ASSERT_EQ(r.devices.size(), 16u);
  EXPECT_EQ(r.devices[0].host, "R6KD-CX8aaS-GPU-11");
  EXPECT_EQ(r.devices[0].group, 0);
  EXPECT_EQ(r.devices[0].pid, 819);
  EXPECT_EQ(r.devices[9].rank, 9);
  EXPECT_EQ(r.devices[9].device, 1);
  EXPECT_EQ(r.devices[9].bus_id, "0000:09:00");
  EXPECT_EQ(r.devices[9].gpu, "NVIDIA RTX 6000D");
  ASSERT_EQ(r.rows.size(), 24u);  // 1 KiB .. 8 GiB: 2^10 .. 2^33
  EXPECT_EQ(r.rows[0].count, 16u);
  EXPECT_EQ(r.rows[0].redop, "none");
  EXPECT_FALSE(r.rows[0].in_place->wrong);  // N/A
  EXPECT_EQ(r.rows[0].out_of_place->wrong, 0.0);
  EXPECT_DOUBLE_EQ(r.rows.back().out_of_place->time.microseconds(), 196284);
  EXPECT_EQ(r.footer.out_of_bounds, 0);
  EXPECT_EQ(r.footer.out_of_bounds_ok, true);
  EXPECT_DOUBLE_EQ(*r.footer.avg_busbw, 21.1462);
  ASSERT_TRUE(r.command);
  EXPECT_NE(r.command->find("mpirun"), std::string::npos);
}

TEST(NcclTestsParser, Log06CollapsedWhitespace) {
  const LogFile file_r = read_log("06");
  const TestRun& r = file_r.runs.at(0);
  EXPECT_EQ(r.header.program, "all_gather_perf");
  EXPECT_EQ(r.header.nccl_headers, 22809);
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.devices[7].gpu, "NVIDIA GB300");
  EXPECT_EQ(r.devices[7].bus_id, "0019:06:00");
  ASSERT_EQ(r.rows.size(), 23u);  // 4 KiB .. 16 GiB
  EXPECT_DOUBLE_EQ(r.rows[0].out_of_place->time.microseconds(), 28.51);
  EXPECT_DOUBLE_EQ(*r.footer.avg_busbw, 146.047);
}

TEST(NcclTestsParser, Log09SummaryTable) {
  const LogFile file_r = read_log("09");
  const TestRun& r = file_r.runs.at(0);
  EXPECT_EQ(r.format, LogFormat::SummaryTable);
  ASSERT_EQ(r.rows.size(), 24u);
  EXPECT_EQ(r.rows[0].size, 1024u);
  EXPECT_EQ(r.rows[6].size, 65536u);    // printed "65K"
  EXPECT_EQ(r.rows[7].size, 131072u);   // printed "132K"
  EXPECT_EQ(r.rows[15].size, 33554432u);  // printed "33M"
  EXPECT_EQ(r.rows.back().size, 8589934592u);
  EXPECT_FALSE(r.rows[0].out_of_place);
  EXPECT_DOUBLE_EQ(r.rows.back().in_place->busbw, 231.58);
  EXPECT_TRUE(r.rows.back().in_place->derived);
}

TEST(NcclTestsParser, Log10CommandLineAndNA) {
  const LogFile file_r = read_log("10");
  const TestRun& r = file_r.runs.at(0);
  EXPECT_EQ(r.header.program, "sendrecv_perf");
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(r.rows[3].size, 1073741824u);
  EXPECT_FALSE(r.rows[3].in_place->wrong);
}

TEST(NcclTestsParser, Log11TwoRunsInOneFile) {
  const LogFile f = read_log("11");
  ASSERT_EQ(f.runs.size(), 2u);
  for (const TestRun& r : f.runs) {
    EXPECT_EQ(r.header.program, "all_gather_perf");
    EXPECT_EQ(r.header.warmup_iters, 10);
    EXPECT_EQ(r.header.iters, 50);
    EXPECT_EQ(r.rows.size(), 3u);
    EXPECT_EQ(r.devices.size(), 2u);
  }
  EXPECT_DOUBLE_EQ(*f.runs[0].footer.avg_busbw, 21.4033);
  EXPECT_DOUBLE_EQ(*f.runs[1].footer.avg_busbw, 2.82151);
  EXPECT_DOUBLE_EQ(f.runs[1].rows[0].out_of_place->time.microseconds(), 191408);
  EXPECT_NE(f.runs[1].notes.at(0).find("RUN B"), std::string::npos);
}

TEST(NcclTestsParser, Log12InfoLinesAndShortBusId) {
  const LogFile file_r = read_log("12");
  const TestRun& r = file_r.runs.at(0);
  EXPECT_EQ(r.header.nccl_version, "2.20.5+cuda12.4");
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[1].bus_id, "0xa9");
  EXPECT_EQ(r.info.coll_channels, 24);
  EXPECT_EQ(r.info.nvls_channels, 0);
  EXPECT_EQ(r.info.nodes, 1);
  EXPECT_EQ(r.info.local_ranks, 2);
  ASSERT_EQ(r.rows.size(), 3u);  // rows without their leading spaces
  EXPECT_DOUBLE_EQ(r.rows[2].in_place->busbw, 192.18);
  EXPECT_DOUBLE_EQ(*r.footer.avg_busbw, 179.465);
}

TEST(NcclTestsParser, Log14FragmentWithCutLastRow) {
  const LogFile file_r = read_log("14");
  const TestRun& r = file_r.runs.at(0);
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_FALSE(r.rows[2].truncated);
  EXPECT_TRUE(r.rows[3].truncated);
  EXPECT_DOUBLE_EQ(r.rows[3].in_place->busbw, 343.71);
  EXPECT_FALSE(r.rows[3].in_place->wrong);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].rank, 1439);
  EXPECT_EQ(r.devices[0].bus_id, "0x01");
}

TEST(NcclTestsParser, Log16OldFormat) {
  const LogFile file_r = read_log("16");
  const TestRun& r = file_r.runs.at(0);
  EXPECT_EQ(r.format, LogFormat::Old);
  ASSERT_EQ(r.rows.size(), 8u);
  EXPECT_EQ(r.rows[0].size, 0u);
  EXPECT_FALSE(r.rows[0].root);
  EXPECT_EQ(r.rows[0].redop, "sum");
  EXPECT_DOUBLE_EQ(r.rows[2].out_of_place->time.microseconds(), 70.95);
  EXPECT_DOUBLE_EQ(*r.rows[2].out_of_place->wrong, 5e-07);  // max abs error, not a count
}

TEST(NcclTestsParser, Log17FiveTests) {
  const LogFile f = read_log("17");
  ASSERT_EQ(f.runs.size(), 5u);
  const char* programs[] = {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf",
                            "sendrecv_perf"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(f.runs[i].header.program, programs[i]);
    EXPECT_EQ(f.runs[i].devices.size(), 8u);
    EXPECT_EQ(f.runs[i].rows.size(), 10u);  // 32 MiB .. 16 GiB
    EXPECT_EQ(f.runs[i].rows[0].type, "double");
  }
  EXPECT_DOUBLE_EQ(*f.runs[0].footer.avg_busbw, 437.957);
  EXPECT_EQ(f.runs[0].header.nccl_headers, 22902);
}

TEST(NcclTestsParser, Log19EightyRanks) {
  const LogFile f = read_log("19");
  ASSERT_EQ(f.runs.size(), 5u);
  for (const TestRun& r : f.runs) EXPECT_EQ(r.devices.size(), 80u);
  EXPECT_EQ(f.runs[0].devices[79].host, "cnode3-011");
}

TEST(NcclTestsParser, Logs22To24InfoAndChannels) {
  for (const char* n : {"22", "23", "24"}) {
    const LogFile file_r = read_log(n);
  const TestRun& r = file_r.runs.at(0);
    EXPECT_EQ(r.devices.size(), 4u) << n;
    EXPECT_EQ(r.info.coll_channels, 24) << n;
    EXPECT_EQ(r.header.nccl_version, "2.22.3+cuda12.6") << n;
  }
  EXPECT_EQ(read_log("22").runs.at(0).rows.size(), 26u);  // 4 B .. 128 MiB
  EXPECT_EQ(read_log("23").runs[0].rows.front().size, 0u);
}

TEST(NcclTestsParser, Log25RowCutByInfoLinesIsRejoined) {
  const LogFile file_r = read_log("25");
  const TestRun& r = file_r.runs.at(0);
  EXPECT_EQ(r.header.program, "all_reduce_perf_mpi");
  ASSERT_EQ(r.rows.size(), 31u);  // 8 B .. 8 GiB, the 2 MiB row included
  const ResultRow& cut = r.rows[18];
  EXPECT_EQ(cut.size, 2097152u);
  EXPECT_TRUE(cut.rejoined);
  EXPECT_DOUBLE_EQ(cut.out_of_place->time.microseconds(), 87.18);
  EXPECT_DOUBLE_EQ(cut.in_place->busbw, 43.12);
  EXPECT_EQ(r.info.coll_channels, 8);
  EXPECT_EQ(r.info.nodes, 2);
}

TEST(NcclTestsParser, Logs28To36) {
  EXPECT_EQ(read_log("28").runs.at(0).rows.size(), 31u);
  const LogFile file_r31 = read_log("31");
  const TestRun& r31 = file_r31.runs.at(0);
  EXPECT_EQ(r31.format, LogFormat::Old);
  EXPECT_TRUE(r31.devices_elided);
  EXPECT_EQ(r31.devices.size(), 5u);
  EXPECT_FALSE(r31.devices[0].group);
  EXPECT_EQ(r31.rows.size(), 30u);
  EXPECT_EQ(read_log("33").runs.at(0).rows.size(), 5u);
  EXPECT_EQ(read_log("34").runs.at(0).rows.size(), 6u);
  EXPECT_EQ(read_log("34").runs.at(0).devices.at(0).gpu, "NVIDIA Graphics Device");
  const LogFile f36 = read_log("36");
  ASSERT_EQ(f36.runs.size(), 2u);
  EXPECT_EQ(f36.runs[0].header.program, "alltoall_perf");
  EXPECT_EQ(f36.runs[1].header.program, "sendrecv_perf");
}

// Malformed input: the error names the file and the line.
std::string error_of(const std::string& text) {
  try {
    parse_nccl_tests_log(text, "bad.log");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(NcclTestsParser, MalformedRowNamesFileAndLine) {
  const std::string e = error_of(
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "  1024  256  float  sum  -1  16.89  0.06  0.09  0  16.65  0.06  0.09  0\n"
      "  2048  512  float  sum  -1  fast  0.12  0.18  0  16.67  0.12  0.18  0\n");
  EXPECT_NE(e.find("bad.log:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a number for time, found 'fast'"), std::string::npos) << e;
}

TEST(NcclTestsParser, TooFewColumns) {
  const std::string e = error_of("  1024  256  float  sum  -1  16.89\n");
  EXPECT_NE(e.find("bad.log:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("found 6 column(s)"), std::string::npos) << e;
}

TEST(NcclTestsParser, TooManyColumns) {
  const std::string e = error_of("  1024  256  float  sum  -1  1 2 3 0  1 2 3 0  9\n");
  EXPECT_NE(e.find("expected 13 columns in a result row, found 14"), std::string::npos) << e;
}

TEST(NcclTestsParser, NoRowsAtAll) {
  const std::string e = error_of("# nThread 1 nGpus 1 minBytes 8 maxBytes 8\nhello\n");
  EXPECT_NE(e.find("bad.log: no nccl-tests result row found"), std::string::npos) << e;
}

TEST(NcclTestsParser, BadHeaderAndDeviceLines) {
  EXPECT_NE(error_of("# nThread one\n").find("bad.log:1:"), std::string::npos);
  EXPECT_NE(error_of("#\n#  Rank  0 Group 0 Pid x on h device 0 [0x1] GPU\n").find("bad.log:2:"), std::string::npos);
}

TEST(NcclTestsParser, RowPrefixWithoutContinuation) {
  const std::string e = error_of(
      "  1024  256  float  sum  -1  16.89  0.06  0.09  0  16.65  0.06  0.09  0\n"
      "  2048  512  float  sum  -1host1:12:13 [0] NCCL INFO Connected all rings\n"
      "# Avg bus bandwidth : 1\n");
  EXPECT_NE(e.find("bad.log:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("never follow"), std::string::npos) << e;
}

TEST(NcclTestsParser, LauncherPrefixes) {
  const LogFile f = parse_nccl_tests_log(
      "[1,0]<stdout>:  1024  256  float  sum  -1  16.89  0.06  0.09  0  16.65  0.06  0.09  0\n"
      "[0]   2048  512  float  sum  -1  16.86  0.12  0.18  0  16.67  0.12  0.18  0\n",
      "x.log");
  ASSERT_EQ(f.runs.at(0).rows.size(), 2u);
  EXPECT_EQ(f.runs[0].rows[1].size, 2048u);
}

TEST(NcclTestsParser, ProgramNames) {
  EXPECT_EQ(collective_from_program("all_reduce_perf"), collectives::Collective::Allreduce);
  EXPECT_EQ(collective_from_program("all_reduce_perf_mpi"), collectives::Collective::Allreduce);
  EXPECT_EQ(collective_from_program("reduce_scatter_perf"), collectives::Collective::ReduceScatter);
  EXPECT_EQ(collective_from_program("alltoall_perf"), collectives::Collective::AllToAll);
  EXPECT_EQ(collective_from_program("sendrecv_perf"), collectives::Collective::SendRecv);
  EXPECT_FALSE(collective_from_program("hypercube_perf"));
}

}  // namespace
}  // namespace collsim::validation
