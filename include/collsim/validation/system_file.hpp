#pragma once
// A system that is not built in, described in a YAML file: the hardware of one's own cluster
// for `collsim validate` and `calibrate`. Either every field, or `base: <preset>` and the
// fields that differ from it:
//
//   base: dgx-h100            # a built-in preset to start from (collsim validate --list-systems)
//   name: h100-4nic           # default: the file's name without its extension
//   description: DGX H100 with 4 of its 8 NICs cabled
//   nics_per_node: 4
//   nic: 400Gbps
//
// The keys and their units: system_file_help() (`collsim validate --help-system`).

#include <string>
#include <string_view>

#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {

// Throws InputError (file, line, column, what was expected) for anything it cannot use.
SystemPreset read_system_file(const std::string& path);

// A built-in preset's name, or the path of a system file (a name that is no preset and
// names a file, or ends in .yaml / .yml). Throws std::invalid_argument for an unknown
// name that is no file, listing the presets; InputError for a bad file.
SystemPreset resolve_system(const std::string& name_or_path);

// The keys of a system file and their meaning, for --help-system.
std::string_view system_file_help();

}  // namespace collsim::validation
