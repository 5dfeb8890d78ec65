#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim gen COLL --algo A --ranks N --bytes B ... [-o out.goal] [--verify] [--json]`.
void add_gen_command(CLI::App& app);

}  // namespace collsim::cli
