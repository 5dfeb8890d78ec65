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

std::filesystem::path topology_path(const std::string& name_or_path) {
  return config::resolve_preset(name_or_path, collsim_home() / "topologies", "topology");
}

CLI::Validator topology_file_or_preset() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          value = topology_path(value).string();
          return "";
        } catch (const InputError& e) {
          return e.detail();
        }
      },
      "FILE or preset");
}

}  // namespace collsim::cli
