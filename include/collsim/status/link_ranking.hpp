#pragma once
// Choosing the links /links/top lists: what the simulation (or rank 0, after gathering every
// rank's links) calls before StatusBoard::publish_links.

#include <cstddef>
#include <vector>

#include "collsim/status/run_status.hpp"

namespace collsim::status {

// The n most utilised of `links`, highest first. Ties go to more bytes, then to the smaller
// name, so the list does not depend on the order the links came in (which under MPI depends on
// the partition). A NaN utilisation (a link measured at time 0) counts as the lowest.
std::vector<LinkLoad> most_utilised(std::vector<LinkLoad> links, std::size_t n);

}  // namespace collsim::status
