#pragma once
// The workload YAML: model, training, parallelism, comm, device, cluster. Errors name the
// file, line and column, and what was expected there.

#include <filesystem>
#include <string>
#include <vector>

#include "collsim/workload/workload_spec.hpp"

namespace collsim::workload {

// Reads and validates a workload file; throws collsim::InputError.
WorkloadSpec load_workload(const std::string& path);

// A preset name ("gpt3_175b") or a path: the file to read. Presets live in `preset_dir`.
std::filesystem::path resolve_workload(const std::string& name_or_path, const std::filesystem::path& preset_dir);

}  // namespace collsim::workload
