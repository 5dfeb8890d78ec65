#pragma once
// `--plot`: a Python plot script (python3-matplotlib) run on files the command wrote, with
// $PYTHON or Debian's python3, which has the packages scripts/setup.sh installs.

#include <string>
#include <vector>

namespace collsim::cli {

// Runs `script` with `args`. Throws std::runtime_error, "--plot: ...", when the script is
// missing, a name holds a single quote (the shell line quotes them), or the script fails.
void run_plot_script(const std::string& script, const std::vector<std::string>& args);

}  // namespace collsim::cli
