#pragma once
// The command line of one point: the spec's arguments, then each parameter as its option.
// Parameters that set workload file keys write a copy of the workload with those keys set.

#include <filesystem>
#include <string>
#include <vector>

#include "collsim/sweep/sweep_spec.hpp"

namespace collsim::sweep {

// `workload_file`: the spec's workload (args[0]) resolved to a file, used when the point sets
// workload keys; the edited copy is written to `edited_workload`. Returns the arguments after
// the program's name, --json included.
std::vector<std::string> point_arguments(const SweepSpec& spec, const Point& point,
                                         const std::filesystem::path& workload_file,
                                         const std::filesystem::path& edited_workload);

// Sets `dotted` (parallelism.dp) to `value` in the YAML file `in`, writing `out`. Throws
// collsim::InputError when a key on the way is not a map.
void write_edited_workload(const std::filesystem::path& in, const std::filesystem::path& out,
                           const std::vector<Parameter>& keys);

}  // namespace collsim::sweep
