#pragma once
// The link directions several jobs use, busiest first, with each job's bytes on them.

#include <cstdint>
#include <vector>

namespace collsim::jobs {

struct SharedLink {
  std::uint64_t slot = 0;                   // 2 * link + direction, as net::Fabric::link_bytes
  std::uint64_t total = 0;                  // bytes of all jobs
  std::vector<std::uint64_t> bytes_by_job;
};

// `bytes_by_job[j]`: job j's bytes per link direction (each as long as the others). At most
// `top` directions that two or more jobs crossed, by total bytes, then by slot.
std::vector<SharedLink> shared_links(const std::vector<std::vector<std::uint64_t>>& bytes_by_job, std::size_t top);

}  // namespace collsim::jobs
