#include "collsim/status/run_status.hpp"

#include <algorithm>

namespace collsim::status {

void StatusBoard::publish(const RunStatus& status) {
  std::lock_guard lock(mutex_);
  status_ = status;
}

void StatusBoard::publish_links(std::vector<LinkLoad> links, std::int64_t sim_time_ps) {
  std::lock_guard lock(mutex_);
  // The old list goes out with the parameter, freed after the lock is released.
  links_.swap(links);
  links_time_ps_ = sim_time_ps;
  links_requested_ = false;
}

RunStatus StatusBoard::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::vector<LinkLoad> StatusBoard::top_links(std::size_t n, std::int64_t* as_of_sim_time_ps) const {
  std::lock_guard lock(mutex_);
  if (as_of_sim_time_ps != nullptr) *as_of_sim_time_ps = links_time_ps_;
  const auto count = static_cast<std::ptrdiff_t>(std::min(n, links_.size()));
  return {links_.begin(), links_.begin() + count};
}

void StatusBoard::request_links() {
  std::lock_guard lock(mutex_);
  links_requested_ = true;
}

bool StatusBoard::links_requested() const {
  std::lock_guard lock(mutex_);
  return links_requested_;
}

}  // namespace collsim::status
