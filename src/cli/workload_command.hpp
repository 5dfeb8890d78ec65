#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim workload FILE|PRESET [--topology T] [-o step.goal] [--run] [--network ...] [--json]`
void add_workload_command(CLI::App& app);

}  // namespace collsim::cli
