#include "collsim/report/report_page.hpp"

#include <gtest/gtest.h>

#include "collsim/common/input_error.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::report {
namespace {

TEST(ReportPage, SaysWhichPartsTheFileLacks) {
  ResultTables t;
  t.file = "r.h5";
  t.command = "collsim run --coll <x>";
  t.fct_ps = std::vector<std::int64_t>{1'000'000, 2'000'000};
  const std::string html = result_page(t);
  EXPECT_NE(html.find("collsim run --coll &lt;x&gt;"), std::string::npos);
  EXPECT_NE(html.find("Not in this file: no /ops"), std::string::npos);
  EXPECT_NE(html.find("Not in this file: no /samples"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"fct\">"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // nothing to run, nothing to fetch
}

TEST(ReportPage, ValidationShowsBothBandwidthsPerSize) {
  const nlohmann::json v = {
      {"log", "x.log"},
      {"median_abs_error_large", 0.05},
      {"runs",
       {{{"collective", "allreduce"},
         {"system", "dgx-h100"},
         {"ranks", 8},
         {"sizes",
          {{{"bytes", 1048576}, {"measured_busbw", 100.0}, {"simulated_busbw", 110.0}, {"error", 0.1},
            {"algorithm", "ring"}},
           {{"bytes", 2097152}, {"measured_busbw", 150.0}, {"simulated_busbw", 140.0}, {"error", -0.0667}}}}}}}};
  const std::string html = validation_page(v, "v.json");
  EXPECT_NE(html.find("allreduce on dgx-h100, 8 ranks"), std::string::npos);
  EXPECT_NE(html.find("<td>1048576</td><td>100.00</td><td>110.00</td><td>10.0%</td>"), std::string::npos);
  EXPECT_NE(html.find("measured 2MiB: 150.0 GB/s"), std::string::npos);
  EXPECT_NE(html.find("median |error| at &gt;= 1 MiB 5.0%"), std::string::npos);
}

TEST(ReportPage, WhatIsNotAReportInputIsAnError) {
  EXPECT_THROW(validation_page(nlohmann::json{{"sizes", 1}}, "v.json"), InputError);
  EXPECT_THROW(validation_page(nlohmann::json{{"runs", {{{"sizes", {{{"bytes", 1}}}}}}}}, "v.json"), InputError);
  const test_support::ScratchDir dir;
  const std::string path = dir.write("not_hdf5.h5", "text").string();
  try {
    read_result_tables(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::report
