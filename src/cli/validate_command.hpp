#pragma once
// `collsim validate LOG`: every size of an nccl-tests log simulated on a system preset, and
// measured against simulated busbw.

#include <CLI/CLI.hpp>

namespace collsim::cli {

void add_validate_command(CLI::App& app);

}  // namespace collsim::cli
