#include "collsim/jobs/shared_links.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::jobs {

std::vector<SharedLink> shared_links(const std::vector<std::vector<std::uint64_t>>& bytes_by_job, std::size_t top) {
  std::vector<SharedLink> out;
  if (bytes_by_job.empty()) return out;
  const std::size_t slots = bytes_by_job.front().size();
  for (const auto& v : bytes_by_job)
    if (v.size() != slots) throw std::invalid_argument("jobs' link byte counts of different lengths");
  for (std::size_t s = 0; s < slots; ++s) {
    SharedLink l;
    l.slot = s;
    int users = 0;
    for (const auto& v : bytes_by_job) {
      l.bytes_by_job.push_back(v[s]);
      l.total += v[s];
      users += v[s] > 0;
    }
    if (users >= 2) out.push_back(std::move(l));
  }
  std::stable_sort(out.begin(), out.end(), [](const SharedLink& a, const SharedLink& b) { return a.total > b.total; });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace collsim::jobs
