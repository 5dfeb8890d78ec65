#include "collsim/sweep/point_command.hpp"

#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include "collsim/common/input_error.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::sweep {
namespace {

TEST(PointCommand, ParametersBecomeOptionsAndFlags) {
  SweepSpec s;
  s.command = "run";
  s.args = {"--topology", "fat_tree_k8"};
  const Point p = {{"bytes", "1MiB"}, {"lossy", "true"}, {"cc", "dcqcn"}, {"quiet", "false"}};
  EXPECT_EQ(point_arguments(s, p, {}, {}),
            (std::vector<std::string>{"run", "--topology", "fat_tree_k8", "--bytes", "1MiB", "--lossy", "--cc", "dcqcn",
                                      "--json"}));
}

TEST(PointCommand, WorkloadKeysEditACopyOfTheWorkloadFile) {
  test_support::ScratchDir t;
  const auto in = t.write("w.yaml", "name: w\nparallelism:\n  dp: 2\n  tp: 1\n");
  SweepSpec s;
  s.command = "workload";
  s.args = {"w", "--network", "loggops"};
  const Point p = {{"parallelism.dp", "8"}, {"training.micro_batch", "4"}, {"network", "flow"}};
  const auto out = t.path("points/1.yaml");
  EXPECT_EQ(point_arguments(s, p, in, out), (std::vector<std::string>{"workload", out.string(), "--network", "loggops",
                                                                      "--network", "flow", "--json"}));
  const YAML::Node edited = YAML::LoadFile(out.string());
  EXPECT_EQ(edited["parallelism"]["dp"].as<int>(), 8);
  EXPECT_EQ(edited["parallelism"]["tp"].as<int>(), 1);
  EXPECT_EQ(edited["training"]["micro_batch"].as<int>(), 4);  // a map made on the way
  EXPECT_EQ(edited["name"].as<std::string>(), "w");
}

TEST(PointCommand, AKeyBelowAValueIsAnError) {
  test_support::ScratchDir t;
  const auto in = t.write("w.yaml", "name: w\n");
  try {
    write_edited_workload(in, t.path("o.yaml"), {{"name.first", "x"}});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the part before 'first' is 'w', not a map"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::sweep
