#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim run --topology T (--schedule S | --coll C ...) [--placement P] [--json] ...`
void add_run_command(CLI::App& app);

}  // namespace collsim::cli
