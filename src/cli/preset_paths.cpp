#include "preset_paths.hpp"

#include <cstdlib>

#ifndef COLLSIM_SOURCE_DIR
#define COLLSIM_SOURCE_DIR "."
#endif

namespace collsim::cli {

std::filesystem::path collsim_home() {
  if (const char* home = std::getenv("COLLSIM_HOME"); home && *home) return home;
  return COLLSIM_SOURCE_DIR;
}

}  // namespace collsim::cli
