#pragma once
// Options that `validate` and `calibrate` share: how NCCL ran the logs (algorithm, protocol,
// channels, GPUs per node and per thread), how much to simulate, and a calibration to start
// from.

#include <string>

#include <CLI/CLI.hpp>

#include "collsim/validation/model_parameters.hpp"
#include "collsim/validation/option_error.hpp"
#include "collsim/validation/run_setup.hpp"

namespace collsim::cli {

// --gpus-per-node, --gpus-per-thread, --channels, --algo, --proto, --max-ops, --max-packets.
void add_run_choice_options(CLI::App& cmd, validation::ValidationRequest& request);

// Throws CLI::ValidationError for a value the options above cannot take (an unknown protocol).
void check_run_choice_options(const validation::ValidationRequest& request);

// Takes the calibration's parameters (and its system when none was given). Returns a note to
// print when the calibration was fitted for another system than the request's, else "".
// validation::system_of_option, its OptionError as the command line's.
validation::SystemPreset system_of_option(const std::string& name_or_path);

// Runs `body`, turning an OptionError into the command line's error of that option.
template <typename Body>
auto with_option_errors(Body&& body) {
  try {
    return body();
  } catch (const validation::OptionError& e) {
    throw CLI::ValidationError(e.option(), e.message());
  }
}

std::string apply_calibration(const validation::Calibration& calibration, const std::string& path,
                              validation::ValidationRequest& request);

}  // namespace collsim::cli
