#include "collsim/traces/comm_groups.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "collsim/common/input_error.hpp"

namespace collsim::traces {

CommGroups load_comm_groups(const std::string& path, std::uint32_t num_ranks) {
  std::ifstream in(path);
  if (!in) throw InputError::in_file(path, "cannot open the process-group file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError::at_byte(path, e.byte > 0 ? e.byte - 1 : 0, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object())
    throw InputError::in_file(path, "expected an object {\"<process group>\": [rank, ...], ...}");
  CommGroups groups;
  groups.file = path;
  for (const auto& [name, members] : j.items()) {
    const std::string where = "process group '" + name + "'";
    if (!members.is_array() || members.empty())
      throw InputError::in_file(path, where + ": expected a non-empty array of ranks");
    std::vector<goal::RankId> ranks;
    std::set<goal::RankId> seen;
    for (const auto& m : members) {
      if (!m.is_number_unsigned()) throw InputError::in_file(path, where + ": " + m.dump() + " is not a rank number");
      const auto rank = m.get<std::uint64_t>();
      if (rank >= num_ranks)
        throw InputError::in_file(path, where + ": rank " + std::to_string(rank) + " is not among the " +
                                            std::to_string(num_ranks) + " ranks of the trace");
      if (!seen.insert(static_cast<goal::RankId>(rank)).second)
        throw InputError::in_file(path, where + ": rank " + std::to_string(rank) + " appears twice");
      ranks.push_back(static_cast<goal::RankId>(rank));
    }
    groups.groups.emplace(name, std::move(ranks));
  }
  return groups;
}

}  // namespace collsim::traces
