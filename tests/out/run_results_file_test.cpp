// write_run_results_hdf5 against the hand-made run of sample_results.cpp, read back with the
// HDF5 C API.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "collsim/report/hdf5_file.hpp"
#include "sample_results.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::out {
namespace {

using H5Reader = report::Hdf5File;
using test::SampleRun;
using Shape = std::vector<hsize_t>;

class RunResultsFile : public ::testing::Test {
 protected:
  void SetUp() override { test::make_sample_run(run_); }

  test_support::ScratchDir scratch_;
  const std::filesystem::path& dir_ = scratch_.path();
  std::string path_ = scratch_ / "run.h5";
  SampleRun run_;
};

TEST_F(RunResultsFile, RootAttributesAreTheGivenStrings) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  EXPECT_EQ(f.string_attribute("/", "version"), "0.1.0");
  EXPECT_EQ(f.string_attribute("/", "command"), "collsim run --ranks 2");
  EXPECT_EQ(f.string_attribute("/", "configuration"), "{\"seed\": 1}");
  EXPECT_EQ(f.string_attribute("/", "format"), "collsim-results");
  EXPECT_EQ(f.int_attribute("/", "format_version"), 1);
}

TEST_F(RunResultsFile, AConfigurationLargerThanAnAttributeHeaderFits) {
  // Fixed-size attributes stop at 64 KiB; a large workload's configuration must still fit.
  const std::string big(200'000, 'x');
  run_.results.attributes["configuration"] = big;
  write_run_results_hdf5(path_, run_.results);
  EXPECT_EQ(H5Reader(path_).string_attribute("/", "configuration"), big);
}

TEST_F(RunResultsFile, OpsHaveOneRowPerOpTimeWithKindPeerBytesAndRole) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  for (const char* column : {"rank", "op", "kind", "peer", "bytes", "cpu", "start_ps", "end_ps", "role"})
    EXPECT_EQ(f.shape(std::string("/ops/") + column), Shape{4}) << column;
  EXPECT_EQ(f.read<std::uint32_t>("/ops/rank"), (std::vector<std::uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(f.read<std::uint32_t>("/ops/op"), (std::vector<std::uint32_t>{0, 1, 0, 1}));
  // calc, send, recv, calc.
  EXPECT_EQ(f.read<std::uint8_t>("/ops/kind"), (std::vector<std::uint8_t>{3, 1, 2, 3}));
  EXPECT_EQ(f.strings_attribute("/ops/kind", "kind_names"), (std::vector<std::string>{"", "send", "recv", "calc"}));
  // Calcs have no peer (-1); the send goes to 1, the receive comes from 0.
  EXPECT_EQ(f.read<std::int32_t>("/ops/peer"), (std::vector<std::int32_t>{-1, 1, 0, -1}));
  // A calc's size is nanoseconds, not bytes: 0 bytes.
  EXPECT_EQ(f.read<std::uint64_t>("/ops/bytes"), (std::vector<std::uint64_t>{0, 1250, 1250, 0}));
  EXPECT_EQ(f.read<std::int64_t>("/ops/start_ps"), (std::vector<std::int64_t>{0, 500'000, 0, 1'600'000}));
  EXPECT_EQ(f.read<std::int64_t>("/ops/end_ps"), (std::vector<std::int64_t>{500'000, 1'500'000, 1'600'000, 1'700'000}));
  EXPECT_EQ(f.read<std::uint8_t>("/ops/role"), (std::vector<std::uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(f.strings_attribute("/ops/role", "names"), (std::vector<std::string>{"compute", "dp"}));
  EXPECT_EQ(f.string_attribute("/ops/start_ps", "units"), "ps (-1: never started)");
}

TEST_F(RunResultsFile, RoleIsLeftOutWithoutRoles) {
  run_.results.op_role.clear();
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  EXPECT_TRUE(f.exists("/ops/kind"));
  EXPECT_FALSE(f.exists("/ops/role"));
}

TEST_F(RunResultsFile, LinksNameBothEndsWithBandwidthAndTotals) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  EXPECT_EQ(f.read_strings("/links/from"), (std::vector<std::string>{"h0", "s0", "s0", "h1"}));
  EXPECT_EQ(f.read_strings("/links/to"), (std::vector<std::string>{"s0", "h0", "h1", "s0"}));
  EXPECT_EQ(f.read<std::uint64_t>("/links/bandwidth_bps"),
            (std::vector<std::uint64_t>{10'000'000'000, 10'000'000'000, 40'000'000'000, 40'000'000'000}));
  EXPECT_EQ(f.string_attribute("/links/bandwidth_bps", "units"), "bit/s");
  EXPECT_EQ(f.read<std::uint64_t>("/links/bytes"), (std::vector<std::uint64_t>{2125, 0, 2500, 64}));
}

TEST_F(RunResultsFile, SampledBytesSumToTheLinkTotals) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  const std::vector<std::uint64_t> bytes = f.read<std::uint64_t>("/samples/bytes");
  const std::vector<std::uint64_t> totals = f.read<std::uint64_t>("/links/bytes");
  ASSERT_EQ(f.shape("/samples/bytes"), (Shape{2, 4}));
  for (std::size_t d = 0; d < 4; ++d) EXPECT_EQ(bytes[d] + bytes[4 + d], totals[d]) << "direction " << d;
}

TEST_F(RunResultsFile, SamplesHaveTimesShapesAndInterval) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  EXPECT_EQ(f.int_attribute("/samples", "interval_ps"), 1'000'000);
  EXPECT_EQ(f.read<std::int64_t>("/samples/time_ps"), (std::vector<std::int64_t>{1'000'000, 1'700'000}));
  for (const char* m : {"bytes", "utilisation", "queue_bytes"}) EXPECT_EQ(f.shape(std::string("/samples/") + m), (Shape{2, 4})) << m;
  EXPECT_EQ(f.read<std::uint64_t>("/samples/queue_bytes"), (std::vector<std::uint64_t>{0, 0, 1000, 0, 0, 0, 0, 0}));
}

TEST_F(RunResultsFile, UtilisationIsBitsOverBandwidthTimesTheSample) {
  write_run_results_hdf5(path_, run_.results);
  const std::vector<double> u = H5Reader(path_).read<double>("/samples/utilisation");
  ASSERT_EQ(u.size(), 8u);
  // Sample 0 lasts 1 µs. h0→s0: 1250 B = 10 000 bit; 10 Gbit/s × 1 µs = 10 000 bit: 1.
  EXPECT_DOUBLE_EQ(u[0], 1.0);
  EXPECT_DOUBLE_EQ(u[1], 0.0);
  // s0→h1: 2500 B = 20 000 bit of 40 Gbit/s × 1 µs = 40 000 bit: 0.5.
  EXPECT_DOUBLE_EQ(u[2], 0.5);
  // Sample 1 ends the run at 1.7 µs, so it lasts 0.7 µs. h0→s0: 875 B = 7000 bit of
  // 10 Gbit/s × 0.7 µs = 7000 bit: 1 (a full 1 µs would wrongly give 0.7).
  EXPECT_DOUBLE_EQ(u[4], 1.0);
  // h1→s0: 64 B = 512 bit of 40 Gbit/s × 0.7 µs = 28 000 bit.
  EXPECT_DOUBLE_EQ(u[7], 512.0 / 28'000.0);
}

TEST_F(RunResultsFile, UtilisationOfALinkWithoutBandwidthIsNotANumber) {
  run_.results.links[0].bandwidth_bps = 0;
  write_run_results_hdf5(path_, run_.results);
  const std::vector<double> u = H5Reader(path_).read<double>("/samples/utilisation");
  EXPECT_TRUE(std::isnan(u[0]));
  EXPECT_DOUBLE_EQ(u[2], 0.5);
}

TEST_F(RunResultsFile, MatricesAreChunkedAndCompressedAndWrittenInBlocks) {
  // 8192 directions make the utilisation go out in blocks of 2^20 / 8192 = 128 rows: 300 rows
  // are three blocks (128, 128, 44). Row k puts 1250 B on direction k (10 Gbit/s, 1 µs: 1.0).
  constexpr std::size_t rows = 300, cols = 8192;
  RunResults r;
  for (std::size_t d = 0; d < cols; ++d) r.links.push_back({"a" + std::to_string(d), "b", 10'000'000'000});
  r.samples.interval_ps = 1'000'000;
  r.samples.bytes.assign(rows * cols, 0);
  for (std::size_t k = 0; k < rows; ++k) {
    r.samples.time_ps.push_back(static_cast<std::int64_t>(k + 1) * 1'000'000);
    r.samples.bytes[k * cols + k] = 1250;
  }
  write_run_results_hdf5(path_, r);
  const H5Reader f(path_);
  const std::vector<double> u = f.read<double>("/samples/utilisation");
  for (std::size_t k : {0u, 127u, 128u, 255u, 256u, 299u}) {
    EXPECT_DOUBLE_EQ(u[k * cols + k], 1.0) << "row " << k;
    EXPECT_DOUBLE_EQ(u[k * cols + k + 1], 0.0) << "row " << k;
  }
  EXPECT_EQ(f.filters("/samples/utilisation"), (std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}));
  EXPECT_EQ(f.filters("/samples/bytes"), (std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}));
  // 2 × 2.46 M values of 8 B are 39 MB uncompressed; almost all zeros, they shrink far below 4 MB.
  EXPECT_LT(std::filesystem::file_size(path_), 4u << 20);
}

TEST_F(RunResultsFile, FlowsHaveCompletionTimesAndMinusOneWhenUndelivered) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  for (const char* c : {"src_host", "dst_host", "bytes", "start_ps", "end_ps", "fct_ps"})
    EXPECT_EQ(f.shape(std::string("/flows/") + c), Shape{2}) << c;
  EXPECT_EQ(f.read<std::uint32_t>("/flows/src_host"), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(f.read<std::uint32_t>("/flows/dst_host"), (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(f.read<std::uint64_t>("/flows/bytes"), (std::vector<std::uint64_t>{1250, 64}));
  // 1.6 µs − 0.5 µs = 1.1 µs; the second never arrived.
  EXPECT_EQ(f.read<std::int64_t>("/flows/fct_ps"), (std::vector<std::int64_t>{1'100'000, -1}));
  EXPECT_EQ(f.read<std::int64_t>("/flows/end_ps"), (std::vector<std::int64_t>{1'600'000, -1}));
}

TEST_F(RunResultsFile, CollectivesIndexTheirNames) {
  write_run_results_hdf5(path_, run_.results);
  const H5Reader f(path_);
  EXPECT_EQ(f.read<std::uint32_t>("/collectives/rank"), (std::vector<std::uint32_t>{0, 1, 1}));
  EXPECT_EQ(f.read<std::uint32_t>("/collectives/name"), (std::vector<std::uint32_t>{0, 0, 1}));
  EXPECT_EQ(f.strings_attribute("/collectives/name", "names"), (std::vector<std::string>{"allreduce", "barrier"}));
  EXPECT_EQ(f.read<std::int64_t>("/collectives/start_ps"), (std::vector<std::int64_t>{500'000, 0, 1'600'000}));
  EXPECT_EQ(f.read<std::int64_t>("/collectives/end_ps"), (std::vector<std::int64_t>{1'500'000, 1'600'000, -1}));
}

TEST_F(RunResultsFile, EmptyPartsAreNotWritten) {
  RunResults r;
  r.attributes["version"] = "0.1.0";
  write_run_results_hdf5(path_, r);
  const H5Reader f(path_);
  EXPECT_EQ(f.string_attribute("/", "version"), "0.1.0");
  for (const char* g : {"/ops", "/links", "/samples", "/flows", "/collectives"}) EXPECT_FALSE(f.exists(g)) << g;
}

TEST_F(RunResultsFile, AnUnwritablePathIsAnErrorNamingTheFile) {
  const std::string path = (dir_ / "no_such_folder" / "run.h5").string();
  try {
    write_run_results_hdf5(path, run_.results);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot create the HDF5 file"), std::string::npos) << e.what();
  }
}

TEST_F(RunResultsFile, InconsistentResultsAreRejectedBeforeTheFileIsTouched) {
  { std::ofstream(path_) << "keep me"; }
  run_.results.samples.bytes.pop_back();
  try {
    write_run_results_hdf5(path_, run_.results);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "samples.bytes has 7 values for 2 samples × 4 link directions");
  }
  std::ifstream in(path_);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "keep me");
}

TEST_F(RunResultsFile, OtherInconsistenciesSayWhatIsWrong) {
  const auto message = [&](auto&& spoil) {
    SampleRun run;
    test::make_sample_run(run);
    spoil(run.results);
    try {
      write_run_results_hdf5(path_, run.results);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([](RunResults& r) { r.attributes["format"] = "mine"; }),
            "attribute 'format' is reserved for the file format");
  EXPECT_EQ(message([](RunResults& r) { r.schedule = nullptr; }),
            "op times need RunResults::schedule for their kinds, peers and sizes");
  EXPECT_EQ(message([](RunResults& r) { r.op_times.push_back({0, 7, SimTime::ps(0), SimTime::ps(1)}); }),
            "op time for rank 0 op 7 is not in the schedule");
  EXPECT_EQ(message([](RunResults& r) { r.op_role.pop_back(); }), "op_role has 3 entries for 4 ops");
  EXPECT_EQ(message([](RunResults& r) { r.op_role[0] = 2; }), "op role 2 has no name (role_names has 2)");
  EXPECT_EQ(message([](RunResults& r) { r.link_bytes_total.pop_back(); }),
            "link_bytes_total has 3 entries for 4 link directions");
  EXPECT_EQ(message([](RunResults& r) { r.samples.interval_ps = 0; }), "samples.interval_ps must be positive, not 0");
  EXPECT_EQ(message([](RunResults& r) { r.samples.time_ps[1] = 1'000'000; }),
            "samples.time_ps[1] = 1000000 is not after the previous sample");
  EXPECT_EQ(message([](RunResults& r) { r.samples.queue_bytes.resize(4); }),
            "samples.queue_bytes has 4 values for 2 samples × 4 link directions");
  EXPECT_EQ(message([](RunResults& r) { r.flows[0].end = SimTime::ps(1); }), "a flow from host 0 to 1 ends before it starts");
  EXPECT_EQ(message([](RunResults& r) { r.collectives[0].name = 5; }),
            "collective name 5 is not in collective_names (2 names)");
}

}  // namespace
}  // namespace collsim::out
