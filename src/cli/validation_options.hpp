#pragma once
// Options that `validate` and `calibrate` share: how NCCL ran the logs (algorithm, protocol,
// channels, GPUs per node and per thread), how much to simulate, and a calibration to start
// from.

#include <string>

#include <CLI/CLI.hpp>

#include "validation_runner.hpp"

namespace collsim::cli {

// --gpus-per-node, --gpus-per-thread, --channels, --algo, --proto, --max-ops, --max-packets.
void add_run_choice_options(CLI::App& cmd, ValidationRequest& request);

// Throws CLI::ValidationError for a value the options above cannot take (an unknown protocol).
void check_run_choice_options(const ValidationRequest& request);

// Takes the calibration's parameters (and its system when none was given). Returns a note to
// print when the calibration was fitted for another system than the request's, else "".
std::string apply_calibration(const validation::Calibration& calibration, const std::string& path,
                              ValidationRequest& request);

}  // namespace collsim::cli
