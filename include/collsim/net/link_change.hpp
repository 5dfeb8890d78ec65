#pragma once
// A link whose speed changes during a run (degraded to half, repaired, flapping between two
// speeds): from `at` on, both directions serialise at `bandwidth`. What is on the wire then
// finishes at the old speed.

#include <string>
#include <string_view>
#include <vector>

#include "collsim/common/sim_time.hpp"
#include "collsim/common/units.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::net {

struct LinkChange {
  topo::LinkId link = 0;
  SimTime at;
  Bandwidth bandwidth;
};

// "NODE_A:NODE_B@TIME=BANDWIDTH", e.g. "pod0_agg2:pod0_edge2@1ms=50Gbps": the link between
// the two named nodes (the first such, in either order). Throws std::invalid_argument saying
// what is wrong: no such node or link, a bad time or bandwidth, a bandwidth of 0 (a link
// going down is not modelled).
LinkChange parse_link_change(std::string_view text, const topo::Topology& topology);
// The link between the nodes named `a` and `b` (the first, in either order); throws
// std::invalid_argument quoting `text` when either node or the link is missing.
topo::LinkId named_link(const std::string& text, const std::string& a, const std::string& b, const topo::Topology& topology);

}  // namespace collsim::net
