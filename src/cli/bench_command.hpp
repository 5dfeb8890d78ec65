#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim bench phold`: the kernel's benchmark model.
void add_bench_command(CLI::App& app);

}  // namespace collsim::cli
