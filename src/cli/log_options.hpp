#pragma once
// The global --log-level and --log-file options: given before the subcommand, they configure
// collsim::logging once parsing is complete and before the subcommand runs.

#include <CLI/CLI.hpp>

namespace collsim::cli {

void add_log_options(CLI::App& app);

}  // namespace collsim::cli
