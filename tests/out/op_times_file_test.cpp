// `--ops` keeps writing the columns its users read: /ops/{rank, op, kind, start_ps, end_ps}.

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "collsim/out/op_times_file.hpp"
#include "collsim/report/hdf5_file.hpp"
#include "sample_results.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::out {
namespace {

TEST(OpTimesFile, WritesOneRowPerOpTime) {
  test::SampleRun run;
  test::make_sample_run(run);
  const test_support::ScratchDir scratch;
  const std::string path = scratch / "op_times.h5";
  write_op_times_hdf5(path, run.schedule, run.results.op_times);
  {
    const report::Hdf5File f(path);
    EXPECT_EQ(f.read<std::uint32_t>("/ops/rank"), (std::vector<std::uint32_t>{0, 0, 1, 1}));
    EXPECT_EQ(f.read<std::uint32_t>("/ops/op"), (std::vector<std::uint32_t>{0, 1, 0, 1}));
    EXPECT_EQ(f.read<std::uint8_t>("/ops/kind"), (std::vector<std::uint8_t>{3, 1, 2, 3}));
    EXPECT_EQ(f.read<std::int64_t>("/ops/start_ps"), (std::vector<std::int64_t>{0, 500'000, 0, 1'600'000}));
    EXPECT_EQ(f.read<std::int64_t>("/ops/end_ps"),
              (std::vector<std::int64_t>{500'000, 1'500'000, 1'600'000, 1'700'000}));
    EXPECT_EQ(f.string_attribute("/", "format"), "collsim-results");
    EXPECT_FALSE(f.exists("/ops/role"));
    EXPECT_FALSE(f.exists("/links"));
  }
}

TEST(OpTimesFile, AnUnwritablePathIsAnErrorNamingTheFile) {
  test::SampleRun run;
  test::make_sample_run(run);
  EXPECT_THROW(
      {
        try {
          write_op_times_hdf5("/nonexistent-collsim-folder/ops.h5", run.schedule, run.results.op_times);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(),
                       "/nonexistent-collsim-folder/ops.h5: cannot create the HDF5 file (is the folder there and writable?)");
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace collsim::out
