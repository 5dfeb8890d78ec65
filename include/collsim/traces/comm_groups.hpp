#pragma once
// Process groups of a Chakra trace: a JSON file {"<pg_name>": [rank, ...], ...} (the format
// PyTorch's Chakra converter and ASTRA-sim use), in group order.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collsim/goal/op.hpp"

namespace collsim::traces {

struct CommGroups {
  std::string file;                                       // empty: no file given
  std::map<std::string, std::vector<goal::RankId>> groups;
};

// Throws InputError naming the file and the offending group for anything that is not an
// object of non-empty arrays of distinct ranks below num_ranks.
CommGroups load_comm_groups(const std::string& path, std::uint32_t num_ranks);

}  // namespace collsim::traces
