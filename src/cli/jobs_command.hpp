#pragma once

namespace CLI {
class App;
}

namespace collsim::cli {

// `collsim jobs JOBS.yaml`: several jobs on one fabric, each also alone on the same GPUs, with
// each one's slowdown and the links they share.
void add_jobs_command(CLI::App& app);

}  // namespace collsim::cli
