#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim sweep SPEC.yaml`: run a command over a grid or list of points, in parallel
// processes, resumable, with a table and a plot of the results.
void add_sweep_command(CLI::App& app);

}  // namespace collsim::cli
