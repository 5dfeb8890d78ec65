#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim goal stats` and `collsim goal convert`.
void add_goal_command(CLI::App& app);

}  // namespace collsim::cli
