#include "preset_paths.hpp"

#include <cstdlib>

#include "collsim/common/input_error.hpp"

#ifndef COLLSIM_SOURCE_DIR
#define COLLSIM_SOURCE_DIR "."
#endif

namespace collsim::cli {

std::filesystem::path collsim_home() {
  if (const char* home = std::getenv("COLLSIM_HOME"); home && *home) return home;
  return COLLSIM_SOURCE_DIR;
}

std::string resolve_topology(const std::string& name_or_path) {
  if (std::filesystem::exists(name_or_path)) return name_or_path;
  const std::filesystem::path preset = collsim_home() / "topologies" / (name_or_path + ".yaml");
  if (name_or_path.find('/') == std::string::npos && std::filesystem::exists(preset)) return preset.string();
  throw InputError::in_file(name_or_path, "no such topology file, and no preset of that name in " +
                                              (collsim_home() / "topologies").string());
}

}  // namespace collsim::cli
