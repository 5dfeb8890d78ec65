#include <gtest/gtest.h>

#include <sstream>

#include "collsim/common/input_error.hpp"
#include "collsim/sweep/results_file.hpp"
#include "collsim/sweep/results_table.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::sweep {
namespace {

PointRecord ok(const std::string& bytes, nlohmann::json result) {
  PointRecord r;
  r.point = {{"bytes", bytes}};
  r.ok = true;
  r.result = std::move(result);
  return r;
}

TEST(ResultsFile, TheLastRecordOfAPointWinsAndACutLastLineIsIgnored) {
  test_support::ScratchDir t;
  const std::string path = t.path("r.jsonl").string();
  PointRecord failed;
  failed.point = {{"bytes", "1MiB"}};
  failed.error = "collsim: error: no";
  append_result(path, failed);
  append_result(path, ok("1MiB", {{"events", 10}}));
  append_result(path, ok("2MiB", {{"events", 20}}));
  { std::ofstream(path, std::ios::app) << "{\"key\": \"bytes=4MiB\", \"poi"; }
  const auto records = read_results(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records.at("bytes=1MiB").ok);
  EXPECT_EQ(records.at("bytes=2MiB").result["events"], 20);
  EXPECT_TRUE(records.at("bytes=2MiB").reused);
  EXPECT_TRUE(read_results(t.path("none.jsonl").string()).empty());
}

TEST(ResultsFile, ABadLineInTheMiddleIsAnErrorWithItsLine) {
  test_support::ScratchDir t;
  const auto path = t.write("r.jsonl", "{\"key\": \"a=1\", \"point\": {\"a\": \"1\"}, \"status\": \"ok\"}\nnot json\n{}\n");
  try {
    read_results(path.string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r.jsonl:2:1"), std::string::npos) << e.what();
  }
}

TEST(ResultsTable, MetricsByDottedPathAndQuotedFields) {
  const nlohmann::json j = {{"events", 5}, {"name", "a,b"}, {"exposed", {{"dp", 1.5}}}};
  EXPECT_EQ(metric(j, "exposed.dp"), "1.5");
  EXPECT_EQ(metric(j, "exposed.tp"), "");
  EXPECT_EQ(metric(j, "name"), "a,b");
  std::vector<PointRecord> records = {ok("1MiB", j)};
  PointRecord failed;
  failed.point = {{"bytes", "2MiB"}, {"cc", "dcqcn"}};
  failed.error = "collsim: error: \"x\"";
  records.push_back(failed);
  EXPECT_EQ(metric_columns(records, {}), (std::vector<std::string>{"events"}));
  std::ostringstream csv;
  write_csv(csv, records, {"events", "name"});
  EXPECT_EQ(csv.str(),
            "bytes,cc,status,events,name,error\n"
            "1MiB,,ok,5,\"a,b\",\n"
            "2MiB,dcqcn,failed,,,\"collsim: error: \"\"x\"\"\"\n");
}

}  // namespace
}  // namespace collsim::sweep
