#include "collsim/pdes_models/history_hash.hpp"

#include <algorithm>

namespace collsim::pdes_models {

std::uint64_t combine_lp_hashes(const std::vector<std::pair<pdes::LpId, std::uint64_t>>& mine,
                                pdes::Transport& transport) {
  struct Entry {
    std::uint64_t lp;
    std::uint64_t hash;
  };
  std::vector<Entry> entries;
  entries.reserve(mine.size());
  for (const auto& [lp, hash] : mine) entries.push_back({lp, hash});
  std::vector<Entry> all = pdes::gather_values(transport, entries);
  if (transport.rank() != 0) return 0;
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.lp < b.lp; });
  std::uint64_t h = all.size();
  for (const Entry& e : all) h = mix_hash(mix_hash(h, e.lp), e.hash);
  return h;
}

}  // namespace collsim::pdes_models
