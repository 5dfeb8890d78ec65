#pragma once
// The sweep's results as a table: a row per point, its parameters, its status and the chosen
// metrics (dotted paths into each point's JSON).

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collsim/sweep/results_file.hpp"

namespace collsim::sweep {

// The value at `path` ("fct_p50_ps", "exposed_comm_ps.dp") as text; "" when absent.
std::string metric(const nlohmann::json& result, const std::string& path);

// `wanted`, or when empty the top-level numbers of the first successful result.
std::vector<std::string> metric_columns(const std::vector<PointRecord>& records, const std::vector<std::string>& wanted);

// CSV: a column per parameter, status, the metrics, error. Fields with commas,
// quotes or line breaks are quoted.
void write_csv(std::ostream& out, const std::vector<PointRecord>& records, const std::vector<std::string>& metrics);

}  // namespace collsim::sweep
