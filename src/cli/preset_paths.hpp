#pragma once
// Where the preset files that ship with collsim live: $COLLSIM_HOME if set, else the source
// tree the program was built from.

#include <filesystem>
#include <string>

namespace collsim::cli {

std::filesystem::path collsim_home();
// A topology given as a file or as a preset name ("dgx_a100_pod" → topologies/dgx_a100_pod.yaml).
std::string resolve_topology(const std::string& name_or_path);

}  // namespace collsim::cli
