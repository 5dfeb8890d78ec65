#pragma once
// Where the preset files that ship with collsim live: $COLLSIM_HOME if set, else the source
// tree the program was built from.

#include <CLI/CLI.hpp>
#include <filesystem>

namespace collsim::cli {

std::filesystem::path collsim_home();

// For --topology: a topology file, or the name of a preset in topologies/ (fat_tree_k8), which
// it replaces by the preset's path; an error lists the presets.
CLI::Validator topology_file_or_preset();

}  // namespace collsim::cli
