#include "collsim/sweep/sweep_run.hpp"
#include "support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>


namespace collsim::sweep {
namespace {

// A stand-in for collsim: prints {"bytes": N} for `run --bytes N --json`, fails for 3, and
// notes every run in a log, so that the test sees which points ran.
std::filesystem::path stand_in(const test_support::ScratchDir& t) {
  const auto p = t.write("fake.sh",
                         "#!/bin/sh\n"
                         "echo \"$3\" >> \"$(dirname \"$0\")/ran.log\"\n"
                         "if [ \"$3\" = 3 ]; then echo 'progress' >&2; echo 'collsim: error: three is bad' >&2; exit 1; fi\n"
                         "echo \"{\\\"bytes\\\": $3}\"\n");
  std::filesystem::permissions(p, std::filesystem::perms::owner_all);
  return p;
}

std::string ran(const test_support::ScratchDir& t) {
  std::ifstream f(t.path("ran.log"));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(SweepRun, PointsRunInParallelAFailureIsRecordedAndARerunSkipsWhatFinished) {
  test_support::ScratchDir t;
  SweepSpec spec;
  spec.command = "run";
  for (const char* b : {"1", "2", "3", "4"}) spec.points.push_back({{"bytes", b}});
  SweepSettings settings{stand_in(t).string(), 3, t.path("r.jsonl").string(), {}, t.path("points")};
  std::size_t reports = 0;
  std::vector<PointRecord> r = run_sweep(spec, settings, [&](const SweepProgress& p) {
    ++reports;
    EXPECT_LE(p.running, 3u);
    EXPECT_EQ(p.total, 4u);
  });
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0].ok);
  EXPECT_EQ(r[3].result["bytes"], 4);
  EXPECT_FALSE(r[2].ok);
  EXPECT_EQ(r[2].error, "collsim: error: three is bad (exit status 1)");
  EXPECT_EQ(reports, 5u);  // before and after each point
  // The rerun runs only the failed point again.
  std::filesystem::remove(t.path("ran.log"));
  r = run_sweep(spec, settings);
  EXPECT_EQ(ran(t), "3\n");
  EXPECT_TRUE(r[0].reused);
  EXPECT_FALSE(r[2].reused);
}

TEST(SweepRun, AProcessKilledBySignalSaysSo) {
  EXPECT_EQ(failure_of(-1, 9, "collsim: progress: 3 events\n"), "killed by signal Killed");
  EXPECT_EQ(failure_of(2, 0, "something\nlast words\n"), "last words (exit status 2)");
}

}  // namespace
}  // namespace collsim::sweep
