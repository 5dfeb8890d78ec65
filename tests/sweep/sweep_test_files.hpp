#pragma once
// Temporary files for the sweep tests, removed with their folder.

#include "support/scratch_dir.hpp"

namespace collsim::sweep {

using TempFolder = test_support::ScratchDir;

}  // namespace collsim::sweep
