#include "collsim/sweep/sweep_spec.hpp"

#include <gtest/gtest.h>

#include "collsim/common/input_error.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::sweep {
namespace {

std::string error_of(const test_support::ScratchDir& t, const std::string& text) {
  try {
    load_sweep_spec(t.write("s.yaml", text).string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SweepSpec, AGridIsTheProductOfItsValuesInTheOrderWritten) {
  test_support::ScratchDir t;
  const SweepSpec s = load_sweep_spec(t.write("s.yaml",
                                              "command: run\n"
                                              "args: [--topology, fat_tree_k8]\n"
                                              "grid:\n"
                                              "  bytes: [1MiB, 16MiB]\n"
                                              "  routing: [ecmp, spray, adaptive]\n"
                                              "  lossy: false\n")
                                          .string());
  EXPECT_EQ(s.command, "run");
  EXPECT_EQ(s.args, (std::vector<std::string>{"--topology", "fat_tree_k8"}));
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(point_key(s.points[0]), "bytes=1MiB routing=ecmp lossy=false");
  EXPECT_EQ(point_key(s.points[2]), "bytes=1MiB routing=adaptive lossy=false");
  EXPECT_EQ(point_key(s.points[5]), "bytes=16MiB routing=adaptive lossy=false");
  EXPECT_FALSE(s.plot.has_value());
}

TEST(SweepSpec, ListedPointsMayNameDifferentParameters) {
  test_support::ScratchDir t;
  const SweepSpec s = load_sweep_spec(t.write("s.yaml",
                                              "command: workload\n"
                                              "args: [gpt3_1.3b]\n"
                                              "points:\n"
                                              "  - {parallelism.dp: 2}\n"
                                              "  - {parallelism.dp: 4, network: flow}\n"
                                              "metrics: [iteration_ps, exposed_comm_ps.dp]\n"
                                              "plot: {x: parallelism.dp, y: iteration_ps}\n")
                                          .string());
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(point_key(s.points[1]), "parallelism.dp=4 network=flow");
  EXPECT_EQ(s.metrics, (std::vector<std::string>{"iteration_ps", "exposed_comm_ps.dp"}));
  ASSERT_TRUE(s.plot.has_value());
  EXPECT_EQ(s.plot->y, "iteration_ps");
}

TEST(SweepSpec, ErrorsNameTheLineAndWhatWasExpected) {
  test_support::ScratchDir t;
  EXPECT_NE(error_of(t, "command: gen\ngrid: {bytes: [1]}\n").find("s.yaml:1:10: command 'gen' cannot be swept"),
            std::string::npos);
  EXPECT_NE(error_of(t, "command: run\n").find("needs 'grid' or 'points'"), std::string::npos);
  EXPECT_NE(error_of(t, "command: run\ngrid: {bytes: [1]}\npoints: [{bytes: 1}]\n").find("not both"), std::string::npos);
  EXPECT_NE(error_of(t, "command: run\ngrid: {parallelism.dp: [1]}\n").find("s.yaml:2:8: parameter 'parallelism.dp'"),
            std::string::npos);
  EXPECT_NE(error_of(t, "command: workload\ngrid: {parallelism.dp: [1]}\n").find("must start with the workload"),
            std::string::npos);
  EXPECT_NE(error_of(t, "command: run\npoints: [{bytes: 1}, {bytes: 1}]\n").find("point 2 repeats"), std::string::npos);
  EXPECT_NE(error_of(t, "command: run\ngrid: {--bytes: [1]}\n").find("without dashes"), std::string::npos);
  EXPECT_NE(error_of(t, "command: run\ngrid: {bytes: []}\n").find("non-empty list"), std::string::npos);
  EXPECT_NE(error_of(t, "command: run\ngrid: {bytes: [1]}\nplot: {x: size, y: events}\n").find("plot x 'size'"),
            std::string::npos);
  EXPECT_NE(error_of(t, "command: run\ngrid: {bytes: [1]}\njobs: 4\n").find("jobs"), std::string::npos);
}

}  // namespace
}  // namespace collsim::sweep
