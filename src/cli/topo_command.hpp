#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim topo show`: load, validate and describe a topology file.
void add_topo_command(CLI::App& app);

}  // namespace collsim::cli
