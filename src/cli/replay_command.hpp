#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim replay TRACE... --topology T [--placement P] [--comm-groups F] [--emit-goal out.goal] [--json]`
void add_replay_command(CLI::App& app);

}  // namespace collsim::cli
