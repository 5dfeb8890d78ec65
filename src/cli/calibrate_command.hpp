#pragma once
// `collsim calibrate LOG... --system PRESET -o calibrated.yaml`: fits the model parameters
// (validation/model_parameters.hpp) on training logs.

#include <CLI/CLI.hpp>

namespace collsim::cli {

void add_calibrate_command(CLI::App& app);

}  // namespace collsim::cli
