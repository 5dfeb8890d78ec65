#include "preset_paths.hpp"

#include <cstdlib>

#include "collsim/common/input_error.hpp"
#include "collsim/config/preset_file.hpp"

#ifndef COLLSIM_SOURCE_DIR
#define COLLSIM_SOURCE_DIR "."
#endif

namespace collsim::cli {

std::filesystem::path collsim_home() {
  if (const char* home = std::getenv("COLLSIM_HOME"); home && *home) return home;
  return COLLSIM_SOURCE_DIR;
}

CLI::Validator topology_file_or_preset() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          value = config::resolve_preset(value, collsim_home() / "topologies", "topology").string();
          return "";
        } catch (const InputError& e) {
          return e.detail();
        }
      },
      "FILE or preset");
}

}  // namespace collsim::cli
