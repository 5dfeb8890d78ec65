#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim flows`: the fabric alone, driven by a flow list or a traffic pattern.
void add_flows_command(CLI::App& app);

}  // namespace collsim::cli
