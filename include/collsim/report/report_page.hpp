#pragma once
// `collsim report`: one self-contained HTML page (inline SVG charts, inline style, no script,
// nothing fetched at view time) for a result file or a validate comparison.

#include <nlohmann/json.hpp>
#include <string>

#include "collsim/report/result_tables.hpp"

namespace collsim::report {

// The time breakdown per rank and role, the collective timeline, the link-utilisation heat
// map and the FCT distribution, each where the file holds what it needs.
std::string result_page(const ResultTables& t);

// Measured against simulated bus bandwidth per run of a `validate --json` output. Throws
// collsim::InputError (naming `file`) when the JSON is not one.
std::string validation_page(const nlohmann::json& v, const std::string& file);

}  // namespace collsim::report
