#pragma once
// Where the preset files that ship with collsim live: $COLLSIM_HOME if set, else the source
// tree the program was built from.

#include <CLI/CLI.hpp>
#include <filesystem>

namespace collsim::cli {

std::filesystem::path collsim_home();

// A topology file, or the path of the preset of that name in topologies/ (fat_tree_k8). Throws
// InputError listing the presets.
std::filesystem::path topology_path(const std::string& name_or_path);

// For --topology: topology_path, its error as the option's.
CLI::Validator topology_file_or_preset();

}  // namespace collsim::cli
