#include "log_options.hpp"

#include <memory>
#include <string>

#include "collsim/common/input_error.hpp"
#include "collsim/logging/logging.hpp"
#include "parallel_context.hpp"

namespace collsim::cli {

void add_log_options(CLI::App& app) {
  auto config = std::make_shared<logging::Config>();
  app.add_option("--log-level", config->level, "Log level: trace, debug, info, warn, error or off")
      ->type_name("LEVEL")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            try {
              logging::parse_level(name);
              return {};
            } catch (const InputError& e) {
              return e.detail();
            }
          },
          ""));
  app.add_option("--log-file", config->file,
                 "Append log lines to FILE as well as stderr (under MPI, each rank to FILE.rank<N>)")
      ->type_name("FILE");
  // The rank comes from the launcher's environment: MPI is not up yet, and commands that never
  // start MPI still run one process per rank under mpirun. ParallelContext corrects it later
  // if the launcher is one we do not know.
  app.parse_complete_callback([config] {
    const LaunchRanks ranks = launch_ranks();
    config->rank = ranks.rank;
    config->ranks = ranks.size;
    logging::configure(*config);
  });
}

}  // namespace collsim::cli
