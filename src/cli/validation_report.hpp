#pragma once
// How `validate` shows its results: a table per run on stdout, or one JSON object, and a plot
// of measured against simulated busbw drawn by validation/plot_validation.py.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collsim/validation/run_validation.hpp"

namespace collsim::cli {

void print_validation_human(const validation::LogFile& log, const validation::RunValidation& v);
// Keys: log, runs (one object per run), and over all runs: sizes (each with bytes, measured_us,
// simulated_us, measured_busbw, simulated_busbw, error, run, algorithm), median_abs_error_large,
// median_abs_error_small, max_abs_error_large, max_abs_error_small (null when no such sizes).
nlohmann::json validation_json(const validation::LogFile& log, const std::vector<validation::RunValidation>& runs);
// Runs /usr/bin/python3 (or $PYTHON) on the plot script with the JSON; throws on failure.
void plot_validation(const nlohmann::json& j, const std::string& png);

}  // namespace collsim::cli
