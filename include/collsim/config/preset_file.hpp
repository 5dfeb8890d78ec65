#pragma once
// Input files that may be named by a preset: a path, or NAME for DIR/NAME.yaml.

#include <filesystem>
#include <string>
#include <string_view>

namespace collsim::config {

// `name_or_path` if it exists, else the preset `dir`/NAME.yaml (a bare name only). Throws
// collsim::InputError listing the presets in `dir`; `kind` names them ("workload").
std::filesystem::path resolve_preset(const std::string& name_or_path, const std::filesystem::path& dir,
                                     std::string_view kind);

}  // namespace collsim::config
