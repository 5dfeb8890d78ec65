#include "collsim/pdes_models/history_hash.hpp"

#include <algorithm>
#include <cstring>

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
  const auto bytes = transport.gather(std::as_bytes(std::span(entries)));
  if (transport.rank() != 0) return 0;
  std::vector<Entry> all(bytes.size() / sizeof(Entry));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.lp < b.lp; });
  std::uint64_t h = all.size();
  for (const Entry& e : all) h = mix_hash(mix_hash(h, e.lp), e.hash);
  return h;
}

}  // namespace collsim::pdes_models
