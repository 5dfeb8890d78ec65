#pragma once
// Where the preset files that ship with collsim live: $COLLSIM_HOME if set, else the source
// tree the program was built from.

#include <filesystem>

namespace collsim::cli {

std::filesystem::path collsim_home();

}  // namespace collsim::cli
